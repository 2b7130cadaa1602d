/**
 * Query plans kept by the shape of their query. Prisma's query compiler turns each query into
 * a plan (its SQL with the values as bound arguments) on every call, which costs 0.2 to 0.4 ms
 * a query: most of a signed-in page's database time. A query's plan does not depend on the
 * values it compares or writes, only on where they stand, so a plan is compiled once per
 * shape (the query with each such value replaced by a marker) and the markers are replaced by
 * the values on each use.
 *
 * A shape is kept only when that is proven for it: compiled with two different sets of
 * markers, the plans must agree once the markers are renamed, every marker must stand whole
 * as a value of the plan (one the compiler rewrote would not), and the plan made from the
 * kept one with the first query's own values must equal the plan the compiler makes of that
 * query. Any other shape is compiled every time.
 */

/** What wasm-bindgen's QueryCompiler class offers the client. */
interface Compiler {
  compile(request: string): unknown;
  compileBatch(request: string): unknown;
}
export type CompilerClass = new (options: never) => Compiler;

/** Objects under these argument keys hold values; anything else (orderBy, distinct, mode…) is shape. */
const VALUE_KEYS = new Set(["where", "data", "cursor", "having"]);
/**
 * Keys inside those objects whose strings stay in the shape: `mode` chooses the SQL, and the
 * compiler rewrites the text of a pattern (`contains: "a"` binds "%a%"), so each text is a
 * shape of its own.
 */
const SHAPE_KEYS = new Set(["mode", "contains", "startsWith", "endsWith", "search"]);
/** Raw SQL carries its values in its text: each query is its own shape, so none is kept. */
const RAW = /"action":"(queryRaw|executeRaw|runCommandRaw|findRaw|aggregateRaw)"/;
/** Shapes kept at most, the oldest going first: a bound for shapes that vary with numbers (a page's `take`). */
export const MAX_SHAPES = 1000;

/** A value taken out of a query: a string, or a date's ISO text. */
type Taken = { value: string; date: boolean };
type Json = null | boolean | number | string | Json[] | { [key: string]: Json };

/** The i-th marker of a set: strings in Unicode's private use area, dates of a year no row has. */
const marker = (set: 0 | 1, i: number, date: boolean) =>
  date ? new Date(Date.UTC(1900 + set, 0, 1) + i).toISOString() : `\u{E000}${set}:${i}\u{E000}`;
/** The markers of `set` for the values `taken`, in order. */
const markersOf = (taken: Taken[], set: 0 | 1) => taken.map((value, i) => marker(set, i, value.date));
/** Each marker of `set` to the same value's entry of `to`. */
const renaming = (taken: Taken[], set: 0 | 1, to: string[]) =>
  new Map(markersOf(taken, set).map((name, i) => [name, to[i] ?? name]));
/** The first set's markers to the values themselves. */
const valuesOf = (taken: Taken[]) =>
  renaming(
    taken,
    0,
    taken.map((value) => value.value),
  );

/**
 * The shape of `node` with the markers of `set`, appending the values it takes out to `taken`.
 * `inValues` is whether `node` sits under a value key of some query's arguments.
 */
function shapeOf(node: Json, taken: Taken[], set: 0 | 1, inValues = false): Json {
  if (typeof node === "string") {
    if (!inValues || node === "") return node;
    return marker(set, taken.push({ value: node, date: false }) - 1, false);
  }
  if (node === null || typeof node !== "object") return node;
  if (Array.isArray(node)) return node.map((item) => shapeOf(item, taken, set, inValues));
  if ("$type" in node) {
    // Typed values (dates, JSON, decimals, field references…): only dates are taken out.
    if (!inValues || node.$type !== "DateTime" || typeof node.value !== "string") return node;
    return { $type: "DateTime", value: marker(set, taken.push({ value: node.value, date: true }) - 1, true) };
  }
  const shape: Record<string, Json> = {};
  for (const [key, value] of Object.entries(node)) {
    shape[key] = shapeOf(value, taken, set, SHAPE_KEYS.has(key) ? false : inValues || VALUE_KEYS.has(key));
  }
  return shape;
}

/** `plan` with each string that `lookup` names replaced by its value. */
function fill(plan: Json, lookup: Map<string, string>): Json {
  if (typeof plan === "string") return lookup.get(plan) ?? plan;
  if (plan === null || typeof plan !== "object") return plan;
  if (Array.isArray(plan)) return plan.map((item) => fill(item, lookup));
  const out: Record<string, Json> = {};
  for (const [key, value] of Object.entries(plan)) out[key] = fill(value, lookup);
  return out;
}

export function planCaching<C extends CompilerClass>(QueryCompiler: C): C {
  // @ts-expect-error: TypeScript cannot see that a class over a constructor of `never` options keeps its type.
  return class PlanCachingCompiler extends QueryCompiler {
    /** Plans compiled with the first set of markers, by shape; null for a shape that cannot be kept. */
    readonly #plans = new Map<string, Json | null>();

    override compile(request: string) {
      return this.#cached(request, (text) => super.compile(text));
    }

    override compileBatch(request: string) {
      return this.#cached(request, (text) => super.compileBatch(text));
    }

    #cached(request: string, compile: (text: string) => unknown) {
      if (RAW.test(request)) return compile(request);
      const query = JSON.parse(request) as Json;
      const taken: Taken[] = [];
      const key = JSON.stringify(shapeOf(query, taken, 0));
      const kept = this.#plans.get(key);
      if (kept) return fill(kept, valuesOf(taken));
      const plan = compile(request);
      if (kept === undefined) {
        if (this.#plans.size >= MAX_SHAPES) this.#plans.delete(this.#plans.keys().next().value!);
        this.#plans.set(key, prove(query, taken, plan as Json, compile));
      }
      return plan;
    }
  };
}

/** The plan of `query`'s shape, with the first set of markers, if it provably depends on its values only where they stand. */
function prove(query: Json, taken: Taken[], plan: Json, compile: (text: string) => unknown): Json | null {
  let first: Json, second: Json;
  try {
    first = compile(JSON.stringify(shapeOf(query, [], 0))) as Json;
    second = compile(JSON.stringify(shapeOf(query, [], 1))) as Json;
  } catch {
    // The compiler refused a marker: a value it checks (an enum, a format) is part of the shape.
    return null;
  }
  const text = JSON.stringify(first);
  // Each marker must stand whole as a value, as the compiler binds it.
  const markers = markersOf(taken, 0);
  if (!markers.every((name) => text.includes(JSON.stringify(name)))) return null;
  const own = JSON.stringify(fill(first, valuesOf(taken)));
  if (own.includes("\u{E000}") || own !== JSON.stringify(plan)) return null;
  const renamed = fill(second, renaming(taken, 1, markers));
  return JSON.stringify(renamed) === text ? first : null;
}
