/**
 * Two app instances on one PostgreSQL database, for the tests of what must hold across
 * instances (a revocation, a directory's deactivation, a key disabled, an event delivered
 * once). PostgreSQL only: on SQLite one process sees every change itself.
 */
import { expect } from "vitest";
import { makeTestClient, type TestClient } from "./auth-client";
import { createTestDatabase, type TestDatabase } from "./database";
import { createUser, signInWithPassword } from "./factories";
import { startServer, type RunningServer } from "./server";

export const onPostgres = /^postgres(ql)?:/.test(process.env.TEST_DATABASE_URL ?? "");
/** A fresh instance trusts no cache for a cookie lifetime after its listener connects. */
export const TRUST_TIMEOUT_MS = 100_000;

export interface Instances {
  db: TestDatabase;
  a: RunningServer;
  b: RunningServer;
  prisma: import("~/server/db.server").Database;
  stop(): Promise<void>;
}

/**
 * Two instances on a fresh database, both past their first minute (when no cookie cache is
 * trusted yet), and a database client of this process on the same database. `env` adds to
 * both instances' environment; with `sameProcess` this process makes rows and sessions as
 * instance A would (its modules read the same database and secret).
 */
export async function startInstances(
  secret: string,
  { env = {}, sameProcess = false }: { env?: Record<string, string>; sameProcess?: boolean } = {},
): Promise<Instances> {
  const db = await createTestDatabase();
  const shared = { DATABASE_URL: db.url, AUTH_SECRET: secret, SMTP_URL: "smtp://127.0.0.1:9", ...env };
  const [a, b] = await Promise.all([startServer(shared), startServer(shared)]);
  if (sameProcess) Object.assign(process.env, { DATABASE_URL: db.url, AUTH_SECRET: secret, BASE_URL: a.url });
  const { createDatabase, closeDatabase } = await import("~/server/db.server");
  const prisma = createDatabase(db.url);
  const instances: Instances = {
    db,
    a,
    b,
    prisma,
    async stop() {
      await prisma.$disconnect();
      if (sameProcess) await closeDatabase();
      await Promise.all([a.stop(), b.stop()]);
      await db.drop();
    },
  };
  await waitFor(() => servesFromCache(prisma, b), TRUST_TIMEOUT_MS, "instance B to trust its cookie cache");
  return instances;
}

/** A browser signed in on `server`, its cookie cache included. */
export async function signIn(server: RunningServer, email: string): Promise<TestClient> {
  const c = await signInWithPassword(makeTestClient(server.url), email);
  expect(c.jar.has("app.session_data")).toBe(true);
  return c;
}

/** The same browser (cookies, cache included) talking to another instance. */
export function sameBrowserOn(server: RunningServer, c: TestClient): TestClient {
  const other = makeTestClient(server.url);
  for (const [name, value] of c.jar) other.jar.set(name, value);
  return other;
}

export const sessionOf = async (c: TestClient) => (await c.client.getSession()).data;

/**
 * Whether `server` answers from its cookie cache: a session deleted behind the app's back
 * (plain SQL, no NOTIFY) is only still served by an instance that trusts the cache.
 */
export async function servesFromCache(prisma: Instances["prisma"], server: RunningServer): Promise<boolean> {
  const user = await createUser({ db: prisma });
  const c = await signIn(server, user.email);
  await prisma.session.deleteMany({ where: { userId: user.id } });
  return (await sessionOf(c))?.user.id === user.id;
}

export async function waitFor(condition: () => Promise<boolean>, timeoutMs: number, what: string) {
  const deadline = Date.now() + timeoutMs;
  while (!(await condition())) {
    if (Date.now() > deadline) throw new Error(`Timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 2000));
  }
}
