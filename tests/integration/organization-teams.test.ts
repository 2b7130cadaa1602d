/**
 * Teams over /api/auth/organization, driven by the official better-auth client against the
 * built server: every team call's reply, who may make it (owner and admin may manage teams
 * and their members, a plain member may not), the last-team rule and its switch
 * (ORGANIZATION_ALLOW_REMOVING_ALL_TEAMS, on a second server over the same database), the
 * team and team-member limits, the active team and its cookie, and who may list a team's
 * members. Runs on SQLite, or on PostgreSQL with TEST_DATABASE_URL.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { makeTestClient, type TestClient } from "./helpers/auth-client";
import { startTestApp, type TestApp } from "./helpers/app";
import { createUser, signInInProcess, unique, uniqueEmail } from "./helpers/factories";
import { startServer, type RunningServer } from "./helpers/server";

const SECRET = "teams-test-secret-0123456789abcdefghijklmnop";
const USER_AGENT = "TeamsTest/1.0 (integration)";
const CACHE_COOKIE = "app.session_data";

let app: TestApp;
let prisma: TestApp["prisma"];
let TEAM_LIMIT: number;
let TEAM_MEMBER_LIMIT: number;

beforeAll(async () => {
  app = await startTestApp({ secret: SECRET });
  prisma = app.prisma;
  // Imported only now: the database client must be made for the test database.
  ({ TEAM_LIMIT } = await import("~/server/organization/teams.server"));
  ({ TEAM_MEMBER_LIMIT } = await import("~/server/organization/organizations.server"));
}, 60_000);

afterAll(async () => {
  await app?.stop();
});

type Person = { id: string; who: TestClient; api: TestClient["client"]["organization"] };

/** A verified user with a session made in-process, loaded into a client of `base`. */
async function person(name: string, base = app.base): Promise<Person> {
  const { id } = await createUser({ email: uniqueEmail(name), name, password: null });
  const who = makeTestClient(base, { headers: { "user-agent": USER_AGENT } });
  await signInInProcess(who, id, { userAgent: USER_AGENT });
  return { id, who, api: who.client.organization };
}

/** An organization made by its owner, with an admin and a member; all three have it active. */
async function organization() {
  const [owner, admin, member] = await Promise.all([person("owner"), person("admin"), person("member")]);
  const slug = unique("org");
  const created = await owner.api.create({ name: slug, slug });
  expect(created.error).toBeNull();
  const id = created.data!.id;
  await prisma.member.createMany({
    data: [
      { organizationId: id, userId: admin.id, role: "admin" },
      { organizationId: id, userId: member.id, role: "member" },
    ],
  });
  for (const p of [admin, member]) expect((await p.api.setActive({ organizationId: id })).error).toBeNull();
  return { id, owner, admin, member };
}

async function team(by: Person, name = unique("team")) {
  const created = await by.api.createTeam({ name });
  expect(created.error).toBeNull();
  return created.data!;
}

const join = (teamId: string, ...people: Person[]) =>
  prisma.teamMember.createMany({ data: people.map((p) => ({ teamId, userId: p.id })) });

const audited = (action: string, targetId: string) =>
  prisma.auditLog.findFirst({ where: { category: "organization", action, targetId } });

const TEAM_KEYS = ["createdAt", "id", "name", "organizationId", "updatedAt"];
const TEAM_MEMBER_KEYS = ["createdAt", "id", "teamId", "userId"];

