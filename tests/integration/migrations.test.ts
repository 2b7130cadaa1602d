// The checked-in migrations, the schema and the two generated clients agree, on real
// SQLite and PostgreSQL databases.
//
// PostgreSQL: a throw-away database on the server of TEST_POSTGRES_URL (default
// postgres://postgres@127.0.0.1:5432/test, trust auth, a role allowed to CREATE DATABASE).
// SKIP_POSTGRES=1 skips that half.
import { spawn, spawnSync } from "node:child_process";
import { randomBytes } from "node:crypto";
import { once } from "node:events";
import { mkdirSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { createRequire } from "node:module";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ensureAdmin } from "~/server/db/admin-seed.server";
import { migrate, readMigrations } from "~/server/db/migrate.server";
import { createDatabase, isUniqueViolation, Prisma, type Database } from "~/server/db.server";

const requireDriver = createRequire(import.meta.url);
const root = process.cwd();
const ADMIN_URL = process.env.TEST_POSTGRES_URL ?? "postgres://postgres@127.0.0.1:5432/test";
const skipPostgres = process.env.SKIP_POSTGRES === "1";

// ---------------------------------------------------------------------------------------
// What the schema declares: table -> column -> nullable.

type Shape = Record<string, Record<string, boolean>>;

const SCALARS = new Set(["String", "Boolean", "Int", "BigInt", "Float", "Decimal", "DateTime", "Json", "Bytes"]);

/** Tables and columns of prisma/schema.prisma (a small parser, cross-checked below against the generated client). */
function declaredShape(): Shape {
  const text = readFileSync(join(root, "prisma/schema.prisma"), "utf8").replace(/\/\/.*$/gm, "");
  const shape: Shape = {};
  for (const [, , body] of text.matchAll(/^model (\w+) \{([\s\S]*?)^\}/gm)) {
    const table = /@@map\("([^"]+)"\)/.exec(body!)?.[1];
    if (!table) throw new Error("every model maps to a lower-case table name");
    const columns: Record<string, boolean> = {};
    for (const line of body!.split("\n")) {
      const field = /^\s*(\w+)\s+(\w+)(\[\])?(\?)?(.*)$/.exec(line);
      if (!field || !SCALARS.has(field[2]!)) continue; // relation fields, blank lines, @@ attributes
      const column = /@map\("([^"]+)"\)/.exec(field[5]!)?.[1] ?? field[1]!;
      columns[column] = field[4] === "?";
    }
    shape[table] = columns;
  }
  return shape;
}

const expected = declaredShape();

it("the schema parser agrees with the generated client", () => {
  // Model and scalar field names as Prisma itself sees them (no @map on fields here, so
  // field names are column names).
  const models = Object.values(Prisma.ModelName);
  expect(models).toHaveLength(Object.keys(expected).length);
  const fromClient = models.map((model) =>
    Object.values((Prisma as unknown as Record<string, Record<string, string>>)[`${model}ScalarFieldEnum`]!).sort(),
  );
  const fromParser = Object.values(expected).map((columns) => Object.keys(columns).sort());
  expect(fromParser).toEqual(fromClient);
});

it("prisma/postgres/schema.prisma is generated from prisma/schema.prisma", () => {
  const result = spawnSync(process.execPath, ["scripts/prisma-schemas.mjs", "--check"], {
    cwd: root,
    encoding: "utf8",
  });
  expect(result.stderr).toBe("");
  expect(result.status).toBe(0);
});

it("the schema snapshot matches the schema (no schema change without a migration)", () => {
  expect(readFileSync(join(root, "prisma/migrations/schema.snapshot.prisma"), "utf8")).toBe(
    readFileSync(join(root, "prisma/schema.prisma"), "utf8"),
  );
});

it("both providers have the same migrations", () => {
  const names = (dir: string) => readMigrations(join(root, dir)).map((m) => m.name);
  expect(names("prisma/migrations").length).toBeGreaterThan(0);
  expect(names("prisma/postgres/migrations")).toEqual(names("prisma/migrations"));
});

// ---------------------------------------------------------------------------------------
// Each database: introspection + Prisma client behaviour.

interface HistoryRow {
  migration_name: string;
  checksum: string;
  finished_at: unknown;
  applied_steps_count: unknown;
}

interface Target {
  migrationsDir: string;
  /** A fresh, empty database; returns its URL. */
  fresh(): Promise<string>;
  shape(url: string): Promise<Shape>;
  indexes(url: string): Promise<string[]>;
  history(url: string): Promise<HistoryRow[]>;
  exec(url: string, sql: string): Promise<void>;
  cleanup(): Promise<void>;
}

