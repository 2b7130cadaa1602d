/**
 * SCIM Groups of an organization. A Group is a named set of the organization's SCIM Users;
 * the one named Admins (any case) makes its active members admins of the organization, so a
 * change to its members, or a rename into or out of that name, re-reads their roles
 * (membership.server.ts). Other Groups are kept for the directory and change no right.
 */
import { z } from "zod";
import { audit } from "~/server/audit.server";
import type { RequestMeta } from "~/server/auth/session.server";
import { isUniqueViolation, prisma, type Prisma } from "~/server/db.server";
import { groupFilter } from "./filter.server";
import {
  auditRoleChange,
  isAdminsGroup,
  scimDetails,
  syncMembership,
  type MembershipChange,
} from "./membership.server";
import { applyPatch, patchRequest, type DocumentShape } from "./patch.server";
import { pagedList, projected, SCHEMAS, scimFail, scimLocation, scimParse, type ScimQuery } from "./protocol.server";
import type { ScimCaller } from "./tokens.server";

/** The most members one Group holds. */
const MAX_MEMBERS = 1000;

export const groupInput = z.object({
  schemas: z
    .array(z.string())
    .refine((schemas) => schemas.length > 0 && schemas.every((schema) => schema === SCHEMAS.group), {
      message: `schemas must be [${SCHEMAS.group}]`,
    }),
  displayName: z.string().trim().min(1).max(256),
  externalId: z.string().trim().min(1).max(1024).optional(),
  members: z
    .array(
      z.object({
        value: z.string().trim().min(1).max(256),
        type: z
          .string()
          .refine((type) => type.toLowerCase() === "user", { message: "members are Users" })
          .optional(),
      }),
    )
    .max(MAX_MEMBERS)
    .optional(),
});
type GroupInput = z.infer<typeof groupInput>;

const SHAPE: DocumentShape = {
  schema: SCHEMAS.group,
  extensions: [],
  attributes: Object.keys(groupInput.shape),
  multiValued: ["members"],
  readOnly: ["id", "meta"],
};

const include = {
  members: {
    include: { user: { select: { id: true, user: { select: { name: true } } } } },
    orderBy: { scimUserId: "asc" },
  },
} as const satisfies Prisma.ScimGroupInclude;
type Row = Prisma.ScimGroupGetPayload<{ include: typeof include }>;

/** The Group as the directory reads it. */
function resource(row: Row) {
  return {
    schemas: [SCHEMAS.group],
    id: row.id,
    displayName: row.displayName,
    ...(row.externalId ? { externalId: row.externalId } : {}),
    members: row.members.map(({ user }) => ({
      value: user.id,
      display: user.user.name,
      type: "User",
      $ref: scimLocation(`/Users/${user.id}`),
    })),
    meta: {
      resourceType: "Group",
      created: row.createdAt.toISOString(),
      lastModified: row.updatedAt.toISOString(),
      location: scimLocation(`/Groups/${row.id}`),
    },
  };
}

async function groupOf(caller: ScimCaller, id: string): Promise<Row> {
  // Another organization's Group is answered like one that does not exist.
  const row = await prisma.scimGroup.findFirst({ where: { id, organizationId: caller.organizationId }, include });
  return row ?? scimFail(404, "Group not found");
}

type Tx = Prisma.TransactionClient;

/** Re-reads the roles of the active Users among `scimUserIds` (after Admins changed). */
async function syncRoles(tx: Tx, organizationId: string, scimUserIds: string[]) {
  const users = await tx.scimUser.findMany({ where: { id: { in: scimUserIds }, organizationId, active: true } });
  const changes: { userId: string; change: MembershipChange }[] = [];
  for (const user of users)
    changes.push({ userId: user.userId, change: await syncMembership(tx, organizationId, user) });
  return changes;
}

/**
 * Writes a Group (new when `existing` is null) and its members; re-reads the roles of the
 * Users whose admin right it may have changed.
 */