describe("create-team", () => {
  it("creates a team in the active organization, for the owner and the admin", async () => {
    const org = await organization();
    for (const p of [org.owner, org.admin]) {
      const { data, error } = await p.api.createTeam({ name: "Design" });
      expect(error).toBeNull();
      expect(Object.keys(data!).sort()).toEqual(TEAM_KEYS);
      expect(data).toMatchObject({ name: "Design", organizationId: org.id });
      expect(new Date(data!.createdAt).getTime()).toBeGreaterThan(Date.now() - 60_000);
      expect(await audited("create-team", data!.id)).toMatchObject({ userId: p.id, status: "success" });
    }
  });

  it("takes an explicit organizationId over the active organization", async () => {
    const [org, other] = await Promise.all([organization(), organization()]);
    await prisma.member.create({ data: { organizationId: other.id, userId: org.owner.id, role: "admin" } });
    const { data } = await org.owner.api.createTeam({ name: "Elsewhere", organizationId: other.id });
    expect(data).toMatchObject({ organizationId: other.id });
  });

  it("refuses a member, a non-member, a caller without an organization, and an empty name", async () => {
    const org = await organization();
    const member = await org.member.api.createTeam({ name: "Nope" });
    expect(member.error).toMatchObject({
      status: 403,
      code: "YOU_ARE_NOT_ALLOWED_TO_CREATE_TEAMS_IN_THIS_ORGANIZATION",
    });
    const outsider = await person("outsider");
    const foreign = await outsider.api.createTeam({ name: "Nope", organizationId: org.id });
    expect(foreign.error).toMatchObject({
      status: 403,
      code: "YOU_ARE_NOT_ALLOWED_TO_INVITE_USERS_TO_THIS_ORGANIZATION",
    });
    const homeless = await outsider.api.createTeam({ name: "Nope" });
    expect(homeless.error).toMatchObject({ status: 400, code: "NO_ACTIVE_ORGANIZATION" });
    for (const name of ["", "   "]) {
      const blank = await org.owner.api.createTeam({ name });
      expect(blank.error).toMatchObject({ status: 400, code: "VALIDATION_ERROR" });
    }
    const anonymous = await makeTestClient(app.base).client.organization.createTeam({ name: "Nope" });
    expect(anonymous.error).toMatchObject({ status: 401, code: "UNAUTHORIZED" });
    expect(await prisma.team.count({ where: { organizationId: org.id } })).toBe(0);
  });

  it("stops at TEAM_LIMIT teams per organization", async () => {
    const org = await organization();
    await prisma.team.createMany({
      data: Array.from({ length: TEAM_LIMIT - 1 }, (_, i) => ({ name: `t${i}`, organizationId: org.id })),
    });
    expect((await org.owner.api.createTeam({ name: "last" })).error).toBeNull();
    const over = await org.owner.api.createTeam({ name: "one too many" });
    expect(over.error).toMatchObject({ status: 400, code: "YOU_HAVE_REACHED_THE_MAXIMUM_NUMBER_OF_TEAMS" });
    expect(await prisma.team.count({ where: { organizationId: org.id } })).toBe(TEAM_LIMIT);
  });
});

describe("update-team", () => {
  it("renames a team for the owner and the admin, and refuses a member", async () => {
    const org = await organization();
    const t = await team(org.owner, "Before");
    for (const [p, name] of [
      [org.owner, "Owner's"],
      [org.admin, "Admin's"],
    ] as const) {
      const { data, error } = await p.api.updateTeam({ teamId: t.id, data: { name } });
      expect(error).toBeNull();
      expect(Object.keys(data!).sort()).toEqual(TEAM_KEYS);
      expect(data).toMatchObject({ id: t.id, name, organizationId: org.id });
    }
    const refused = await org.member.api.updateTeam({ teamId: t.id, data: { name: "Member's" } });
    expect(refused.error).toMatchObject({ status: 403, code: "YOU_ARE_NOT_ALLOWED_TO_UPDATE_THIS_TEAM" });
    expect((await prisma.team.findUnique({ where: { id: t.id } }))!.name).toBe("Admin's");
    expect(await audited("update-team", t.id)).toBeTruthy();
  });

  it("does not find another organization's team, and wants a non-empty name", async () => {
    const [org, other] = await Promise.all([organization(), organization()]);
    const foreign = await team(other.owner);
    const missing = await org.owner.api.updateTeam({ teamId: foreign.id, data: { name: "Mine now" } });
    expect(missing.error).toMatchObject({ status: 400, code: "TEAM_NOT_FOUND" });
    const t = await team(org.owner);
    const blank = await org.owner.api.updateTeam({ teamId: t.id, data: { name: "" } });
    expect(blank.error).toMatchObject({ status: 400, code: "VALIDATION_ERROR" });
    const outsider = await org.owner.api.updateTeam({
      teamId: foreign.id,
      data: { name: "x", organizationId: other.id },
    });
    expect(outsider.error).toMatchObject({ status: 403, code: "YOU_ARE_NOT_ALLOWED_TO_UPDATE_THIS_TEAM" });
  });
});

