/**
 * Organization roles and what they may do, in one place (docs/decisions/0011, 0028): the
 * permission table, and the rules between members (which roles a member may give, whom they
 * may change or remove, the last owner). The services check these; the pages show what they
 * allow. A member's role is a comma-separated list ("admin,member") of built-in roles and of
 * roles their organization defined (custom roles); a member may do what any of their roles
 * may. The built-in table is better-auth's organization plugin's default (owner: everything;
 * admin: everything but deleting the organization; member: nothing), so its clients see the
 * same refusals, plus `billing: manage`, `sso: manage`, `auditLog: read` and `apiKey: manage` for
 * owners and admins.
 */
import { keyPermissions } from "~/server/auth/api-keys.server";

export const ORGANIZATION_ROLES = ["owner", "admin", "member"] as const;
export type OrganizationRole = (typeof ORGANIZATION_ROLES)[number];

export const PERMISSIONS = {
  organization: ["update", "delete"],
  member: ["create", "update", "delete"],
  invitation: ["create", "cancel"],
  team: ["create", "update", "delete"],
  // The organization's custom roles (better-auth's dynamic access control statement).
  ac: ["create", "read", "update", "delete"],
  // Subscribing the organization, cancelling, restoring, the billing portal.
  billing: ["manage"],
  // The organization's identity providers, their domains, SCIM tokens and whether SSO is required.
  sso: ["manage"],
  // The organization's own audit log (its events: who, what, when, from where) and its CSV export.
  auditLog: ["read"],
  // The organization's API keys (docs/decisions/0027).
  apiKey: ["manage"],
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
    ac: ["create", "read", "update", "delete"],
    billing: ["manage"],
    sso: ["manage"],
    auditLog: ["read"],
    apiKey: ["manage"],
    webhook: ["manage"],
  },
  member: {},
};

/**
 * Every role of one organization by name, with its grants: the built-in roles, then the
 * organization's own (organizations.server.ts `roleTableOf` reads them once per operation).
 */
export type RoleTable = Readonly<Record<string, Grants>>;

/** The role table of an organization without custom roles. */
export const BUILT_IN_ROLES: RoleTable = GRANTS;

/** A member as the rules see them: their role string and their organization's role table. */
export type Holder = { role: string; roleTable: RoleTable };

/** The role table of an organization whose custom roles are `custom`; a built-in name keeps its built-in grants. */
export function roleTableWith(custom: readonly { role: string; grants: Grants }[]): RoleTable {
  return { ...Object.fromEntries(custom.map(({ role, grants }) => [role, grants])), ...GRANTS };
}

/** The grants of a stored permission object: the resources and actions the table knows, nothing else. */
export function knownGrants(permission: Record<string, readonly string[]>): Grants {
  const grants: Record<string, string[]> = {};
  for (const [resource, actions] of Object.entries(permission)) {
    if (!Object.hasOwn(PERMISSIONS, resource)) continue;
    const known: readonly string[] = PERMISSIONS[resource as Resource];
    const kept = [...new Set(actions.filter((action) => known.includes(action)))];
    if (kept.length) grants[resource] = kept;
  }
  return grants as Grants;
}

/** Whether every resource and action of `permission` is in the permission table. */
export function isKnownPermission(permission: Record<string, readonly string[]>): boolean {
  return Object.entries(permission).every(
    ([resource, actions]) =>
      Object.hasOwn(PERMISSIONS, resource) &&
      actions.every((action) => (PERMISSIONS[resource as Resource] as readonly string[]).includes(action)),
  );
}

/** The roles of a comma-separated role string that the table knows; unknown names are dropped. */
export function rolesOf(role: string, roleTable: RoleTable): string[] {
  return role
    .split(",")
    .map((name) => name.trim())
    .filter((name) => Object.hasOwn(roleTable, name));
}

/**
 * The grants of each of the holder's roles. Every question about what a member may do goes
 * through here (`can`, `grantsOf`, the escalation rules, has-permission): the one decision point.
 */
function grantsByRole({ role, roleTable }: Holder): Grants[] {
  const granted = rolesOf(role, roleTable).map((name) => roleTable[name]!);
  // A request made with a restricted API key may do only what both the key and the role allow.
  const key = keyPermissions();
  return key ? granted.map((grants) => narrowed(grants, key)) : granted;
}

/** The actions of `grants` that `limit` also grants, resource by resource. */
function narrowed(grants: Grants, limit: Readonly<Record<string, readonly string[]>>): Grants {
  return Object.fromEntries(
    Object.entries(grants).map(([resource, actions]) => [
      resource,
      actions.filter((action) => (Object.hasOwn(limit, resource) ? limit[resource]! : []).includes(action)),
    ]),
  ) as Grants;
}

/** For each resource, the actions that any of `list` grants (the union). */
function union(list: readonly Grants[]): Grants {
  const grants: Record<string, string[]> = {};
  for (const granted of list) {
    for (const [resource, actions] of Object.entries(granted)) {
      grants[resource] = [...new Set([...(grants[resource] ?? []), ...actions])];
    }
  }
  return grants as Grants;
}

