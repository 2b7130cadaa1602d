/**
 * An organization's custom roles over /api/auth/organization (better-auth's dynamic access
 * control), driven by the official client with `organizationClient({ dynamicAccessControl })`
 * against the built server: create, list, get, update and delete a role, each reply's shape,
 * and every refusal (a member without `ac` rights, an outsider, a guest, an unknown resource
 * or action, a taken or built-in name, escalation, a role still assigned). Then what a role
 * gives: a member with a custom role can do exactly what it grants, through the API and a
 * page, and is refused the rest; two roles grant their union; has-permission answers with
 * them; an invitation with a custom role makes a member with it. Runs on SQLite, or on
 * PostgreSQL with TEST_DATABASE_URL.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { makeTestClient, type TestClient } from "./helpers/auth-client";
import { browserFor } from "./helpers/browser";
import { startTestApp, type TestApp } from "./helpers/app";
import { createUser, signInInProcess, unique, uniqueEmail } from "./helpers/factories";
import { BROWSER_UA } from "./helpers/http";

const SECRET = "organization-roles-test-secret-0123456789abc";

let app: TestApp;

beforeAll(async () => {
  app = await startTestApp({ secret: SECRET });
}, 60_000);

afterAll(async () => {
  await app?.stop();
});

type Person = { id: string; email: string; name: string; who: TestClient; api: TestClient["client"]["organization"] };

async function person(name: string): Promise<Person> {
  const email = uniqueEmail(name);
  const { id } = await createUser({ email, name, password: null });
  const who = makeTestClient(app.base);
  await signInInProcess(who, id);
  return { id, email, name, who, api: who.client.organization };
}

/** An organization made by its owner, with an admin and a plain member, active for all three. */
async function organization() {
  const [owner, admin, member] = await Promise.all([person("owner"), person("admin"), person("member")]);
  const slug = unique("roles");
  const created = await owner.api.create({ name: slug, slug });
  expect(created.error).toBeNull();
  const id = created.data!.id;
  await app.prisma.member.createMany({
    data: [
      { organizationId: id, userId: admin.id, role: "admin" },
      { organizationId: id, userId: member.id, role: "member" },
    ],
  });
  for (const p of [admin, member]) expect((await p.api.setActive({ organizationId: id })).error).toBeNull();
  return { id, slug, owner, admin, member };
}

/** Someone in the organization with role `role`, the organization active. */
async function memberWith(organizationId: string, role: string, name = "holder") {
  const p = await person(name);
  const row = await app.prisma.member.create({ data: { organizationId, userId: p.id, role } });
  expect((await p.api.setActive({ organizationId })).error).toBeNull();
  return { ...p, memberId: row.id };
}

/** A form post with repeated keys (a grid of checkboxes), as a browser sends it. */
function postPairs(browser: { jar: Map<string, string> }, path: string, pairs: [string, string][]) {
  return fetch(new URL(path, app.base), {
    method: "POST",
    body: new URLSearchParams(pairs),
    redirect: "manual",
    headers: {
      "Content-Type": "application/x-www-form-urlencoded",
      Origin: app.base,
      "User-Agent": BROWSER_UA,
      Cookie: [...browser.jar].map(([key, value]) => `${key}=${value}`).join("; "),
    },
  });
}

const refusal = (res: { error: { status: number; code?: string } | null }) => [res.error?.status, res.error?.code];

const audited = (organizationId: string, action: string) =>
  app.prisma.auditLog.findMany({ where: { organizationId, category: "organization", action } });