describe("remove-team", () => {
  it("removes a team for the owner and the admin, and refuses a member", async () => {
    const org = await organization();
    const [a, b, keep] = [await team(org.owner), await team(org.owner), await team(org.owner)];
    const refused = await org.member.api.removeTeam({ teamId: a.id });
    expect(refused.error).toMatchObject({
      status: 403,
      code: "YOU_ARE_NOT_ALLOWED_TO_DELETE_TEAMS_IN_THIS_ORGANIZATION",
    });
    for (const [p, t] of [
      [org.owner, a],
      [org.admin, b],
    ] as const) {
      const { data, error } = await p.api.removeTeam({ teamId: t.id });
      expect(error).toBeNull();
      expect(data).toEqual({ message: "Team removed successfully." });
      expect(await audited("remove-team", t.id)).toMatchObject({ userId: p.id });
    }
    expect((await prisma.team.findMany({ where: { organizationId: org.id } })).map((t) => t.id)).toEqual([keep.id]);
  });

  it("keeps an organization's last team", async () => {
    const org = await organization();
    const only = await team(org.owner);
    const refused = await org.owner.api.removeTeam({ teamId: only.id });
    expect(refused.error).toMatchObject({ status: 400, code: "UNABLE_TO_REMOVE_LAST_TEAM" });
    const other = await organization();
    const foreign = await org.owner.api.removeTeam({ teamId: (await team(other.owner)).id });
    expect(foreign.error).toMatchObject({ status: 400, code: "TEAM_NOT_FOUND" });
  });

  it("refuses the team the caller's own session has active", async () => {
    const org = await organization();
    const a = await team(org.owner);
    await team(org.owner); // so that the last-team rule is not what refuses
    await join(a.id, org.owner);
    expect((await org.owner.api.setActiveTeam({ teamId: a.id })).error).toBeNull();
    const refused = await org.owner.api.removeTeam({ teamId: a.id });
    expect(refused.error).toMatchObject({ status: 403, code: "YOU_ARE_NOT_ALLOWED_TO_DELETE_THIS_TEAM" });
  });

  it("takes the team out of members, pending invitations and other sessions' active team", async () => {
    const org = await organization();
    const [gone, stays] = [await team(org.owner), await team(org.owner)];
    await join(gone.id, org.admin, org.member);
    expect((await org.member.api.setActiveTeam({ teamId: gone.id })).error).toBeNull();
    const invitation = await prisma.invitation.create({
      data: {
        organizationId: org.id,
        email: uniqueEmail("invitee"),
        role: "member",
        teamId: `${gone.id},${stays.id}`,
        inviterId: org.owner.id,
        expiresAt: new Date(Date.now() + 3600_000),
      },
    });
    expect((await org.owner.api.removeTeam({ teamId: gone.id })).error).toBeNull();
    expect(await prisma.teamMember.count({ where: { teamId: gone.id } })).toBe(0);
    expect((await prisma.invitation.findUnique({ where: { id: invitation.id } }))!.teamId).toBe(stays.id);
    // The member's cookie cache still names the team; the server must not trust it.
    expect(org.member.who.jar.has(CACHE_COOKIE)).toBe(true);
    const session = await org.member.who.client.getSession();
    expect(session.data!.session).toMatchObject({ activeOrganizationId: org.id, activeTeamId: null });
  });

  describe("with ORGANIZATION_ALLOW_REMOVING_ALL_TEAMS on", () => {
    let allowing: RunningServer;

    beforeAll(async () => {
      allowing = await startServer({
        DATABASE_URL: app.db.url,
        AUTH_SECRET: SECRET,
        SMTP_URL: app.mailbox.url,
        ORGANIZATION_ALLOW_REMOVING_ALL_TEAMS: "on",
      });
    }, 60_000);

    afterAll(async () => {
      await allowing?.stop();
    });

    it("removes the last team too", async () => {
      const org = await organization();
      const only = await team(org.owner);
      const owner = makeTestClient(allowing.url, { headers: { "user-agent": USER_AGENT } });
      for (const [name, value] of org.owner.who.jar) owner.jar.set(name, value);
      const { data, error } = await owner.client.organization.removeTeam({ teamId: only.id });
      expect(error).toBeNull();
      expect(data).toEqual({ message: "Team removed successfully." });
      expect(await prisma.team.count({ where: { organizationId: org.id } })).toBe(0);
    });
  });
});

