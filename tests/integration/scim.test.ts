/**
 * SCIM 2.0 provisioning against the built server, over plain HTTP as a directory speaks it:
 * the requests Okta and Entra ID send (create with userName, name, emails, active; look up by
 * `userName eq`; PATCH `active` off, Okta's pathless form and Entra's string "False"; PUT;
 * Groups, the one named Admins making admins), what each means for the product (a user, a
 * member of the token's organization, sessions ended on deactivation), the discovery
 * documents, filters and paging, every refusal in the SCIM error shape with its scimType, a
 * token that never reaches another organization, revoked tokens, token generation and its
 * refusals, the per-token rate limit, and the connection's SCIM page. Runs on SQLite, or on
 * PostgreSQL with TEST_DATABASE_URL.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startTestApp, type TestApp } from "./helpers/app";
import { browserFor } from "./helpers/browser";
import { startMailbox, type Mailbox } from "./helpers/mailbox";
import { createOrganization, createUser, signInInProcess, unique, uniqueEmail } from "./helpers/factories";
import {
  createConnection,
  directory,
  entraUser,
  generateToken,
  oktaUser,
  patchOf,
  SCIM_ENTERPRISE,
  SCIM_ERROR,
  SCIM_GROUP,
  SCIM_USER,
  scimToken,
  type Directory,
} from "./helpers/scim";

const SECRET = "scim-test-secret-0123456789abcdefghijklmnop";

let app: TestApp;
let mailbox: Mailbox;

beforeAll(async () => {
  mailbox = await startMailbox();
  // Rate limits on: the per-token limit is part of what is tested.
  app = await startTestApp({ secret: SECRET, env: { RATE_LIMIT: "on", SMTP_URL: mailbox.url } });
}, 60_000);
afterAll(async () => {
  await app?.stop();
  await mailbox?.close();
});

/** An organization (owner, admin, plain member), a connection with a verified and an unverified domain, a token and its directory. */
async function tenant() {
  const verifiedDomain = `${unique("corp")}.test`;
  const unverifiedDomain = `${unique("other")}.test`;
  const [owner, admin, member] = await Promise.all(
    ["Olive Owner", "Ada Admin", "Max Member"].map((name) => createUser({ name, password: null })),
  );
  const organization = await createOrganization({
    name: "Acme",
    members: [
      { userId: owner!.id, role: "owner" },
      { userId: admin!.id, role: "admin" },
      { userId: member!.id, role: "member" },
    ],
  });
  const provider = await createConnection(app.prisma, organization.id, {
    [verifiedDomain]: true,
    [unverifiedDomain]: false,
  });
  const token = await scimToken(app.base, owner!.id, provider.providerId, organization.id);
  return {
    owner: owner!,
    admin: admin!,
    member: member!,
    organization,
    provider,
    token,
    scim: directory(app.base, token),
    verifiedDomain,
    unverifiedDomain,
    /** An address on the verified domain. */
    verified: (label: string) => `${unique(label)}@${verifiedDomain}`,
    unverified: (label: string) => `${unique(label)}@${unverifiedDomain}`,
  };
}
type Tenant = Awaited<ReturnType<typeof tenant>>;

const membership = (t: Tenant, userId: string) =>
  app.prisma.member.findUnique({ where: { organizationId_userId: { organizationId: t.organization.id, userId } } });

const listFilter = (scim: Directory, filter: string, extra = "") =>
  scim("GET", `/Users?filter=${encodeURIComponent(filter)}${extra}`);

/** The session get-session answers for `cookie` (null when there is none). */
async function sessionUser(cookie: string): Promise<string | null> {
  const response = await fetch(`${app.base}/api/auth/get-session`, { headers: { Cookie: cookie } });
  const body = (await response.json()) as { user?: { id: string } } | null;
  return body?.user?.id ?? null;
}

/** A signed-in browser's cookies (token and cookie cache), as Cookie header. */
async function signedIn(userId: string): Promise<string> {
  const { jar } = await signInInProcess({ jar: new Map<string, string>() }, userId);
  expect(jar.has("app.session_data")).toBe(true);
  return [...jar].map(([name, value]) => `${name}=${value}`).join("; ");
}

/** A SCIM error document with `status` and `scimType`. */
function expectError(reply: { status: number; type: string | null; body: unknown }, status: number, scimType?: string) {
  expect(reply.status, JSON.stringify(reply.body)).toBe(status);
  expect(reply.type).toMatch(/^application\/scim\+json/);
  expect(reply.body).toMatchObject({ schemas: [SCIM_ERROR], status: String(status) });
  if (scimType) expect(reply.body).toMatchObject({ scimType });
  else expect(reply.body).not.toHaveProperty("scimType");
  expect(typeof (reply.body as { detail: unknown }).detail).toBe("string");
}

