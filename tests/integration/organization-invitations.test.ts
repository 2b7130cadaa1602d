/**
 * Organization invitations over /api/auth/organization, driven by the official better-auth
 * client against the built server with a real SMTP capture: invite → localized email →
 * read → accept (member, active organization), reject, cancel, listing, and every refusal
 * better-auth names (recipient, expiry, duplicates, roles, invitation, membership and team
 * limits, unverified email, concurrent acceptance). Users, sessions and bulk rows are made
 * in-process. Runs on SQLite, or on PostgreSQL with TEST_DATABASE_URL.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { makeTestClient } from "./helpers/auth-client";
import { startTestApp, type TestApp } from "./helpers/app";
import { createUser, signInInProcess, unique, uniqueEmail } from "./helpers/factories";

const SECRET = "invitation-test-secret-0123456789abcdefghijklmnop";
const USER_AGENT = "InvitationTest/1.0 (integration)";
const HOUR_MS = 3600 * 1000;
const INVITATION_KEYS = [
  "createdAt",
  "email",
  "expiresAt",
  "id",
  "inviterId",
  "organizationId",
  "role",
  "status",
  "teamId",
];

let app: TestApp;
let prisma: TestApp["prisma"];
let base: string;

beforeAll(async () => {
  app = await startTestApp({ secret: SECRET });
  ({ prisma, base } = app);
});

afterAll(async () => {
  await app?.stop();
});

/** A user made in-process with a signed-in client; `language` is the client's Accept-Language. */
async function newUser(name: string, { verified = true, language }: { verified?: boolean; language?: string } = {}) {
  const { id, email } = await createUser({ email: uniqueEmail(name.toLowerCase()), name, verified, password: null });
  const who = makeTestClient(base, {
    headers: { "user-agent": USER_AGENT, ...(language && { "accept-language": language }) },
  });
  await signInInProcess(who, id, { ipAddress: "127.0.0.1", userAgent: USER_AGENT });
  return { id, email, name, who, org: who.client.organization };
}
type User = Awaited<ReturnType<typeof newUser>>;

/** An organization created by `owner` through the API (so it is their active one). */
async function newOrganization(owner: User) {
  const name = unique("Org");
  const res = await owner.org.create({ name, slug: name.toLowerCase() });
  expect(res.error).toBeNull();
  return { id: res.data!.id, name, slug: name.toLowerCase() };
}

const addMember = (organizationId: string, user: User, role: string) =>
  prisma.member.create({ data: { organizationId, userId: user.id, role } });

