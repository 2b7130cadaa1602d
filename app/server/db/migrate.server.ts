// Applies the checked-in migrations at start-up, for SQLite and PostgreSQL alike.
//
// Why not `prisma migrate deploy`: offline, Prisma's CLI can only reach PostgreSQL through
// @prisma/adapter-pg, and its WebAssembly schema engine fails there: the adapter cannot
// deserialize PostgreSQL's `name` type (docs/decisions/0001-database-migrations.md). So this
// small migrator does what deploy does:
// - runs each pending prisma/.../<name>/migration.sql in name order, each in its own
//   transaction together with its history row, so a failed migration leaves no trace;
// - holds a lock meanwhile, so instances starting together cannot both apply one
//   (PostgreSQL: the same advisory lock Prisma's engine takes; SQLite: BEGIN IMMEDIATE);
// - records history in Prisma's own `_prisma_migrations` table (same columns, sha256
//   checksum of the file), so Prisma's CLI, wherever its engine is available, sees the same
//   history and finds nothing to apply;
// - refuses to start when an applied migration's file was edited or a failed attempt
//   (left by Prisma's CLI) is recorded.
//
// Migration files are read from the working directory: prisma/migrations (SQLite) and
// prisma/postgres/migrations (PostgreSQL). The app always runs from the repository root
// (`npm start` -> node build/server.js, `npm run dev`, vitest), and the Vite build does not
// copy these files, so a deployment must ship the prisma/ folder next to build/.
import { createHash, randomUUID } from "node:crypto";
import { existsSync, mkdirSync, readdirSync, readFileSync } from "node:fs";
import { createRequire } from "node:module";
import { dirname, join, resolve } from "node:path";
import { providerOf, sqliteFilePath, type Provider } from "./url.server";

export const MIGRATIONS_DIR: Record<Provider, string> = {
  sqlite: "prisma/migrations",
  postgresql: "prisma/postgres/migrations",
};

/** The key of Prisma's own migration advisory lock: our migrator and Prisma's CLI exclude each other. */
const PRISMA_ADVISORY_LOCK = 72707369;

export interface Migration {
  name: string;
  sql: string;
  /** sha256 hex of the file, as Prisma computes it. */
  checksum: string;
}

interface AppliedRow {
  migration_name: string;
  checksum: string;
  finished_at: unknown;
  rolled_back_at: unknown;
}

/** Applies pending migrations for the database of `databaseUrl`; returns the names applied. */
export async function migrate(databaseUrl: string): Promise<string[]> {
  const provider = providerOf(databaseUrl);
  const migrations = readMigrations(resolve(process.cwd(), MIGRATIONS_DIR[provider]));
  return provider === "postgresql" ? migratePostgres(databaseUrl, migrations) : migrateSqlite(databaseUrl, migrations);
}

/** The migrations of a folder, in the order they apply (their names start with a timestamp). */
export function readMigrations(dir: string): Migration[] {
  if (!existsSync(dir)) throw new Error(`migrate: no migrations folder at ${dir} (run from the repository root)`);
  return readdirSync(dir, { withFileTypes: true })
    .filter((entry) => entry.isDirectory() && existsSync(join(dir, entry.name, "migration.sql")))
    .map((entry) => entry.name)
    .sort()
    .map((name) => {
      const sql = readFileSync(join(dir, name, "migration.sql"), "utf8");
      return { name, sql, checksum: sha256(sql) };
    });
}

/**
 * True when the migration is already applied; throws when its history row says it must not be
 * applied again (edited since, or a failed attempt awaiting `prisma migrate resolve`).
 */
