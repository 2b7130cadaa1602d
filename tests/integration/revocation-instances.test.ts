/**
 * Two app instances on one PostgreSQL database: a revocation made through one ends the
 * session on the other at once, although the other holds a valid cookie cache; and an
 * instance whose LISTEN connection is down reads the database instead of trusting caches.
 * PostgreSQL only (TEST_DATABASE_URL); SQLite has one process, covered by security.test.ts.
 */
import pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { TestDatabase } from "./helpers/database";
import { makeTestClient } from "./helpers/auth-client";
import { createUser, PASSWORD } from "./helpers/factories";
import {
  onPostgres,
  sameBrowserOn,
  servesFromCache,
  sessionOf,
  signIn,
  startInstances,
  TRUST_TIMEOUT_MS,
  waitFor,
  type Instances,
} from "./helpers/instances";
import type { RunningServer } from "./helpers/server";

const SECRET = "integration-test-secret-instances-0123456789";

let instances: Instances;
let db: TestDatabase;
let a: RunningServer;
let b: RunningServer;
let prisma: Instances["prisma"];

describe.skipIf(!onPostgres)("revocation across two instances (PostgreSQL)", () => {
  beforeAll(async () => {
    instances = await startInstances(SECRET);
    ({ db, a, b, prisma } = instances);
  }, TRUST_TIMEOUT_MS + 60_000);

  afterAll(async () => {
    await instances?.stop();
  });

  it("a session made on one instance is valid on the other", async () => {
    const user = await createUser({ db: prisma });
    const onA = await signIn(a, user.email);
    expect((await sessionOf(sameBrowserOn(b, onA)))?.user.id).toBe(user.id);
  });

  it("revoke on A: the next request on B is refused, cookie cache and all", async () => {
    const user = await createUser({ db: prisma });
    const victim = await signIn(a, user.email);
    const onB = sameBrowserOn(b, victim);
    expect((await sessionOf(onB))?.user.id).toBe(user.id);
    const owner = await signIn(a, user.email);
    expect((await owner.client.revokeOtherSessions()).error).toBeNull();
    expect(await sessionOf(onB)).toBeNull();

    // Sign-out on B reaches A the same way.
    const other = await createUser({ db: prisma });
    const onBoth = await signIn(b, other.email);
    const replay = sameBrowserOn(a, onBoth);
    expect((await sessionOf(replay))?.user.id).toBe(other.id);
    expect((await onBoth.client.signOut()).error).toBeNull();
    expect(await sessionOf(replay)).toBeNull();
  });

  it("an admin's ban on A ends the session on B at the next request, cookie cache and all", async () => {
    const admin = await createUser({ db: prisma, role: "admin" });
    const onAdmin = await signIn(a, admin.email);
    const user = await createUser({ db: prisma });
    const victim = await signIn(a, user.email);
    const onB = sameBrowserOn(b, victim);
    expect((await sessionOf(onB))?.user.id).toBe(user.id);
    // B answers this browser from its cookie cache until told otherwise.
    expect(await servesFromCache(prisma, b)).toBe(true);

    expect((await onAdmin.client.admin.banUser({ userId: user.id, banReason: "two instances" })).error).toBeNull();
    expect(await sessionOf(onB)).toBeNull();
    expect(await sessionOf(victim)).toBeNull();
    // And no way back in on either instance.
    for (const server of [a, b]) {
      const again = await makeTestClient(server.url).client.signIn.email({ email: user.email, password: PASSWORD });
      expect(again.error).toMatchObject({ status: 403, code: "BANNED_USER" });
    }
  });

  it("B reads the database while its listener is disconnected", async () => {
    const admin = new pg.Client({ connectionString: db.url });
    await admin.connect();
    try {
      const killed = await admin.query(
        "SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE application_name = $1",
        [`app-revocations-${b.pid}`],
      );
      expect(killed.rowCount).toBe(1);
    } finally {
      await admin.end();
    }
    await waitFor(async () => b.stdout().includes("Revocation listener disconnected"), 10_000, "B to notice");
    // A deletion no instance announced: only reading the database can notice it.
    expect(await servesFromCache(prisma, b)).toBe(false);
    await waitFor(
      async () => /Revocation listener connected[\s\S]*Revocation listener connected/.test(b.stdout()),
      20_000,
      "B to reconnect",
    );
    // Back, but still distrusting for a cookie lifetime: notices may have been missed meanwhile.
    expect(await servesFromCache(prisma, b)).toBe(false);
    expect(await servesFromCache(prisma, a)).toBe(true);
  });
});