describe("POST /organization/create-role", () => {
  it("creates a role with a lower-cased name and answers better-auth's shape", async () => {
    const org = await organization();
    const res = await org.owner.api.createRole({
      role: "Support Lead",
      permission: { invitation: ["create"], team: ["create", "update"] },
    });
    expect(res.error).toBeNull();
    expect(res.data).toMatchObject({
      success: true,
      roleData: {
        organizationId: org.id,
        role: "support lead",
        permission: { invitation: ["create"], team: ["create", "update"] },
      },
      statements: { invitation: ["create"], team: ["create", "update"] },
    });
    const row = await app.prisma.organizationRole.findFirstOrThrow({ where: { organizationId: org.id } });
    expect(row.role).toBe("support lead");
    expect(JSON.parse(row.permission)).toEqual({ invitation: ["create"], team: ["create", "update"] });
    const [event] = await audited(org.id, "create-role");
    expect(event).toMatchObject({ userId: org.owner.id, targetType: "role", targetId: row.id });
  });

  it("lets an admin create a role within the admin's own rights, for a named organization", async () => {
    const org = await organization();
    const res = await org.admin.api.createRole({
      role: "billing",
      permission: { billing: ["manage"] },
      organizationId: org.id,
    });
    expect(res.error).toBeNull();
  });

  it("refuses a member without ac rights, an outsider and a guest", async () => {
    const org = await organization();
    const body = { role: "helper", permission: { team: ["create"] }, organizationId: org.id };
    expect(refusal(await org.member.api.createRole(body))).toEqual([403, "YOU_ARE_NOT_ALLOWED_TO_CREATE_A_ROLE"]);
    const outsider = await person("outsider");
    expect(refusal(await outsider.api.createRole(body))).toEqual([403, "YOU_ARE_NOT_A_MEMBER_OF_THIS_ORGANIZATION"]);
    const guest = makeTestClient(app.base).client.organization;
    expect((await guest.createRole(body)).error?.status).toBe(401);
    expect(await app.prisma.organizationRole.count({ where: { organizationId: org.id } })).toBe(0);
  });

  it("refuses an unknown resource or action, a taken name, a built-in name and a name with a comma", async () => {
    const org = await organization();
    const create = (role: string, permission: Record<string, string[]>) =>
      org.owner.api.createRole({ role, permission });
    expect(refusal(await create("a", { emperor: ["rule"] }))).toEqual([400, "INVALID_RESOURCE"]);
    expect(refusal(await create("b", { team: ["conquer"] }))).toEqual([400, "INVALID_RESOURCE"]);
    expect((await create("helper", { team: ["create"] })).error).toBeNull();
    expect(refusal(await create("HELPER", { team: ["update"] }))).toEqual([400, "ROLE_NAME_IS_ALREADY_TAKEN"]);
    expect(refusal(await create("Admin", {}))).toEqual([400, "ROLE_NAME_IS_ALREADY_TAKEN"]);
    expect(refusal(await create("admin,owner", {}))).toEqual([400, "VALIDATION_ERROR"]);
    expect(await app.prisma.organizationRole.count({ where: { organizationId: org.id } })).toBe(1);
  });

  it("refuses escalation: nobody grants through a role what they do not hold", async () => {
    const org = await organization();
    // Admins may not delete the organization, so they may not make a role that may.
    expect(
      refusal(await org.admin.api.createRole({ role: "deleter", permission: { organization: ["delete"] } })),
    ).toEqual([403, "YOU_ARE_NOT_ALLOWED_TO_CREATE_A_ROLE"]);
    // A custom role that may make roles makes them only within its own grants.
    await app.prisma.organizationRole.create({
      data: { organizationId: org.id, role: "role-maker", permission: JSON.stringify({ ac: ["create"] }) },
    });
    const maker = await memberWith(org.id, "role-maker");
    expect(refusal(await maker.api.createRole({ role: "remover", permission: { member: ["delete"] } }))).toEqual([
      403,
      "YOU_ARE_NOT_ALLOWED_TO_CREATE_A_ROLE",
    ]);
    expect((await maker.api.createRole({ role: "maker-2", permission: { ac: ["create"] } })).error).toBeNull();
  });
});