describe("an Okta-style sequence", () => {
  it("looks up, creates, reads, replaces, deactivates and reactivates a user", async () => {
    const t = await tenant();
    const email = t.verified("jane");

    // Okta looks the user up by userName first, with its paging parameters.
    const before = await listFilter(t.scim, `userName eq "${email}"`, "&startIndex=1&count=100");
    expect(before.status).toBe(200);
    expect(before.type).toMatch(/^application\/scim\+json/);
    expect(before.body).toEqual({
      schemas: ["urn:ietf:params:scim:api:messages:2.0:ListResponse"],
      totalResults: 0,
      startIndex: 1,
      itemsPerPage: 0,
      Resources: [],
    });

    const body = oktaUser(email);
    const created = await t.scim("POST", "/Users", body);
    expect(created.status).toBe(201);
    expect(created.type).toMatch(/^application\/scim\+json/);
    const id = created.body.id as string;
    expect(created.headers.get("location")).toBe(`${app.base}/api/auth/scim/v2/Users/${id}`);
    expect(created.body).toMatchObject({
      schemas: [SCIM_USER],
      id,
      externalId: body.externalId,
      userName: email,
      name: { givenName: "Jane", familyName: "Doe" },
      emails: [{ primary: true, value: email, type: "work" }],
      displayName: "Jane Doe",
      active: true,
      groups: [],
      meta: { resourceType: "User", location: `${app.base}/api/auth/scim/v2/Users/${id}` },
    });
    expect(created.body).not.toHaveProperty("password");

    // The product user: named, the email verified (a verified domain), a member of the organization.
    const row = await app.prisma.scimUser.findUniqueOrThrow({ where: { id }, include: { user: true } });
    expect(row.organizationId).toBe(t.organization.id);
    expect(row.user).toMatchObject({ email, name: "Jane Doe", emailVerified: true });
    expect((await membership(t, row.userId))?.role).toBe("member");

    // Found by userName in any case, read by id.
    const found = await listFilter(t.scim, `userName eq "${email.toUpperCase()}"`);
    expect(found.body).toMatchObject({ totalResults: 1, itemsPerPage: 1, Resources: [{ id, userName: email }] });
    const read = await t.scim("GET", `/Users/${id}`);
    expect(read.status).toBe(200);
    expect(read.body).toEqual(created.body);

    // A profile update is a PUT of the whole user.
    const replaced = await t.scim("PUT", `/Users/${id}`, {
      ...body,
      name: { givenName: "Janet", familyName: "Doe" },
      displayName: "Janet Doe",
      title: "Engineer",
    });
    expect(replaced.status).toBe(200);
    expect(replaced.body).toMatchObject({ id, displayName: "Janet Doe", title: "Engineer", active: true });
    expect((await app.prisma.user.findUniqueOrThrow({ where: { id: row.userId } })).name).toBe("Janet Doe");

    // Deactivation, Okta's way: a pathless replace. The open session ends at the next request.
    const cookie = await signedIn(row.userId);
    expect(await sessionUser(cookie)).toBe(row.userId);
    const deactivated = await t.scim("PATCH", `/Users/${id}`, patchOf({ op: "replace", value: { active: false } }));
    expect(deactivated.status).toBe(200);
    expect(deactivated.body).toMatchObject({ id, active: false, displayName: "Janet Doe" });
    expect(await sessionUser(cookie)).toBeNull();
    expect(await membership(t, row.userId)).toBeNull();
    // The account stays.
    expect(await app.prisma.user.findUnique({ where: { id: row.userId } })).not.toBeNull();
    expect((await listFilter(t.scim, "active eq false")).body.Resources.map((u: { id: string }) => u.id)).toEqual([id]);

    // Reactivation makes them a member again.
    const reactivated = await t.scim("PATCH", `/Users/${id}`, patchOf({ op: "replace", value: { active: true } }));
    expect(reactivated.body.active).toBe(true);
    expect((await membership(t, row.userId))?.role).toBe("member");

    const actions = await app.prisma.auditLog.findMany({
      where: { category: "scim", targetId: row.userId },
      orderBy: [{ createdAt: "asc" }, { id: "asc" }],
      select: { action: true, status: true, details: true },
    });
    expect(actions.map((entry) => entry.action)).toEqual([
      "scim-create-user",
      "scim-update-user",
      "scim-deactivate-user",
      "scim-reactivate-user",
    ]);
    expect(JSON.parse(actions[0]!.details!)).toMatchObject({
      organizationId: t.organization.id,
      providerId: t.provider.providerId,
      scimUserId: id,
    });
  });

  it("deletes a user: no longer a member, sessions ended, the account kept", async () => {
    const t = await tenant();
    const created = await t.scim("POST", "/Users", oktaUser(t.verified("leaver")));
    const userId = (await app.prisma.scimUser.findUniqueOrThrow({ where: { id: created.body.id } })).userId;
    const cookie = await signedIn(userId);
    const deleted = await t.scim("DELETE", `/Users/${created.body.id}`);
    expect(deleted.status).toBe(204);
    expect(deleted.body).toBeNull();
    expect(await sessionUser(cookie)).toBeNull();
    expect(await membership(t, userId)).toBeNull();
    expect(await app.prisma.user.findUnique({ where: { id: userId } })).not.toBeNull();
    expectError(await t.scim("GET", `/Users/${created.body.id}`), 404);
    expectError(await t.scim("DELETE", `/Users/${created.body.id}`), 404);
    expect(await app.prisma.auditLog.count({ where: { action: "scim-delete-user", targetId: userId } })).toBe(1);
  });
});

