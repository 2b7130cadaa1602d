import { describe, expect, it } from "vitest";
import {
  assignableRoles,
  can,
  grantsOf,
  mayActOnMember,
  mayAssign,
  parseRoles,
  PERMISSIONS,
  rolesOf,
  takesLastOwner,
  type Resource,
} from "./permissions.server";

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
  // Beyond better-auth's default table: the organization's subscription (owner or admin only).
  ["billing", "manage", true, true, false],
  ["sso", "manage", true, true, false],
  ["auditLog", "read", true, true, false],
  ["webhook", "manage", true, true, false],
];

describe("the organization permission table", () => {
  it("covers every permission there is", () => {
    const cells = Object.entries(PERMISSIONS).flatMap(([resource, actions]) => actions.map((a) => `${resource}:${a}`));
    expect(TABLE.map(([resource, action]) => `${resource}:${action}`).sort()).toEqual(cells.sort());
  });

  for (const [resource, action, owner, admin, member] of TABLE) {
    it(`${resource} ${action}: owner ${owner ? "yes" : "no"}, admin ${admin ? "yes" : "no"}, member ${member ? "yes" : "no"}`, () => {
      expect(can("owner", resource, [action])).toBe(owner);
      expect(can("admin", resource, [action])).toBe(admin);
      expect(can("member", resource, [action])).toBe(member);
    });
  }

  it("grants a multi-role member what any of its roles grants, and nothing to unknown roles", () => {
    expect(can("member,admin", "organization", ["update"])).toBe(true);
    expect(can("member, owner", "organization", ["delete"])).toBe(true);
    expect(can("emperor", "organization", ["update"])).toBe(false);
    expect(can("admin", "member", ["create", "update", "delete"])).toBe(true);
    expect(can("admin", "organization", ["update", "delete"])).toBe(false);
    expect(rolesOf("admin, emperor ,member")).toEqual(["admin", "member"]);
  });

  it("accepts roles as a list or a comma-separated string, and refuses unknown ones", () => {
    expect(parseRoles(["admin", "member", "admin"])).toBe("admin,member");
    expect(parseRoles("owner")).toBe("owner");
    expect(parseRoles("admin,emperor")).toBeNull();
    expect(parseRoles([])).toBeNull();
  });
});

describe("the rules between members", () => {
  it("lists what a role grants, as any of its roles grants it", () => {
    expect(grantsOf("member")).toEqual({});
    expect(grantsOf("admin").organization).toEqual(["update"]);
    expect(grantsOf("owner")).toEqual(PERMISSIONS);
    expect(grantsOf("member,admin")).toEqual(grantsOf("admin"));
    expect(grantsOf("emperor")).toEqual({});
  });

  it("lets only an owner give the owner role", () => {
    expect(assignableRoles("owner")).toEqual(["owner", "admin", "member"]);
    expect(assignableRoles("admin")).toEqual(["admin", "member"]);
    expect(mayAssign("admin", "admin,member")).toBe(true);
    expect(mayAssign("admin", "member,owner")).toBe(false);
    expect(mayAssign("admin,owner", "owner")).toBe(true);
  });

  it("lets only an owner change or remove an owner, and anyone remove themself", () => {
    expect(mayActOnMember("owner", "update", "owner")).toBe(true);
    expect(mayActOnMember("admin", "update", "member")).toBe(true);
    expect(mayActOnMember("admin", "update", "owner")).toBe(false);
    expect(mayActOnMember("admin", "delete", "owner")).toBe(false);
    expect(mayActOnMember("member", "update", "member")).toBe(false);
    expect(mayActOnMember("member", "delete", "member")).toBe(false);
    expect(mayActOnMember("member", "delete", "member", true)).toBe(true);
    expect(mayActOnMember("admin", "update", "admin", true)).toBe(true);
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
