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
import { DEFAULT_DATABASE_URL, providerOf, sqliteFilePath } from "./db/url.server";

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

/** A new client for `databaseUrl`. The app uses `prisma` below; tests and scripts may need their own. */
export function createDatabase(databaseUrl: string): Database {
  if (providerOf(databaseUrl) === "postgresql") {
    const client = new PostgresClient({ adapter: new PrismaPg({ connectionString: databaseUrl }) });
    // Same models, same generated API (see `Database`); only the provider baked into the
    // generated code differs, which TypeScript sees as unrelated types.
    return client as unknown as Database;
  }
  return new SqliteClient({ adapter: new SqliteAdapterFactory(sqliteFilePath(databaseUrl)) });
}

// Kept on globalThis so the dev server's module reloads reuse the client instead of opening
// one more connection (pool) per edit. Read process.env directly: env.server.ts validates
// the same variable with the same default.
const globalForPrisma = globalThis as typeof globalThis & { __prisma?: Database };
export const prisma: Database = (globalForPrisma.__prisma ??= createDatabase(
  process.env.DATABASE_URL || DEFAULT_DATABASE_URL,
));

/** Throws when the database cannot answer (readiness check, start-up). */
export async function checkDatabase(): Promise<void> {
  await prisma.$queryRaw`SELECT 1`;
}

/** Closes the connection(s) on shutdown. A later query would open them again. */
export async function closeDatabase(): Promise<void> {
  await prisma.$disconnect();
}

/** True for Prisma's unique constraint violation (P2002), the same on both databases. */
export function isUniqueViolation(error: unknown): boolean {
  return error instanceof Prisma.PrismaClientKnownRequestError && error.code === "P2002";
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
