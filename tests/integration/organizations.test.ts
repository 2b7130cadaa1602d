/**
 * Organizations and members through the official better-auth client (organization plugin):
 * create, slugs, update, delete, the active organization, members and their roles, leaving,
 * and each rule and refusal of the permission table (permissions.server.ts).
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { makeTestClient, type TestClient } from "./helpers/auth-client";
import { startTestApp, type TestApp } from "./helpers/app";
import { createOrganization, createUser, signInInProcess, unique } from "./helpers/factories";

const SECRET = "organizations-test-secret-0123456789abcdefghijkl";
let app: TestApp;

beforeAll(async () => {
  // Verified users may create organizations, at most 3 each.
  app = await startTestApp({ secret: SECRET, env: { ORGANIZATION_CREATION: "verified", ORGANIZATION_LIMIT: "3" } });
}, 60_000);
afterAll(() => app?.stop());

/** A signed-in user (verified unless said otherwise) with a better-auth client of their own. */
async function person(verified = true): Promise<TestClient & { id: string; email: string }> {
  const { id, email } = await createUser({ verified, password: null });
  const client = await signInInProcess(makeTestClient(app.base), id, { userAgent: "vitest" });
  return Object.assign(client, { id, email });
}

const slug = () => unique("org");

async function activeOrganizationId(c: TestClient) {
  const { data } = await c.client.getSession({ query: { disableCookieCache: true } });
  return (data?.session as { activeOrganizationId?: string | null } | undefined)?.activeOrganizationId ?? null;
}

/** An organization owned by a new user, with an admin and a member (added in-process). */
async function team() {
  const owner = await person();
  const { data: org } = await owner.client.organization.create({ name: "Acme", slug: slug() });
  const admin = await person();
  const member = await person();
  const { addMember } = await import("~/server/organization/organizations.server");
  const meta = { ipAddress: null, userAgent: null, locale: "en" as const };
  await addMember({ userId: admin.id, role: "admin", organizationId: org!.id }, meta);
  await addMember({ userId: member.id, role: "member", organizationId: org!.id }, meta);
  for (const c of [admin, member]) await c.client.organization.setActive({ organizationId: org!.id });
  return { org: org!, owner, admin, member };
}

describe("creating organizations", () => {
  it("makes the creator the owner and the organization active", async () => {
    const owner = await person();
    const wanted = slug();
    const { data, error } = await owner.client.organization.create({
      name: "Acme Inc.",
      slug: wanted,
      metadata: { plan: "pro" },
    });
    expect(error).toBeNull();
    expect(data).toMatchObject({ name: "Acme Inc.", slug: wanted, metadata: { plan: "pro" } });
    expect(data!.members).toEqual([
      expect.objectContaining({ userId: owner.id, role: "owner", organizationId: data!.id }),
    ]);
    expect(await activeOrganizationId(owner)).toBe(data!.id);
    const audit = await app.prisma.auditLog.findFirst({ where: { userId: owner.id, action: "create-organization" } });
    expect(audit?.category).toBe("organization");

    const kept = await owner.client.organization.create({
      name: "Second",
      slug: slug(),
      keepCurrentActiveOrganization: true,
    });
    expect(kept.error).toBeNull();
    expect(await activeOrganizationId(owner)).toBe(data!.id);
  });

  it("refuses a taken slug, and says so when asked", async () => {
    const owner = await person();
    const taken = slug();
    await owner.client.organization.create({ name: "A", slug: taken });
    expect((await owner.client.organization.checkSlug({ slug: taken })).error).toMatchObject({
      status: 400,
      code: "ORGANIZATION_SLUG_ALREADY_TAKEN",
      message: "slug is taken",
    });
    expect((await owner.client.organization.checkSlug({ slug: slug() })).data).toEqual({ status: true });
    expect((await owner.client.organization.create({ name: "B", slug: taken })).error).toMatchObject({
      status: 400,
      code: "ORGANIZATION_ALREADY_EXISTS",
    });
    // "new" would hide behind the page that creates organizations.
    expect((await owner.client.organization.checkSlug({ slug: "new" })).error?.code).toBe(
      "ORGANIZATION_SLUG_ALREADY_TAKEN",
    );
    expect((await owner.client.organization.create({ name: "New", slug: "new" })).error).toMatchObject({
      status: 400,
      code: "ORGANIZATION_SLUG_ALREADY_TAKEN",
    });
  });

  it("follows the creation rule and the organization limit", async () => {
    const unverified = await person(false);
    expect((await unverified.client.organization.create({ name: "X", slug: slug() })).error).toMatchObject({
      status: 403,
      code: "YOU_ARE_NOT_ALLOWED_TO_CREATE_A_NEW_ORGANIZATION",
    });
    const busy = await person();
    for (let i = 0; i < 3; i++)
      expect((await busy.client.organization.create({ name: "X", slug: slug() })).error).toBeNull();
    expect((await busy.client.organization.create({ name: "X", slug: slug() })).error).toMatchObject({
      status: 403,
      code: "YOU_HAVE_REACHED_THE_MAXIMUM_NUMBER_OF_ORGANIZATIONS",
    });
  });

  it("answers 401 without a session", async () => {
    const anonymous = makeTestClient(app.base);
    expect((await anonymous.client.organization.create({ name: "X", slug: slug() })).error?.status).toBe(401);
    expect((await anonymous.client.organization.list()).error?.status).toBe(401);
  });
});

