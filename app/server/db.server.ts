// The one Prisma client of the process. DATABASE_URL picks the database:
// `postgres://` / `postgresql://` -> PostgreSQL, anything else (default file:./data/app.db)
// -> an embedded SQLite file. Both go through driver adapters with engineType "client", so
// no native Prisma engine is involved (docs/decisions/0001-database-migrations.md).
import { randomInt } from "node:crypto";
import { mkdirSync } from "node:fs";
import { hostname } from "node:os";
import { dirname } from "node:path";
import { PrismaBetterSQLite3 } from "@prisma/adapter-better-sqlite3";
import { PrismaPg } from "@prisma/adapter-pg";
import { PrismaClient as PostgresClient } from "../../generated/prisma/postgres/client";
import { Prisma, PrismaClient as SqliteClient } from "../../generated/prisma/sqlite/client";
import { reusePreparedStatements } from "./db/statements.server";
import { DEFAULT_DATABASE_URL, providerOf, sqliteFilePath, type Provider } from "./db/url.server";
import { metricsEnabled, observeQuery } from "./metrics.server";

/**
 * The client type every caller types against. A generated client is bound to one provider,
 * so there are two (generated/prisma/sqlite and generated/prisma/postgres, both from
 * prisma/schema.prisma); their model APIs are the same, and the SQLite one is the common
 * denominator (it lacks PostgreSQL-only options such as `mode: "insensitive"`).
 */
export type Database = SqliteClient;
export { Prisma };
export type {
  Account,
  AuditLog,
  Invitation,
  Member,
  Organization,
  RateLimit,
  Session,
  Subscription,
  Team,
  TeamMember,
  TwoFactor,
  User,
  Verification,
} from "../../generated/prisma/sqlite/client";

/**
 * The SQLite adapter with this app's connection settings. The adapter takes only
 * better-sqlite3's constructor options (busy timeout among them), so the pragmas run on
 * the connection right after it opens.
 */
class SqliteAdapterFactory extends PrismaBetterSQLite3 {
  readonly #file: string;

  constructor(file: string) {
    // timeout = busy_timeout: wait up to 5 s for another writer instead of failing at once.
    super({ url: file, timeout: 5000 });
    this.#file = file;
  }