describe("an Entra ID-style sequence", () => {
  it("creates with the enterprise extension, patches by path, deactivates with the string False", async () => {
    const t = await tenant();
    const email = t.verified("ryan");
    const userName = `Ryan.Rivera@${t.verifiedDomain}`;
    expect((await listFilter(t.scim, `userName eq "${userName}"`)).body.totalResults).toBe(0);
    const created = await t.scim("POST", "/Users", entraUser(userName, email));
    expect(created.status).toBe(201);
    expect(created.body).toMatchObject({
      schemas: [SCIM_USER, SCIM_ENTERPRISE],
      userName,
      name: { formatted: "Ryan Rivera" },
      [SCIM_ENTERPRISE]: { department: "Sales", employeeNumber: "701" },
    });
    const id = created.body.id as string;
    const { userId } = await app.prisma.scimUser.findUniqueOrThrow({ where: { id } });
    // No displayName: the name is given and family names.
    expect(await app.prisma.user.findUniqueOrThrow({ where: { id: userId } })).toMatchObject({
      name: "Ryan Rivera",
      email,
    });

    const newEmail = t.verified("ryan.new");
    const patched = await t.scim(
      "PATCH",
      `/Users/${id}`,
      patchOf(
        { op: "Replace", path: 'emails[type eq "work"].value', value: newEmail },
        { op: "Replace", path: "name.familyName", value: "Reyes" },
        { op: "Add", path: `${SCIM_ENTERPRISE}:department`, value: "Marketing" },
        { op: "Replace", path: "displayName", value: ["Ryan Reyes"] },
        { op: "Add", path: 'phoneNumbers[type eq "mobile"].value', value: "+1 555 0100" },
      ),
    );
    expect(patched.status).toBe(200);
    expect(patched.body).toMatchObject({
      displayName: "Ryan Reyes",
      name: { familyName: "Reyes", givenName: "Ryan" },
      emails: [{ type: "work", value: newEmail, primary: true }],
      phoneNumbers: [{ type: "mobile", value: "+1 555 0100" }],
      [SCIM_ENTERPRISE]: { department: "Marketing", employeeNumber: "701" },
    });
    expect(await app.prisma.user.findUniqueOrThrow({ where: { id: userId } })).toMatchObject({
      name: "Ryan Reyes",
      email: newEmail,
      emailVerified: true,
    });
    // Found by the new email, by externalId, by the two together.
    expect((await listFilter(t.scim, `emails.value eq "${newEmail}"`)).body.totalResults).toBe(1);
    expect((await listFilter(t.scim, `emails[value eq "${newEmail}"]`)).body.totalResults).toBe(1);
    expect(
      (await listFilter(t.scim, `externalId eq "${created.body.externalId}" and userName eq "${userName}"`)).body
        .totalResults,
    ).toBe(1);

    const cookie = await signedIn(userId);
    const deactivated = await t.scim(
      "PATCH",
      `/Users/${id}`,
      patchOf({ op: "Replace", path: "active", value: "False" }),
    );
    expect(deactivated.status).toBe(200);
    expect(deactivated.body.active).toBe(false);
    expect(await sessionUser(cookie)).toBeNull();
    expect(await membership(t, userId)).toBeNull();
  });

  it("keeps a group named Admins: its active members are admins of the organization", async () => {
    const t = await tenant();
    const ids: string[] = [];
    for (const label of ["ann", "bob"]) {
      const created = await t.scim("POST", "/Users", oktaUser(t.verified(label)));
      ids.push(created.body.id);
    }
    const [ann, bob] = ids as [string, string];
    const userIdOf = async (id: string) => (await app.prisma.scimUser.findUniqueOrThrow({ where: { id } })).userId;
    const role = async (id: string) => (await membership(t, await userIdOf(id)))?.role;

    expect(
      (await t.scim("GET", `/Groups?filter=${encodeURIComponent('displayName eq "Admins"')}`)).body.totalResults,
    ).toBe(0);
    const group = await t.scim("POST", "/Groups", {
      schemas: [SCIM_GROUP],
      externalId: unique("grp"),
      displayName: "Admins",
      members: [],
    });
    expect(group.status).toBe(201);
    expect(group.body).toMatchObject({ schemas: [SCIM_GROUP], displayName: "Admins", members: [] });
    const groupId = group.body.id as string;

    // Entra adds members with a path and a list.
    const added = await t.scim(
      "PATCH",
      `/Groups/${groupId}`,
      patchOf({ op: "Add", path: "members", value: [{ value: ann }, { value: bob }] }),
    );
    expect(added.status).toBe(200);
    expect(added.body.members.map((m: { value: string }) => m.value).sort()).toEqual([ann, bob].sort());
    expect([await role(ann), await role(bob)]).toEqual(["admin", "admin"]);
    expect((await t.scim("GET", `/Users/${ann}`)).body.groups).toEqual([
      { value: groupId, display: "Admins", $ref: `${app.base}/api/auth/scim/v2/Groups/${groupId}` },
    ]);
    // Entra's membership check: the group by id and member, members left out.
    const check = await t.scim(
      "GET",
      `/Groups?excludedAttributes=members&filter=${encodeURIComponent(`id eq "${groupId}" and members[value eq "${ann}"]`)}`,
    );
    expect(check.body.totalResults).toBe(1);
    expect(check.body.Resources[0]).not.toHaveProperty("members");

    // Okta removes one member by a filtered path; Entra by listing them.
    await t.scim("PATCH", `/Groups/${groupId}`, patchOf({ op: "remove", path: `members[value eq "${ann}"]` }));
    expect([await role(ann), await role(bob)]).toEqual(["member", "admin"]);
    await t.scim("PATCH", `/Groups/${groupId}`, patchOf({ op: "Remove", path: "members", value: [{ value: bob }] }));
    expect(await role(bob)).toBe("member");

    // A rename out of Admins takes the right away; PUT puts members back; deleting the group ends it.
    await t.scim("PUT", `/Groups/${groupId}`, {
      schemas: [SCIM_GROUP],
      displayName: "admins",
      members: [{ value: ann }],
    });
    expect(await role(ann)).toBe("admin");
    await t.scim(
      "PATCH",
      `/Groups/${groupId}`,
      patchOf({ op: "replace", value: { id: groupId, displayName: "Staff" } }),
    );
    expect(await role(ann)).toBe("member");
    await t.scim("PATCH", `/Groups/${groupId}`, patchOf({ op: "replace", path: "displayName", value: "Admins" }));
    expect(await role(ann)).toBe("admin");
    const deleted = await t.scim("DELETE", `/Groups/${groupId}`);
    expect(deleted.status).toBe(204);
    expect(await role(ann)).toBe("member");
    expectError(await t.scim("GET", `/Groups/${groupId}`), 404);

    // The owner is never made or unmade by the directory.
    const ownerEmail = t.verified("boss");
    await app.prisma.user.update({ where: { id: t.owner.id }, data: { email: ownerEmail } });
    const boss = await t.scim("POST", "/Users", oktaUser(ownerEmail));
    expect(boss.status).toBe(201);
    await t.scim("POST", "/Groups", {
      schemas: [SCIM_GROUP],
      displayName: "Admins",
      members: [{ value: boss.body.id }],
    });
    expect((await membership(t, t.owner.id))?.role).toBe("owner");
    // The only owner cannot be deactivated: the organization would be left without one.
    expectError(
      await t.scim("PATCH", `/Users/${boss.body.id}`, patchOf({ op: "replace", path: "active", value: false })),
      400,
      "mutability",
    );
    expect((await membership(t, t.owner.id))?.role).toBe("owner");
    // Nor any owner, though another remains: no admin removes an owner, and a token is an admin's.
    const second = await createUser({ email: t.verified("second-owner"), password: null });
    await app.prisma.member.create({ data: { organizationId: t.organization.id, userId: second.id, role: "owner" } });
    const linked = await t.scim("POST", "/Users", oktaUser(second.email));
    expect(linked.status).toBe(201);
    expectError(await t.scim("DELETE", `/Users/${linked.body.id}`), 400, "mutability");
    expectError(
      await t.scim("PATCH", `/Users/${linked.body.id}`, patchOf({ op: "replace", path: "active", value: false })),
      400,
      "mutability",
    );
    expect((await membership(t, second.id))?.role).toBe("owner");

    const actions = await app.prisma.auditLog.findMany({
      where: { category: "scim", details: { contains: t.organization.id } },
      select: { action: true },
    });
    expect(new Set(actions.map((entry) => entry.action))).toEqual(
      new Set([
        "generate-scim-token",
        "scim-create-user",
        "scim-create-group",
        "scim-update-group",
        "scim-set-role",
        "scim-delete-group",
      ]),
    );
  });
});