function isApplied(migration: Migration, rows: AppliedRow[]): boolean {
  const row = rows.find((r) => r.migration_name === migration.name && r.rolled_back_at == null);
  if (!row) return false;
  if (row.finished_at == null) {
    throw new Error(
      `migrate: migration ${migration.name} failed earlier and is recorded as unfinished in _prisma_migrations; ` +
        "fix the database by hand, then delete that row (or mark it rolled back)",
    );
  }
  if (!matchesChecksum(migration.sql, row.checksum)) {
    throw new Error(
      `migrate: migration ${migration.name} was changed after it was applied ` +
        `(checksum ${row.checksum} in the database, ${migration.checksum} on disk); ` +
        "restore the file and put the change in a new migration",
    );
  }
  return true;
}

/**
 * Like Prisma, accept the file with either line ending: a checkout that converted LF to CRLF
 * (git on Windows) is not an edit.
 */
function matchesChecksum(sql: string, checksum: string): boolean {
  const lf = sql.replace(/\r\n/g, "\n");
  return [sql, lf, lf.replace(/\n/g, "\r\n")].some((text) => sha256(text) === checksum);
}

function sha256(text: string): string {
  return createHash("sha256").update(text).digest("hex");
}

/** Prisma's timestamp format in _prisma_migrations (`2025-01-01T00:00:00.000+00:00`). */
function now(): string {
  return new Date().toISOString().replace("Z", "+00:00");
}

// pg and better-sqlite3 ship no TypeScript types (and no @types packages are installed), so
// they are loaded through require and typed by the few calls made here.
const requireDriver = createRequire(import.meta.url);

interface SqliteStatement {
  all(...params: unknown[]): unknown[];
  run(...params: unknown[]): unknown;
}
interface SqliteDatabase {
  exec(sql: string): unknown;
  prepare(sql: string): SqliteStatement;
  pragma(sql: string): unknown;
  readonly inTransaction: boolean;
  close(): void;
}
type SqliteConstructor = new (file: string, options?: { timeout?: number }) => SqliteDatabase;

interface PgClient {
  connect(): Promise<void>;
  query(sql: string, params?: unknown[]): Promise<{ rows: unknown[] }>;
  end(): Promise<void>;
}
type PgModule = { Client: new (config: { connectionString: string }) => PgClient };

const SQLITE_HISTORY_TABLE = `CREATE TABLE IF NOT EXISTS "_prisma_migrations" (
    "id"                    TEXT PRIMARY KEY NOT NULL,
    "checksum"              TEXT NOT NULL,
    "finished_at"           DATETIME,
    "migration_name"        TEXT NOT NULL,
    "logs"                  TEXT,
    "rolled_back_at"        DATETIME,
    "started_at"            DATETIME NOT NULL DEFAULT current_timestamp,
    "applied_steps_count"   INTEGER UNSIGNED NOT NULL DEFAULT 0
)`;

async function migrateSqlite(databaseUrl: string, migrations: Migration[]): Promise<string[]> {
  const file = sqliteFilePath(databaseUrl);
  if (file !== ":memory:") mkdirSync(dirname(file), { recursive: true });
  const Database = requireDriver("better-sqlite3") as SqliteConstructor;
  // A long busy timeout: a second instance waits for the first one's migrations to finish.
  const db = new Database(file, { timeout: 60_000 });
  const applied: string[] = [];
  try {
    // WAL is a property of the file: set once here, every later connection uses it.
    await enableWal(db);
    // Off for this connection only, and set outside any transaction (inside one it is
    // ignored): Prisma's SQLite migrations rebuild a table by copy + DROP + rename, and with
    // foreign keys on, the DROP would cascade-delete the rows that reference it. The keys
    // are checked before each commit instead.
    db.pragma("foreign_keys = OFF");
    db.exec(SQLITE_HISTORY_TABLE);
    for (const migration of migrations) {
      // BEGIN IMMEDIATE takes the write lock, so the history read below cannot go stale.
      db.exec("BEGIN IMMEDIATE");
      try {
        const rows = db.prepare('SELECT * FROM "_prisma_migrations"').all() as AppliedRow[];
        if (isApplied(migration, rows)) {
          db.exec("COMMIT");
          continue;
        }
        const startedAt = now();
        db.exec(migration.sql);
        const violations = db.prepare("PRAGMA foreign_key_check").all();
        if (violations.length > 0) {
          throw new Error(`migrate: ${migration.name} leaves foreign key violations: ${JSON.stringify(violations)}`);
        }
        db.prepare(
          'INSERT INTO "_prisma_migrations" ("id", "checksum", "finished_at", "migration_name", "started_at", "applied_steps_count") VALUES (?, ?, ?, ?, ?, 1)',
        ).run(randomUUID(), migration.checksum, now(), migration.name, startedAt);
        db.exec("COMMIT");
        applied.push(migration.name);
      } catch (error) {
        // SQLite may already have rolled back by itself (e.g. disk full).
        if (db.inTransaction) db.exec("ROLLBACK");
        throw error;
      }
    }
  } finally {
    db.close();
  }
  return applied;
}

