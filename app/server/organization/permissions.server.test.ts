import { describe, expect, it } from "vitest";
import { can, parseRoles, PERMISSIONS, rolesOf, type Resource } from "./permissions.server";

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
