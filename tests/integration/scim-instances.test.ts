/**
 * Two app instances on one PostgreSQL database: a directory deactivates (or deletes) a user
 * over SCIM through one instance, and that user's open session ends at the next request on
 * the other, although the other holds a valid cookie cache of it. PostgreSQL only
 * (TEST_DATABASE_URL); on SQLite one process sees every revocation itself (scim.test.ts).
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { makeTestClient, type TestClient } from "./helpers/auth-client";
import { createTestDatabase, type TestDatabase } from "./helpers/database";
import { createUser, signInWithPassword, unique } from "./helpers/factories";
import { createConnection, directory, oktaUser, patchOf, scimToken } from "./helpers/scim";
import { startServer, type RunningServer } from "./helpers/server";

const onPostgres = /^postgres(ql)?:/.test(process.env.TEST_DATABASE_URL ?? "");
const SECRET = "integration-test-secret-scim-instances-0123456789";
/** A fresh instance trusts no cache for a cookie lifetime after its listener connects. */
const TRUST_TIMEOUT_MS = 100_000;

let db: TestDatabase;
let a: RunningServer;
let b: RunningServer;
let prisma: import("~/server/db.server").Database;

async function signIn(server: RunningServer, email: string): Promise<TestClient> {
  const c = await signInWithPassword(makeTestClient(server.url), email);
  expect(c.jar.has("app.session_data")).toBe(true);
  return c;
}

/** The same browser (cookies, cache included) talking to another instance. */
function sameBrowserOn(server: RunningServer, c: TestClient): TestClient {
  const other = makeTestClient(server.url);
  for (const [name, value] of c.jar) other.jar.set(name, value);
  return other;
}

const sessionOf = async (c: TestClient) => (await c.client.getSession()).data;

/** Whether `server` answers from its cookie cache (a session deleted behind its back still counts there). */
async function servesFromCache(server: RunningServer): Promise<boolean> {
  const user = await createUser({ db: prisma });
  const c = await signIn(server, user.email);
  await prisma.session.deleteMany({ where: { userId: user.id } });
  return (await sessionOf(c))?.user.id === user.id;
}

async function waitFor(condition: () => Promise<boolean>, timeoutMs: number, what: string) {
  const deadline = Date.now() + timeoutMs;
  while (!(await condition())) {
    if (Date.now() > deadline) throw new Error(`Timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 2000));
  }
}

/** An organization with a connection on a verified domain, and a SCIM token of it. */
async function tenant() {
  const domain = `${unique("corp")}.test`;
  const owner = await createUser({ db: prisma });
  const organization = await prisma.organization.create({
    data: { name: "Acme", slug: unique("org"), members: { create: [{ userId: owner.id, role: "owner" }] } },
  });
  const provider = await createConnection(prisma, organization.id, { [domain]: true });
  const token = await scimToken(a.url, owner.id, provider.providerId, organization.id);
  return { domain, organization, token };
}

describe.skipIf(!onPostgres)("SCIM deactivation across two instances (PostgreSQL)", () => {
  beforeAll(async () => {
    db = await createTestDatabase();
    const env = { DATABASE_URL: db.url, AUTH_SECRET: SECRET, SMTP_URL: "smtp://127.0.0.1:9" };
    [a, b] = await Promise.all([startServer(env), startServer(env)]);
    // This process makes rows and sessions in the same database (generate-token's session).
    Object.assign(process.env, { DATABASE_URL: db.url, AUTH_SECRET: SECRET, BASE_URL: a.url });
    const { createDatabase } = await import("~/server/db.server");
    prisma = createDatabase(db.url);
    // Both instances must be past their first minute, when no cache is trusted yet.
    await waitFor(() => servesFromCache(b), TRUST_TIMEOUT_MS, "instance B to trust its cookie cache");
  }, TRUST_TIMEOUT_MS + 60_000);

  afterAll(async () => {
    await prisma?.$disconnect();
    const { closeDatabase } = await import("~/server/db.server");
    await closeDatabase();
    await Promise.all([a?.stop(), b?.stop()]);
    await db?.drop();
  });

  it("a directory deactivates a user through A: their session on B ends at the next request", async () => {
    const t = await tenant();
    // An employee with an account (and a password) on the verified domain: the directory links it.
    const employee = await createUser({ db: prisma, email: `${unique("jane")}@${t.domain}` });
    const created = await directory(a.url, t.token)("POST", "/Users", oktaUser(employee.email));
    expect(created.status).toBe(201);
    expect(await prisma.scimUser.count({ where: { userId: employee.id } })).toBe(1);

    const onA = await signIn(a, employee.email);
    const onB = sameBrowserOn(b, onA);
    expect((await sessionOf(onB))?.user.id).toBe(employee.id);
    // B answers this browser from its cookie cache until told otherwise.
    expect(await servesFromCache(b)).toBe(true);

    const patched = await directory(a.url, t.token)(
      "PATCH",
      `/Users/${created.body.id}`,
      patchOf({ op: "replace", value: { active: false } }),
    );
    expect(patched.status).toBe(200);
    expect(await sessionOf(onB)).toBeNull();
    expect(await sessionOf(onA)).toBeNull();
    expect(await prisma.member.count({ where: { userId: employee.id, organizationId: t.organization.id } })).toBe(0);
  });

  it("and the other way round: deleted through B, the session on A ends", async () => {
    const t = await tenant();
    const employee = await createUser({ db: prisma, email: `${unique("joe")}@${t.domain}` });
    const created = await directory(b.url, t.token)("POST", "/Users", oktaUser(employee.email));
    expect(created.status).toBe(201);
    const onB = await signIn(b, employee.email);
    const onA = sameBrowserOn(a, onB);
    expect((await sessionOf(onA))?.user.id).toBe(employee.id);
    expect(await servesFromCache(a)).toBe(true);

    expect((await directory(b.url, t.token)("DELETE", `/Users/${created.body.id}`)).status).toBe(204);
    expect(await sessionOf(onA)).toBeNull();
    expect(await prisma.user.count({ where: { id: employee.id } })).toBe(1);
  });
});