async function save(caller: ScimCaller, existing: Row | null, group: GroupInput) {
  const { organizationId } = caller;
  // Group names are matched without regard to case; a handful per organization, compared here.
  const others = await prisma.scimGroup.findMany({
    where: { organizationId, ...(existing ? { id: { not: existing.id } } : {}) },
    select: { displayName: true, externalId: true },
  });
  const displayName = group.displayName;
  if (others.some((other) => other.displayName.toLowerCase() === displayName.toLowerCase())) {
    scimFail(409, "A Group with this displayName already exists", "uniqueness");
  }
  if (group.externalId && others.some((other) => other.externalId === group.externalId)) {
    scimFail(409, "A Group with this externalId already exists", "uniqueness");
  }
  const wanted = [...new Set((group.members ?? []).map((member) => member.value))];
  const found = await prisma.scimUser.findMany({ where: { id: { in: wanted }, organizationId }, select: { id: true } });
  const unknown = wanted.filter((id) => !found.some((user) => user.id === id));
  if (unknown.length)
    scimFail(400, `Not a User of this organization: ${unknown.slice(0, 5).join(", ")}`, "invalidValue");

  const before = existing?.members.map((member) => member.scimUserId) ?? [];
  const added = wanted.filter((id) => !before.includes(id));
  const removed = before.filter((id) => !wanted.includes(id));
  const adminsBefore = existing ? isAdminsGroup(existing.displayName) : false;
  const adminsAfter = isAdminsGroup(displayName);
  const data = { displayName, externalId: group.externalId ?? null };
  try {
    return await prisma.$transaction(async (tx) => {
      const saved = existing
        ? await tx.scimGroup.update({ where: { id: existing.id }, data })
        : await tx.scimGroup.create({ data: { ...data, organizationId } });
      await tx.scimGroupMember.deleteMany({ where: { groupId: saved.id, scimUserId: { in: removed } } });
      await tx.scimGroupMember.createMany({ data: added.map((scimUserId) => ({ groupId: saved.id, scimUserId })) });
      // A rename into or out of Admins changes every member's right; otherwise only the ones who came or went.
      const affected =
        adminsBefore !== adminsAfter ? [...new Set([...before, ...wanted])] : adminsAfter ? [...added, ...removed] : [];
      const roles = await syncRoles(tx, organizationId, affected);
      const row = await tx.scimGroup.findUniqueOrThrow({ where: { id: saved.id }, include });
      return { row, roles, added: added.length, removed: removed.length };
    });
  } catch (error) {
    if (isUniqueViolation(error)) scimFail(409, "A Group with this displayName already exists", "uniqueness");
    throw error;
  }
}

async function auditRoles(
  caller: ScimCaller,
  meta: RequestMeta,
  roles: { userId: string; change: MembershipChange }[],
) {
  for (const { userId, change } of roles) await auditRoleChange(caller, meta, userId, change);
}

export async function listGroups(caller: ScimCaller, query: ScimQuery) {
  const filter = typeof query.filter === "string" && query.filter.trim() ? groupFilter(query.filter) : {};
  const where = { AND: [{ organizationId: caller.organizationId }, filter] };
  return pagedList(
    query,
    SCHEMAS.group,
    () => prisma.scimGroup.count({ where }),
    (page) => prisma.scimGroup.findMany({ where, include, ...page }),
    resource,
  );
}

export async function getGroup(caller: ScimCaller, id: string, query: ScimQuery) {
  return projected(resource(await groupOf(caller, id)), query, SCHEMAS.group);
}

export async function createGroup(caller: ScimCaller, body: unknown, meta: RequestMeta) {
  const { row, roles, added } = await save(caller, null, scimParse(groupInput, body));
  await audit({
    userId: null,
    meta,
    category: "scim",
    action: "scim-create-group",
    status: "success",
    targetType: "scim-group",
    targetId: row.id,
    organizationId: caller.organizationId,
    details: { ...scimDetails(caller), displayName: row.displayName, members: added },
  });
  await auditRoles(caller, meta, roles);
  return resource(row);
}

async function update(caller: ScimCaller, existing: Row, group: GroupInput, meta: RequestMeta) {
  const { row, roles, added, removed } = await save(caller, existing, group);
  await audit({
    userId: null,
    meta,
    category: "scim",
    action: "scim-update-group",
    status: "success",
    targetType: "scim-group",
    targetId: row.id,
    organizationId: caller.organizationId,
    details: { ...scimDetails(caller), displayName: row.displayName, added, removed },
  });
  await auditRoles(caller, meta, roles);
  return resource(row);
}

export async function replaceGroup(caller: ScimCaller, id: string, body: unknown, meta: RequestMeta) {
  const existing = await groupOf(caller, id);
  return update(caller, existing, scimParse(groupInput, body), meta);
}

export async function patchGroup(caller: ScimCaller, id: string, body: unknown, meta: RequestMeta) {
  const { Operations } = scimParse(patchRequest, body);
  const existing = await groupOf(caller, id);
  const patched = applyPatch(resource(existing), Operations, SHAPE);
  return update(caller, existing, scimParse(groupInput, patched), meta);
}

export async function deleteGroup(caller: ScimCaller, id: string, meta: RequestMeta): Promise<void> {
  const existing = await groupOf(caller, id);
  const roles = await prisma.$transaction(async (tx) => {
    await tx.scimGroup.delete({ where: { id: existing.id } });
    const members = existing.members.map((member) => member.scimUserId);
    return isAdminsGroup(existing.displayName) ? syncRoles(tx, caller.organizationId, members) : [];
  });
  await audit({
    userId: null,
    meta,
    category: "scim",
    action: "scim-delete-group",
    status: "success",
    targetType: "scim-group",
    targetId: existing.id,
    organizationId: caller.organizationId,
    details: { ...scimDetails(caller), displayName: existing.displayName },
  });
  await auditRoles(caller, meta, roles);
}