describe("accounts that already exist", () => {
  it("links an account whose email is on a verified domain", async () => {
    const t = await tenant();
    const existing = await createUser({ email: t.verified("already"), name: "Already Here" });
    const created = await t.scim("POST", "/Users", oktaUser(existing.email));
    expect(created.status).toBe(201);
    const row = await app.prisma.scimUser.findUniqueOrThrow({ where: { id: created.body.id } });
    expect(row.userId).toBe(existing.id);
    expect((await membership(t, existing.id))?.role).toBe("member");
    // Linked once: a second User naming the same account is refused.
    expectError(
      await t.scim("POST", "/Users", oktaUser(existing.email, { userName: unique("second") })),
      409,
      "uniqueness",
    );
  });

  it("refuses an account whose email is not on a verified domain, and makes new users unverified there", async () => {
    const t = await tenant();
    const victim = await createUser({ email: t.unverified("victim") });
    const refused = await t.scim("POST", "/Users", oktaUser(victim.email));
    expectError(refused, 409, "uniqueness");
    expect(await membership(t, victim.id)).toBeNull();
    expect(await app.prisma.scimUser.count({ where: { userId: victim.id } })).toBe(0);
    expect(
      await app.prisma.auditLog.count({
        where: { category: "scim", action: "scim-create-user", status: "failure", targetId: victim.id },
      }),
    ).toBe(1);
    // An address of another site altogether: the same.
    const outsider = await createUser({ email: uniqueEmail("someone") });
    expectError(await t.scim("POST", "/Users", oktaUser(outsider.email)), 409, "uniqueness");

    // A new address on the unverified domain: a new user whose email is not verified.
    const fresh = t.unverified("fresh");
    const created = await t.scim("POST", "/Users", oktaUser(fresh));
    expect(created.status).toBe(201);
    expect(await app.prisma.user.findUniqueOrThrow({ where: { email: fresh } })).toMatchObject({
      emailVerified: false,
    });

    // Nor can a PATCH move a User onto someone else's account.
    expectError(
      await t.scim(
        "PATCH",
        `/Users/${created.body.id}`,
        patchOf({ op: "replace", path: 'emails[type eq "work"].value', value: victim.email }),
      ),
      409,
      "uniqueness",
    );
    expect((await app.prisma.user.findUniqueOrThrow({ where: { id: victim.id } })).email).toBe(victim.email);
  });
});

describe("an account the directory does not own", () => {
  it("keeps its name and email: a link kept after its address's owner claimed it changes neither", async () => {
    const t = await tenant();
    // The directory makes an account on a domain the organization has not verified, inactive
    // so that the address's owner never sees the organization; the owner then claims it.
    const address = t.unverified("claimed");
    const created = await t.scim("POST", "/Users", oktaUser(address, { active: false }));
    expect(created.status).toBe(201);
    const account = await app.prisma.user.update({
      where: { email: address },
      data: { emailVerified: true, name: "Claimed Owner" },
    });
    const id = created.body.id as string;

    // Moving the email to an address the directory reads (then a password reset there) would take the account.
    const moved = await t.scim(
      "PATCH",
      `/Users/${id}`,
      patchOf({ op: "replace", path: 'emails[type eq "work"].value', value: uniqueEmail("attacker") }),
    );
    expectError(moved, 400, "mutability");
    expectError(await t.scim("PUT", `/Users/${id}`, oktaUser(address, { displayName: "Renamed" })), 400, "mutability");
    expect(await app.prisma.user.findUniqueOrThrow({ where: { id: account.id } })).toMatchObject({
      email: address,
      name: "Claimed Owner",
      emailVerified: true,
    });
  });

  it("is no longer the directory's once its address's owner proves it: the link and the membership it gave go", async () => {
    const t = await tenant();
    const address = t.unverified("proved");
    const created = await t.scim("POST", "/Users", oktaUser(address));
    expect(created.status).toBe(201);
    const id = created.body.id as string;
    const account = await app.prisma.user.findUniqueOrThrow({ where: { email: address } });
    expect(await membership(t, account.id)).not.toBeNull();
    // Another organization, which verified the address's domain, links the same account.
    const verifier = await tenant();
    await createConnection(app.prisma, verifier.organization.id, { [t.unverifiedDomain]: true });
    expect((await verifier.scim("POST", "/Users", oktaUser(address))).status).toBe(201);
    // The address's owner signs up over the unproved account and follows the link in their mailbox.
    const signUp = await fetch(`${app.base}/api/auth/sign-up/email`, {
      method: "POST",
      headers: { "Content-Type": "application/json", Origin: app.base },
      body: JSON.stringify({ email: address, password: "the-owners-own-password", name: "Rightful Owner" }),
    });
    expect(signUp.status).toBe(200);
    const link = (await mailbox.waitFor(address)).links.find((url) => url.includes("/api/auth/verify-email"))!;
    const verified = await fetch(link, { redirect: "manual" });
    const cookie = verified.headers
      .getSetCookie()
      .map((line) => line.split(";")[0])
      .join("; ");
    expect(await sessionUser(cookie)).toBe(account.id);

    expect(await membership(t, account.id)).toBeNull();
    expect(await app.prisma.scimUser.count({ where: { userId: account.id, organizationId: t.organization.id } })).toBe(
      0,
    );
    // The directory can neither end the owner's sessions nor bring the account back in.
    expectError(await t.scim("PATCH", `/Users/${id}`, patchOf({ op: "replace", value: { active: false } })), 404);
    expectError(await t.scim("POST", "/Users", oktaUser(address)), 409, "uniqueness");
    expect(await sessionUser(cookie)).toBe(account.id);
    expect(await membership(t, account.id)).toBeNull();
    // The organization's audit log says why the member went; the verifying one keeps its link.
    const audited = await app.prisma.auditLog.findMany({
      where: { organizationId: t.organization.id, action: { in: ["scim-unlink-user", "remove-member"] } },
      orderBy: { createdAt: "asc" },
    });
    expect(audited.map((row) => [row.action, row.targetType])).toEqual([
      ["scim-unlink-user", "user"],
      ["remove-member", "member"],
    ]);
    expect(JSON.parse(audited[0]!.details!)).toMatchObject({ scimUserId: id, reason: "address-proved" });
    expect(JSON.parse(audited[1]!.details!)).toMatchObject({ userId: account.id, reason: "address-proved" });
    expect(await membership(verifier, account.id)).not.toBeNull();
    expect(await app.prisma.scimUser.count({ where: { userId: account.id } })).toBe(1);
  });

  it("moves an account on a verified domain only to another verified address: an owner cannot be moved off it", async () => {
    const t = await tenant();
    const ownerEmail = t.verified("owner");
    await app.prisma.user.update({ where: { id: t.owner.id }, data: { email: ownerEmail, emailVerified: true } });
    const linked = await t.scim("POST", "/Users", oktaUser(ownerEmail));
    expect(linked.status).toBe(201);
    const id = linked.body.id as string;
    const outside = uniqueEmail("outside");
    expectError(
      await t.scim(
        "PATCH",
        `/Users/${id}`,
        patchOf({ op: "replace", path: 'emails[type eq "work"].value', value: outside }),
      ),
      400,
      "mutability",
    );
    expect((await app.prisma.user.findUniqueOrThrow({ where: { id: t.owner.id } })).email).toBe(ownerEmail);
    // Within the verified domains, the directory keeps the account's address current.
    const renamed = t.verified("owner-renamed");
    const patched = await t.scim(
      "PATCH",
      `/Users/${id}`,
      patchOf({ op: "replace", path: 'emails[type eq "work"].value', value: renamed }),
    );
    expect(patched.status).toBe(200);
    expect((await app.prisma.user.findUniqueOrThrow({ where: { id: t.owner.id } })).email).toBe(renamed);
  });
});