/**
 * Switches the file to WAL. The switch needs the file to itself and SQLite refuses it at
 * once (no busy wait) while another connection holds a lock, e.g. a second instance that
 * is migrating right now, so retry for as long as the busy timeout. Once the file is in
 * WAL the pragma is a no-op that needs no lock.
 */
async function enableWal(db: SqliteDatabase, timeoutMs = 60_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    try {
      db.pragma("journal_mode = WAL");
      return;
    } catch (error) {
      const busy = (error as { code?: string }).code === "SQLITE_BUSY";
      if (!busy || Date.now() > deadline) throw error;
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
  }
}

const POSTGRES_HISTORY_TABLE = `CREATE TABLE IF NOT EXISTS _prisma_migrations (
    id                      VARCHAR(36) PRIMARY KEY NOT NULL,
    checksum                VARCHAR(64) NOT NULL,
    finished_at             TIMESTAMPTZ,
    migration_name          VARCHAR(255) NOT NULL,
    logs                    TEXT,
    rolled_back_at          TIMESTAMPTZ,
    started_at              TIMESTAMPTZ NOT NULL DEFAULT now(),
    applied_steps_count     INTEGER NOT NULL DEFAULT 0
)`;

async function migratePostgres(databaseUrl: string, migrations: Migration[]): Promise<string[]> {
  const { Client } = requireDriver("pg") as PgModule;
  const client = new Client({ connectionString: databaseUrl });
  await client.connect();
  const applied: string[] = [];
  try {
    // Session-level lock held across all migrations; a second instance blocks here until
    // the first is done, then finds nothing left to apply.
    await client.query("SELECT pg_advisory_lock($1)", [PRISMA_ADVISORY_LOCK]);
    try {
      await client.query(POSTGRES_HISTORY_TABLE);
      const { rows } = await client.query("SELECT * FROM _prisma_migrations");
      for (const migration of migrations) {
        if (isApplied(migration, rows as AppliedRow[])) continue;
        await client.query("BEGIN");
        try {
          const startedAt = new Date();
          // No parameters: the simple query protocol, which runs a multi-statement script.
          await client.query(migration.sql);
          await client.query(
            "INSERT INTO _prisma_migrations (id, checksum, finished_at, migration_name, started_at, applied_steps_count) VALUES ($1, $2, clock_timestamp(), $3, $4, 1)",
            [randomUUID(), migration.checksum, migration.name, startedAt],
          );
          await client.query("COMMIT");
          applied.push(migration.name);
        } catch (error) {
          // Keep the migration's error, not a secondary one from a broken connection.
          await client.query("ROLLBACK").catch(() => undefined);
          throw error;
        }
      }
    } finally {
      // Ending the session below releases the lock anyway; this is only the polite path.
      await client.query("SELECT pg_advisory_unlock($1)", [PRISMA_ADVISORY_LOCK]).catch(() => undefined);
    }
  } finally {
    await client.end();
  }
  return applied;
}