// The drivers ship no types (and no @types packages are installed): the few calls made here.
type Row = Record<string, unknown>;
interface SqliteDb {
  prepare(sql: string): { all<T = Row>(): T[] };
  exec(sql: string): void;
  close(): void;
}
interface PgClient {
  connect(): Promise<void>;
  query<T = Row>(sql: string): Promise<{ rows: T[] }>;
  end(): Promise<void>;
}

function sqliteTarget(): Target {
  const dir = mkdtempSync(join(tmpdir(), "migrations-test-"));
  const Database = requireDriver("better-sqlite3") as new (file: string) => SqliteDb;
  let n = 0;
  const open = <T>(url: string, fn: (db: SqliteDb) => T): T => {
    const db = new Database(url.replace(/^file:/, ""));
    try {
      return fn(db);
    } finally {
      db.close();
    }
  };
  return {
    migrationsDir: "prisma/migrations",
    // A sub-directory that does not exist yet: migrate() must create it.
    fresh: async () => `file:${join(dir, `db${++n}`, "app.db")}`,
    shape: async (url) =>
      open(url, (db) => {
        const shape: Shape = {};
        const tables = db
          .prepare("SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%'")
          .all();
        for (const { name } of tables) {
          const columns: Record<string, boolean> = (shape[String(name)] = {});
          for (const column of db.prepare(`PRAGMA table_info("${String(name)}")`).all()) {
            // A TEXT PRIMARY KEY column may hold NULL in SQLite unless declared NOT NULL;
            // Prisma's migrations declare it, so notnull is reliable here.
            columns[String(column.name)] = column.notnull === 0;
          }
        }
        return shape;
      }),
    indexes: async (url) =>
      open(url, (db) =>
        db
          .prepare("SELECT name FROM sqlite_master WHERE type = 'index' AND name NOT LIKE 'sqlite_autoindex_%'")
          .all()
          .map((row) => String(row.name)),
      ),
    history: async (url) => open(url, (db) => db.prepare('SELECT * FROM "_prisma_migrations"').all<HistoryRow>()),
    exec: async (url, sql) => open(url, (db) => void db.exec(sql)),
    cleanup: async () => rmSync(dir, { recursive: true, force: true }),
  };
}

