import { describe, expect, it } from "vitest";
import {
  allows,
  assignableRoles,
  BUILT_IN_ROLES,
  can,
  grantsOf,
  holds,
  isKnownPermission,
  knownGrants,
  mayActOnMember,
  mayAssign,
  parseRoles,
  PERMISSIONS,
  roleTableWith,
  rolesOf,
  takesLastOwner,
  type Resource,
} from "./permissions.server";

/** A member with built-in roles only. */
const b = (role: string) => ({ role, roleTable: BUILT_IN_ROLES });

// The permission table, cell by cell: [resource, action] → owner, admin, member.
const TABLE: [Resource, string, boolean, boolean, boolean][] = [
  ["organization", "update", true, true, false],
  ["organization", "delete", true, false, false],
  ["member", "create", true, true, false],
  ["member", "update", true, true, false],
  ["member", "delete", true, true, false],
  ["invitation", "create", true, true, false],
  ["invitation", "cancel", true, true, false],
  ["team", "create", true, true, false],
  ["team", "update", true, true, false],
  ["team", "delete", true, true, false],
  // Custom roles: better-auth's `ac` statement, for owners and admins.
  ["ac", "create", true, true, false],
  ["ac", "read", true, true, false],
  ["ac", "update", true, true, false],
  ["ac", "delete", true, true, false],
  // Beyond better-auth's default table: the organization's subscription (owner or admin only).
  ["billing", "manage", true, true, false],
  ["sso", "manage", true, true, false],
  ["auditLog", "read", true, true, false],
  ["apiKey", "manage", true, true, false],
];

describe("the organization permission table", () => {
  it("covers every permission there is", () => {
    const cells = Object.entries(PERMISSIONS).flatMap(([resource, actions]) => actions.map((a) => `${resource}:${a}`));
    expect(TABLE.map(([resource, action]) => `${resource}:${action}`).sort()).toEqual(cells.sort());
  });

  for (const [resource, action, owner, admin, member] of TABLE) {
    it(`${resource} ${action}: owner ${owner ? "yes" : "no"}, admin ${admin ? "yes" : "no"}, member ${member ? "yes" : "no"}`, () => {
      expect(can(b("owner"), resource, [action])).toBe(owner);
      expect(can(b("admin"), resource, [action])).toBe(admin);
      expect(can(b("member"), resource, [action])).toBe(member);
    });
  }

  it("grants a multi-role member what any of its roles grants, and nothing to unknown roles", () => {
    expect(can(b("member,admin"), "organization", ["update"])).toBe(true);
    expect(can(b("member, owner"), "organization", ["delete"])).toBe(true);
    expect(can(b("emperor"), "organization", ["update"])).toBe(false);
    expect(can(b("admin"), "member", ["create", "update", "delete"])).toBe(true);
    expect(can(b("admin"), "organization", ["update", "delete"])).toBe(false);
    expect(rolesOf("admin, emperor ,member", BUILT_IN_ROLES)).toEqual(["admin", "member"]);
  });

  it("accepts roles as a list or a comma-separated string, and refuses unknown ones", () => {
    expect(parseRoles(["admin", "member", "admin"], BUILT_IN_ROLES)).toBe("admin,member");
    expect(parseRoles("owner", BUILT_IN_ROLES)).toBe("owner");
    expect(parseRoles("admin,emperor", BUILT_IN_ROLES)).toBeNull();
    expect(parseRoles([], BUILT_IN_ROLES)).toBeNull();
  });
});

describe("the rules between members", () => {
  it("lists what a role grants, as any of its roles grants it", () => {
    expect(grantsOf(b("member"))).toEqual({});
    expect(grantsOf(b("admin")).organization).toEqual(["update"]);
    expect(grantsOf(b("owner"))).toEqual(PERMISSIONS);
    expect(grantsOf(b("member,admin"))).toEqual(grantsOf(b("admin")));
    expect(grantsOf(b("emperor"))).toEqual({});
  });

  it("lets only an owner give the owner role", () => {
    expect(assignableRoles(b("owner"))).toEqual(["owner", "admin", "member"]);
    expect(assignableRoles(b("admin"))).toEqual(["admin", "member"]);
    expect(mayAssign(b("admin"), "admin,member")).toBe(true);
    expect(mayAssign(b("admin"), "member,owner")).toBe(false);
    expect(mayAssign(b("admin,owner"), "owner")).toBe(true);
  });

  it("lets only an owner change or remove an owner, and anyone remove themself", () => {
    expect(mayActOnMember(b("owner"), "update", "owner")).toBe(true);
    expect(mayActOnMember(b("admin"), "update", "member")).toBe(true);
    expect(mayActOnMember(b("admin"), "update", "owner")).toBe(false);
    expect(mayActOnMember(b("admin"), "delete", "owner")).toBe(false);
    expect(mayActOnMember(b("member"), "update", "member")).toBe(false);
    expect(mayActOnMember(b("member"), "delete", "member")).toBe(false);
    expect(mayActOnMember(b("member"), "delete", "member", true)).toBe(true);
    expect(mayActOnMember(b("admin"), "update", "admin", true)).toBe(true);
  });

  it("keeps an owner: the last one neither goes nor stops being one; owners are counted only then", async () => {
    const count = (owners: number) => () => Promise.resolve(owners);
    expect(await takesLastOwner("owner", null, count(1))).toBe(true);
    expect(await takesLastOwner("owner", "admin", count(1))).toBe(true);
    expect(await takesLastOwner("owner", "admin,owner", count(1))).toBe(false);
    expect(await takesLastOwner("owner", null, count(2))).toBe(false);
    const never = () => Promise.reject(new Error("counted"));
    expect(await takesLastOwner("admin", null, never)).toBe(false);
  });
});