describe("GET /organization/list-roles and /organization/get-role", () => {
  it("lists the organization's roles and gets one by name or id, for members with ac: read", async () => {
    const org = await organization();
    const created = await org.owner.api.createRole({ role: "viewer", permission: { auditLog: ["read"] } });
    await org.owner.api.createRole({ role: "inviter", permission: { invitation: ["create"] } });
    const list = await org.admin.api.listRoles({ query: { organizationId: org.id } });
    expect(list.error).toBeNull();
    expect(
      (list.data as { role: string; permission: unknown }[]).map(({ role, permission }) => [role, permission]),
    ).toEqual([
      ["inviter", { invitation: ["create"] }],
      ["viewer", { auditLog: ["read"] }],
    ]);
    const byName = await org.owner.api.getRole({ query: { roleName: "viewer" } });
    expect(byName.data).toMatchObject({ id: created.data!.roleData.id, permission: { auditLog: ["read"] } });
    const byId = await org.owner.api.getRole({ query: { roleId: created.data!.roleData.id } });
    expect(byId.data).toMatchObject({ role: "viewer" });
    expect(refusal(await org.owner.api.getRole({ query: { roleName: "nobody" } }))).toEqual([400, "ROLE_NOT_FOUND"]);
  });

  it("refuses a member without ac: read, and does not read another organization's role", async () => {
    const org = await organization();
    const other = await organization();
    const theirs = await other.owner.api.createRole({ role: "secret", permission: {} });
    expect(refusal(await org.member.api.listRoles({ query: {} }))).toEqual([403, "YOU_ARE_NOT_ALLOWED_TO_LIST_A_ROLE"]);
    expect(refusal(await org.member.api.getRole({ query: { roleName: "secret" } }))).toEqual([
      403,
      "YOU_ARE_NOT_ALLOWED_TO_READ_A_ROLE",
    ]);
    expect(refusal(await org.owner.api.getRole({ query: { roleId: theirs.data!.roleData.id } }))).toEqual([
      400,
      "ROLE_NOT_FOUND",
    ]);
    expect(refusal(await org.owner.api.listRoles({ query: { organizationId: other.id } }))).toEqual([
      403,
      "YOU_ARE_NOT_A_MEMBER_OF_THIS_ORGANIZATION",
    ]);
  });
});

describe("POST /organization/update-role", () => {
  it("changes a role's permission and name; members and invitations with it keep it", async () => {
    const org = await organization();
    await org.owner.api.createRole({ role: "helper", permission: { team: ["create"] } });
    const holder = await memberWith(org.id, "member,helper");
    const invited = await org.owner.api.inviteMember({ email: uniqueEmail("invitee"), role: "helper" });
    expect(invited.error).toBeNull();
    const res = await org.owner.api.updateRole({
      roleName: "helper",
      data: { roleName: "Team Helper", permission: { team: ["create", "update"] } },
    });
    expect(res.error).toBeNull();
    expect(res.data).toMatchObject({
      success: true,
      roleData: { role: "team helper", permission: { team: ["create", "update"] } },
    });
    expect((await app.prisma.member.findUniqueOrThrow({ where: { id: holder.memberId } })).role).toBe(
      "member,team helper",
    );
    expect((await app.prisma.invitation.findUniqueOrThrow({ where: { id: invited.data!.id } })).role).toBe(
      "team helper",
    );
    const [event] = await audited(org.id, "update-role");
    expect(JSON.parse(event!.details!)).toMatchObject({ role: "team helper", from: "helper" });
    // The holder can now do what the renamed role grants.
    const check = await holder.api.hasPermission({ permissions: { team: ["update"] } });
    expect(check.data).toEqual({ error: null, success: true });
  });

  it("refuses escalation, a taken name, an unknown role or resource, and members without ac: update", async () => {
    const org = await organization();
    await org.owner.api.createRole({ role: "helper", permission: { team: ["create"] } });
    await org.owner.api.createRole({ role: "other", permission: {} });
    await org.owner.api.createRole({ role: "mighty", permission: { organization: ["delete"] } });
    expect(
      refusal(
        await org.admin.api.updateRole({ roleName: "helper", data: { permission: { organization: ["delete"] } } }),
      ),
    ).toEqual([403, "YOU_ARE_NOT_ALLOWED_TO_UPDATE_A_ROLE"]);
    // An admin cannot trim a role that grants more than they hold either.
    expect(refusal(await org.admin.api.updateRole({ roleName: "mighty", data: { permission: {} } }))).toEqual([
      403,
      "YOU_ARE_NOT_ALLOWED_TO_UPDATE_A_ROLE",
    ]);
    expect(refusal(await org.owner.api.updateRole({ roleName: "helper", data: { roleName: "Other" } }))).toEqual([
      400,
      "ROLE_NAME_IS_ALREADY_TAKEN",
    ]);
    expect(refusal(await org.owner.api.updateRole({ roleName: "helper", data: { roleName: "owner" } }))).toEqual([
      400,
      "ROLE_NAME_IS_ALREADY_TAKEN",
    ]);
    expect(
      refusal(await org.owner.api.updateRole({ roleName: "helper", data: { permission: { emperor: ["rule"] } } })),
    ).toEqual([400, "INVALID_RESOURCE"]);
    expect(refusal(await org.owner.api.updateRole({ roleName: "nobody", data: {} }))).toEqual([400, "ROLE_NOT_FOUND"]);
    expect(refusal(await org.member.api.updateRole({ roleName: "helper", data: { permission: {} } }))).toEqual([
      403,
      "YOU_ARE_NOT_ALLOWED_TO_UPDATE_A_ROLE",
    ]);
    const helper = await app.prisma.organizationRole.findFirstOrThrow({
      where: { organizationId: org.id, role: "helper" },
    });
    expect(JSON.parse(helper.permission)).toEqual({ team: ["create"] });
  });
});

