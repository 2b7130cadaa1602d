#!/usr/bin/env node
// Derives the PostgreSQL schema from the one schema source and generates both Prisma clients.
//
//   node scripts/prisma-schemas.mjs            write prisma/postgres/schema.prisma
//   node scripts/prisma-schemas.mjs --generate ...and run `prisma generate` for both schemas
//   node scripts/prisma-schemas.mjs --check    exit 1 when the PostgreSQL copy is stale
//
// Why two schemas and two clients: a generated Prisma client is bound to one provider and
// refuses a driver adapter of another, so SQLite (embedded default) and PostgreSQL
// (production) each need their own client. Both come from prisma/schema.prisma; the copy
// differs only in the datasource provider/url and the client's output directory.
// Nothing here touches the network: with engineType "client" no query engine is downloaded.
import { spawnSync } from "node:child_process";
import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

const root = join(dirname(fileURLToPath(import.meta.url)), "..");
export const SQLITE_SCHEMA = "prisma/schema.prisma";
export const POSTGRES_SCHEMA = "prisma/postgres/schema.prisma";

/**
 * The PostgreSQL variant of a SQLite schema text. Exported so that
 * scripts/new-migration.mjs can convert the schema snapshot the same way.
 */
export function toPostgres(sqliteSchema) {
  let text = sqliteSchema;
  // Each pattern must match exactly once, so a reformatted schema fails loudly here instead
  // of silently producing a second SQLite schema.
  const replace = (pattern, to) => {
    const count = text.match(new RegExp(pattern.source, "g"))?.length ?? 0;
    if (count !== 1) throw new Error(`prisma-schemas: expected ${pattern} once in the schema, found ${count}`);
    text = text.replace(pattern, to);
  };
  replace(/provider(\s*)= "sqlite"/, 'provider$1= "postgresql"');
  replace(/url(\s*)= "file:[^"]*"/, 'url$1= "postgresql://localhost/unused"');
  // The copy lives one directory deeper, and its client goes to its own directory.
  replace(/output(\s*)= "\.\.\/generated\/prisma\/sqlite"/, 'output$1= "../../generated/prisma/postgres"');
  return (
    "// GENERATED from prisma/schema.prisma by scripts/prisma-schemas.mjs. Do not edit:\n" +
    "// change prisma/schema.prisma and run `npm run db:generate`.\n\n" +
    text
  );
}

function read(relative) {
  return readFileSync(join(root, relative), "utf8");
}

function run(args) {
  // CHECKPOINT_DISABLE: skip Prisma's update check, which would wait on the network.
  const result = spawnSync(process.execPath, [join(root, "node_modules/prisma/build/index.js"), ...args], {
    cwd: root,
    stdio: "inherit",
    env: { ...process.env, CHECKPOINT_DISABLE: "1", PRISMA_HIDE_UPDATE_MESSAGE: "1" },
  });
  if (result.status !== 0) process.exit(result.status ?? 1);
}

// Only when run as a script (new-migration.mjs imports toPostgres).
if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  const expected = toPostgres(read(SQLITE_SCHEMA));
  if (process.argv.includes("--check")) {
    let current = "";
    try {
      current = read(POSTGRES_SCHEMA);
    } catch {
      // missing counts as stale
    }
    if (current !== expected) {
      console.error(`${POSTGRES_SCHEMA} is stale: run \`npm run db:generate\``);
      process.exit(1);
    }
  } else {
    mkdirSync(join(root, dirname(POSTGRES_SCHEMA)), { recursive: true });
    writeFileSync(join(root, POSTGRES_SCHEMA), expected);
    if (process.argv.includes("--generate")) {
      run(["generate", "--schema", SQLITE_SCHEMA]);
      run(["generate", "--schema", POSTGRES_SCHEMA]);
    }
  }
}