describe("discovery", () => {
  const anonymous = () => directory(app.base, null);

  it("answers ServiceProviderConfig, Schemas and ResourceTypes without a token", async () => {
    const scim = anonymous();
    const config = await scim("GET", "/ServiceProviderConfig");
    expect(config.status).toBe(200);
    expect(config.type).toMatch(/^application\/scim\+json/);
    expect(config.body).toMatchObject({
      schemas: ["urn:ietf:params:scim:schemas:core:2.0:ServiceProviderConfig"],
      patch: { supported: true },
      bulk: { supported: false },
      filter: { supported: true, maxResults: 100 },
      changePassword: { supported: false },
      sort: { supported: false },
      etag: { supported: false },
      authenticationSchemes: [{ type: "oauthbearertoken", primary: true }],
    });

    const schemas = await scim("GET", "/Schemas");
    expect(schemas.body).toMatchObject({ totalResults: 3, itemsPerPage: 3, startIndex: 1 });
    expect(schemas.body.Resources.map((schema: { id: string }) => schema.id)).toEqual([
      SCIM_USER,
      SCIM_ENTERPRISE,
      SCIM_GROUP,
    ]);
    const user = await scim("GET", `/Schemas/${SCIM_USER}`);
    expect(user.status).toBe(200);
    expect(user.body.attributes.map((attribute: { name: string }) => attribute.name)).toEqual(
      expect.arrayContaining(["userName", "name", "emails", "active", "displayName"]),
    );
    expect(user.body.meta.location).toBe(`${app.base}/api/auth/scim/v2/Schemas/${SCIM_USER}`);
    expectError(await scim("GET", "/Schemas/urn:nothing"), 404);

    const types = await scim("GET", "/ResourceTypes");
    expect(types.body.Resources).toMatchObject([
      {
        id: "User",
        endpoint: "/Users",
        schema: SCIM_USER,
        schemaExtensions: [{ schema: SCIM_ENTERPRISE, required: false }],
      },
      { id: "Group", endpoint: "/Groups", schema: SCIM_GROUP },
    ]);
    expect((await scim("GET", "/ResourceTypes/Group")).body).toMatchObject({ id: "Group", endpoint: "/Groups" });
    expectError(await scim("GET", "/ResourceTypes/Device"), 404);
  });
});

describe("filters, startIndex and count", () => {
  it("pages through the organization's users in creation order", async () => {
    const t = await tenant();
    const ids: string[] = [];
    for (let i = 0; i < 5; i++) ids.push((await t.scim("POST", "/Users", oktaUser(t.verified(`p${i}`)))).body.id);
    const page = await t.scim("GET", "/Users?startIndex=2&count=2");
    expect(page.body).toMatchObject({ totalResults: 5, startIndex: 2, itemsPerPage: 2 });
    expect(page.body.Resources.map((u: { id: string }) => u.id)).toEqual(ids.slice(1, 3));
    const last = await t.scim("GET", "/Users?startIndex=5&count=10");
    expect(last.body.Resources.map((u: { id: string }) => u.id)).toEqual([ids[4]]);
    expect((await t.scim("GET", "/Users?startIndex=9")).body).toMatchObject({ totalResults: 5, itemsPerPage: 0 });
    expect((await t.scim("GET", "/Users?count=0")).body).toMatchObject({
      totalResults: 5,
      itemsPerPage: 0,
      Resources: [],
    });
    // Out of range is clamped, as RFC 7644 says: startIndex below 1 is 1, a negative count is 0.
    expect((await t.scim("GET", "/Users?startIndex=0&count=1")).body.Resources[0].id).toBe(ids[0]);
    expect((await t.scim("GET", "/Users?count=-3")).body.itemsPerPage).toBe(0);
    // or, and attribute selection.
    const either = await listFilter(t.scim, `id eq "${ids[0]}" or id eq "${ids[3]}"`, "&attributes=userName");
    expect(either.body.totalResults).toBe(2);
    expect(Object.keys(either.body.Resources[0]).sort()).toEqual(["id", "meta", "schemas", "userName"]);
  });

  it("refuses filters it cannot answer with invalidFilter, and bad paging with invalidValue", async () => {
    const t = await tenant();
    for (const filter of [
      'userName co "jane"',
      'nickName eq "x"',
      "userName eq",
      'userName eq "a" and',
      "not (active eq true)",
      "userName eq 42",
      "title pr",
    ]) {
      expectError(await listFilter(t.scim, filter), 400, "invalidFilter");
    }
    expectError(await t.scim("GET", "/Users?startIndex=abc"), 400, "invalidValue");
    expectError(await t.scim("GET", "/Users?count=1.5"), 400, "invalidValue");
  });
});