function postgresTarget(): Target {
  const pg = requireDriver("pg") as { Client: new (config: { connectionString: string }) => PgClient };
  const created: string[] = [];
  const withClient = async <T>(url: string, fn: (client: PgClient) => Promise<T>): Promise<T> => {
    const client = new pg.Client({ connectionString: url });
    await client.connect();
    try {
      return await fn(client);
    } finally {
      await client.end();
    }
  };
  return {
    migrationsDir: "prisma/postgres/migrations",
    fresh: async () => {
      const name = `app_mig_${randomBytes(6).toString("hex")}`;
      await withClient(ADMIN_URL, (client) => client.query(`CREATE DATABASE ${name}`));
      created.push(name);
      const url = new URL(ADMIN_URL);
      url.pathname = `/${name}`;
      return url.toString();
    },
    shape: (url) =>
      withClient(url, async (client) => {
        const { rows } = await client.query(
          "SELECT table_name, column_name, is_nullable FROM information_schema.columns WHERE table_schema = 'public'",
        );
        const shape: Shape = {};
        for (const row of rows)
          (shape[String(row.table_name)] ??= {})[String(row.column_name)] = row.is_nullable === "YES";
        return shape;
      }),
    indexes: (url) =>
      withClient(url, async (client) => {
        // Primary keys are named <table>_pkey on PostgreSQL and are implicit on SQLite.
        const { rows } = await client.query(
          "SELECT indexname FROM pg_indexes WHERE schemaname = 'public' AND indexname NOT LIKE '%\\_pkey'",
        );
        return rows.map((row) => String(row.indexname));
      }),
    history: (url) =>
      withClient(url, async (client) => (await client.query<HistoryRow>("SELECT * FROM _prisma_migrations")).rows),
    exec: (url, sql) => withClient(url, async (client) => void (await client.query(sql))),
    cleanup: async () => {
      for (const name of created) {
        await withClient(ADMIN_URL, (client) => client.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`));
      }
    },
  };
}

const targets: [string, () => Target, boolean][] = [
  ["sqlite", sqliteTarget, false],
  ["postgresql", postgresTarget, skipPostgres],
];

/** The index names both providers must have: the same, whichever migrations produced them. */
const indexNames: Record<string, string[]> = {};

describe.each(targets)("%s", (provider, makeTarget, skip) => {
  let target: Target;
  let url: string;
  let db: Database;
  const migrations = () => readMigrations(join(root, target.migrationsDir));

  beforeAll(async () => {
    if (skip) return;
    target = makeTarget();
    url = await target.fresh();
  });
  afterAll(async () => {
    await db?.$disconnect();
    await target?.cleanup();
  });

  it.skipIf(skip)("applies every migration once, then nothing", async () => {
    expect(await migrate(url)).toEqual(migrations().map((m) => m.name));
    expect(await migrate(url)).toEqual([]);
  });

  it.skipIf(skip)("records them like Prisma does", async () => {
    const rows = await target.history(url);
    expect(rows.map((r) => [r.migration_name, r.checksum])).toEqual(migrations().map((m) => [m.name, m.checksum]));
    for (const row of rows) {
      expect(row.finished_at).not.toBeNull();
      expect(Number(row.applied_steps_count)).toBe(1);
    }
  });

  it.skipIf(skip)("creates exactly the tables and columns the schema declares", async () => {
    const actual = await target.shape(url);
    delete actual._prisma_migrations;
    expect(actual).toEqual(expected);
  });

  it.skipIf(skip)("creates the same indexes on both databases", async () => {
    const names = (await target.indexes(url)).sort();
    expect(names.length).toBeGreaterThan(10);
    indexNames[provider] = names;
    const other = indexNames[provider === "sqlite" ? "postgresql" : "sqlite"];
    if (other) expect(names).toEqual(other);
  });

  it.skipIf(skip)("refuses to start when an applied migration was edited", async () => {
    const fresh = await target.fresh();
    await migrate(fresh);
    await target.exec(fresh, `UPDATE "_prisma_migrations" SET "checksum" = 'edited'`);
    await expect(migrate(fresh)).rejects.toThrow(/was changed after it was applied/);
  });

  it.skipIf(skip)("works with the Prisma client: create, read, unique violations, cascades", async () => {
    db = createDatabase(url);
    const expiresAt = new Date(Date.now() + 3600_000);
    const user = await db.user.create({
      data: {
        email: "ada@example.com",
        name: "Ada",
        accounts: { create: { providerId: "credential", accountId: "ada", password: "hash" } },
        sessions: { create: { token: "token-hash", expiresAt } },
      },
    });
    expect(user).toMatchObject({
      email: "ada@example.com",
      emailVerified: false,
      role: "user",
      banned: false,
      image: null,
    });
    await db.auditLog.create({ data: { userId: user.id, category: "auth", action: "sign-in", status: "success" } });

    const read = await db.user.findUniqueOrThrow({
      where: { email: "ada@example.com" },
      include: { accounts: true, sessions: true },
    });
    expect(read.sessions[0]!.expiresAt.getTime()).toBe(expiresAt.getTime());
    expect(read.accounts[0]!.password).toBe("hash");

    const duplicate = await db.user
      .create({ data: { email: "ada@example.com", name: "Again" } })
      .catch((e: unknown) => e);
    expect(isUniqueViolation(duplicate)).toBe(true);

    await db.user.delete({ where: { id: user.id } });
    expect(await db.session.count()).toBe(0);
    expect(await db.account.count()).toBe(0);
    // The audit trail survives the user, without the link.
    expect(await db.auditLog.findFirstOrThrow()).toMatchObject({ userId: null, action: "sign-in" });
  });

  it.skipIf(skip)("ensureAdmin creates the admin once, also when called concurrently", async () => {
    const input = { email: " Admin@Example.com ", password: "correct horse battery", name: "Admin" };
    const results = await Promise.all([ensureAdmin(input, db), ensureAdmin(input, db)]);
    expect(results.filter((r) => r.created)).toHaveLength(1);
    expect(await ensureAdmin(input, db)).toEqual({ created: false });

    const admin = await db.user.findUniqueOrThrow({
      where: { email: "admin@example.com" },
      include: { accounts: true },
    });
    expect(admin).toMatchObject({ role: "admin", emailVerified: true, name: "Admin" });
    expect(admin.accounts).toHaveLength(1);
    expect(admin.accounts[0]).toMatchObject({ providerId: "credential", accountId: admin.id });
    const bcrypt = (await import("bcryptjs")).default;
    expect(await bcrypt.compare(input.password, admin.accounts[0]!.password!)).toBe(true);
  });

  it.skipIf(skip)("ensureAdmin promotes an existing user and keeps the password", async () => {
    await db.user.create({
      data: {
        email: "owner@example.com",
        name: "Owner",
        accounts: { create: { providerId: "credential", accountId: "owner", password: "existing-hash" } },
      },
    });
    expect(await ensureAdmin({ email: "owner@example.com", password: "other", name: "X" }, db)).toEqual({
      created: false,
    });
    const owner = await db.user.findUniqueOrThrow({
      where: { email: "owner@example.com" },
      include: { accounts: true },
    });
    expect(owner).toMatchObject({ role: "admin", emailVerified: true, name: "Owner" });
    expect(owner.accounts.map((a) => a.password)).toEqual(["existing-hash"]);
  });

  it.skipIf(skip)("ensureAdmin gives a social-only user a credential account", async () => {
    const social = await db.user.create({
      data: {
        email: "social@example.com",
        name: "Social",
        emailVerified: true,
        accounts: { create: { providerId: "github", accountId: "42" } },
      },
    });
    await ensureAdmin({ email: "social@example.com", password: "new password", name: "X" }, db);
    const accounts = await db.account.findMany({ where: { userId: social.id }, orderBy: { providerId: "asc" } });
    expect(accounts.map((a) => [a.providerId, a.accountId])).toEqual([
      ["credential", social.id],
      ["github", "42"],
    ]);
  });
});

describe.skipIf(skipPostgres)("postgresql, two instances starting together", () => {
  // postgresTarget() creates nothing until fresh() is called; cleanup drops what it created.
  const target = postgresTarget();
  afterAll(() => target.cleanup());

  it("both succeed and each migration is applied once", async () => {
    const url = await target.fresh();
    const [a, b] = await Promise.all([migrate(url), migrate(url)]);
    const all = readMigrations(join(root, "prisma/postgres/migrations")).map((m) => m.name);
    expect([...a, ...b].sort()).toEqual(all);
    expect((await target.history(url)).map((r) => r.migration_name).sort()).toEqual(all);
  });
});

describe("sqlite, two instances starting together", () => {
  let target: Target;
  beforeAll(() => void (target = sqliteTarget()));
  afterAll(() => target.cleanup());

  it("the second waits for the first's migrations to commit, then applies nothing", async () => {
    const url = await target.fresh();
    const file = url.replace(/^file:/, "");
    mkdirSync(dirname(file), { recursive: true });
    const migrations = readMigrations(join(root, "prisma/migrations"));
    // The first instance, in another process: holds the write lock while it "migrates",
    // and commits only half a second after saying so.
    const first = spawn(
      process.execPath,
      [
        "-e",
        `const db = new (require("better-sqlite3"))(process.env.FILE);
         db.exec("BEGIN IMMEDIATE");
         db.exec('CREATE TABLE "_prisma_migrations" ("id" TEXT PRIMARY KEY NOT NULL, "checksum" TEXT NOT NULL, "finished_at" DATETIME, "migration_name" TEXT NOT NULL, "logs" TEXT, "rolled_back_at" DATETIME, "started_at" DATETIME NOT NULL DEFAULT current_timestamp, "applied_steps_count" INTEGER UNSIGNED NOT NULL DEFAULT 0)');
         for (const m of JSON.parse(process.env.MIGRATIONS)) {
           db.exec(m.sql);
           db.prepare('INSERT INTO "_prisma_migrations" (id, checksum, finished_at, migration_name, applied_steps_count) VALUES (?, ?, ?, ?, 1)').run(m.name, m.checksum, new Date().toISOString(), m.name);
         }
         console.log("locked");
         setTimeout(() => { db.exec("COMMIT"); db.close(); }, 500);`,
      ],
      { cwd: root, env: { ...process.env, FILE: file, MIGRATIONS: JSON.stringify(migrations) } },
    );
    const exited = once(first, "exit");
    await new Promise<void>((resolve, reject) => {
      first.stdout.on("data", (chunk: Buffer) => chunk.toString().includes("locked") && resolve());
      first.on("exit", (code) => reject(new Error(`first instance exited early (${code})`)));
    });

    expect(await migrate(url)).toEqual([]);
    expect((await exited)[0]).toBe(0);
    expect((await target.history(url)).map((r) => r.migration_name)).toEqual(migrations.map((m) => m.name));
  });
});

describe("sqlite, Prisma's CLI", () => {
  let target: Target;
  beforeAll(() => void (target = sqliteTarget()));
  afterAll(() => target.cleanup());

  it("sees the history our migrator wrote as complete", async () => {
    const url = await target.fresh();
    await migrate(url);
    const result = spawnSync(process.execPath, ["node_modules/prisma/build/index.js", "migrate", "status"], {
      cwd: root,
      encoding: "utf8",
      env: { ...process.env, DATABASE_URL: url, CHECKPOINT_DISABLE: "1" },
    });
    expect(result.stdout).toContain("Database schema is up to date!");
    expect(result.status).toBe(0);
  });
});
