import { randomBytes } from "node:crypto";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import pg from "pg";

export interface TestDatabase {
  url: string;
  drop(): Promise<void>;
}

/**
 * A fresh, empty database for one test file. The suite runs on SQLite unless
 * TEST_DATABASE_URL names a PostgreSQL server, in which case each file gets its own database
 * on that server (created here, dropped afterwards).
 */
export async function createTestDatabase(): Promise<TestDatabase> {
  const server = process.env.TEST_DATABASE_URL;
  if (server && /^postgres(ql)?:/.test(server)) {
    const name = `it_${randomBytes(6).toString("hex")}`;
    const admin = new pg.Client({ connectionString: server });
    await admin.connect();
    await admin.query(`CREATE DATABASE ${name}`);
    await admin.end();
    const url = new URL(server);
    url.pathname = `/${name}`;
    return {
      url: url.toString(),
      async drop() {
        const client = new pg.Client({ connectionString: server });
        await client.connect();
        await client.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
        await client.end();
      },
    };
  }
  const dir = await mkdtemp(join(tmpdir(), "app-it-"));
  return {
    url: `file:${join(dir, "app.db")}`,
    drop: () => rm(dir, { recursive: true, force: true }),
  };
}
