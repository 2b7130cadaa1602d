/**
 * ORGANIZATION_MEMBERSHIP_LIMIT set small (3 members): accepting an invitation, adding a
 * member, list-members' largest page and get-full-organization's default list all keep to
 * the configured limit (the default of 100 is covered in organization-invitations.test.ts).
 * Runs on SQLite, or on PostgreSQL with TEST_DATABASE_URL.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { makeTestClient } from "./helpers/auth-client";
import { startTestApp, type TestApp } from "./helpers/app";
import { createUser, signInInProcess, unique } from "./helpers/factories";

const SECRET = "membership-limit-test-secret-0123456789abcdefgh";
const LIMIT = 3;
// addMember is called in-process too: this process reads the same setting.
process.env.ORGANIZATION_MEMBERSHIP_LIMIT = String(LIMIT);

let app: TestApp;

beforeAll(async () => {
  app = await startTestApp({ secret: SECRET, env: { ORGANIZATION_MEMBERSHIP_LIMIT: String(LIMIT) } });
}, 60_000);
afterAll(() => app?.stop());

/** A verified user made in-process, with a signed-in better-auth client. */
async function newUser(name: string) {
  const { id, email } = await createUser({ name, password: null });
  const who = await signInInProcess(makeTestClient(app.base), id, { userAgent: "vitest" });
  return { id, email, org: who.client.organization };
}

async function newOrganization() {
  const owner = await newUser("Owner");
  const slug = unique("limited");
  const res = await owner.org.create({ name: "Limited", slug });
  expect(res.error).toBeNull();
  return { owner, id: res.data!.id };
}

describe("a configured membership limit", () => {
  it("refuses to accept an invitation into a full organization, and accepts once there is room", async () => {
    const { owner, id: organizationId } = await newOrganization();
    const people = [await newUser("Ada"), await newUser("Ben"), await newUser("Cy")];
    const invitations = [];
    for (const person of people) {
      const res = await owner.org.inviteMember({ email: person.email, role: "member", organizationId });
      expect(res.error).toBeNull();
      invitations.push(res.data!.id);
    }
    for (const i of [0, 1]) {
      expect((await people[i]!.org.acceptInvitation({ invitationId: invitations[i]! })).error).toBeNull();
    }
    expect(await app.prisma.member.count({ where: { organizationId } })).toBe(LIMIT);

    const full = await people[2]!.org.acceptInvitation({ invitationId: invitations[2]! });
    expect(full.error).toMatchObject({ status: 403, code: "ORGANIZATION_MEMBERSHIP_LIMIT_REACHED" });
    expect((await app.prisma.invitation.findUniqueOrThrow({ where: { id: invitations[2]! } })).status).toBe("pending");

    await owner.org.removeMember({ memberIdOrEmail: people[0]!.email, organizationId });
    expect((await people[2]!.org.acceptInvitation({ invitationId: invitations[2]! })).error).toBeNull();
    expect(await app.prisma.member.count({ where: { organizationId } })).toBe(LIMIT);
  });

  it("refuses to add a member beyond it on the server", async () => {
    const { id: organizationId } = await newOrganization();
    const { addMember } = await import("~/server/organization/organizations.server");
    const meta = { ipAddress: null, userAgent: null, locale: "en" as const };
    for (const name of ["Dee", "Eve"]) {
      await addMember({ userId: (await newUser(name)).id, role: "member", organizationId }, meta);
    }
    await expect(
      addMember({ userId: (await newUser("Fay")).id, role: "member", organizationId }, meta),
    ).rejects.toMatchObject({ code: "ORGANIZATION_MEMBERSHIP_LIMIT_REACHED" });
  });

  it("bounds list-members' page and get-full-organization's default list", async () => {
    const { owner, id: organizationId } = await newOrganization();
    // More members than the limit allows, as an organization has after the limit was lowered.
    for (const name of ["Gil", "Hal", "Ivy", "Jo"]) {
      await app.prisma.member.create({ data: { organizationId, userId: (await newUser(name)).id, role: "member" } });
    }

    const tooMany = await owner.org.listMembers({ query: { organizationId, limit: LIMIT + 1 } });
    expect(tooMany.error).toMatchObject({ status: 400 });
    const listed = await owner.org.listMembers({ query: { organizationId, limit: LIMIT } });
    expect(listed.data).toMatchObject({ total: 5 });
    expect(listed.data!.members).toHaveLength(LIMIT);
    expect((await owner.org.listMembers({ query: { organizationId } })).data!.members).toHaveLength(LIMIT);

    const full = await owner.org.getFullOrganization({ query: { organizationId } });
    expect(full.data!.members).toHaveLength(LIMIT);
    const all = await owner.org.getFullOrganization({ query: { organizationId, membersLimit: 5 } });
    expect(all.data!.members).toHaveLength(5);
  });
});