describe("custom roles", () => {
  const roleTable = roleTableWith([
    { role: "inviter", grants: { invitation: ["create"] } },
    { role: "teams", grants: { team: ["create", "update"] } },
    { role: "people", grants: { member: ["update", "delete"], invitation: ["create"] } },
    // A stored custom role named like a built-in one never changes the built-in grants.
    { role: "member", grants: { organization: ["delete"] } },
  ]);
  const c = (role: string) => ({ role, roleTable });

  it("grants a member exactly the union of their roles' grants", () => {
    expect(grantsOf(c("inviter"))).toEqual({ invitation: ["create"] });
    expect(grantsOf(c("inviter,teams"))).toEqual({ invitation: ["create"], team: ["create", "update"] });
    expect(can(c("inviter"), "invitation", ["create"])).toBe(true);
    expect(can(c("inviter"), "invitation", ["cancel"])).toBe(false);
    expect(can(c("inviter"), "member", ["delete"])).toBe(false);
    expect(can(c("member"), "organization", ["delete"])).toBe(false);
    expect(rolesOf("inviter, emperor", roleTable)).toEqual(["inviter"]);
  });

  it("answers has-permission per role, as better-auth does, and holds by the union", () => {
    expect(allows(c("inviter,teams"), { invitation: ["create"] })).toBe(true);
    expect(allows(c("inviter,teams"), { invitation: ["create"], team: ["create"] })).toBe(false);
    expect(holds(c("inviter,teams"), { invitation: ["create"], team: ["create"] })).toBe(true);
    expect(allows(c("inviter"), { emperor: ["rule"] })).toBe(false);
  });

  it("knows a custom role only in its organization's table", () => {
    expect(parseRoles("inviter,member", roleTable)).toBe("inviter,member");
    expect(parseRoles("inviter", BUILT_IN_ROLES)).toBeNull();
    expect(grantsOf(b("inviter"))).toEqual({});
  });

  it("lets a member give only roles that grant nothing they do not hold", () => {
    expect(mayAssign(c("inviter"), "member")).toBe(true);
    expect(mayAssign(c("inviter"), "inviter")).toBe(true);
    expect(mayAssign(c("inviter"), "teams")).toBe(false);
    expect(mayAssign(c("inviter"), "admin")).toBe(false);
    expect(mayAssign(c("admin"), "people")).toBe(true);
    expect(mayAssign(c("people"), "owner")).toBe(false);
    expect(assignableRoles(c("inviter"))).toEqual(["member", "inviter"]);
    expect(assignableRoles(c("owner"))).toEqual(["owner", "admin", "member", "inviter", "people", "teams"]);
  });

  it("lets a member change or remove only members who hold no more than they do", () => {
    expect(mayActOnMember(c("people"), "delete", "member")).toBe(true);
    expect(mayActOnMember(c("people"), "delete", "inviter")).toBe(true);
    expect(mayActOnMember(c("people"), "delete", "teams")).toBe(false);
    expect(mayActOnMember(c("people"), "update", "admin")).toBe(false);
    expect(mayActOnMember(c("inviter"), "delete", "member")).toBe(false);
  });

  it("reads a stored permission within the table only", () => {
    expect(isKnownPermission({ team: ["create"], ac: ["read"] })).toBe(true);
    expect(isKnownPermission({ emperor: ["rule"] })).toBe(false);
    expect(isKnownPermission({ team: ["conquer"] })).toBe(false);
    expect(knownGrants({ team: ["create", "conquer", "create"], emperor: ["rule"], sso: [] })).toEqual({
      team: ["create"],
    });
  });
});