describe("list-teams", () => {
  it("lists the organization's teams to every member, and to no one else", async () => {
    const org = await organization();
    const [a, b] = [await team(org.owner), await team(org.admin)];
    for (const p of [org.owner, org.admin, org.member]) {
      const { data, error } = await p.api.listTeams();
      expect(error).toBeNull();
      expect(data!.map((t) => t.id)).toEqual([a.id, b.id]);
      expect(Object.keys(data![0]!).sort()).toEqual(TEAM_KEYS);
    }
    const outsider = await person("outsider");
    const refused = await outsider.api.listTeams({ query: { organizationId: org.id } });
    expect(refused.error).toMatchObject({ status: 403, code: "YOU_ARE_NOT_A_MEMBER_OF_THIS_ORGANIZATION" });
    const homeless = await outsider.api.listTeams();
    expect(homeless.error).toMatchObject({ status: 400, code: "NO_ACTIVE_ORGANIZATION" });
  });
});

describe("set-active-team", () => {
  it("sets a team the caller is in, with a cookie cache that carries it", async () => {
    const org = await organization();
    const t = await team(org.owner);
    await join(t.id, org.member);
    const { data, error } = await org.member.api.setActiveTeam({ teamId: t.id });
    expect(error).toBeNull();
    expect(data).toMatchObject({ id: t.id, name: t.name, organizationId: org.id });
    expect(org.member.who.lastSetCookies().some((line) => line.startsWith(`${CACHE_COOKIE}=`))).toBe(true);
    expect((await org.member.who.client.getSession()).data!.session).toMatchObject({ activeTeamId: t.id });
    const row = await prisma.session.findFirst({ where: { userId: org.member.id } });
    expect(row!.activeTeamId).toBe(t.id);
  });

  it("unsets it with null, and answers null without a write when none is set", async () => {
    const org = await organization();
    const t = await team(org.owner);
    await join(t.id, org.member);
    await org.member.api.setActiveTeam({ teamId: t.id });
    const unset = await org.member.api.setActiveTeam({ teamId: null });
    expect(unset.error).toBeNull();
    expect(unset.data).toBeNull();
    expect(org.member.who.lastSetCookies().some((line) => line.startsWith(`${CACHE_COOKIE}=`))).toBe(true);
    expect((await org.member.who.client.getSession()).data!.session).toMatchObject({ activeTeamId: null });
    const before = await prisma.session.findFirst({ where: { userId: org.member.id } });
    const again = await org.member.api.setActiveTeam({ teamId: null });
    expect(again.data).toBeNull();
    const after = await prisma.session.findFirst({ where: { userId: org.member.id } });
    expect(after!.updatedAt).toEqual(before!.updatedAt);
  });

  it("refuses a team the caller is not in, and another organization's team", async () => {
    const [org, other] = await Promise.all([organization(), organization()]);
    const t = await team(org.owner);
    const refused = await org.owner.api.setActiveTeam({ teamId: t.id });
    expect(refused.error).toMatchObject({ status: 403, code: "USER_IS_NOT_A_MEMBER_OF_THE_TEAM" });
    const foreign = await team(other.owner);
    await join(foreign.id, org.owner);
    const missing = await org.owner.api.setActiveTeam({ teamId: foreign.id });
    expect(missing.error).toMatchObject({ status: 400, code: "TEAM_NOT_FOUND" });
    const row = await prisma.session.findFirst({ where: { userId: org.owner.id } });
    expect(row!.activeTeamId).toBeNull();
  });
});