describe("the permission table, role by role", () => {
  it("organization update: owner and admin yes, member no", async () => {
    const { org, owner, admin, member } = await team();
    expect(
      (await owner.client.organization.update({ data: { name: "By owner" }, organizationId: org.id })).data,
    ).toMatchObject({
      name: "By owner",
    });
    expect((await admin.client.organization.update({ data: { name: "By admin" } })).data).toMatchObject({
      name: "By admin",
    });
    expect((await member.client.organization.update({ data: { name: "By member" } })).error).toMatchObject({
      status: 403,
      code: "YOU_ARE_NOT_ALLOWED_TO_UPDATE_THIS_ORGANIZATION",
    });
    const stranger = await person();
    expect(
      (await stranger.client.organization.update({ data: { name: "x" }, organizationId: org.id })).error,
    ).toMatchObject({ status: 400, code: "USER_IS_NOT_A_MEMBER_OF_THE_ORGANIZATION" });
  });

  it("organization delete: owner only; members and invitations go, and their active organization is cleared", async () => {
    const { org, owner, admin, member } = await team();
    for (const c of [admin, member]) {
      expect((await c.client.organization.delete({ organizationId: org.id })).error).toMatchObject({
        status: 403,
        code: "YOU_ARE_NOT_ALLOWED_TO_DELETE_THIS_ORGANIZATION",
      });
    }
    await app.prisma.invitation.create({
      data: {
        organizationId: org.id,
        email: "x@example.com",
        role: "member",
        inviterId: owner.id,
        expiresAt: new Date(Date.now() + 3600_000),
      },
    });
    expect((await owner.client.organization.delete({ organizationId: org.id })).error).toBeNull();
    expect(await app.prisma.organization.count({ where: { id: org.id } })).toBe(0);
    expect(await app.prisma.member.count({ where: { organizationId: org.id } })).toBe(0);
    expect(await app.prisma.invitation.count({ where: { organizationId: org.id } })).toBe(0);
    for (const c of [owner, admin, member]) expect(await activeOrganizationId(c)).toBeNull();
  });

  it("member update: owner and admin yes, member no; only an owner makes or unmakes an owner", async () => {
    const { org, owner, admin, member } = await team();
    const members = (await owner.client.organization.listMembers({ query: { organizationId: org.id } })).data!.members;
    const memberRow = members.find((m) => m.userId === member.id)!;
    const ownerRow = members.find((m) => m.userId === owner.id)!;
    expect(
      (await member.client.organization.updateMemberRole({ memberId: memberRow.id, role: "admin" })).error,
    ).toMatchObject({
      status: 403,
      code: "YOU_ARE_NOT_ALLOWED_TO_UPDATE_THIS_MEMBER",
    });
    expect(
      (await admin.client.organization.updateMemberRole({ memberId: memberRow.id, role: ["admin", "member"] })).data,
    ).toMatchObject({
      role: "admin,member",
    });
    expect(
      (await admin.client.organization.updateMemberRole({ memberId: memberRow.id, role: "owner" })).error,
    ).toMatchObject({
      status: 403,
      code: "YOU_ARE_NOT_ALLOWED_TO_UPDATE_THIS_MEMBER",
    });
    expect(
      (await admin.client.organization.updateMemberRole({ memberId: ownerRow.id, role: "member" })).error,
    ).toMatchObject({
      status: 403,
      code: "YOU_ARE_NOT_ALLOWED_TO_UPDATE_THIS_MEMBER",
    });
    expect(
      (await owner.client.organization.updateMemberRole({ memberId: ownerRow.id, role: "admin" })).error,
    ).toMatchObject({
      status: 400,
      code: "YOU_CANNOT_LEAVE_THE_ORGANIZATION_WITHOUT_AN_OWNER",
    });
    expect(
      (await owner.client.organization.updateMemberRole({ memberId: memberRow.id, role: "emperor" })).error,
    ).toMatchObject({
      status: 400,
      code: "ROLE_NOT_FOUND",
    });
    expect(
      (await owner.client.organization.updateMemberRole({ memberId: memberRow.id, role: "owner" })).data,
    ).toMatchObject({
      role: "owner",
    });
  });

  it("keeps an owner when two owners demote, remove or leave at the same moment", async () => {
    const { addMember } = await import("~/server/organization/organizations.server");
    const meta = { ipAddress: null, userAgent: null, locale: "en" as const };
    for (const how of ["demote", "remove", "leave"] as const) {
      const { org, owner } = await team();
      const second = await person();
      await addMember({ userId: second.id, role: "owner", organizationId: org.id }, meta);
      await second.client.organization.setActive({ organizationId: org.id });
      const rows = await app.prisma.member.findMany({ where: { organizationId: org.id, role: "owner" } });
      const rowOf = (id: string) => rows.find((row) => row.userId === id)!.id;
      // Each acts on the other (or leaves), both at once.
      const act = (actor: typeof owner, other: typeof owner) =>
        how === "demote"
          ? actor.client.organization.updateMemberRole({ memberId: rowOf(other.id), role: "admin" })
          : how === "remove"
            ? actor.client.organization.removeMember({ memberIdOrEmail: rowOf(other.id) })
            : actor.client.organization.leave({ organizationId: org.id });
      const answers = await Promise.all([act(owner, second), act(second, owner)]);
      const owners = await app.prisma.member.count({ where: { organizationId: org.id, role: { contains: "owner" } } });
      expect({ how, owners }).toEqual({ how, owners: 1 });
      expect(answers.filter((answer) => answer.error === null)).toHaveLength(1);
    }
  });

  it("member delete: owner and admin yes, member no; only an owner removes an owner, never the only one", async () => {
    const { org, owner, admin, member } = await team();
    const extra = await person();
    const { addMember } = await import("~/server/organization/organizations.server");
    await addMember(
      { userId: extra.id, role: "member", organizationId: org.id },
      { ipAddress: null, userAgent: null, locale: "en" },
    );
    await extra.client.organization.setActive({ organizationId: org.id });

    expect((await member.client.organization.removeMember({ memberIdOrEmail: extra.email })).error).toMatchObject({
      status: 403,
      code: "YOU_ARE_NOT_ALLOWED_TO_DELETE_THIS_MEMBER",
    });
    expect((await admin.client.organization.removeMember({ memberIdOrEmail: owner.email })).error).toMatchObject({
      status: 403,
      code: "YOU_ARE_NOT_ALLOWED_TO_DELETE_THIS_MEMBER",
    });
    const removed = await admin.client.organization.removeMember({ memberIdOrEmail: extra.email.toUpperCase() });
    expect(removed.data).toMatchObject({ member: { userId: extra.id } });
    expect(await activeOrganizationId(extra)).toBeNull();

    const memberRow = await app.prisma.member.findFirstOrThrow({
      where: { organizationId: org.id, userId: member.id },
    });
    expect((await owner.client.organization.removeMember({ memberIdOrEmail: memberRow.id })).error).toBeNull();
    const ownerRow = await app.prisma.member.findFirstOrThrow({ where: { organizationId: org.id, userId: owner.id } });
    expect((await owner.client.organization.removeMember({ memberIdOrEmail: ownerRow.id })).error).toMatchObject({
      status: 400,
      code: "YOU_CANNOT_LEAVE_THE_ORGANIZATION_AS_THE_ONLY_OWNER",
    });
    expect(
      (await owner.client.organization.removeMember({ memberIdOrEmail: "nobody@example.com" })).error,
    ).toMatchObject({
      status: 400,
      code: "MEMBER_NOT_FOUND",
    });
    expect(
      await app.prisma.auditLog.count({ where: { action: "remove-member", category: "organization" } }),
    ).toBeGreaterThanOrEqual(2);
  });
});