  override async connect() {
    // better-sqlite3 creates the file but not its directory (data/ on a fresh checkout).
    if (this.#file !== ":memory:") mkdirSync(dirname(this.#file), { recursive: true });
    const adapter = await super.connect();
    reusePreparedStatements(adapter);
    // synchronous=NORMAL is safe with WAL (a power cut may lose the last commits, never
    // corrupt the file). foreign_keys is better-sqlite3's default, stated here because the
    // cascades in the schema depend on it.
    await adapter.executeScript("PRAGMA busy_timeout = 5000; PRAGMA synchronous = NORMAL; PRAGMA foreign_keys = ON;");
    // WAL (readers never block the writer) is a property of the file that migrate() has
    // normally set already, which makes this a no-op. On a file still in another mode SQLite
    // refuses the switch while any other connection holds a lock; the file then simply
    // keeps its mode, which is slower but correct, so that is not worth failing a query.
    await adapter.executeScript("PRAGMA journal_mode = WAL;").catch(() => undefined);
    return adapter;
  }
}

/** How long a PostgreSQL connection may take to open before the query fails. */
const CONNECT_TIMEOUT_MS = 5000;

/** A new client for `databaseUrl`. The app uses `prisma` below; tests and scripts may need their own. */
export function createDatabase(databaseUrl: string): Database {
  if (providerOf(databaseUrl) === "postgresql") {
    const pool = {
      connectionString: databaseUrl,
      // Fail fast when the database cannot be reached: pg waits forever for a connection by
      // default, so a request would hang instead of answering 503 (isDatabaseUnavailable).
      connectionTimeoutMillis: CONNECT_TIMEOUT_MS,
      // Notice a peer that vanished without a FIN (a dead host or network) on pooled connections.
      keepAlive: true,
    };
    const client = new PostgresClient({ adapter: new PrismaPg(pool) });
    // Same models, same generated API (see `Database`); only the provider baked into the
    // generated code differs, which TypeScript sees as unrelated types.
    return client as unknown as Database;
  }
  return new SqliteClient({ adapter: new SqliteAdapterFactory(sqliteFilePath(databaseUrl)) });
}

// Read process.env directly: env.server.ts validates the same variable with the same default.
const databaseUrl = () => process.env.DATABASE_URL || DEFAULT_DATABASE_URL;

/**
 * `client` timing each query for the metrics (app_db_query_duration_seconds), by model and
 * operation. Only when metrics are served: the extension wraps every call, and a client
 * without it pays nothing.
 */
function timed(client: Database): Database {
  if (!metricsEnabled()) return client;
  const extended = client.$extends({
    query: {
      async $allOperations({ model, operation, args, query }) {
        const started = performance.now();
        try {
          return await query(args);
        } finally {
          observeQuery(model, operation, (performance.now() - started) / 1000);
        }
      },
    },
  });
  // The same client API: the extension only adds a step around each call.
  return extended as unknown as Database;
}

// Kept on globalThis so the dev server's module reloads reuse the client instead of opening
// one more connection (pool) per edit.
const globalForPrisma = globalThis as typeof globalThis & { __prisma?: Database };
export const prisma: Database = (globalForPrisma.__prisma ??= timed(createDatabase(databaseUrl())));

/** Which database `prisma` talks to, for the few statements written for each. */
export const databaseProvider = (): Provider => providerOf(databaseUrl());

/** Throws when the database cannot answer (readiness check, start-up). */
export async function checkDatabase(): Promise<void> {
  await prisma.$queryRaw`SELECT 1`;
}

/** Closes the connection(s) on shutdown. A later query would open them again. */
export async function closeDatabase(): Promise<void> {
  await prisma.$disconnect();
}

/**
 * "Contains" without regard to case on both databases: SQLite's LIKE already ignores ASCII
 * case, PostgreSQL needs `mode: "insensitive"`, which the SQLite client's types (the ones
 * the app is typed against, see `Database`) do not know.
 */
export function containing(text: string): Prisma.StringFilter {
  return (
    databaseProvider() === "postgresql" ? { contains: text, mode: "insensitive" } : { contains: text }
  ) as Prisma.StringFilter;
}

/** True for Prisma's unique constraint violation (P2002), the same on both databases. */
export function isUniqueViolation(error: unknown): boolean {
  return error instanceof Prisma.PrismaClientKnownRequestError && error.code === "P2002";
}

/** Prisma's codes for "the database is not there right now" (not reachable, timed out, closed). */
const UNAVAILABLE_CODES = new Set(["P1001", "P1002", "P1008", "P1011", "P1017", "P2024"]);
/** What @prisma/adapter-pg reports for the same (meta.driverAdapterError.cause.kind). */
const UNAVAILABLE_KINDS = new Set(["DatabaseNotReachable", "ConnectionClosed", "SocketTimeout", "TooManyConnections"]);
/** Socket errors of node:net, as pg passes them on. */
const SOCKET_CODES = new Set([
  "ECONNREFUSED",
  "ECONNRESET",
  "ETIMEDOUT",
  "EPIPE",
  "ENOTFOUND",
  "EAI_AGAIN",
  "EHOSTUNREACH",
]);
/**
 * pg's own words for a connection that went away or never came (it throws plain Errors), and
 * PostgreSQL's SQLSTATEs for a server that is shutting down, starting or out of connections.
 */
const PG_MESSAGES =
  /^(Connection terminated|Client has encountered a connection error|timeout exceeded when trying to connect)/;
const PG_STATES = /^(08\w{3}|57P0[1-3]|53300)$/;

/**
 * True when `error` means the database cannot be reached right now (stopped, restarting,
 * network cut, out of connections), as opposed to a query that is wrong. Such a request is
 * answered 503 (SERVICE_UNAVAILABLE) rather than 500: nothing is broken in the app, and the
 * pool reconnects by itself once the database is back. PostgreSQL only in practice: an
 * embedded SQLite file has no network to lose.
 */
export function isDatabaseUnavailable(error: unknown, depth = 0): boolean {
  if (!error || typeof error !== "object" || depth > 4) return false;
  if (error instanceof Prisma.PrismaClientInitializationError) return true;
  const { code, message, meta, cause } = error as {
    code?: unknown;
    message?: unknown;
    meta?: { driverAdapterError?: { cause?: { kind?: unknown } } };
    cause?: unknown;
  };
  if (error instanceof Prisma.PrismaClientKnownRequestError && UNAVAILABLE_CODES.has(error.code)) return true;
  const kind = meta?.driverAdapterError?.cause?.kind;
  if (typeof kind === "string" && UNAVAILABLE_KINDS.has(kind)) return true;
  if (typeof code === "string" && PG_STATES.test(code)) return true;
  // Only at the top: a fetch to some other service fails with the same codes in its cause.
  if (depth === 0 && typeof code === "string" && SOCKET_CODES.has(code)) return true;
  if (typeof message === "string" && PG_MESSAGES.test(message)) return true;
  return isDatabaseUnavailable(cause, depth + 1);
}

/** The last line of an error's message (Prisma puts the cause there), to name an outage in a log line without its stack. */
export function errorText(error: unknown): string {
  const message = error instanceof Error ? error.message : String(error);
  return (
    message
      .trim()
      .split("\n")
      .findLast((line) => line.trim())
      ?.trim() ?? "unknown error"
  );
}

const BLOCK = 36 ** 4;
const base36 = (value: number, width: number) => value.toString(36).padStart(width, "0").slice(-width);
const fingerprint = base36(
  (process.pid + [...hostname()].reduce((sum, char) => sum + char.charCodeAt(0), 0)) % BLOCK,
  4,
);
let counter = randomInt(BLOCK);

/**
 * A new id in the shape of Prisma's `cuid()` (version 1): "c", the creation time, a counter,
 * a host fingerprint and randomness, 25 characters. Code that must hand out an id before (or
 * instead of) a row, such as sign-up's answer for a taken address, makes it here, so that no
 * id can be told apart from another by its shape or by the time it encodes.
 */
export function newId(): string {
  counter = (counter + 1) % BLOCK;
  return `c${base36(Date.now(), 8)}${base36(counter, 4)}${fingerprint}${base36(randomInt(BLOCK), 4)}${base36(randomInt(BLOCK), 4)}`;
}
