/**
 * Two app instances on one PostgreSQL database: a directory deactivates (or deletes) a user
 * over SCIM through one instance, and that user's open session ends at the next request on
 * the other, although the other holds a valid cookie cache of it. PostgreSQL only
 * (TEST_DATABASE_URL); on SQLite one process sees every revocation itself (scim.test.ts).
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createUser, unique } from "./helpers/factories";
import { createConnection, directory, oktaUser, patchOf, scimToken } from "./helpers/scim";
import {
  onPostgres,
  sameBrowserOn,
  servesFromCache,
  sessionOf,
  signIn,
  startInstances,
  TRUST_TIMEOUT_MS,
  type Instances,
} from "./helpers/instances";
import type { RunningServer } from "./helpers/server";

const SECRET = "integration-test-secret-scim-instances-0123456789";

let instances: Instances;
let a: RunningServer;
let b: RunningServer;
let prisma: Instances["prisma"];

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
    instances = await startInstances(SECRET, { sameProcess: true });
    ({ a, b, prisma } = instances);
  }, TRUST_TIMEOUT_MS + 60_000);

  afterAll(async () => {
    await instances?.stop();
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
    expect(await servesFromCache(prisma, b)).toBe(true);

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
    expect(await servesFromCache(prisma, a)).toBe(true);

    expect((await directory(b.url, t.token)("DELETE", `/Users/${created.body.id}`)).status).toBe(204);
    expect(await sessionOf(onA)).toBeNull();
    expect(await prisma.user.count({ where: { id: employee.id } })).toBe(1);
  });
});
