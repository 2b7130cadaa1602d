import { readFileSync } from "node:fs";
import { beforeAll, describe, expect, it } from "vitest";
import { queryCompilerModule } from "./query-compiler.server";
import { type CompilerClass, MAX_SHAPES, planCaching } from "./query-plans.server";

type Compiler = { compile(request: string): unknown; compileBatch(request: string): unknown };
type Query = { modelName?: string; action: string; query: { arguments: object; selection: object } };

/** The real compiler of `provider`, set up as the generated client sets it up. */
async function compilerClass(provider: string): Promise<CompilerClass> {
  const runtime = (await import(`@prisma/client/runtime/query_compiler_bg.${provider}.mjs`)) as {
    QueryCompiler: CompilerClass;
    __wbg_set_wasm(exports: WebAssembly.Exports): void;
  };
  const instance = new WebAssembly.Instance(await queryCompilerModule(provider), { "./query_compiler_bg.js": runtime });
  runtime.__wbg_set_wasm(instance.exports);
  (instance.exports.__wbindgen_start as () => void)();
  return runtime.QueryCompiler;
}

/** The compiler class with a count of the plans it really compiled. */
function counted(Base: CompilerClass) {
  const calls = { count: 0 };
  class Counted extends Base {
    override compile(request: string) {
      calls.count++;
      return super.compile(request);
    }
    override compileBatch(request: string) {
      calls.count++;
      return super.compileBatch(request);
    }
  }
  return { Counted: Counted as unknown as CompilerClass, calls };
}

const schema = readFileSync("prisma/schema.prisma", "utf8");
const optionsFor = (provider: string) => ({
  datamodel: provider === "sqlite" ? schema : readFileSync("prisma/postgres/schema.prisma", "utf8"),
  // As the driver adapters describe themselves.
  provider: provider === "sqlite" ? "sqlite" : "postgres",
  connectionInfo: { supportsRelationJoins: provider === "postgresql" },
});
const request = (query: Query) => JSON.stringify(query);
const date = (iso: string) => ({ $type: "DateTime", value: iso });

/** Realistic queries of the app, each as two calls with other values. */
const QUERIES: Record<string, (v: { id: string; other: string; at: string }) => Query> = {
  "a count by owner": ({ id }) => ({
    modelName: "Passkey",
    action: "aggregate",
    query: {
      arguments: { where: { userId: id } },
      selection: { _count: { arguments: {}, selection: { _all: true } } },
    },
  }),
  "a filter on a date and a status": ({ id, at }) => ({
    modelName: "Invitation",
    action: "aggregate",
    query: {
      arguments: { where: { organizationId: id, status: "pending", expiresAt: { gt: date(at) } } },
      selection: { _count: { arguments: {}, selection: { _all: true } } },
    },
  }),
  "a list with a relation, an order and a page": ({ id, other }) => ({
    modelName: "Member",
    action: "findMany",
    query: {
      arguments: {
        where: { organizationId: id, role: { in: [other, "admin"] } },
        orderBy: [{ createdAt: "desc" }],
        take: 20,
        skip: 40,
      },
      selection: { $scalars: true, user: { arguments: {}, selection: { id: true, name: true, email: true } } },
    },
  }),
  "a creation with generated columns": ({ id, other }) => ({
    modelName: "AuditLog",
    action: "createOne",
    query: {
      arguments: { data: { userId: id, category: "auth", action: other, status: "ok" } },
      selection: { $scalars: true },
    },
  }),
  "an update by id": ({ id, other, at }) => ({
    modelName: "Session",
    action: "updateOne",
    query: { arguments: { where: { id }, data: { userAgent: other, expiresAt: date(at) } }, selection: { id: true } },
  }),
};
const FIRST = { id: "cuser0000000000000001", other: "member", at: "2026-11-27T10:00:00.000Z" };
const SECOND = { id: "cuser0000000000000002", other: "sign-in ' OR 1=1 --", at: "2027-01-01T00:00:00.000Z" };