describe("membership", () => {
  it("lists, reads and switches organizations only for members", async () => {
    const { org, owner, member } = await team();
    const stranger = await person();
    expect((await owner.client.organization.list()).data!.map((o) => o.id)).toContain(org.id);
    expect((await stranger.client.organization.setActive({ organizationId: org.id })).error).toMatchObject({
      status: 403,
      code: "USER_IS_NOT_A_MEMBER_OF_THE_ORGANIZATION",
    });
    expect((await stranger.client.organization.listMembers({ query: { organizationId: org.id } })).error).toMatchObject(
      {
        status: 403,
        code: "YOU_ARE_NOT_A_MEMBER_OF_THIS_ORGANIZATION",
      },
    );
    expect((await stranger.client.organization.listMembers()).error).toMatchObject({
      status: 400,
      code: "NO_ACTIVE_ORGANIZATION",
    });

    const full = (await member.client.organization.getFullOrganization()).data!;
    expect(full.id).toBe(org.id);
    expect(full.members).toHaveLength(3);
    expect(full.members[0]!.user).toEqual(expect.objectContaining({ id: owner.id, email: owner.email }));
    expect((await member.client.organization.getActiveMember()).data).toMatchObject({
      userId: member.id,
      role: "member",
    });
    expect((await member.client.organization.getActiveMemberRole()).data).toEqual({ role: "member" });
    expect((await member.client.organization.getActiveMemberRole({ query: { userId: owner.id } })).data).toEqual({
      role: "owner",
    });
    expect((await member.client.organization.setActive({ organizationId: null })).data).toBeNull();
    expect(await activeOrganizationId(member)).toBeNull();
    expect((await member.client.organization.getFullOrganization()).data).toBeNull();
  });

  it("pages, sorts and filters the member list", async () => {
    const { org, owner } = await team();
    const page = await owner.client.organization.listMembers({
      query: { organizationId: org.id, limit: 2, offset: 1, sortBy: "createdAt", sortDirection: "asc" },
    });
    expect(page.data!.total).toBe(3);
    expect(page.data!.members.map((m) => m.role)).toEqual(["admin", "member"]);
    const admins = await owner.client.organization.listMembers({
      query: { organizationId: org.id, filterField: "role", filterOperator: "ne", filterValue: "member" },
    });
    expect(admins.data!.members.map((m) => m.role).sort()).toEqual(["admin", "owner"]);
    expect(admins.data!.total).toBe(2);
  });

  it("leaving: members may, the only owner may not, and the active organization is cleared", async () => {
    const { org, owner, member } = await team();
    expect((await owner.client.organization.leave({ organizationId: org.id })).error).toMatchObject({
      status: 400,
      code: "YOU_CANNOT_LEAVE_THE_ORGANIZATION_AS_THE_ONLY_OWNER",
    });
    expect((await member.client.organization.leave({ organizationId: org.id })).error).toBeNull();
    expect(await activeOrganizationId(member)).toBeNull();
    expect(await app.prisma.member.count({ where: { organizationId: org.id, userId: member.id } })).toBe(0);
  });

  it("the last-owner rule counts owners among combined roles, not roles that only look alike", async () => {
    const roles = ["owner", "admin,owner", "co-owner", "Owner", "member"];
    const users = await Promise.all(roles.map(() => createUser()));
    const organization = await createOrganization({
      members: users.map(({ id }, i) => ({ userId: id, role: roles[i]! })),
    });
    const { ownerCount } = await import("~/server/organization/organizations.server");
    expect(await ownerCount(organization.id)).toBe(2);
    await app.prisma.member.deleteMany({ where: { organizationId: organization.id, role: "owner" } });
    expect(await ownerCount(organization.id)).toBe(1);
  });
});