describe("refusals in the SCIM error shape", () => {
  it("401 without a token, with a wrong one, with a revoked one", async () => {
    const t = await tenant();
    for (const reply of [
      await directory(app.base, null)("GET", "/Users"),
      await directory(app.base, "scim_not-a-token")("GET", "/Users"),
      await t.scim("GET", "/Users", undefined, { Authorization: "Basic Zm9vOmJhcg==" }),
    ]) {
      expectError(reply, 401);
      expect(reply.headers.get("www-authenticate")).toMatch(/^Bearer/);
    }
    // A cookie is no credential here: the owner's session gets a 401 too.
    expectError(
      await directory(app.base, null)("GET", "/Users", undefined, { Cookie: await signedIn(t.owner.id) }),
      401,
    );

    const token = await app.prisma.scimToken.findFirstOrThrow({ where: { organizationId: t.organization.id } });
    const { revokeScimToken } = await import("~/server/sso/scim/tokens.server");
    const { sessionFor } = await import("./helpers/factories");
    await revokeScimToken(
      await sessionFor(t.owner.id),
      { tokenId: token.id },
      { ipAddress: null, userAgent: null, locale: "en" },
    );
    expectError(await t.scim("GET", "/Users"), 401);
    expectError(await t.scim("POST", "/Users", oktaUser(t.verified("late"))), 401);
  });

  it("400 invalidSyntax, invalidValue, invalidPath, noTarget, mutability; 409 uniqueness; 415", async () => {
    const t = await tenant();
    expectError(await t.scim("POST", "/Users", "{not json"), 400, "invalidSyntax");
    expectError(await t.scim("POST", "/Users", "[1,2]"), 400, "invalidSyntax");
    expectError(
      await t.scim("POST", "/Users", JSON.stringify(oktaUser(t.verified("x"))), { "Content-Type": "text/plain" }),
      415,
    );
    // application/json is as good as application/scim+json.
    const plain = await t.scim("POST", "/Users", oktaUser(t.verified("json")), { "Content-Type": "application/json" });
    expect(plain.status).toBe(201);

    const { userName: _userName, ...withoutUserName } = oktaUser(t.verified("y"));
    for (const body of [
      withoutUserName,
      oktaUser(t.verified("z"), { schemas: ["urn:example:nothing"] }),
      oktaUser(t.verified("z"), { emails: [{ value: "not an address", primary: true }] }),
      oktaUser("just-a-name", { emails: [] }),
      oktaUser(t.verified("z"), { active: "maybe" }),
      oktaUser(t.verified("z"), { displayName: "Evil\u0000Name" }),
      oktaUser(t.verified("z"), {
        emails: [
          { value: t.verified("a"), primary: true },
          { value: t.verified("b"), primary: true },
        ],
      }),
    ]) {
      expectError(await t.scim("POST", "/Users", body), 400, "invalidValue");
    }

    const id = plain.body.id as string;
    expectError(
      await t.scim("PATCH", `/Users/${id}`, { Operations: [{ op: "replace", value: {} }] }),
      400,
      "invalidValue",
    );
    expectError(
      await t.scim("PATCH", `/Users/${id}`, patchOf({ op: "move", path: "active", value: false })),
      400,
      "invalidValue",
    );
    expectError(
      await t.scim("PATCH", `/Users/${id}`, patchOf({ op: "replace", path: "emails[type eq", value: "x" })),
      400,
      "invalidPath",
    );
    expectError(
      await t.scim("PATCH", `/Users/${id}`, patchOf({ op: "replace", path: "name..givenName", value: "x" })),
      400,
      "invalidPath",
    );
    expectError(await t.scim("PATCH", `/Users/${id}`, patchOf({ op: "remove" })), 400, "noTarget");
    expectError(
      await t.scim(
        "PATCH",
        `/Users/${id}`,
        patchOf({ op: "replace", path: 'emails[value sw "x"].type', value: "home" }),
      ),
      400,
      "noTarget",
    );
    expectError(
      await t.scim("PATCH", `/Users/${id}`, patchOf({ op: "replace", path: "id", value: "mine" })),
      400,
      "mutability",
    );
    expectError(
      await t.scim("PATCH", `/Users/${id}`, patchOf({ op: "replace", path: "active", value: "nope" })),
      400,
      "invalidValue",
    );
    expectError(
      await t.scim("PATCH", `/Users/${id}`, patchOf({ op: "remove", path: "userName" })),
      400,
      "invalidValue",
    );

    // userName is unique in any case, externalId as given; a Group's displayName in any case.
    const taken = oktaUser(t.verified("taken"));
    expect((await t.scim("POST", "/Users", taken)).status).toBe(201);
    expectError(
      await t.scim("POST", "/Users", oktaUser(t.verified("other"), { userName: taken.userName.toUpperCase() })),
      409,
      "uniqueness",
    );
    expectError(
      await t.scim("POST", "/Users", oktaUser(t.verified("other"), { externalId: taken.externalId })),
      409,
      "uniqueness",
    );
    expectError(
      await t.scim("PATCH", `/Users/${id}`, patchOf({ op: "replace", path: "userName", value: taken.userName })),
      409,
      "uniqueness",
    );
    expect((await t.scim("POST", "/Groups", { schemas: [SCIM_GROUP], displayName: "Sales" })).status).toBe(201);
    expectError(await t.scim("POST", "/Groups", { schemas: [SCIM_GROUP], displayName: "SALES" }), 409, "uniqueness");
    expectError(await t.scim("POST", "/Groups", { schemas: [SCIM_GROUP], displayName: "" }), 400, "invalidValue");
    expectError(
      await t.scim("POST", "/Groups", { schemas: [SCIM_GROUP], displayName: "X", members: [{ value: "nobody" }] }),
      400,
      "invalidValue",
    );
    expectError(await t.scim("GET", "/Users/nobody"), 404);
    expectError(await t.scim("PUT", "/Groups/nobody", { schemas: [SCIM_GROUP], displayName: "Y" }), 404);
  });

  it("a token of another organization finds none of this one's users or groups, and changes nothing", async () => {
    const t = await tenant();
    const other = await tenant();
    const user = await t.scim("POST", "/Users", oktaUser(t.verified("mine")));
    const group = await t.scim("POST", "/Groups", { schemas: [SCIM_GROUP], displayName: "Admins", members: [] });
    const before = await app.prisma.scimUser.findUniqueOrThrow({
      where: { id: user.body.id },
      include: { user: true },
    });

    expectError(await other.scim("GET", `/Users/${user.body.id}`), 404);
    expectError(await other.scim("PUT", `/Users/${user.body.id}`, oktaUser(other.verified("steal"))), 404);
    expectError(
      await other.scim("PATCH", `/Users/${user.body.id}`, patchOf({ op: "replace", value: { active: false } })),
      404,
    );
    expectError(await other.scim("DELETE", `/Users/${user.body.id}`), 404);
    expectError(await other.scim("GET", `/Groups/${group.body.id}`), 404);
    expectError(await other.scim("DELETE", `/Groups/${group.body.id}`), 404);
    expect((await other.scim("GET", "/Users")).body.totalResults).toBe(0);
    expect((await listFilter(other.scim, `userName eq "${user.body.userName}"`)).body.totalResults).toBe(0);
    expect((await other.scim("GET", "/Groups")).body.totalResults).toBe(0);
    // Its own group cannot take in this organization's user.
    const theirs = await other.scim("POST", "/Groups", { schemas: [SCIM_GROUP], displayName: "Admins", members: [] });
    expectError(
      await other.scim(
        "PATCH",
        `/Groups/${theirs.body.id}`,
        patchOf({ op: "add", path: "members", value: [{ value: user.body.id }] }),
      ),
      400,
      "invalidValue",
    );

    const after = await app.prisma.scimUser.findUniqueOrThrow({ where: { id: user.body.id }, include: { user: true } });
    expect(after).toEqual(before);
    expect((await membership(t, after.userId))?.role).toBe("member");
    expect(await app.prisma.scimGroup.findUnique({ where: { id: group.body.id } })).not.toBeNull();
  });

  it("does not refuse a directory's cross-origin request without cookies", async () => {
    const t = await tenant();
    const reply = await t.scim("POST", "/Users", oktaUser(t.verified("cors")), {
      Origin: "https://directory.example.net",
    });
    expect(reply.status).toBe(201);
  });
});

