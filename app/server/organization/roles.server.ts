/**
 * An organization's custom roles (better-auth's dynamic access control is the wire contract,
 * docs/decisions/0028): owners and admins, or any role granted `ac`, define roles from the
 * permission table, change and delete them. Nobody grants through a role what they do not
 * hold; a role still given to a member or a pending invitation stays. What a role grants is
 * decided in permissions.server.ts only; every change is audited with category "organization".
 */
import { z } from "zod";
import { isUniqueViolation, prisma, type Prisma } from "~/server/db.server";
import { fail } from "~/server/errors.server";
import { ROLE_NAME_MAX, ROLE_NAME_PATTERN } from "~/lib/organization-forms";
import type { AuthSession, RequestMeta } from "~/server/auth/session.server";
import {
  auditOrganization,
  callerOf,
  membershipOf,
  requireMembership,
  requirePermission,
  storedGrants,
} from "./organizations.server";
import { allows, holds, isKnownPermission, knownGrants, ORGANIZATION_ROLES, type Grants } from "./permissions.server";

// ---- input schemas ----

/** What a role grants, as the client sends it: resource → actions. */
export const permissionInput = z.record(z.string(), z.array(z.string()));

/** A role's name (see ROLE_NAME_PATTERN); the verbs store it lower-cased, as better-auth does. */
export const roleNameInput = z.string().trim().min(1).max(ROLE_NAME_MAX).regex(ROLE_NAME_PATTERN);

const normalized = (name: string) => name.trim().toLowerCase();

export const createRoleInput = z.object({
  organizationId: z.string().optional(),
  role: roleNameInput,
  permission: permissionInput,
});

/** Which role a call is about: by name or by id (better-auth takes either). */
const roleRef = z.union([z.object({ roleName: z.string().min(1) }), z.object({ roleId: z.string().min(1) })]);

export const roleQueryInput = z.object({ organizationId: z.string().optional() }).and(roleRef);

export const updateRoleInput = z
  .object({
    organizationId: z.string().optional(),
    data: z.object({ permission: permissionInput.optional(), roleName: roleNameInput.optional() }),
  })
  .and(roleRef);

export const deleteRoleInput = roleQueryInput;

export const hasPermissionInput = z
  .object({ organizationId: z.string().optional() })
  .and(z.union([z.object({ permissions: permissionInput }), z.object({ permission: permissionInput })]));

// ---- reading ----

type RoleRow = Prisma.OrganizationRoleGetPayload<object>;

/** A role as the API returns it: its permission as an object. */
function roleOut(row: RoleRow) {
  return { ...row, permission: storedGrants(row.permission) };
}

const isBuiltIn = (name: string) => (ORGANIZATION_ROLES as readonly string[]).includes(name);

/** The caller's membership with their role table, in the named or the active organization. */
function callerIn(auth: AuthSession, organizationId: string | undefined) {
  return requireMembership(auth, organizationId, {
    missing: "NO_ACTIVE_ORGANIZATION",
    notMember: "YOU_ARE_NOT_A_MEMBER_OF_THIS_ORGANIZATION",
  });
}

function findRole(organizationId: string, ref: z.infer<typeof roleRef>) {
  return prisma.organizationRole.findFirst({
    where: { organizationId, ...("roleName" in ref ? { role: ref.roleName.toLowerCase() } : { id: ref.roleId }) },
  });
}

/** The organization's custom roles, by name. */
export async function listRoles(auth: AuthSession, organizationId?: string) {
  const caller = await callerIn(auth, organizationId);
  requirePermission(caller, "ac", ["read"], "YOU_ARE_NOT_ALLOWED_TO_LIST_A_ROLE");
  const rows = await prisma.organizationRole.findMany({
    where: { organizationId: caller.organizationId },
    orderBy: { role: "asc" },
  });
  return rows.map(roleOut);
}