describe("the whole life of an organization, through the official client", () => {
  it("create → slug taken → invite → accept → members → roles → remove → teams → leave → delete", async () => {
    const owner = await person();
    const invitee = await person();
    const wanted = slug();
    const { data: org } = await owner.client.organization.create({ name: "Lifecycle", slug: wanted });
    expect((await owner.client.organization.checkSlug({ slug: wanted })).error?.code).toBe(
      "ORGANIZATION_SLUG_ALREADY_TAKEN",
    );

    const { data: invitation, error: inviteError } = await owner.client.organization.inviteMember({
      email: invitee.email.toUpperCase(),
      role: "member",
    });
    expect(inviteError).toBeNull();
    expect(invitation).toMatchObject({
      email: invitee.email,
      role: "member",
      status: "pending",
      organizationId: org!.id,
    });
    const mail = await app.mailbox.waitFor(invitee.email);
    expect(mail.text).toContain(`/invitations/${invitation!.id}`);

    const read = await invitee.client.organization.getInvitation({ query: { id: invitation!.id } });
    expect(read.data).toMatchObject({
      organizationName: "Lifecycle",
      organizationSlug: wanted,
      inviterEmail: owner.email,
    });
    const accepted = await invitee.client.organization.acceptInvitation({ invitationId: invitation!.id });
    expect(accepted.data).toMatchObject({
      invitation: { status: "accepted" },
      member: { userId: invitee.id, role: "member" },
    });
    expect(await activeOrganizationId(invitee)).toBe(org!.id);

    const { data: listed } = await owner.client.organization.listMembers();
    expect(listed!.total).toBe(2);
    const inviteeMember = listed!.members.find((m) => m.userId === invitee.id)!;
    expect(
      (await owner.client.organization.updateMemberRole({ memberId: inviteeMember.id, role: "admin" })).data,
    ).toMatchObject({
      role: "admin",
    });

    const { data: teamA } = await owner.client.organization.createTeam({ name: "Alpha" });
    const { data: teamB } = await invitee.client.organization.createTeam({ name: "Beta" }); // admins may
    expect(
      (await owner.client.organization.updateTeam({ teamId: teamA!.id, data: { name: "Alpha 2" } })).data,
    ).toMatchObject({
      name: "Alpha 2",
    });
    expect((await owner.client.organization.removeTeam({ teamId: teamB!.id })).error).toBeNull();
    expect((await owner.client.organization.removeTeam({ teamId: teamA!.id })).error).toMatchObject({
      status: 400,
      code: "UNABLE_TO_REMOVE_LAST_TEAM",
    });

    expect((await owner.client.organization.removeMember({ memberIdOrEmail: inviteeMember.id })).data).toMatchObject({
      member: { userId: invitee.id },
    });
    expect(await activeOrganizationId(invitee)).toBeNull();
    expect((await owner.client.organization.leave({ organizationId: org!.id })).error).toMatchObject({
      code: "YOU_CANNOT_LEAVE_THE_ORGANIZATION_AS_THE_ONLY_OWNER",
    });
    expect((await owner.client.organization.delete({ organizationId: org!.id })).error).toBeNull();
    expect((await owner.client.organization.list()).data!.map((o) => o.id)).not.toContain(org!.id);
  });
});
