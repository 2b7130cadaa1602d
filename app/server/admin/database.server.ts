/**
 * Figures about the database in use, for the admin console, read from the database's own
 * catalogue: for SQLite its pragmas, files and exact row counts; for PostgreSQL the
 * statistics it keeps (pg_stat_database, pg_stat_user_tables). And SQLite's quick integrity
 * check, run on request and audited.
 */
import { stat } from "node:fs/promises";
import { createRequire } from "node:module";
import { Worker } from "node:worker_threads";
import { audit } from "~/server/audit.server";
import type { AuthSession, RequestMeta } from "~/server/auth/session.server";
import { databaseProvider, Prisma, prisma } from "~/server/db.server";
import { sqliteFilePath } from "~/server/db/url.server";
import { loadEnv } from "~/server/env.server";
import { requireAdmin } from "./permissions.server";

interface TableFigures {
  name: string;
  /** Exact on SQLite; PostgreSQL's estimate (counting would read every table on each view). */
  rows: number;
  /** PostgreSQL only: the table with its indexes and TOAST data. */
  bytes: number | null;
}

export type DatabaseStats =
  | {
      provider: "sqlite";
      version: string;
      file: string;
      fileBytes: number | null;
      walBytes: number | null;
      journalMode: string;
      pageSize: number;
      pageCount: number;
      freelistCount: number;
      tables: TableFigures[];
    }
  | {
      provider: "postgresql";
      version: string;
      database: string;
      databaseBytes: number;
      connections: number;
      commits: number;
      rollbacks: number;
      blocksRead: number;
      blocksHit: number;
      /** Share of block reads served from PostgreSQL's buffer cache; null before any read. */
      cacheHitRatio: number | null;
      deadlocks: number;
      tables: TableFigures[];
    };

/** Counts and sizes come back as bigint from PostgreSQL, as number from SQLite. */
const num = (value: unknown) => Number(value ?? 0);

export function databaseStats(): Promise<DatabaseStats> {
  return databaseProvider() === "postgresql" ? postgresStats() : sqliteStats();
}

async function fileSize(path: string): Promise<number | null> {
  try {
    return (await stat(path)).size;
  } catch {
    return null; // no such file: no WAL right after a checkpoint, or an in-memory database
  }
}

async function pragma(name: string): Promise<unknown> {
  // A pragma name cannot be a bound parameter; these are the fixed names below.
  const [row] = await prisma.$queryRawUnsafe<Record<string, unknown>[]>(`PRAGMA ${name}`);
  return row ? Object.values(row)[0] : null;
}

async function sqliteStats(): Promise<DatabaseStats> {
  const file = sqliteFilePath(loadEnv().DATABASE_URL);
  const [version, journalMode, pageSize, pageCount, freelistCount, fileBytes, walBytes, names] = await Promise.all([
    prisma.$queryRaw<{ v: string }[]>`SELECT sqlite_version() AS v`,
    pragma("journal_mode"),
    pragma("page_size"),
    pragma("page_count"),
    pragma("freelist_count"),
    fileSize(file),
    fileSize(`${file}-wal`),
    prisma.$queryRaw<{ name: string }[]>`
      SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%' ORDER BY name`,
  ]);
  // One statement for all the counts; the names come from the catalogue, quoted as identifiers.
  const counts = names.length
    ? await prisma.$queryRaw<{ name: string; n: number | bigint }[]>(
        Prisma.join(
          names.map(
            ({ name }) =>
              Prisma.sql`SELECT ${name} AS name, COUNT(*) AS n FROM ${Prisma.raw(`"${name.replaceAll('"', '""')}"`)}`,
          ),
          " UNION ALL ",
        ),
      )
    : [];
  return {
    provider: "sqlite",
    version: version[0]?.v ?? "",
    file,
    fileBytes,
    walBytes,
    journalMode: String(journalMode),
    pageSize: num(pageSize),
    pageCount: num(pageCount),
    freelistCount: num(freelistCount),
    tables: counts.map((row) => ({ name: row.name, rows: num(row.n), bytes: null })),
  };
}