/** One custom role, by name or id. */
export async function getRole(auth: AuthSession, input: z.infer<typeof roleQueryInput>) {
  const caller = await callerIn(auth, input.organizationId);
  requirePermission(caller, "ac", ["read"], "YOU_ARE_NOT_ALLOWED_TO_READ_A_ROLE");
  const row = await findRole(caller.organizationId, input);
  if (!row) fail("ROLE_NOT_FOUND");
  return roleOut(row);
}

// ---- changing ----

/** Refuses a permission outside the table (400), or one the caller does not hold (403 `refusal`). */
function checkPermission(
  caller: Parameters<typeof holds>[0],
  permission: Record<string, string[]>,
  refusal: "YOU_ARE_NOT_ALLOWED_TO_CREATE_A_ROLE" | "YOU_ARE_NOT_ALLOWED_TO_UPDATE_A_ROLE",
): Grants {
  if (!isKnownPermission(permission)) fail("INVALID_RESOURCE");
  if (!holds(caller, permission)) fail(refusal);
  return knownGrants(permission);
}

/** Refuses a built-in name or one another role of the organization has. */
async function checkNameFree(organizationId: string, name: string, except?: string) {
  if (isBuiltIn(name)) fail("ROLE_NAME_IS_ALREADY_TAKEN");
  const holder = await prisma.organizationRole.findFirst({
    where: { organizationId, role: name },
    select: { id: true },
  });
  if (holder && holder.id !== except) fail("ROLE_NAME_IS_ALREADY_TAKEN");
}

/** Creates a custom role: `{success, roleData, statements}` as better-auth answers. */
export async function createRole(auth: AuthSession, input: z.infer<typeof createRoleInput>, meta: RequestMeta) {
  const caller = await callerIn(auth, input.organizationId);
  requirePermission(caller, "ac", ["create"], "YOU_ARE_NOT_ALLOWED_TO_CREATE_A_ROLE");
  const grants = checkPermission(caller, input.permission, "YOU_ARE_NOT_ALLOWED_TO_CREATE_A_ROLE");
  const { organizationId } = caller;
  const name = normalized(input.role);
  await checkNameFree(organizationId, name);
  let row;
  try {
    row = await prisma.organizationRole.create({
      data: { organizationId, role: name, permission: JSON.stringify(grants) },
    });
  } catch (error) {
    // Two creations of one name at once: the unique index decides.
    if (isUniqueViolation(error)) fail("ROLE_NAME_IS_ALREADY_TAKEN");
    throw error;
  }
  await auditOrganization(meta, auth.user.id, organizationId, "create-role", "role", row.id, {
    organizationId,
    role: row.role,
    permission: grants,
  });
  return { success: true, roleData: roleOut(row), statements: grants };
}

/** Whether `name` is one of the roles of a comma-separated role string. */
const names = (role: string, name: string) => role.split(",").some((part) => part.trim() === name);

/** `role` with `from` renamed to `to`. */
const renamed = (role: string, from: string, to: string) =>
  role
    .split(",")
    .map((part) => (part.trim() === from ? to : part.trim()))
    .join(",");

/**
 * Changes a custom role's permission or name. The caller must hold what the role grants now
 * (no one trims a role above them) and what it will grant. A new name is carried over to the
 * members and invitations that have the role, so they keep it.
 */