describe("list-user-teams", () => {
  it("lists the caller's teams across organizations, or in the one named", async () => {
    const [org, other] = await Promise.all([organization(), organization()]);
    const [mine, notMine, elsewhere] = [await team(org.owner), await team(org.owner), await team(other.owner)];
    await prisma.member.create({ data: { organizationId: other.id, userId: org.member.id, role: "member" } });
    await join(mine.id, org.member);
    await join(elsewhere.id, org.member);
    const all = await org.member.api.listUserTeams();
    expect(all.error).toBeNull();
    expect(all.data!.map((t) => t.id).sort()).toEqual([mine.id, elsewhere.id].sort());
    expect(all.data!.map((t) => t.id)).not.toContain(notMine.id);
    const scoped = await org.member.api.listUserTeams({ query: { organizationId: other.id } });
    expect(scoped.data!.map((t) => t.id)).toEqual([elsewhere.id]);
  });

  it("lists another member's teams only for a caller with member:update", async () => {
    const org = await organization();
    const t = await team(org.owner);
    await join(t.id, org.member);
    const byAdmin = await org.admin.api.listUserTeams({ query: { userId: org.member.id } });
    expect(byAdmin.data!.map((x) => x.id)).toEqual([t.id]);
    const byMember = await org.member.api.listUserTeams({ query: { userId: org.admin.id } });
    expect(byMember.error).toMatchObject({ status: 403, code: "YOU_ARE_NOT_ALLOWED_TO_UPDATE_THIS_MEMBER" });
    const outsider = await person("outsider");
    const stranger = await org.admin.api.listUserTeams({ query: { userId: outsider.id } });
    expect(stranger.error).toMatchObject({ status: 400, code: "USER_IS_NOT_A_MEMBER_OF_THE_ORGANIZATION" });
  });
});

describe("list-team-members", () => {
  it("lists a team's members to its own members, the active team by default", async () => {
    const org = await organization();
    const t = await team(org.owner);
    await join(t.id, org.admin, org.member);
    const { data, error } = await org.member.api.listTeamMembers({ query: { teamId: t.id } });
    expect(error).toBeNull();
    expect(data!.map((m) => m.userId).sort()).toEqual([org.admin.id, org.member.id].sort());
    expect(Object.keys(data![0]!).sort()).toEqual(TEAM_MEMBER_KEYS);
    await org.admin.api.setActiveTeam({ teamId: t.id });
    const active = await org.admin.api.listTeamMembers();
    expect(active.data!.map((m) => m.teamId)).toEqual([t.id, t.id]);
  });

  it("refuses anyone outside the team, even the owner, and asks for a team", async () => {
    const org = await organization();
    const t = await team(org.owner);
    await join(t.id, org.member);
    const owner = await org.owner.api.listTeamMembers({ query: { teamId: t.id } });
    expect(owner.error).toMatchObject({ status: 403, code: "YOU_CAN_NOT_ACCESS_THE_MEMBERS_OF_THIS_TEAM" });
    // Still in the team's rows, but no longer in its organization.
    await prisma.member.deleteMany({ where: { organizationId: org.id, userId: org.member.id } });
    const former = await org.member.api.listTeamMembers({ query: { teamId: t.id } });
    expect(former.error).toMatchObject({ status: 403, code: "YOU_CAN_NOT_ACCESS_THE_MEMBERS_OF_THIS_TEAM" });
    const none = await org.owner.api.listTeamMembers();
    expect(none.error).toMatchObject({ status: 400, code: "YOU_DO_NOT_HAVE_AN_ACTIVE_TEAM" });
    const unknown = await org.owner.api.listTeamMembers({ query: { teamId: "no-such-team" } });
    expect(unknown.error).toMatchObject({ status: 400, code: "TEAM_NOT_FOUND" });
  });
});