describe("POST /organization/delete-role", () => {
  it("refuses a role still given to a member or a pending invitation, then deletes it once it is not", async () => {
    const org = await organization();
    await org.owner.api.createRole({ role: "helper", permission: { team: ["create"] } });
    await org.owner.api.createRole({ role: "invited", permission: {} });
    const holder = await memberWith(org.id, "member,helper");
    const invitation = await org.owner.api.inviteMember({ email: uniqueEmail("invitee"), role: "invited" });
    expect(invitation.error).toBeNull();

    const held = await org.owner.api.deleteRole({ roleName: "helper" });
    expect(refusal(held)).toEqual([400, "ROLE_IS_ASSIGNED_TO_MEMBERS"]);
    expect(held.error?.message).toBe(
      "Cannot delete a role that is assigned to members. Please reassign the members to a different role first",
    );
    expect(refusal(await org.owner.api.deleteRole({ roleName: "invited" }))).toEqual([
      400,
      "ROLE_IS_ASSIGNED_TO_MEMBERS",
    ]);

    expect((await org.owner.api.updateMemberRole({ memberId: holder.memberId, role: "member" })).error).toBeNull();
    expect((await org.owner.api.cancelInvitation({ invitationId: invitation.data!.id })).error).toBeNull();
    const role = await app.prisma.organizationRole.findFirstOrThrow({
      where: { organizationId: org.id, role: "helper" },
    });
    expect(await org.owner.api.deleteRole({ roleId: role.id })).toMatchObject({ data: { success: true }, error: null });
    expect((await org.owner.api.deleteRole({ roleName: "invited" })).error).toBeNull();
    expect(await app.prisma.organizationRole.count({ where: { organizationId: org.id } })).toBe(0);
    expect(await audited(org.id, "delete-role")).toHaveLength(2);
  });

  it("refuses a built-in or unknown role and members without ac: delete", async () => {
    const org = await organization();
    await org.owner.api.createRole({ role: "helper", permission: {} });
    expect(refusal(await org.owner.api.deleteRole({ roleName: "admin" }))).toEqual([
      400,
      "CANNOT_DELETE_A_PRE_DEFINED_ROLE",
    ]);
    expect(refusal(await org.owner.api.deleteRole({ roleName: "nobody" }))).toEqual([400, "ROLE_NOT_FOUND"]);
    expect(refusal(await org.member.api.deleteRole({ roleName: "helper" }))).toEqual([
      403,
      "YOU_ARE_NOT_ALLOWED_TO_DELETE_A_ROLE",
    ]);
    expect(await app.prisma.organizationRole.count({ where: { organizationId: org.id } })).toBe(1);
  });

  it("goes with its organization", async () => {
    const org = await organization();
    await org.owner.api.createRole({ role: "helper", permission: {} });
    expect((await org.owner.api.delete({ organizationId: org.id })).error).toBeNull();
    expect(await app.prisma.organizationRole.count({ where: { organizationId: org.id } })).toBe(0);
  });
});