/** POST or GET /api/auth{path} as `who` with a raw body, for inputs the typed client refuses. */
async function raw(who: User | null, path: string, body?: unknown) {
  const res = await fetch(`${base}/api/auth${path}`, {
    method: body === undefined ? "GET" : "POST",
    headers: {
      origin: base,
      "user-agent": USER_AGENT,
      ...(body !== undefined && { "content-type": "application/json" }),
      ...(who && { cookie: who.who.cookieHeader() }),
    },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  return { status: res.status, body: (await res.json().catch(() => null)) as Record<string, unknown> | null };
}

async function invite(inviter: User, organizationId: string, email: string, role: "admin" | "member" | "owner") {
  const res = await inviter.org.inviteMember({ email, role, organizationId });
  expect(res.error).toBeNull();
  return res.data!;
}

describe("invite, read and accept", () => {
  let owner: User;
  let ada: User;
  let organization: Awaited<ReturnType<typeof newOrganization>>;
  let invitationId: string;

  beforeAll(async () => {
    owner = await newUser("Olivia", { language: "fr-FR,fr;q=0.9" });
    ada = await newUser("Ada");
    organization = await newOrganization(owner);
  });

  it("answers the invitation (email lower-cased, expiry in 48 hours) and audits it", async () => {
    const before = Date.now();
    const res = await owner.org.inviteMember({ email: ada.email.toUpperCase(), role: "admin" });
    expect(res.error).toBeNull();
    const invitation = res.data!;
    expect(Object.keys(invitation).sort()).toEqual(INVITATION_KEYS);
    expect(invitation).toMatchObject({
      organizationId: organization.id,
      email: ada.email,
      role: "admin",
      status: "pending",
      inviterId: owner.id,
      teamId: null,
    });
    const expiresIn = new Date(invitation.expiresAt).getTime() - before;
    expect(expiresIn).toBeGreaterThanOrEqual(48 * HOUR_MS - 1000);
    expect(expiresIn).toBeLessThanOrEqual(48 * HOUR_MS + 5000);
    invitationId = invitation.id;

    const audit = await prisma.auditLog.findFirst({ where: { action: "invite-member", targetId: invitationId } });
    expect(audit).toMatchObject({ userId: owner.id, category: "organization", status: "success" });
    expect(audit!.ipAddress).toMatch(/127\.0\.0\.1|::1/);
    expect(audit!.userAgent).toBe(USER_AGENT);
  });

  it("emails the recipient in the inviter's language, with a link to the invitation page", async () => {
    const mail = await app.mailbox.waitFor(ada.email);
    expect(mail.subject).toBe(`Olivia vous invite à rejoindre ${organization.name}`);
    expect(mail.text).toContain("Votre rôle : Administrateur.");
    expect(mail.links).toContain(`${base}/fr/invitations/${invitationId}`);
  });

  it("lets the recipient read it, with the organization and the inviter", async () => {
    const res = await ada.org.getInvitation({ query: { id: invitationId } });
    expect(res.error).toBeNull();
    expect(Object.keys(res.data!).sort()).toEqual(
      [...INVITATION_KEYS, "inviterEmail", "organizationName", "organizationSlug"].sort(),
    );
    expect(res.data).toMatchObject({
      id: invitationId,
      status: "pending",
      organizationName: organization.name,
      organizationSlug: organization.slug,
      inviterEmail: owner.email,
    });
  });

  it("refuses anyone but the recipient", async () => {
    const eve = await newUser("Eve");
    const read = await eve.org.getInvitation({ query: { id: invitationId } });
    expect(read.error).toMatchObject({ status: 403, code: "YOU_ARE_NOT_THE_RECIPIENT_OF_THE_INVITATION" });
    const accept = await eve.org.acceptInvitation({ invitationId });
    expect(accept.error).toMatchObject({ status: 403, code: "YOU_ARE_NOT_THE_RECIPIENT_OF_THE_INVITATION" });
    const reject = await eve.org.rejectInvitation({ invitationId });
    expect(reject.error).toMatchObject({ status: 403, code: "YOU_ARE_NOT_THE_RECIPIENT_OF_THE_INVITATION" });
    expect(await raw(null, `/organization/get-invitation?id=${invitationId}`)).toMatchObject({ status: 401 });
  });

  it("accepts: a member with the invited role, and the organization becomes active", async () => {
    const res = await ada.org.acceptInvitation({ invitationId });
    expect(res.error).toBeNull();
    expect(res.data!.invitation).toMatchObject({ id: invitationId, status: "accepted" });
    expect(res.data!.member).toMatchObject({
      organizationId: organization.id,
      userId: ada.id,
      role: "admin",
      teamId: null,
    });
    expect(ada.who.lastSetCookies().some((line) => line.startsWith("app.session_data="))).toBe(true);

    // Both the new cookie cache and the database name the organization.
    const cached = await ada.who.client.getSession();
    expect(cached.data!.session.activeOrganizationId).toBe(organization.id);
    const stored = await ada.who.client.getSession({ query: { disableCookieCache: true } });
    expect(stored.data!.session.activeOrganizationId).toBe(organization.id);

    const members = await ada.org.listMembers({ query: { organizationId: organization.id } });
    expect(members.data!.members.map((m) => [m.userId, m.role])).toContainEqual([ada.id, "admin"]);
    expect(await prisma.auditLog.count({ where: { action: "accept-invitation", targetId: invitationId } })).toBe(1);
  });

  it("cannot be answered twice", async () => {
    const again = await ada.org.acceptInvitation({ invitationId });
    expect(again.error).toMatchObject({ status: 400, code: "INVITATION_NOT_FOUND" });
    const reject = await ada.org.rejectInvitation({ invitationId });
    expect(reject.error).toMatchObject({ status: 400, code: "INVITATION_NOT_FOUND" });
  });
});

describe("reject and cancel", () => {
  let owner: User;
  let admin: User;
  let member: User;
  let organizationId: string;

  beforeAll(async () => {
    owner = await newUser("Owner");
    admin = await newUser("Admin");
    member = await newUser("Member");
    organizationId = (await newOrganization(owner)).id;
    await addMember(organizationId, admin, "admin");
    await addMember(organizationId, member, "member");
  });

  it("reject: {invitation, member: null}, after which it cannot be accepted", async () => {
    const bob = await newUser("Bob");
    const { id } = await invite(owner, organizationId, bob.email, "member");
    const res = await bob.org.rejectInvitation({ invitationId: id });
    expect(res.error).toBeNull();
    expect(res.data).toMatchObject({ invitation: { id, status: "rejected" }, member: null });
    const accept = await bob.org.acceptInvitation({ invitationId: id });
    expect(accept.error).toMatchObject({ status: 400, code: "INVITATION_NOT_FOUND" });
    expect(await prisma.member.count({ where: { organizationId, userId: bob.id } })).toBe(0);
    expect(await prisma.auditLog.count({ where: { action: "reject-invitation", targetId: id } })).toBe(1);
  });

  it("cancel: refused to a plain member and to outsiders, allowed to an admin", async () => {
    const carol = await newUser("Carol");
    const { id } = await invite(owner, organizationId, carol.email, "member");

    const byMember = await member.org.cancelInvitation({ invitationId: id });
    expect(byMember.error).toMatchObject({ status: 403, code: "YOU_ARE_NOT_ALLOWED_TO_CANCEL_THIS_INVITATION" });
    const outsider = await newUser("Outsider");
    const byOutsider = await outsider.org.cancelInvitation({ invitationId: id });
    expect(byOutsider.error).toMatchObject({ status: 400, code: "MEMBER_NOT_FOUND" });
    const unknown = await admin.org.cancelInvitation({ invitationId: "no-such-invitation" });
    expect(unknown.error).toMatchObject({ status: 400, code: "INVITATION_NOT_FOUND" });

    const byAdmin = await admin.org.cancelInvitation({ invitationId: id });
    expect(byAdmin.error).toBeNull();
    expect(Object.keys(byAdmin.data!).sort()).toEqual(INVITATION_KEYS);
    expect(byAdmin.data).toMatchObject({ id, status: "canceled" });
    expect(await prisma.auditLog.count({ where: { action: "cancel-invitation", targetId: id } })).toBe(1);

    const read = await carol.org.getInvitation({ query: { id } });
    expect(read.error).toMatchObject({ status: 400, code: "INVITATION_NOT_FOUND" });
    const accept = await carol.org.acceptInvitation({ invitationId: id });
    expect(accept.error).toMatchObject({ status: 400, code: "INVITATION_NOT_FOUND" });
  });

  it("list-invitations: every status, for members only", async () => {
    const res = await member.org.listInvitations({ query: { organizationId } });
    expect(res.error).toBeNull();
    expect(new Set(res.data!.map((invitation) => invitation.status))).toEqual(new Set(["rejected", "canceled"]));
    for (const invitation of res.data!) expect(Object.keys(invitation).sort()).toEqual(INVITATION_KEYS);

    const outsider = await newUser("Stranger");
    const refused = await outsider.org.listInvitations({ query: { organizationId } });
    expect(refused.error).toMatchObject({ status: 403, code: "YOU_ARE_NOT_A_MEMBER_OF_THIS_ORGANIZATION" });
    const none = await outsider.org.listInvitations();
    expect(none.error).toMatchObject({ status: 400, code: "ORGANIZATION_ID_REQUIRED" });
  });

  it("an invitation whose inviter has left cannot be read", async () => {
    const dan = await newUser("Dan");
    const leaving = await newUser("Leaving");
    await addMember(organizationId, leaving, "admin");
    const { id } = await invite(leaving, organizationId, dan.email, "member");
    await prisma.member.deleteMany({ where: { organizationId, userId: leaving.id } });
    const read = await dan.org.getInvitation({ query: { id } });
    expect(read.error).toMatchObject({ status: 400, code: "INVITER_IS_NO_LONGER_A_MEMBER_OF_THE_ORGANIZATION" });
  });

  it("an admin removed or demoted since brings in no one: their invitations no longer stand", async () => {
    const [rogue, demoted, alt, other] = await Promise.all([
      newUser("Rogue"),
      newUser("Demoted"),
      newUser("Alt"),
      newUser("Other"),
    ]);
    await addMember(organizationId, rogue, "admin");
    await addMember(organizationId, demoted, "admin");
    const removedInvitation = await invite(rogue, organizationId, alt.email, "admin");
    const demotedInvitation = await invite(demoted, organizationId, other.email, "admin");
    expect((await owner.org.removeMember({ memberIdOrEmail: rogue.email, organizationId })).error).toBeNull();
    const demotedMember = await prisma.member.findFirstOrThrow({ where: { organizationId, userId: demoted.id } });
    expect(
      (await owner.org.updateMemberRole({ memberId: demotedMember.id, role: "member", organizationId })).error,
    ).toBeNull();

    expect((await alt.org.acceptInvitation({ invitationId: removedInvitation.id })).error).toMatchObject({
      status: 400,
      code: "INVITER_IS_NO_LONGER_A_MEMBER_OF_THE_ORGANIZATION",
    });
    for (const answer of [
      await other.org.getInvitation({ query: { id: demotedInvitation.id } }),
      await other.org.acceptInvitation({ invitationId: demotedInvitation.id }),
    ]) {
      expect(answer.error).toMatchObject({ status: 403, code: "INVITER_MAY_NO_LONGER_SEND_THIS_INVITATION" });
    }
    expect(await prisma.member.count({ where: { organizationId, userId: { in: [alt.id, other.id] } } })).toBe(0);
    // Still open: the owner may cancel them, or they lapse.
    expect(
      await prisma.invitation.count({
        where: { id: { in: [removedInvitation.id, demotedInvitation.id] }, status: "pending" },
      }),
    ).toBe(2);
  });
});

describe("refusals when inviting", () => {
  let owner: User;
  let admin: User;
  let member: User;
  let organizationId: string;

  beforeAll(async () => {
    owner = await newUser("Owner");
    admin = await newUser("Admin");
    member = await newUser("Member");
    organizationId = (await newOrganization(owner)).id;
    await addMember(organizationId, admin, "admin");
    await addMember(organizationId, member, "member");
  });

  it("needs invitation:create, a known role, a valid email and an organization", async () => {
    const email = uniqueEmail("x");
    const byMember = await member.org.inviteMember({ email, role: "member", organizationId });
    expect(byMember.error).toMatchObject({
      status: 403,
      code: "YOU_ARE_NOT_ALLOWED_TO_INVITE_USERS_TO_THIS_ORGANIZATION",
    });
    const outsider = await newUser("Outsider");
    const byOutsider = await outsider.org.inviteMember({ email, role: "member", organizationId });
    expect(byOutsider.error).toMatchObject({ status: 400, code: "MEMBER_NOT_FOUND" });
    const noOrganization = await outsider.org.inviteMember({ email, role: "member" });
    expect(noOrganization.error).toMatchObject({ status: 400, code: "ORGANIZATION_NOT_FOUND" });

    const unknownRole = await raw(owner, "/organization/invite-member", { email, role: "superhero", organizationId });
    expect(unknownRole.status).toBe(400);
    expect(unknownRole.body).not.toHaveProperty("code");
    expect(unknownRole.body!.message).toMatch(/superhero/);

    const badEmail = await owner.org.inviteMember({ email: "not-an-email", role: "member", organizationId });
    expect(badEmail.error).toMatchObject({ status: 400, code: "INVALID_EMAIL" });
  });

  it("only an owner invites an owner", async () => {
    const email = uniqueEmail("boss");
    const byAdmin = await admin.org.inviteMember({ email, role: "owner", organizationId });
    expect(byAdmin.error).toMatchObject({ status: 403, code: "YOU_ARE_NOT_ALLOWED_TO_INVITE_USER_WITH_THIS_ROLE" });
    const alsoOwner = await raw(admin, "/organization/invite-member", {
      email,
      role: ["admin", "owner"],
      organizationId,
    });
    expect(alsoOwner).toMatchObject({
      status: 403,
      body: { code: "YOU_ARE_NOT_ALLOWED_TO_INVITE_USER_WITH_THIS_ROLE" },
    });

    await invite(owner, organizationId, email, "owner");
    // Nor may an admin send the owner's invitation again.
    const resend = await admin.org.inviteMember({ email, role: "member", organizationId, resend: true });
    expect(resend.error).toMatchObject({ status: 403, code: "YOU_ARE_NOT_ALLOWED_TO_INVITE_USER_WITH_THIS_ROLE" });
  });

  it("takes roles as a list and stores them comma-separated", async () => {
    const res = await raw(admin, "/organization/invite-member", {
      email: uniqueEmail("multi"),
      role: ["admin", "member"],
      organizationId,
    });
    expect(res).toMatchObject({ status: 200, body: { role: "admin,member", status: "pending" } });
  });

  it("refuses a member, and a second invitation unless resent", async () => {
    const existing = await admin.org.inviteMember({ email: member.email, role: "admin", organizationId });
    expect(existing.error).toMatchObject({ status: 400, code: "USER_IS_ALREADY_A_MEMBER_OF_THIS_ORGANIZATION" });

    const erin = await newUser("Erin");
    const first = await invite(admin, organizationId, erin.email, "member");
    await app.mailbox.waitFor(erin.email);
    const twice = await admin.org.inviteMember({ email: erin.email, role: "member", organizationId });
    expect(twice.error).toMatchObject({ status: 400, code: "USER_IS_ALREADY_INVITED_TO_THIS_ORGANIZATION" });

    await prisma.invitation.update({ where: { id: first.id }, data: { expiresAt: new Date(Date.now() + HOUR_MS) } });
    const resent = await admin.org.inviteMember({ email: erin.email, role: "member", organizationId, resend: true });
    expect(resent.error).toBeNull();
    expect(resent.data).toMatchObject({ id: first.id, status: "pending" });
    expect(new Date(resent.data!.expiresAt).getTime()).toBeGreaterThan(Date.now() + 47 * HOUR_MS);
    const mail = await app.mailbox.waitFor(erin.email);
    expect(mail.links).toContain(`${base}/invitations/${first.id}`);
    expect(await prisma.invitation.count({ where: { organizationId, email: erin.email } })).toBe(1);
  });

  it("an expired invitation cannot be read or answered, and no longer blocks a new one", async () => {
    const fay = await newUser("Fay");
    const { id } = await invite(owner, organizationId, fay.email, "member");
    await prisma.invitation.update({ where: { id }, data: { expiresAt: new Date(Date.now() - 1000) } });

    const read = await fay.org.getInvitation({ query: { id } });
    expect(read.error).toMatchObject({ status: 400, code: "INVITATION_NOT_FOUND" });
    const accept = await fay.org.acceptInvitation({ invitationId: id });
    expect(accept.error).toMatchObject({ status: 400, code: "INVITATION_NOT_FOUND" });
    const reject = await fay.org.rejectInvitation({ invitationId: id });
    expect(reject.error).toMatchObject({ status: 400, code: "INVITATION_NOT_FOUND" });
    expect(await prisma.member.count({ where: { organizationId, userId: fay.id } })).toBe(0);

    const fresh = await invite(owner, organizationId, fay.email, "member");
    expect(fresh.id).not.toBe(id);
  });

  it("stops at 100 open invitations per organization", async () => {
    const { id } = await newOrganization(owner);
    const expiresAt = new Date(Date.now() + HOUR_MS);
    await prisma.invitation.createMany({
      data: Array.from({ length: 100 }, (_, i) => ({
        id: unique(`invitation-${i}`),
        organizationId: id,
        email: `${unique(`invitee-${i}`)}@example.com`,
        role: "member",
        inviterId: owner.id,
        expiresAt,
      })),
    });
    const email = uniqueEmail("one-too-many");
    const refused = await owner.org.inviteMember({ email, role: "member", organizationId: id });
    expect(refused.error).toMatchObject({ status: 403, code: "INVITATION_LIMIT_REACHED" });

    const oldest = await prisma.invitation.findFirstOrThrow({ where: { organizationId: id } });
    await prisma.invitation.update({ where: { id: oldest.id }, data: { expiresAt: new Date(Date.now() - 1000) } });
    await invite(owner, id, email, "member");
  });
});

describe("limits on acceptance and teams", () => {
  let owner: User;
  let organizationId: string;
  let fillers: string[];

  beforeAll(async () => {
    owner = await newUser("Owner");
    organizationId = (await newOrganization(owner)).id;
    const stamp = unique("filler");
    await prisma.user.createMany({
      data: Array.from({ length: 99 }, (_, i) => ({ email: `${stamp}-${i}@example.com`, name: `Filler ${i}` })),
    });
    fillers = (await prisma.user.findMany({ where: { email: { startsWith: stamp } }, select: { id: true } })).map(
      (row) => row.id,
    );
  });

  it("refuses to accept into a full organization (100 members), and accepts once there is room", async () => {
    const gus = await newUser("Gus");
    const { id } = await invite(owner, organizationId, gus.email, "member");
    await prisma.member.createMany({ data: fillers.map((userId) => ({ organizationId, userId, role: "member" })) });

    const full = await gus.org.acceptInvitation({ invitationId: id });
    expect(full.error).toMatchObject({ status: 403, code: "ORGANIZATION_MEMBERSHIP_LIMIT_REACHED" });
    const still = await gus.org.getInvitation({ query: { id } });
    expect(still.data).toMatchObject({ id, status: "pending" });

    await prisma.member.deleteMany({ where: { organizationId, userId: fillers[0] } });
    const accepted = await gus.org.acceptInvitation({ invitationId: id });
    expect(accepted.error).toBeNull();
    expect(await prisma.member.count({ where: { organizationId } })).toBe(100);
  });

  it("puts the invitee in the first team named, and makes it the active team", async () => {
    const other = await newOrganization(owner);
    const [team, second, foreign] = await Promise.all([
      prisma.team.create({ data: { name: "Design", organizationId: other.id } }),
      prisma.team.create({ data: { name: "Sales", organizationId: other.id } }),
      prisma.team.create({ data: { name: "Elsewhere", organizationId } }),
    ]);
    const hal = await newUser("Hal");
    const wrongTeam = await owner.org.inviteMember({
      email: hal.email,
      role: "member",
      organizationId: other.id,
      teamId: foreign.id,
    });
    expect(wrongTeam.error).toMatchObject({ status: 400, code: "TEAM_NOT_FOUND" });

    const invited = await raw(owner, "/organization/invite-member", {
      email: hal.email,
      role: "member",
      organizationId: other.id,
      teamId: [team.id, second.id],
    });
    expect(invited).toMatchObject({ status: 200, body: { teamId: team.id } });

    const res = await hal.org.acceptInvitation({ invitationId: invited.body!.id as string });
    expect(res.error).toBeNull();
    expect(res.data!.member).toMatchObject({ organizationId: other.id, teamId: team.id, role: "member" });
    expect(await prisma.teamMember.count({ where: { teamId: team.id, userId: hal.id } })).toBe(1);
    const session = await hal.who.client.getSession({ query: { disableCookieCache: true } });
    expect(session.data!.session).toMatchObject({ activeOrganizationId: other.id, activeTeamId: team.id });
  });

  it("refuses an invitation to a full team (100 team members)", async () => {
    const team = await prisma.team.create({ data: { name: "Everyone", organizationId } });
    await prisma.teamMember.createMany({ data: fillers.map((userId) => ({ teamId: team.id, userId })) });
    await prisma.teamMember.create({ data: { teamId: team.id, userId: owner.id } });
    const res = await owner.org.inviteMember({
      email: uniqueEmail("ivy"),
      role: "member",
      organizationId,
      teamId: team.id,
    });
    expect(res.error).toMatchObject({ status: 403, code: "TEAM_MEMBER_LIMIT_REACHED" });
  });
});

describe("the recipient's side", () => {
  it("list-user-invitations: refused with an unverified email, else the open ones with the organization's name", async () => {
    const owner = await newUser("Owner");
    const [first, second] = [await newOrganization(owner), await newOrganization(owner)];
    const unverified = await newUser("Unverified", { verified: false });
    await invite(owner, first.id, unverified.email, "member");
    const refused = await unverified.org.listUserInvitations();
    expect(refused.error).toMatchObject({ status: 403, code: "EMAIL_VERIFICATION_REQUIRED_FOR_INVITATION" });

    const jo = await newUser("Jo");
    const open = await invite(owner, first.id, jo.email, "admin");
    const canceled = await invite(owner, second.id, jo.email, "member");
    await owner.org.cancelInvitation({ invitationId: canceled.id });
    const third = await newOrganization(owner);
    const expired = await invite(owner, third.id, jo.email, "member");
    await prisma.invitation.update({ where: { id: expired.id }, data: { expiresAt: new Date(Date.now() - 1000) } });

    const res = await jo.org.listUserInvitations();
    expect(res.error).toBeNull();
    expect(res.data).toHaveLength(1);
    expect(Object.keys(res.data![0]!).sort()).toEqual([...INVITATION_KEYS, "organizationName"].sort());
    expect(res.data![0]).toMatchObject({ id: open.id, status: "pending", organizationName: first.name });
  });

  it("acceptances at once make one member", async () => {
    const owner = await newUser("Owner");
    const { id: organizationId } = await newOrganization(owner);
    const kim = await newUser("Kim");
    const { id } = await invite(owner, organizationId, kim.email, "member");
    const results = await Promise.all(
      Array.from({ length: 5 }, () => raw(kim, "/organization/accept-invitation", { invitationId: id })),
    );
    expect(results.filter((r) => r.status === 200)).toHaveLength(1);
    for (const refused of results.filter((r) => r.status !== 200)) {
      expect(refused).toMatchObject({ status: 400, body: { code: "INVITATION_NOT_FOUND" } });
    }
    expect(await prisma.member.count({ where: { organizationId, userId: kim.id } })).toBe(1);
  });
});
