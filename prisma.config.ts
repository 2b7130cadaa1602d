// Prisma CLI configuration (the app itself never reads this file).
//
// engine "js" + a driver adapter lets the CLI run without its native engines, which cannot
// be downloaded where the app is built and tested (docs/decisions/0001). What works through it:
// `prisma generate`, `prisma migrate diff` (both providers) and, for SQLite, `prisma migrate
// deploy` / `prisma studio`. The app applies migrations itself (app/server/db/migrate.server.ts)
// because the PostgreSQL adapter cannot run `migrate deploy` here.
//
// The PostgreSQL schema (prisma/postgres/schema.prisma) uses this same file: pass
// `--schema prisma/postgres/schema.prisma`; `migrate diff` between schema files needs no
// database of that kind, only a working adapter.
import { mkdirSync } from "node:fs";
import { dirname } from "node:path";
import { PrismaBetterSQLite3 } from "@prisma/adapter-better-sqlite3";
import { PrismaPg } from "@prisma/adapter-pg";
import { defineConfig } from "prisma/config";

const url = process.env.DATABASE_URL ?? "file:./data/app.db";

export default defineConfig({
  schema: "prisma/schema.prisma",
  migrations: { path: "prisma/migrations" },
  experimental: { adapter: true },
  engine: "js",
  // Only called by commands that need a database, so a bare `prisma generate` opens nothing.
  adapter: async () => {
    if (/^postgres(ql)?:\/\//.test(url)) return new PrismaPg({ connectionString: url });
    const file = url.replace(/^file:/, "");
    // better-sqlite3 creates the file but not its directory.
    if (file !== ":memory:") mkdirSync(dirname(file), { recursive: true });
    return new PrismaBetterSQLite3({ url: file });
  },
});