describe("generate-token", () => {
  it("issues a new token on each call for owners and admins, stored hashed", async () => {
    const t = await tenant();
    const input = { providerId: t.provider.providerId, organizationId: t.organization.id };
    const first = await generateToken(app.base, t.admin.id, input);
    const second = await generateToken(app.base, t.admin.id, input);
    expect([first.status, second.status]).toEqual([201, 201]);
    const [a, b] = [String(first.body!.scimToken), String(second.body!.scimToken)];
    expect(a).not.toBe(b);
    for (const token of [a, b]) expect((await directory(app.base, token)("GET", "/Users")).status).toBe(200);
    const rows = await app.prisma.scimToken.findMany({ where: { organizationId: t.organization.id } });
    expect(rows).toHaveLength(3);
    for (const row of rows) {
      expect(row.tokenHash).toMatch(/^[0-9a-f]{64}$/);
      expect([t.token, a, b]).not.toContain(row.tokenHash);
      expect([t.token, a, b].some((token) => token.startsWith(row.start))).toBe(true);
    }
  });

  it("refuses a role that may manage single sign-on but not make admins or remove members", async () => {
    const t = await tenant();
    await app.prisma.organizationRole.create({
      data: { organizationId: t.organization.id, role: "sso-keeper", permission: JSON.stringify({ sso: ["manage"] }) },
    });
    const keeper = await createUser({ password: null });
    await app.prisma.member.create({
      data: { organizationId: t.organization.id, userId: keeper.id, role: "member,sso-keeper" },
    });
    const input = { providerId: t.provider.providerId, organizationId: t.organization.id };
    // Its token's Admins group would make the holder an admin.
    expect(await generateToken(app.base, keeper.id, input)).toMatchObject({
      status: 403,
      body: { code: "YOU_ARE_NOT_ALLOWED_TO_MANAGE_SCIM_TOKENS" },
    });
    expect(await app.prisma.scimToken.count({ where: { createdBy: keeper.id } })).toBe(0);
  });

  it("refuses plain members and outsiders (403), guests (401), a missing organizationId (400)", async () => {
    const t = await tenant();
    const outsider = await createUser({ password: null });
    const input = { providerId: t.provider.providerId, organizationId: t.organization.id };
    expect(await generateToken(app.base, t.member.id, input)).toMatchObject({
      status: 403,
      body: { code: "YOU_ARE_NOT_ALLOWED_TO_MANAGE_SCIM_TOKENS" },
    });
    expect(await generateToken(app.base, outsider.id, input)).toMatchObject({
      status: 403,
      body: { code: "USER_IS_NOT_A_MEMBER_OF_THE_ORGANIZATION" },
    });
    expect((await generateToken(app.base, null, input)).status).toBe(401);
    expect(await generateToken(app.base, t.owner.id, { providerId: t.provider.providerId })).toMatchObject({
      status: 400,
      body: { code: "VALIDATION_ERROR" },
    });
    // Another organization's connection, even to an owner of both.
    const other = await tenant();
    await app.prisma.member.create({
      data: { organizationId: other.organization.id, userId: t.owner.id, role: "owner" },
    });
    expect(
      await generateToken(app.base, t.owner.id, {
        providerId: other.provider.providerId,
        organizationId: t.organization.id,
      }),
    ).toMatchObject({ status: 404, body: { code: "SCIM_CONNECTION_NOT_FOUND" } });
    expect(await app.prisma.scimToken.count({ where: { createdBy: { in: [t.member.id, outsider.id] } } })).toBe(0);
  });
});

describe("the per-token rate limit", () => {
  it("answers 429 in the SCIM shape past 600 requests a minute, for that token only", async () => {
    const t = await tenant();
    const second = directory(app.base, await scimToken(app.base, t.owner.id, t.provider.providerId, t.organization.id));
    const statuses: number[] = [];
    const queue = Array.from({ length: 600 }, (_, i) => i);
    await Promise.all(
      Array.from({ length: 8 }, async () => {
        while (queue.pop() !== undefined) statuses.push((await t.scim("GET", "/Users?count=0")).status);
      }),
    );
    expect(statuses.filter((status) => status !== 200)).toEqual([]);
    const limited = await t.scim("GET", "/Users?count=0");
    expectError(limited, 429);
    expect(Number(limited.headers.get("retry-after"))).toBeGreaterThan(0);
    // The organization's other token, from the same address, is not held back.
    expect((await second("GET", "/Users?count=0")).status).toBe(200);
  }, 60_000);
});

