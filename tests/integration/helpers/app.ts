/**
 * The usual set-up of an integration test file: a fresh database, a mailbox (real SMTP), the
 * built server on both, and this process pointed at the same database and secret so tests
 * can read and write rows and make sessions in-process. `stop()` undoes all of it.
 */
import { createTestDatabase, type TestDatabase } from "./database";
import { startMailbox, type Mailbox } from "./mailbox";
import { startServer, type RunningServer } from "./server";

export interface TestApp {
  db: TestDatabase;
  mailbox: Mailbox;
  server: RunningServer;
  /** The server's URL, also its BASE_URL. */
  base: string;
  prisma: typeof import("~/server/db.server").prisma;
  stop(): Promise<void>;
}

export async function startTestApp(options: {
  secret: string;
  /** Extra server environment, e.g. `{ RATE_LIMIT: "on" }`. */
  env?: Record<string, string>;
}): Promise<TestApp> {
  const db = await createTestDatabase();
  const mailbox = await startMailbox();
  const server = await startServer({
    DATABASE_URL: db.url,
    AUTH_SECRET: options.secret,
    SMTP_URL: mailbox.url,
    ...options.env,
  });
  const base = server.url;
  Object.assign(process.env, {
    DATABASE_URL: db.url,
    AUTH_SECRET: options.secret,
    BASE_URL: base,
    SMTP_URL: mailbox.url,
  });
  const { prisma, closeDatabase } = await import("~/server/db.server");
  return {
    db,
    mailbox,
    server,
    base,
    prisma,
    async stop() {
      await closeDatabase();
      await server.stop();
      await mailbox.close();
      await db.drop();
    },
  };
}