describe("add-team-member", () => {
  it("adds an organization member for the owner and the admin, once", async () => {
    const org = await organization();
    const t = await team(org.owner);
    for (const [p, added] of [
      [org.owner, org.member],
      [org.admin, org.admin],
    ] as const) {
      const { data, error } = await p.api.addTeamMember({ teamId: t.id, userId: added.id });
      expect(error).toBeNull();
      expect(Object.keys(data!).sort()).toEqual(TEAM_MEMBER_KEYS);
      expect(data).toMatchObject({ teamId: t.id, userId: added.id });
    }
    const again = await org.owner.api.addTeamMember({ teamId: t.id, userId: org.member.id });
    expect(again.error).toBeNull();
    expect(await prisma.teamMember.count({ where: { teamId: t.id } })).toBe(2);
    expect(await prisma.auditLog.count({ where: { action: "add-team-member", targetId: t.id } })).toBe(2);
  });

  it("refuses a member, a user outside the organization, and another organization's team", async () => {
    const [org, other] = await Promise.all([organization(), organization()]);
    const t = await team(org.owner);
    const byMember = await org.member.api.addTeamMember({ teamId: t.id, userId: org.member.id });
    expect(byMember.error).toMatchObject({ status: 403, code: "YOU_ARE_NOT_ALLOWED_TO_CREATE_A_NEW_TEAM_MEMBER" });
    const outsider = await person("outsider");
    const stranger = await org.owner.api.addTeamMember({ teamId: t.id, userId: outsider.id });
    expect(stranger.error).toMatchObject({ status: 400, code: "USER_IS_NOT_A_MEMBER_OF_THE_ORGANIZATION" });
    const byOutsider = await outsider.api.addTeamMember({ teamId: t.id, userId: outsider.id, organizationId: org.id });
    expect(byOutsider.error).toMatchObject({ status: 400, code: "USER_IS_NOT_A_MEMBER_OF_THE_ORGANIZATION" });
    const foreign = await team(other.owner);
    const missing = await org.owner.api.addTeamMember({ teamId: foreign.id, userId: org.member.id });
    expect(missing.error).toMatchObject({ status: 400, code: "TEAM_NOT_FOUND" });
    expect(await prisma.teamMember.count({ where: { teamId: { in: [t.id, foreign.id] } } })).toBe(0);
  });

  it("stops at TEAM_MEMBER_LIMIT members per team", async () => {
    const org = await organization();
    const t = await team(org.owner);
    const users = await Promise.all(
      Array.from({ length: TEAM_MEMBER_LIMIT }, (_, i) =>
        createUser({ email: uniqueEmail(`crowd${i}`), name: `Crowd ${i}`, verified: false, password: null }),
      ),
    );
    await prisma.member.createMany({
      data: users.map((u) => ({ organizationId: org.id, userId: u.id, role: "member" })),
    });
    await prisma.teamMember.createMany({ data: users.slice(1).map((u) => ({ teamId: t.id, userId: u.id })) });
    const last = await org.owner.api.addTeamMember({ teamId: t.id, userId: users[0]!.id });
    expect(last.error).toBeNull();
    const over = await org.owner.api.addTeamMember({ teamId: t.id, userId: org.member.id });
    expect(over.error).toMatchObject({ status: 403, code: "TEAM_MEMBER_LIMIT_REACHED" });
    // Someone already in the team is still answered with their row.
    const present = await org.owner.api.addTeamMember({ teamId: t.id, userId: users[1]!.id });
    expect(present.data).toMatchObject({ teamId: t.id, userId: users[1]!.id });
    expect(await prisma.teamMember.count({ where: { teamId: t.id } })).toBe(TEAM_MEMBER_LIMIT);
  });
});

describe("remove-team-member", () => {
  it("removes a team member for the owner and the admin, and refuses a member", async () => {
    const org = await organization();
    const t = await team(org.owner);
    await join(t.id, org.owner, org.admin, org.member);
    const refused = await org.member.api.removeTeamMember({ teamId: t.id, userId: org.owner.id });
    expect(refused.error).toMatchObject({ status: 403, code: "YOU_ARE_NOT_ALLOWED_TO_REMOVE_A_TEAM_MEMBER" });
    for (const [p, removed] of [
      [org.owner, org.member],
      [org.admin, org.owner],
    ] as const) {
      const { data, error } = await p.api.removeTeamMember({ teamId: t.id, userId: removed.id });
      expect(error).toBeNull();
      expect(data).toEqual({ message: "Team member removed successfully." });
    }
    const rows = await prisma.teamMember.findMany({ where: { teamId: t.id } });
    expect(rows.map((r) => r.userId)).toEqual([org.admin.id]);
    expect(await prisma.auditLog.count({ where: { action: "remove-team-member", targetId: t.id } })).toBe(2);
  });

  it("answers USER_IS_NOT_A_MEMBER_OF_THE_TEAM for someone not in it", async () => {
    const org = await organization();
    const t = await team(org.owner);
    const absent = await org.owner.api.removeTeamMember({ teamId: t.id, userId: org.member.id });
    expect(absent.error).toMatchObject({ status: 400, code: "USER_IS_NOT_A_MEMBER_OF_THE_TEAM" });
    const outsider = await person("outsider");
    const stranger = await org.owner.api.removeTeamMember({ teamId: t.id, userId: outsider.id });
    expect(stranger.error).toMatchObject({ status: 400, code: "USER_IS_NOT_A_MEMBER_OF_THE_ORGANIZATION" });
  });
});
