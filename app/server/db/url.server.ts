// DATABASE_URL -> which database, in one place for the client (db.server.ts) and the migrator.
import { isAbsolute, resolve } from "node:path";

export const DEFAULT_DATABASE_URL = "file:./data/app.db";

export type Provider = "sqlite" | "postgresql";

/** `postgres://` and `postgresql://` mean PostgreSQL; anything else is a SQLite file. */
export function providerOf(databaseUrl: string): Provider {
  return /^postgres(ql)?:\/\//i.test(databaseUrl) ? "postgresql" : "sqlite";
}

/**
 * The SQLite file of a `file:` URL, absolute. A relative path is relative to the process's
 * working directory (the repository root under `npm start`, `npm run dev` and vitest), as in
 * Prisma. Query parameters (`?connection_limit=1` and the like) are ignored.
 */
export function sqliteFilePath(databaseUrl: string): string {
  const path = databaseUrl.replace(/^file:/, "").replace(/\?.*$/, "");
  if (path === ":memory:") return path;
  return isAbsolute(path) ? path : resolve(process.cwd(), path);
}