describe("the connection's SCIM page", () => {
  const pathOf = (t: Tenant, prefix = "") =>
    `${prefix}/organizations/${t.organization.slug}/sso/${t.provider.providerId}/scim`;

  it("shows the base URL and the tokens to owners and admins, in each language", async () => {
    const t = await tenant();
    const owner = await browserFor(app, t.owner);
    const html = await owner.page(pathOf(t));
    expect(html).toContain(`value="${app.base}/api/auth/scim/v2"`);
    const token = await app.prisma.scimToken.findFirstOrThrow({ where: { organizationId: t.organization.id } });
    expect(html).toContain(`data-token="${token.start}"`);
    expect(html).not.toContain(t.token);
    for (const lng of ["fr", "ja", "zh-CN"]) {
      const strings = (await import(`../../locales/${lng}/scim.json`)) as { title: string; meta: { title: string } };
      const localized = await owner.page(pathOf(t, `/${lng}`));
      expect(localized).toContain(strings.title);
      expect(localized).toContain(`<title>${strings.meta.title.replace("{{name}}", "Acme")}`);
    }
    expect((await (await browserFor(app, t.admin)).get(pathOf(t))).status).toBe(200);
  });

  it("is not found by plain members, outsiders, or under another organization", async () => {
    const t = await tenant();
    const other = await tenant();
    expect((await (await browserFor(app, t.member)).get(pathOf(t))).status).toBe(404);
    const outsider = await createUser({ password: null });
    expect((await (await browserFor(app, outsider)).get(pathOf(t))).status).toBe(404);
    const owner = await browserFor(app, t.owner);
    expect(
      (await owner.get(`/organizations/${t.organization.slug}/sso/${other.provider.providerId}/scim`)).status,
    ).toBe(404);
    expect((await owner.get(`/organizations/${t.organization.slug}/sso/${unique("nothing")}/scim`)).status).toBe(404);
  });

  it("generates a token shown once and revokes one, without JavaScript; a member is refused", async () => {
    const t = await tenant();
    const owner = await browserFor(app, t.owner);
    const generated = await owner.post(pathOf(t), { intent: "generate-scim-token" });
    expect(generated.status).toBe(200);
    const html = await generated.text();
    const token = /data-testid="scim-token"[^>]*value="([^"]+)"|value="([^"]+)"[^>]*data-testid="scim-token"/.exec(
      html,
    );
    const value = token?.[1] ?? token?.[2];
    expect(value).toMatch(/^scim_/);
    expect((await directory(app.base, value!)("GET", "/Users")).status).toBe(200);
    // Shown once: the page itself lists it only by its first characters.
    expect(await owner.page(pathOf(t))).not.toContain(value!);

    const member = await browserFor(app, t.member);
    expect((await member.post(pathOf(t), { intent: "generate-scim-token" })).status).toBe(403);

    const row = await app.prisma.scimToken.findFirstOrThrow({
      where: { tokenHash: { not: "" }, start: value!.slice(0, 11) },
    });
    const revoked = await owner.post(pathOf(t), { intent: "revoke-scim-token", tokenId: row.id });
    expect(revoked.status).toBe(302);
    expect(revoked.headers.get("location")).toBe(pathOf(t));
    expectError(await directory(app.base, value!)("GET", "/Users"), 401);
    expect(await app.prisma.auditLog.count({ where: { action: "revoke-scim-token", targetId: row.id } })).toBe(1);

    // A token of another organization is not found from here.
    const other = await tenant();
    const otherToken = await app.prisma.scimToken.findFirstOrThrow({
      where: { organizationId: other.organization.id },
    });
    const refused = await owner.post(pathOf(t), { intent: "revoke-scim-token", tokenId: otherToken.id });
    expect(refused.status).toBe(404);
    expect(await app.prisma.scimToken.count({ where: { id: otherToken.id } })).toBe(1);
  });
});

describe("hostile bodies", () => {
  it("are refused with a SCIM 400 (or 413 past the server's limit), never a 5xx, and change nothing", async () => {
    const t = await tenant();
    const user = await t.scim("POST", "/Users", oktaUser(t.verified("target")));
    const group = await t.scim("POST", "/Groups", { schemas: [SCIM_GROUP], displayName: "Target" });
    const before = JSON.stringify(
      await app.prisma.scimUser.findMany({ where: { organizationId: t.organization.id }, include: { user: true } }),
    );
    // Written as text: a value this deep is past what JSON.stringify can walk.
    const nested = (inner: string) => `${"[".repeat(100_000)}${inner}${"]".repeat(100_000)}`;
    const withField = (json: string) => JSON.stringify(oktaUser(t.verified("deep"))).replace(/}$/, `,"x":${json}}`);
    const long = "x".repeat(100 * 1024);
    const bodies: unknown[] = [
      oktaUser(t.verified("long"), { userName: long }),
      oktaUser(t.verified("long"), { [long]: "key" }),
      withField(nested('"deep"')),
      withField(nested('"\\u0000"')),
      withField(`{"a":${'{"a":'.repeat(50)}1${"}".repeat(50)}}`),
      '{"schemas":["urn:ietf:params:scim:schemas:core:2.0:User"],"userName":"p","__proto__":{"active":false}}',
      oktaUser(t.verified("ctl"), { name: { givenName: "A\u202eB" } }),
      oktaUser(t.verified("many"), { emails: Array.from({ length: 5000 }, (_, i) => ({ value: `a${i}@x.test` })) }),
      "",
      "null",
      '"a string"',
      "1e999",
    ];
    const operations = [
      patchOf({ op: "add", path: "__proto__.polluted", value: "yes" }),
      patchOf({ op: "add", path: "constructor.prototype.polluted", value: "yes" }),
      patchOf({ op: "replace", path: 'emails[__proto__ eq "x"].value', value: "yes" }),
      patchOf({ op: "replace", value: { "name.__proto__": { polluted: "yes" } } }),
      patchOf(...Array.from({ length: 1001 }, () => ({ op: "replace", path: "title", value: "x" }))),
      patchOf({ op: "replace", path: `emails[value eq "${long}"]`, value: {} }),
    ];
    const groupOperations = [
      ...operations,
      patchOf({ op: "replace", path: "members", value: Array.from({ length: 2000 }, (_, i) => ({ value: `u${i}` })) }),
    ];
    const replies = [
      ...(await Promise.all(bodies.map((body) => t.scim("POST", "/Users", body)))),
      ...(await Promise.all(bodies.map((body) => t.scim("PUT", `/Users/${user.body.id}`, body)))),
      ...(await Promise.all(bodies.map((body) => t.scim("POST", "/Groups", body)))),
      ...(await Promise.all(operations.map((body) => t.scim("PATCH", `/Users/${user.body.id}`, body)))),
      ...(await Promise.all(groupOperations.map((body) => t.scim("PATCH", `/Groups/${group.body.id}`, body)))),
    ];
    for (const reply of replies) {
      expect([400, 409, 413], JSON.stringify(reply.body)?.slice(0, 200)).toContain(reply.status);
      if (reply.status !== 413) expect(reply.body.schemas).toEqual([SCIM_ERROR]);
    }
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
    expect(
      JSON.stringify(
        await app.prisma.scimUser.findMany({ where: { organizationId: t.organization.id }, include: { user: true } }),
      ),
    ).toBe(before);
  });
});

describe("the server", () => {
  it("logged no failure for any of the above (every refusal was an answer, not a crash)", () => {
    expect(app.server.stdout()).not.toMatch(/ failed"|Unhandled/);
  });
});