describe.each(["sqlite", "postgresql"])("plans kept by shape (%s)", (provider) => {
  let Plain: CompilerClass;
  beforeAll(async () => {
    Plain = await compilerClass(provider);
  });
  const compilers = () => {
    const plain = new Plain(optionsFor(provider) as never) as Compiler;
    const { Counted, calls } = counted(Plain);
    const cached = new (planCaching(Counted))(optionsFor(provider) as never) as Compiler;
    return { plain, cached, calls };
  };

  it.each(Object.keys(QUERIES))("%s: the kept plan, filled, is the compiler's plan for the new values", (name) => {
    const { plain, cached, calls } = compilers();
    const query = QUERIES[name]!;
    expect(cached.compile(request(query(FIRST)))).toEqual(plain.compile(request(query(FIRST))));
    const proving = calls.count;
    expect(proving).toBeGreaterThan(1); // the query itself, then its shape with two sets of markers
    expect(cached.compile(request(query(SECOND)))).toEqual(plain.compile(request(query(SECOND))));
    expect(cached.compile(request(query(FIRST)))).toEqual(plain.compile(request(query(FIRST))));
    expect(calls.count).toBe(proving);
  });

  it('keeps a plan per pattern: the compiler binds `contains: "a"` as "%a%"', () => {
    const { plain, cached, calls } = compilers();
    const search = (id: string, text: string) =>
      request({
        modelName: "Member",
        action: "findMany",
        query: { arguments: { where: { organizationId: id, role: { contains: text } } }, selection: { role: true } },
      });
    expect(cached.compile(search("a", "owner"))).toEqual(plain.compile(search("a", "owner")));
    const proving = calls.count;
    expect(cached.compile(search("b", "owner"))).toEqual(plain.compile(search("b", "owner")));
    expect(calls.count).toBe(proving);
    expect(cached.compile(search("b", "admin"))).toEqual(plain.compile(search("b", "admin")));
    expect(calls.count).toBeGreaterThan(proving);
  });

  it("keeps no plan when the compiler's plan does not hold a value as the query gave it", () => {
    // A compiler that changes the values it binds, as a future one might (here: a suffix).
    const { Counted, calls } = counted(Plain);
    const Rewriting = class extends (Counted as unknown as new (options: never) => Compiler) {
      override compile(request: string) {
        const plan = JSON.stringify(super.compile(request));
        return JSON.parse(plan, (_, value: unknown) =>
          typeof value === "string" && value.startsWith("cuser") ? `${value}!` : value,
        ) as unknown;
      }
    };
    const cached = new (planCaching(Rewriting as unknown as CompilerClass))(optionsFor(provider) as never) as Compiler;
    const query = QUERIES["a count by owner"]!;
    const plan = (values: typeof FIRST) => JSON.stringify(cached.compile(request(query(values))));
    expect(plan(FIRST)).toContain(`"${FIRST.id}!"`);
    const proving = calls.count;
    expect(plan(SECOND)).toContain(`"${SECOND.id}!"`);
    expect(calls.count).toBe(proving + 1);
  });

  it("tells orders, pages and nulls apart: they are part of the shape", () => {
    const { plain, cached } = compilers();
    const list = (dir: string, take: number, image: string | null) =>
      request({
        modelName: "User",
        action: "findMany",
        query: { arguments: { where: { image }, orderBy: [{ name: dir }], take }, selection: { id: true } },
      });
    for (const [dir, take, image] of [
      ["asc", 10, "a.png"],
      ["desc", 10, "a.png"],
      ["desc", 20, "b.png"],
      ["desc", 20, null],
      ["asc", 10, null],
    ] as const) {
      expect(cached.compile(list(dir, take, image))).toEqual(plain.compile(list(dir, take, image)));
    }
  });

  it("keeps the plan of a query without values (a page of everyone, newest first)", () => {
    const { plain, cached, calls } = compilers();
    const everyone = request({
      modelName: "User",
      action: "findMany",
      query: { arguments: { orderBy: [{ createdAt: "desc" }, { id: "asc" }], take: 20 }, selection: { id: true } },
    });
    expect(cached.compile(everyone)).toEqual(plain.compile(everyone));
    const proving = calls.count;
    expect(cached.compile(everyone)).toEqual(plain.compile(everyone));
    expect(calls.count).toBe(proving);
  });

  it("keeps batches the same way", () => {
    const { plain, cached, calls } = compilers();
    const batch = (id: string) =>
      JSON.stringify({
        batch: [QUERIES["a count by owner"]!({ ...FIRST, id }), QUERIES["an update by id"]!({ ...FIRST, id })],
      });
    expect(cached.compileBatch(batch("a"))).toEqual(plain.compileBatch(batch("a")));
    const proving = calls.count;
    expect(cached.compileBatch(batch("b"))).toEqual(plain.compileBatch(batch("b")));
    expect(calls.count).toBe(proving);
  });

  it("compiles raw SQL every time, and refuses what the compiler refuses", () => {
    const { cached, calls } = compilers();
    const raw = request({
      action: "queryRaw",
      query: { arguments: { query: "SELECT 1", parameters: "[]" }, selection: {} },
    });
    cached.compile(raw);
    cached.compile(raw);
    expect(calls.count).toBe(2);
    const wrong = request({
      modelName: "User",
      action: "findUnique",
      query: { arguments: { where: { nope: "x" } }, selection: { id: true } },
    });
    expect(() => cached.compile(wrong)).toThrow();
  });

  it(`keeps at most ${MAX_SHAPES} shapes, dropping the oldest`, () => {
    const { cached, calls } = compilers();
    const page = (take: number, id: string) =>
      request({
        modelName: "Passkey",
        action: "findMany",
        query: { arguments: { where: { userId: id }, take }, selection: { id: true } },
      });
    for (let take = 1; take <= MAX_SHAPES + 1; take++) cached.compile(page(take, "a"));
    const before = calls.count;
    cached.compile(page(MAX_SHAPES + 1, "b")); // still kept
    expect(calls.count).toBe(before);
    cached.compile(page(1, "b")); // the oldest, dropped: compiled and proven again
    expect(calls.count).toBe(before + 3);
  });
});
