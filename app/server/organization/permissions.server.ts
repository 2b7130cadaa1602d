/**
 * Organization roles and what they may do, in one place (docs/decisions/0011): the
 * permission table, and the rules between members (which roles a member may give, whom they
 * may change or remove, the last owner). The services check these; the pages show what they
 * allow. A member's role is a comma-separated list ("admin,member"); a member may do what
 * any of their roles may. The table is better-auth's organization plugin's default (owner:
 * everything; admin: everything but deleting the organization; member: nothing), so its
 * clients see the same refusals, plus `billing: manage`, `sso: manage` and `auditLog: read` for
 * owners and admins.
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
  // The organization's identity providers, their domains, SCIM tokens and whether SSO is required.
  sso: ["manage"],
  // The organization's own audit log (its events: who, what, when, from where) and its CSV export.
  auditLog: ["read"],
  // The organization's outgoing webhooks: endpoints, their deliveries, test events and replays.
  webhook: ["manage"],
} as const;
export type Resource = keyof typeof PERMISSIONS;

/** What a role may do: for each resource, the actions granted (a plain object, as a page's loader returns it). */
export type Grants = { [R in Resource]?: readonly (typeof PERMISSIONS)[R][number][] };

/** Who may do what: an owner everything, an admin all but deleting the organization, a member nothing. */
const GRANTS: Record<OrganizationRole, Grants> = {
  owner: PERMISSIONS,
  admin: {
    organization: ["update"],
    member: ["create", "update", "delete"],
    invitation: ["create", "cancel"],
    team: ["create", "update", "delete"],
    billing: ["manage"],
    sso: ["manage"],
    auditLog: ["read"],
    webhook: ["manage"],
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

/**
 * What a role string grants: for each resource, the actions that any of its roles grants.
 * Every question about what a role may do goes through here (`can`, the pages' grants), so
 * roles that an organization defines itself plug in at this one place.
 */
export function grantsOf(role: string): Grants {
  const grants: Record<string, string[]> = {};
  for (const name of rolesOf(role)) {
    for (const [resource, actions] of Object.entries(GRANTS[name])) {
      grants[resource] = [...new Set([...(grants[resource] ?? []), ...actions])];
    }
  }
  return grants as Grants;
}

/**
 * Whether one of `role`'s roles grants every action asked for on the resource (as
 * better-auth decides it). For a single action this is what `grantsOf(role)` lists.
 */
export function can(role: string, resource: Resource, actions: readonly string[]): boolean {
  return rolesOf(role).some((name) => {
    const granted: readonly string[] = grantsOf(name)[resource] ?? [];
    return actions.every((action) => granted.includes(action));
  });
}

export const isOwner = (role: string) => rolesOf(role).includes("owner");

/**
 * The assignable-role rule: whether a member with role `caller` may give `role` (one role or
 * several, "admin,member") to a member or an invitation. Only an owner gives the owner role.
 */
export function mayAssign(caller: string, role: string): boolean {
  return isOwner(caller) || !isOwner(role);
}

/** The roles a member with role `caller` may give (see mayAssign), for the pages' role selects. */
export function assignableRoles(caller: string): OrganizationRole[] {
  return ORGANIZATION_ROLES.filter((role) => mayAssign(caller, role));
}

/**
 * The member-over-member rule: whether a member with role `caller` may change the role of
 * (`update`) or remove (`delete`) the member with role `target`. It takes the table's member
 * permission, except to remove oneself (`self`: leaving needs none), and only an owner changes
 * or removes an owner. Which role may be given is mayAssign's.
 */
export function mayActOnMember(caller: string, action: "update" | "delete", target: string, self = false): boolean {
  const permitted = (action === "delete" && self) || can(caller, "member", [action]);
  return permitted && (isOwner(caller) || !isOwner(target));
}

/**
 * The last-owner rule: an organization keeps an owner. Whether a member with `role`, given
 * `next` instead (null: removed, or leaving), is its last owner going. `countOwners` is only
 * asked when the member is an owner: counting reads every member's role.
 */
export async function takesLastOwner(
  role: string,
  next: string | null,
  countOwners: () => Promise<number>,
): Promise<boolean> {
  return isOwner(role) && !(next !== null && isOwner(next)) && (await countOwners()) <= 1;
}

/** A role given as "a,b" or ["a","b"], checked against the known roles; null when one is unknown. */
export function parseRoles(role: string | string[]): string | null {
  const names = (Array.isArray(role) ? role : role.split(",")).map((name) => name.trim()).filter(Boolean);
  if (!names.length || names.some((name) => !(ORGANIZATION_ROLES as readonly string[]).includes(name))) return null;
  return [...new Set(names)].join(",");
}