describe("a member with custom roles", () => {
  it("can do exactly what the role grants, through the API and the pages, and is refused the rest", async () => {
    const org = await organization();
    await org.owner.api.createRole({ role: "inviter", permission: { invitation: ["create"] } });
    const p = await person("inviter");
    const added = await app.prisma.member.create({ data: { organizationId: org.id, userId: p.id, role: "member" } });
    // The owner gives the role through the API.
    const given = await org.owner.api.updateMemberRole({ memberId: added.id, role: ["member", "inviter"] });
    expect(given.data).toMatchObject({ role: "member,inviter" });
    expect((await p.api.setActive({ organizationId: org.id })).error).toBeNull();

    expect((await p.api.inviteMember({ email: uniqueEmail("guest"), role: "member" })).error).toBeNull();
    expect(refusal(await p.api.inviteMember({ email: uniqueEmail("guest"), role: "admin" }))).toEqual([
      403,
      "YOU_ARE_NOT_ALLOWED_TO_INVITE_USER_WITH_THIS_ROLE",
    ]);
    expect(refusal(await p.api.removeMember({ memberIdOrEmail: org.member.email }))).toEqual([
      403,
      "YOU_ARE_NOT_ALLOWED_TO_DELETE_THIS_MEMBER",
    ]);
    expect(refusal(await p.api.createTeam({ name: "nope" }))).toEqual([
      403,
      "YOU_ARE_NOT_ALLOWED_TO_CREATE_TEAMS_IN_THIS_ORGANIZATION",
    ]);
    expect(refusal(await p.api.createRole({ role: "x", permission: {} }))).toEqual([
      403,
      "YOU_ARE_NOT_ALLOWED_TO_CREATE_A_ROLE",
    ]);
    expect((await p.api.hasPermission({ permissions: { invitation: ["create"] } })).data).toEqual({
      error: null,
      success: true,
    });
    expect((await p.api.hasPermission({ permissions: { member: ["delete"] } })).data).toEqual({
      error: null,
      success: false,
    });
    // get-full-organization shows the invitations to a role that may invite.
    const full = await p.api.getFullOrganization({ query: { organizationId: org.id } });
    expect(full.data!.invitations.length).toBeGreaterThan(0);

    // The pages decide with the same rules: the invitations section and its form, no teams form.
    const browser = await browserFor(app, p);
    const invitations = `/organizations/${org.slug}/invitations`;
    await browser.page(invitations);
    const email = uniqueEmail("paged");
    const invite = await browser.post(invitations, { intent: "invite-member", email, role: "member" });
    expect(invite.status).toBe(302);
    expect(await app.prisma.invitation.count({ where: { organizationId: org.id, email } })).toBe(1);
    const teams = `/organizations/${org.slug}/teams`;
    expect(await browser.page(teams)).not.toContain('name="intent" value="create-team"');
    const team = await browser.post(teams, { intent: "create-team", name: "Refused" });
    expect(team.status).not.toBe(302);
    expect(await app.prisma.team.count({ where: { organizationId: org.id, name: "Refused" } })).toBe(0);
    // A plain member has no invitations section at all.
    expect((await (await browserFor(app, org.member)).get(invitations)).status).toBe(404);
  });

  it("with two roles, can do what either grants (the union), on the pages too", async () => {
    const org = await organization();
    await org.owner.api.createRole({ role: "inviter", permission: { invitation: ["create"] } });
    await org.owner.api.createRole({ role: "teams", permission: { team: ["create"] } });
    const p = await memberWith(org.id, "inviter,teams", "both");
    expect((await p.api.inviteMember({ email: uniqueEmail("guest"), role: "member" })).error).toBeNull();
    expect((await p.api.createTeam({ name: "By API" })).error).toBeNull();
    const browser = await browserFor(app, p);
    const teams = `/organizations/${org.slug}/teams`;
    expect(await browser.page(teams)).toContain('value="create-team"');
    expect((await browser.post(teams, { intent: "create-team", name: "By page" })).status).toBe(302);
    expect(await app.prisma.team.count({ where: { organizationId: org.id, name: "By page" } })).toBe(1);
    // has-permission asks one role for everything at once, as better-auth does.
    expect((await p.api.hasPermission({ permissions: { invitation: ["create"], team: ["create"] } })).data).toEqual({
      error: null,
      success: false,
    });
  });

  it("is given only roles within the giver's rights", async () => {
    const org = await organization();
    await org.owner.api.createRole({ role: "inviter", permission: { invitation: ["create"] } });
    await org.owner.api.createRole({ role: "people", permission: { member: ["update"] } });
    await org.owner.api.createRole({ role: "mighty", permission: { organization: ["delete"] } });
    const manager = await memberWith(org.id, "people", "manager");
    const target = await memberWith(org.id, "member", "target");
    // The admin gives a role within the admin's rights, not one beyond them.
    expect((await org.admin.api.updateMemberRole({ memberId: target.memberId, role: "inviter" })).error).toBeNull();
    expect(refusal(await org.admin.api.updateMemberRole({ memberId: target.memberId, role: "mighty" }))).toEqual([
      403,
      "YOU_ARE_NOT_ALLOWED_TO_UPDATE_THIS_MEMBER",
    ]);
    // A member who may change roles changes none to one they do not hold, nor someone above them.
    expect(refusal(await manager.api.updateMemberRole({ memberId: target.memberId, role: "admin" }))).toEqual([
      403,
      "YOU_ARE_NOT_ALLOWED_TO_UPDATE_THIS_MEMBER",
    ]);
    expect(refusal(await manager.api.updateMemberRole({ memberId: target.memberId, role: "people" }))).toEqual([
      403,
      "YOU_ARE_NOT_ALLOWED_TO_UPDATE_THIS_MEMBER",
    ]);
    const adminRow = await app.prisma.member.findFirstOrThrow({
      where: { organizationId: org.id, userId: org.admin.id },
    });
    expect(refusal(await manager.api.updateMemberRole({ memberId: adminRow.id, role: "member" }))).toEqual([
      403,
      "YOU_ARE_NOT_ALLOWED_TO_UPDATE_THIS_MEMBER",
    ]);
    expect(refusal(await org.owner.api.updateMemberRole({ memberId: target.memberId, role: "nobody" }))).toEqual([
      400,
      "ROLE_NOT_FOUND",
    ]);
    // Another organization's role is unknown here.
    const other = await organization();
    await other.owner.api.createRole({ role: "elsewhere", permission: {} });
    expect(refusal(await org.owner.api.updateMemberRole({ memberId: target.memberId, role: "elsewhere" }))).toEqual([
      400,
      "ROLE_NOT_FOUND",
    ]);
  });

  it("joins with the custom role of an invitation", async () => {
    const org = await organization();
    await org.owner.api.createRole({ role: "inviter", permission: { invitation: ["create"] } });
    const invitee = await person("invitee");
    const invitation = await org.owner.api.inviteMember({ email: invitee.email, role: "inviter" });
    expect(invitation.data).toMatchObject({ role: "inviter" });
    const accepted = await invitee.api.acceptInvitation({ invitationId: invitation.data!.id });
    expect(accepted.data!.member).toMatchObject({ role: "inviter" });
    expect((await invitee.api.hasPermission({ permissions: { invitation: ["create"] } })).data).toEqual({
      error: null,
      success: true,
    });
    expect((await invitee.api.inviteMember({ email: uniqueEmail("next"), role: "member" })).error).toBeNull();
  });

  it("has-permission refuses an outsider and asks for an organization", async () => {
    const org = await organization();
    const outsider = await person("outsider");
    expect(
      refusal(await outsider.api.hasPermission({ organizationId: org.id, permissions: { team: ["create"] } })),
    ).toEqual([403, "USER_IS_NOT_A_MEMBER_OF_THE_ORGANIZATION"]);
    expect(refusal(await outsider.api.hasPermission({ permissions: { team: ["create"] } }))).toEqual([
      400,
      "NO_ACTIVE_ORGANIZATION",
    ]);
    expect(
      (await org.owner.api.hasPermission({ permissions: { ac: ["delete"], organization: ["delete"] } })).data,
    ).toEqual({
      error: null,
      success: true,
    });
  });
});

