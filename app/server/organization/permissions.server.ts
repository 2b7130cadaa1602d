/**
 * Organization roles and what they may do, in one place (docs/decisions/0011). A member's
 * role is a comma-separated list ("admin,member"); a member may do what any of their roles
 * may. The table is better-auth's organization plugin's default (owner: everything; admin:
 * everything but deleting the organization; member: nothing), so its clients see the same
 * refusals, plus `billing: manage` for owners and admins.
 */
export const ORGANIZATION_ROLES = ["owner", "admin", "member"] as const;
export type OrganizationRole = (typeof ORGANIZATION_ROLES)[number];

export const PERMISSIONS = {
  organization: ["update", "delete"],
  member: ["create", "update", "delete"],
  invitation: ["create", "cancel"],
  team: ["create", "update", "delete"],
  // Subscribing the organization, cancelling, restoring, the billing portal.
  billing: ["manage"],
} as const;
export type Resource = keyof typeof PERMISSIONS;

type Grants = { [R in Resource]?: readonly (typeof PERMISSIONS)[R][number][] };

/** Who may do what: an owner everything, an admin all but deleting the organization, a member nothing. */
const GRANTS: Record<OrganizationRole, Grants> = {
  owner: PERMISSIONS,
  admin: {
    organization: ["update"],
    member: ["create", "update", "delete"],
    invitation: ["create", "cancel"],
    team: ["create", "update", "delete"],
    billing: ["manage"],
  },
  member: {},
};

/** The roles of a comma-separated role string; unknown names are dropped. */
export function rolesOf(role: string): OrganizationRole[] {
  return role
    .split(",")
    .map((name) => name.trim())
    .filter((name): name is OrganizationRole => (ORGANIZATION_ROLES as readonly string[]).includes(name));
}

/** Whether one of `role`'s roles grants every action asked for on the resource. */
export function can(role: string, resource: Resource, actions: readonly string[]): boolean {
  return rolesOf(role).some((name) => {
    const granted: readonly string[] = GRANTS[name][resource] ?? [];
    return actions.every((action) => granted.includes(action));
  });
}

export const isOwner = (role: string) => rolesOf(role).includes("owner");

/** A role given as "a,b" or ["a","b"], checked against the known roles; null when one is unknown. */
export function parseRoles(role: string | string[]): string | null {
  const names = (Array.isArray(role) ? role : role.split(",")).map((name) => name.trim()).filter(Boolean);
  if (!names.length || names.some((name) => !(ORGANIZATION_ROLES as readonly string[]).includes(name))) return null;
  return [...new Set(names)].join(",");
}