export async function updateRole(auth: AuthSession, input: z.infer<typeof updateRoleInput>, meta: RequestMeta) {
  const caller = await callerIn(auth, input.organizationId);
  requirePermission(caller, "ac", ["update"], "YOU_ARE_NOT_ALLOWED_TO_UPDATE_A_ROLE");
  const { organizationId } = caller;
  const existing = await findRole(organizationId, input);
  if (!existing) fail("ROLE_NOT_FOUND");
  const current = roleOut(existing);
  if (!holds(caller, current.permission)) fail("YOU_ARE_NOT_ALLOWED_TO_UPDATE_A_ROLE");
  const grants = input.data.permission
    ? checkPermission(caller, input.data.permission, "YOU_ARE_NOT_ALLOWED_TO_UPDATE_A_ROLE")
    : current.permission;
  const name = input.data.roleName ? normalized(input.data.roleName) : existing.role;
  if (name !== existing.role) await checkNameFree(organizationId, name, existing.id);
  let row;
  try {
    row = await prisma.$transaction(async (tx) => {
      const updated = await tx.organizationRole.update({
        where: { id: existing.id },
        data: { role: name, permission: JSON.stringify(grants) },
      });
      if (name !== existing.role) await renameAssigned(tx, organizationId, existing.role, name);
      return updated;
    });
  } catch (error) {
    if (isUniqueViolation(error)) fail("ROLE_NAME_IS_ALREADY_TAKEN");
    throw error;
  }
  await auditOrganization(meta, auth.user.id, organizationId, "update-role", "role", row.id, {
    organizationId,
    role: row.role,
    ...(name !== existing.role ? { from: existing.role } : {}),
    permission: grants,
  });
  return { success: true, roleData: roleOut(row) };
}

async function renameAssigned(tx: Prisma.TransactionClient, organizationId: string, from: string, to: string) {
  const where = { organizationId, role: { contains: from } };
  for (const member of await tx.member.findMany({ where, select: { id: true, role: true } })) {
    if (names(member.role, from)) {
      await tx.member.update({ where: { id: member.id }, data: { role: renamed(member.role, from, to) } });
    }
  }
  for (const invitation of await tx.invitation.findMany({ where, select: { id: true, role: true } })) {
    if (names(invitation.role, from)) {
      await tx.invitation.update({ where: { id: invitation.id }, data: { role: renamed(invitation.role, from, to) } });
    }
  }
}

/** Deletes a custom role that no member and no pending invitation has. */
export async function deleteRole(auth: AuthSession, input: z.infer<typeof deleteRoleInput>, meta: RequestMeta) {
  const caller = await callerIn(auth, input.organizationId);
  requirePermission(caller, "ac", ["delete"], "YOU_ARE_NOT_ALLOWED_TO_DELETE_A_ROLE");
  if ("roleName" in input && isBuiltIn(input.roleName)) fail("CANNOT_DELETE_A_PRE_DEFINED_ROLE");
  const { organizationId } = caller;
  const existing = await findRole(organizationId, input);
  if (!existing) fail("ROLE_NOT_FOUND");
  await prisma.$transaction(async (tx) => {
    const where = { organizationId, role: { contains: existing.role } };
    const [members, invitations] = await Promise.all([
      tx.member.findMany({ where, select: { role: true } }),
      tx.invitation.findMany({
        where: { ...where, status: "pending", expiresAt: { gt: new Date() } },
        select: { role: true },
      }),
    ]);
    if ([...members, ...invitations].some(({ role }) => names(role, existing.role))) {
      fail("ROLE_IS_ASSIGNED_TO_MEMBERS");
    }
    await tx.organizationRole.delete({ where: { id: existing.id } });
  });
  await auditOrganization(meta, auth.user.id, organizationId, "delete-role", "role", existing.id, {
    organizationId,
    role: existing.role,
  });
  return { success: true };
}

/**
 * `POST /organization/has-permission`: whether one of the caller's roles, built-in or custom,
 * grants everything asked (better-auth's answer shape `{error: null, success}`).
 */
export async function hasPermission(auth: AuthSession, input: z.infer<typeof hasPermissionInput>) {
  const organizationId = input.organizationId || auth.session.activeOrganizationId;
  if (!organizationId) fail("NO_ACTIVE_ORGANIZATION");
  const member = await membershipOf(auth.user.id, organizationId);
  if (!member) fail("USER_IS_NOT_A_MEMBER_OF_THE_ORGANIZATION");
  const permissions = "permissions" in input ? input.permissions : input.permission;
  return { error: null, success: allows(await callerOf(member), permissions) };
}