describe("the roles section, without JavaScript", () => {
  it("lets an owner create, edit and delete a role; a role still assigned is refused with a message", async () => {
    const org = await organization();
    const owner = await browserFor(app, org.owner);
    const roles = `/organizations/${org.slug}/roles`;
    const page = await owner.page(roles);
    expect(page).toContain('value="create-role"');
    expect(page).toContain('value="organization:delete"');

    const created = await owner.post(roles, {
      intent: "create-role",
      name: "Recruiter",
      permission: "invitation:create",
    });
    expect(created.status).toBe(302);
    const row = await app.prisma.organizationRole.findFirstOrThrow({ where: { organizationId: org.id } });
    expect([row.role, JSON.parse(row.permission)]).toEqual(["recruiter", { invitation: ["create"] }]);
    expect(await owner.page(roles)).toContain('data-role-name="recruiter"');

    // A taken name is refused next to the field, in the page's language.
    const taken = await owner.post(`/fr${roles}`, { intent: "create-role", name: "recruiter" });
    expect(taken.status).toBe(400);
    expect(await taken.text()).toContain("Un rôle porte déjà ce nom");

    const edit = `${roles}/${row.id}`;
    expect(await owner.page(edit)).toMatch(/<input id="permission-invitation-create"[^>]* checked=""/);
    const saved = await postPairs(owner, edit, [
      ["intent", "update-role"],
      ["name", "Recruiter"],
      ["permission", "invitation:create"],
      ["permission", "invitation:cancel"],
    ]);
    expect(saved.status).toBe(302);
    expect(
      JSON.parse((await app.prisma.organizationRole.findUniqueOrThrow({ where: { id: row.id } })).permission),
    ).toEqual({
      invitation: ["create", "cancel"],
    });

    const member = await app.prisma.member.findFirstOrThrow({
      where: { organizationId: org.id, userId: org.member.id },
    });
    await app.prisma.member.update({ where: { id: member.id }, data: { role: "recruiter" } });
    const dialog = await owner.page(`/ja${roles}/${row.id}/delete`);
    expect(dialog).toContain("このロールを持つメンバーは 1 人です。");
    const refused = await owner.post(`/ja${roles}/${row.id}/delete`, { intent: "delete-role" });
    expect(refused.status).toBe(400);
    expect(await refused.text()).toContain("このロールはまだメンバーまたは保留中の招待に割り当てられています");
    await app.prisma.member.update({ where: { id: member.id }, data: { role: "member" } });
    expect((await owner.post(`${roles}/${row.id}/delete`, { intent: "delete-role" })).status).toBe(302);
    expect(await app.prisma.organizationRole.count({ where: { organizationId: org.id } })).toBe(0);
  });

  it("offers custom roles in the members' and invitations' role selects, only those the caller may give", async () => {
    const org = await organization();
    await org.owner.api.createRole({ role: "recruiter", permission: { invitation: ["create"] } });
    await org.owner.api.createRole({ role: "mighty", permission: { organization: ["delete"] } });
    const admin = await browserFor(app, org.admin);
    const members = await admin.page(`/organizations/${org.slug}/members`);
    expect(members).toContain('<option value="recruiter">recruiter</option>');
    expect(members).not.toContain('<option value="mighty">');
    const invitations = await admin.page(`/organizations/${org.slug}/invitations`);
    expect(invitations).toContain('value="recruiter"');
    expect(invitations).not.toContain('value="mighty"');
    // The admin sees the role above them read-only.
    const mighty = await app.prisma.organizationRole.findFirstOrThrow({
      where: { organizationId: org.id, role: "mighty" },
    });
    const page = await admin.page(`/organizations/${org.slug}/roles/${mighty.id}`);
    expect(page).not.toContain('value="update-role"');
    expect(
      (await admin.post(`/organizations/${org.slug}/roles/${mighty.id}`, { intent: "update-role", name: "tamed" }))
        .status,
    ).toBe(403);
  });

  it("is found only by members whose roles may read roles; the tab shows by the same rule", async () => {
    const org = await organization();
    const roles = `/organizations/${org.slug}/roles`;
    const member = await browserFor(app, org.member);
    expect((await member.get(roles)).status).toBe(404);
    expect(await member.page(`/organizations/${org.slug}`)).not.toContain(`href="${roles}"`);
    await org.owner.api.createRole({ role: "role-reader", permission: { ac: ["read"] } });
    const reader = await memberWith(org.id, "role-reader", "reader");
    const browser = await browserFor(app, reader);
    expect(await browser.page(`/organizations/${org.slug}`)).toContain(`href="${roles}"`);
    const page = await browser.page(roles);
    expect(page).not.toContain('value="create-role"');
    expect((await browser.post(roles, { intent: "create-role", name: "sneaky" })).status).toBe(403);
  });
});