async function postgresStats(): Promise<DatabaseStats> {
  // Catalogue names have PostgreSQL's `name` type, which the driver adapter cannot read: cast to text.
  const [version, [database], tables] = await Promise.all([
    prisma.$queryRaw<{ v: string }[]>`SELECT current_setting('server_version') AS v`,
    prisma.$queryRaw<
      {
        name: string;
        bytes: bigint;
        connections: number;
        commits: bigint;
        rollbacks: bigint;
        blocks_read: bigint;
        blocks_hit: bigint;
        deadlocks: bigint;
      }[]
    >`
      SELECT datname::text AS name, pg_database_size(datname) AS bytes, numbackends AS connections,
        xact_commit AS commits, xact_rollback AS rollbacks, blks_read AS blocks_read,
        blks_hit AS blocks_hit, deadlocks
      FROM pg_stat_database WHERE datname = current_database()`,
    prisma.$queryRaw<{ name: string; rows: bigint; bytes: bigint }[]>`
      SELECT relname::text AS name, n_live_tup AS rows, pg_total_relation_size(relid) AS bytes
      FROM pg_stat_user_tables WHERE schemaname = current_schema()
      ORDER BY bytes DESC, name`,
  ]);
  const blocksRead = num(database?.blocks_read);
  const blocksHit = num(database?.blocks_hit);
  return {
    provider: "postgresql",
    version: version[0]?.v ?? "",
    database: database?.name ?? "",
    databaseBytes: num(database?.bytes),
    connections: num(database?.connections),
    commits: num(database?.commits),
    rollbacks: num(database?.rollbacks),
    blocksRead,
    blocksHit,
    cacheHitRatio: blocksRead + blocksHit > 0 ? blocksHit / (blocksRead + blocksHit) : null,
    deadlocks: num(database?.deadlocks),
    tables: tables.map((row) => ({ name: row.name, rows: num(row.rows), bytes: num(row.bytes) })),
  };
}

export interface IntegrityCheck {
  ok: boolean;
  /** "ok", or SQLite's list of problems (at most 100). */
  messages: string[];
  checkedAt: string;
}

// better-sqlite3 runs a statement on the calling thread, and a quick check reads the whole
// file: on the app's connection it would stall every request for as long. So it runs in a
// worker thread on a read-only connection of its own (WAL lets it read beside the writers).
// The code is a string for the reason password.server.ts gives (the Vite SSR bundle).
const QUICK_CHECK_WORKER = `
const { parentPort, workerData } = require("node:worker_threads");
const Database = require(workerData.driverPath);
const db = new Database(workerData.file, { readonly: true, fileMustExist: true, timeout: 5000 });
try {
  parentPort.postMessage(db.pragma("quick_check").map((row) => String(Object.values(row)[0])));
} finally {
  db.close();
}
`;

function quickCheckInWorker(file: string): Promise<string[]> {
  const driverPath = createRequire(import.meta.url).resolve("better-sqlite3");
  return new Promise((resolve, reject) => {
    const worker = new Worker(QUICK_CHECK_WORKER, { eval: true, workerData: { driverPath, file } });
    worker.once("message", resolve);
    worker.once("error", reject);
    worker.once("exit", (code) => reject(new Error(`quick check worker exited with code ${code}`)));
  });
}

/**
 * SQLite's `PRAGMA quick_check`: the structure of every table and index, without comparing
 * index contents to their tables (`integrity_check` does, at many times the cost). It reads
 * the whole file, so it runs only when an admin asks. PostgreSQL has no equivalent built in.
 */
export async function quickCheck(admin: AuthSession, meta: RequestMeta): Promise<IntegrityCheck> {
  requireAdmin(admin, "YOU_ARE_NOT_ALLOWED_TO_RUN_MAINTENANCE");
  const messages = await quickCheckInWorker(sqliteFilePath(loadEnv().DATABASE_URL));
  const ok = messages.length === 1 && messages[0] === "ok";
  await audit({
    userId: admin.user.id,
    category: "admin",
    action: "integrity-check",
    status: ok ? "success" : "failure",
    targetType: "database",
    details: { provider: "sqlite", result: messages.slice(0, 10) },
    meta,
  });
  return { ok, messages, checkedAt: new Date().toISOString() };
}