/** What a member may do: for each resource, the actions that any of their roles grants (the union). */
export function grantsOf(holder: Holder): Grants {
  return union(grantsByRole(holder));
}

/**
 * What a role string grants whoever holds it, as the table defines it. A role being given or
 * acted on is measured whole: the caller's API key narrows what the caller may do, never what
 * the target role is worth (narrowed, admin would look as small as the key).
 */
function roleGrants(role: string, roleTable: RoleTable): Grants {
  return union(rolesOf(role, roleTable).map((name) => roleTable[name]!));
}

/**
 * Whether one of the holder's roles grants every action asked for on every resource asked
 * for (as better-auth's has-permission decides it). For a single action this is what
 * `grantsOf` lists.
 */
export function allows(holder: Holder, permissions: Record<string, readonly string[]>): boolean {
  return grantsByRole(holder).some((granted) =>
    Object.entries(permissions).every(([resource, actions]) => {
      const actionsGranted: readonly string[] = Object.hasOwn(granted, resource) ? granted[resource as Resource]! : [];
      return actions.every((action) => actionsGranted.includes(action));
    }),
  );
}

/** Whether one of the holder's roles grants every one of `actions` on `resource`. */
export function can(holder: Holder, resource: Resource, actions: readonly string[]): boolean {
  return allows(holder, { [resource]: actions });
}

/**
 * Whether the holder has every permission of `permission` through some role (the union):
 * nobody grants, through a role they define or give, what they do not have themselves.
 */
export function holds(holder: Holder, permission: Record<string, readonly string[]>): boolean {
  return covers(grantsOf(holder), permission);
}

/** Whether `grants` has every action of `permission` on every resource of it. */
function covers(grants: Grants, permission: Record<string, readonly string[]>): boolean {
  return Object.entries(permission).every(([resource, actions]) => {
    const granted: readonly string[] = Object.hasOwn(grants, resource) ? grants[resource as Resource]! : [];
    return actions.every((action) => granted.includes(action));
  });
}

export const isOwner = (role: string) =>
  role
    .split(",")
    .map((name) => name.trim())
    .includes("owner");

/**
 * The assignable-role rule: whether `caller` may give `role` (one role or several,
 * "admin,custom") to a member or an invitation. Only an owner gives the owner role; anyone
 * else only roles that grant nothing they do not hold themselves.
 */
export function mayAssign(caller: Holder, role: string): boolean {
  return givesRole(caller, grantsOf(caller), role);
}

/** The assignable-role rule on `held`, what the caller holds (narrowed by a key or not). */
function givesRole(caller: Holder, held: Grants, role: string): boolean {
  return isOwner(caller.role) || (!isOwner(role) && covers(held, roleGrants(role, caller.roleTable)));
}

/**
 * Whether the member `inviter` could send an invitation giving `role` now: they may invite,
 * and give that role (mayAssign's rule). An invitation speaks for its inviter, so it stands
 * only while this holds. Asked in the recipient's request: no key of that request narrows
 * the inviter's roles.
 */
export function couldInvite(inviter: Holder, role: string): boolean {
  const held = roleGrants(inviter.role, inviter.roleTable);
  return covers(held, { invitation: ["create"] }) && givesRole(inviter, held, role);
}

/** The roles `caller` may give (see mayAssign), built-in first, then by name, for the pages' role selects. */
export function assignableRoles(caller: Holder): string[] {
  return Object.keys(caller.roleTable)
    .sort((a, b) => builtInOrder(a) - builtInOrder(b) || a.localeCompare(b))
    .filter((role) => mayAssign(caller, role));
}

function builtInOrder(role: string): number {
  const index = (ORGANIZATION_ROLES as readonly string[]).indexOf(role);
  return index === -1 ? ORGANIZATION_ROLES.length : index;
}

/**
 * The member-over-member rule: whether `caller` may change the role of (`update`) or remove
 * (`delete`) the member with role `target`. It takes the table's member permission, except to
 * remove oneself (`self`: leaving needs none); only an owner changes or removes an owner, and
 * no one a member who holds more than they do. Which role may be given is mayAssign's.
 */
export function mayActOnMember(caller: Holder, action: "update" | "delete", target: string, self = false): boolean {
  const permitted = (action === "delete" && self) || can(caller, "member", [action]);
  if (!permitted || isOwner(caller.role)) return permitted;
  return !isOwner(target) && holds(caller, roleGrants(target, caller.roleTable));
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

/** A role given as "a,b" or ["a","b"], checked against the organization's roles; null when one is unknown. */
export function parseRoles(role: string | string[], roleTable: RoleTable): string | null {
  const names = (Array.isArray(role) ? role : role.split(",")).map((name) => name.trim()).filter(Boolean);
  if (!names.length || names.some((name) => !Object.hasOwn(roleTable, name))) return null;
  return [...new Set(names)].join(",");
}
