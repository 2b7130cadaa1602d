/**
 * Organizations and their members (better-auth's organization plugin is the wire contract):
 * a flat list of verbs the /api/auth/organization endpoints and the pages call. Permissions
 * come from permissions.server.ts only; every change is audited with category
 * "organization".
 */
import { z } from "zod";
import { audit } from "~/server/audit.server";
import { databaseProvider, isUniqueViolation, newId, prisma, type Prisma } from "~/server/db.server";
import { loadEnv } from "~/server/env.server";
import { AppError, fail, type ErrorCode } from "~/server/errors.server";
import {
  clearActiveOrganization,
  updateActive,
  type AuthSession,
  type RequestMeta,
} from "~/server/auth/session.server";
import { isReservedSlug } from "~/lib/organization-paths";
import { prepareDeletion } from "~/server/deletion.server";
import {
  can,
  isOwner,
  knownGrants,
  mayActOnMember,
  mayAssign,
  parseRoles,
  roleTableWith,
  takesLastOwner,
  type Holder,
  type Resource,
  type RoleTable,
} from "./permissions.server";

export const TEAM_MEMBER_LIMIT = 100;

/** How many members an organization may have: ORGANIZATION_MEMBERSHIP_LIMIT (100 unless configured). */
export const membershipLimit = () => loadEnv().ORGANIZATION_MEMBERSHIP_LIMIT;

// ---- input schemas ----

const metadata = z.record(z.string(), z.unknown());

export const createOrganizationInput = z.object({
  name: z.string().trim().min(1),
  slug: z.string().trim().min(1),
  logo: z.string().nullish(),
  metadata: metadata.nullish(),
  keepCurrentActiveOrganization: z.boolean().optional(),
});

export const updateOrganizationInput = z.object({
  organizationId: z.string().optional(),
  data: z.object({
    name: z.string().trim().min(1).optional(),
    slug: z.string().trim().min(1).optional(),
    logo: z.string().nullish(),
    metadata: metadata.nullish(),
  }),
});

export const roleInput = z.union([z.string(), z.array(z.string())]);

// ---- reading ----

type OrganizationRow = Prisma.OrganizationGetPayload<object>;

/** The organization as the API returns it: metadata as an object. */
export function organizationOut(row: OrganizationRow) {
  return { ...row, metadata: row.metadata ? (JSON.parse(row.metadata) as Record<string, unknown>) : null };
}

/** The user fields a listed member comes with. */
export const memberUser = { select: { id: true, name: true, email: true, image: true } } as const;

/** The caller's membership in `organizationId`, or null. */
export function membershipOf(userId: string, organizationId: string) {
  return prisma.member.findUnique({ where: { organizationId_userId: { organizationId, userId } } });
}

/** A stored custom role's permission: an object of resource → actions (anything else reads as none). */
const storedPermission = z.record(z.string(), z.array(z.string())).catch({});

/**
 * Every role of `organizationId` with its grants: the built-in ones and the organization's
 * custom roles, read once for an operation and handed to the rules of permissions.server.ts.
 */
export async function roleTableOf(
  organizationId: string,
  db: Prisma.TransactionClient | typeof prisma = prisma,
): Promise<RoleTable> {
  const rows = await db.organizationRole.findMany({ where: { organizationId }, orderBy: { role: "asc" } });
  return roleTableWith(rows.map((row) => ({ role: row.role, grants: storedGrants(row.permission) })));
}

/** The grants of a custom role's stored permission (JSON), within the permission table. */
export function storedGrants(text: string) {
  return knownGrants(storedPermission.parse(parseJson(text)));
}

function parseJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return null;
  }
}

/** A member with their organization's role table: what the rules of permissions.server.ts decide with. */
export type Caller = Prisma.MemberGetPayload<object> & { roleTable: RoleTable };

/** The member with their organization's role table. */
export async function callerOf(member: Prisma.MemberGetPayload<object>): Promise<Caller> {
  return { ...member, roleTable: await roleTableOf(member.organizationId) };
}

/**
 * The organization a call is about: the one named, else the session's active one. Throws
 * `missing` when there is none, and `notMember` (with its status) unless the caller belongs.
 */
export async function requireMembership(
  auth: AuthSession,
  organizationId: string | null | undefined,
  {
    missing = "ORGANIZATION_NOT_FOUND",
    notMember = "USER_IS_NOT_A_MEMBER_OF_THE_ORGANIZATION",
    status,
  }: {
    missing?: ErrorCode;
    notMember?: ErrorCode;
    status?: number;
  } = {},
) {
  const id = organizationId || auth.session.activeOrganizationId;
  if (!id) fail(missing);
  const member = await membershipOf(auth.user.id, id);
  if (!member) fail(notMember, undefined, status);
  return callerOf(member);
}

/** Throws `code` unless one of the member's roles grants `actions` on `resource`. */
export function requirePermission(holder: Holder, resource: Resource, actions: string[], code: ErrorCode): void {
  if (!can(holder, resource, actions)) fail(code);
}

/** Records an event of organization `organizationId` (it shows in that organization's audit log). */
export function auditOrganization(
  meta: RequestMeta,
  userId: string,
  organizationId: string,
  action: string,
  targetType: string,
  targetId: string,
  details: Record<string, unknown> = {},
) {
  return audit({
    userId,
    organizationId,
    category: "organization",
    action,
    status: "success",
    targetType,
    targetId,
    details,
    meta,
  });
}

// ---- organizations ----

/** Whether `userId` may create another organization (ORGANIZATION_CREATION, ORGANIZATION_LIMIT). */
async function assertMayCreate(userId: string, emailVerified: boolean): Promise<void> {
  const { ORGANIZATION_CREATION, ORGANIZATION_LIMIT } = loadEnv();
  if (ORGANIZATION_CREATION === "off" || (ORGANIZATION_CREATION === "verified" && !emailVerified)) {
    fail("YOU_ARE_NOT_ALLOWED_TO_CREATE_A_NEW_ORGANIZATION");
  }
  if (ORGANIZATION_LIMIT !== undefined && (await prisma.member.count({ where: { userId } })) >= ORGANIZATION_LIMIT) {
    fail("YOU_HAVE_REACHED_THE_MAXIMUM_NUMBER_OF_ORGANIZATIONS");
  }
}

/**
 * Creates an organization with its creator as owner; it becomes the session's active one
 * unless `keepCurrentActiveOrganization`. A server call may create it for `userId` instead.
 */
export async function createOrganization(
  caller: { auth: AuthSession } | { userId: string },
  input: z.infer<typeof createOrganizationInput>,
  meta: RequestMeta,
) {
  const user =
    "auth" in caller
      ? caller.auth.user
      : await prisma.user.findUnique({ where: { id: caller.userId }, select: { id: true, emailVerified: true } });
  if (!user) fail("USER_NOT_FOUND");
  if ("auth" in caller) await assertMayCreate(user.id, user.emailVerified);
  if (isReservedSlug(input.slug)) fail("ORGANIZATION_SLUG_ALREADY_TAKEN");
  if (await prisma.organization.findUnique({ where: { slug: input.slug }, select: { id: true } })) {
    fail("ORGANIZATION_ALREADY_EXISTS");
  }
  let created;
  try {
    created = await prisma.organization.create({
      data: {
        id: newId(),
        name: input.name,
        slug: input.slug,
        logo: input.logo ?? null,
        metadata: input.metadata ? JSON.stringify(input.metadata) : null,
        members: { create: { userId: user.id, role: "owner" } },
      },
      include: { members: true },
    });
  } catch (error) {
    if (isUniqueViolation(error)) fail("ORGANIZATION_ALREADY_EXISTS");
    throw error;
  }
  await auditOrganization(meta, user.id, created.id, "create-organization", "organization", created.id, {
    slug: created.slug,
  });
  const { members, ...organization } = created;
  const setCookies =
    "auth" in caller && !input.keepCurrentActiveOrganization
      ? (await updateActive(caller.auth, { activeOrganizationId: created.id, activeTeamId: null })).setCookies
      : [];
  return { organization: { ...organizationOut(organization), members }, setCookies };
}

/** Refuses a taken (or reserved) slug; this check words it "slug is taken", unlike create and update. */
export async function checkSlug(slug: string): Promise<void> {
  if (isReservedSlug(slug) || (await prisma.organization.findUnique({ where: { slug }, select: { id: true } }))) {
    fail("ORGANIZATION_SLUG_ALREADY_TAKEN", "slug is taken");
  }
}

export async function updateOrganization(
  auth: AuthSession,
  input: z.infer<typeof updateOrganizationInput>,
  meta: RequestMeta,
) {
  const member = await requireMembership(auth, input.organizationId, { status: 400 });
  requirePermission(member, "organization", ["update"], "YOU_ARE_NOT_ALLOWED_TO_UPDATE_THIS_ORGANIZATION");
  const { data } = input;
  if (data.slug) {
    if (isReservedSlug(data.slug)) fail("ORGANIZATION_SLUG_ALREADY_TAKEN");
    const holder = await prisma.organization.findUnique({ where: { slug: data.slug }, select: { id: true } });
    if (holder && holder.id !== member.organizationId) fail("ORGANIZATION_SLUG_ALREADY_TAKEN");
  }
  try {
    const updated = await prisma.organization.update({
      where: { id: member.organizationId },
      data: {
        name: data.name,
        slug: data.slug,
        logo: data.logo,
        metadata: data.metadata === undefined ? undefined : data.metadata ? JSON.stringify(data.metadata) : null,
      },
    });
    await auditOrganization(meta, auth.user.id, updated.id, "update-organization", "organization", updated.id, {
      fields: Object.keys(data),
    });
    return organizationOut(updated);
  } catch (error) {
    if (isUniqueViolation(error)) fail("ORGANIZATION_SLUG_ALREADY_TAKEN");
    throw error;
  }
}

/** Deletes an organization (owner only): members, invitations and teams go first, in one transaction. */
export async function deleteOrganization(auth: AuthSession, organizationId: string, meta: RequestMeta) {
  if (!loadEnv().ORGANIZATION_DELETION) throw new AppError("NOT_FOUND", "Organization deletion is disabled", 404);
  const member = await requireMembership(auth, organizationId, { status: 400 });
  requirePermission(member, "organization", ["delete"], "YOU_ARE_NOT_ALLOWED_TO_DELETE_THIS_ORGANIZATION");
  await prepareDeletion({ kind: "organization", id: organizationId, actorId: auth.user.id, meta });
  const organization = await prisma.$transaction(async (tx) => {
    const members = await tx.member.findMany({ where: { organizationId }, select: { userId: true } });
    for (const { userId } of members) await clearActiveOrganization(userId, organizationId, tx);
    await tx.invitation.deleteMany({ where: { organizationId } });
    await tx.member.deleteMany({ where: { organizationId } });
    return tx.organization.delete({ where: { id: organizationId } });
  });
  await auditOrganization(meta, auth.user.id, organizationId, "delete-organization", "organization", organizationId, {
    slug: organization.slug,
  });
  return organizationOut(organization);
}

/** The caller's organizations. */
export async function listOrganizations(userId: string) {
  const rows = await prisma.organization.findMany({
    where: { members: { some: { userId } } },
    orderBy: { createdAt: "asc" },
  });
  return rows.map(organizationOut);
}

/** Sets (or with null, unsets) the session's active organization; the caller must belong to it. */
export async function setActiveOrganization(
  auth: AuthSession,
  input: { organizationId?: string | null; organizationSlug?: string },
) {
  if (input.organizationId === null || (!input.organizationId && !input.organizationSlug)) {
    const { setCookies } = await updateActive(auth, { activeOrganizationId: null, activeTeamId: null });
    return { organization: null, setCookies };
  }
  const organization = await prisma.organization.findUnique({
    where: input.organizationId ? { id: input.organizationId } : { slug: input.organizationSlug! },
  });
  if (!organization) fail("ORGANIZATION_NOT_FOUND");
  if (!(await membershipOf(auth.user.id, organization.id))) fail("USER_IS_NOT_A_MEMBER_OF_THE_ORGANIZATION");
  const { setCookies } = await updateActive(auth, { activeOrganizationId: organization.id, activeTeamId: null });
  return { organization: organizationOut(organization), setCookies };
}

/** The organization with members, invitations (for who may invite) and teams; null without an active one. */
export async function getFullOrganization(
  auth: AuthSession,
  input: { organizationId?: string; organizationSlug?: string; membersLimit?: number },
) {
  const bySlug = input.organizationSlug
    ? await prisma.organization.findUnique({ where: { slug: input.organizationSlug }, select: { id: true } })
    : null;
  if (input.organizationSlug && !bySlug) fail("ORGANIZATION_NOT_FOUND");
  const id = bySlug?.id ?? input.organizationId ?? auth.session.activeOrganizationId;
  if (!id) return null;
  const organization = await prisma.organization.findUnique({
    where: { id },
    include: {
      members: {
        include: { user: memberUser },
        orderBy: { createdAt: "asc" },
        take: input.membersLimit ?? membershipLimit(),
      },
      teams: { orderBy: { createdAt: "asc" } },
    },
  });
  if (!organization) fail("ORGANIZATION_NOT_FOUND");
  const member = organization.members.find((m) => m.userId === auth.user.id) ?? (await membershipOf(auth.user.id, id));
  if (!member) fail("USER_IS_NOT_A_MEMBER_OF_THE_ORGANIZATION");
  const invitations = can(await callerOf(member), "invitation", ["create"])
    ? await prisma.invitation.findMany({ where: { organizationId: id }, orderBy: { createdAt: "desc" } })
    : [];
  const { members, teams, ...rest } = organization;
  return { ...organizationOut(rest), members, invitations, teams };
}

// ---- members ----

export const listMembersInput = z.object({
  organizationId: z.string().optional(),
  organizationSlug: z.string().optional(),
  // Read when a query is parsed, not when the module loads: the limit is configuration.
  limit: z.coerce
    .number()
    .int()
    .min(1)
    .refine((limit) => limit <= membershipLimit(), {
      error: () => `Too big: expected number to be <=${membershipLimit()}`,
    })
    .optional(),
  offset: z.coerce.number().int().min(0).optional(),
  sortBy: z.enum(["createdAt", "role", "userId", "id"]).optional(),
  sortDirection: z.enum(["asc", "desc"]).optional(),
  filterField: z.enum(["role", "userId", "createdAt", "id", "teamId"]).optional(),
  filterValue: z.union([z.string(), z.array(z.string())]).optional(),
  filterOperator: z
    .enum(["eq", "ne", "lt", "lte", "gt", "gte", "in", "not_in", "contains", "starts_with", "ends_with"])
    .optional(),
});

function memberFilter(input: z.infer<typeof listMembersInput>): Prisma.MemberWhereInput {
  if (!input.filterField || input.filterValue === undefined) return {};
  const field = input.filterField;
  const values = Array.isArray(input.filterValue) ? input.filterValue : [input.filterValue];
  const value = field === "createdAt" ? new Date(values[0]!) : values[0]!;
  const condition = {
    eq: { equals: value },
    ne: { not: value },
    lt: { lt: value },
    lte: { lte: value },
    gt: { gt: value },
    gte: { gte: value },
    in: { in: values },
    not_in: { notIn: values },
    contains: { contains: values[0] },
    starts_with: { startsWith: values[0] },
    ends_with: { endsWith: values[0] },
  }[input.filterOperator ?? "eq"];
  return { [field]: condition };
}

/** GET /list-members: a page of members with their users, and the total the filter matches. */
export async function listMembers(auth: AuthSession, input: z.infer<typeof listMembersInput>) {
  const bySlug = input.organizationSlug
    ? await prisma.organization.findUnique({ where: { slug: input.organizationSlug }, select: { id: true } })
    : null;
  const member = await requireMembership(auth, bySlug?.id ?? input.organizationId, {
    missing: "NO_ACTIVE_ORGANIZATION",
    notMember: "YOU_ARE_NOT_A_MEMBER_OF_THIS_ORGANIZATION",
  });
  const where = { organizationId: member.organizationId, ...memberFilter(input) };
  const [members, total] = await Promise.all([
    prisma.member.findMany({
      where,
      include: { user: memberUser },
      orderBy: { [input.sortBy ?? "createdAt"]: input.sortDirection ?? "asc" },
      take: input.limit ?? membershipLimit(),
      skip: input.offset ?? 0,
    }),
    prisma.member.count({ where }),
  ]);
  return { members, total };
}

/** The caller's membership in the active (or named) organization, with the user. */
export async function getActiveMember(auth: AuthSession, organizationId?: string) {
  const member = await requireMembership(auth, organizationId, { missing: "NO_ACTIVE_ORGANIZATION" });
  return prisma.member.findUniqueOrThrow({ where: { id: member.id }, include: { user: memberUser } });
}

/** `{role}` of the caller, or of another member of the same organization. */
export async function getActiveMemberRole(auth: AuthSession, input: { userId?: string; organizationId?: string }) {
  const member = await requireMembership(auth, input.organizationId, { missing: "NO_ACTIVE_ORGANIZATION" });
  if (!input.userId || input.userId === auth.user.id) return { role: member.role };
  const other = await membershipOf(input.userId, member.organizationId);
  if (!other) fail("MEMBER_NOT_FOUND");
  return { role: other.role };
}

/** Adds a user as a member (server only: no HTTP route), within the membership limit. */
export async function addMember(
  input: { userId: string; role: string | string[]; organizationId: string; teamId?: string },
  meta: RequestMeta,
) {
  const role = parseRoles(input.role, await roleTableOf(input.organizationId));
  if (!role) fail("ROLE_NOT_FOUND");
  if (await membershipOf(input.userId, input.organizationId)) fail("USER_IS_ALREADY_A_MEMBER_OF_THIS_ORGANIZATION");
  if ((await prisma.member.count({ where: { organizationId: input.organizationId } })) >= membershipLimit()) {
    fail("ORGANIZATION_MEMBERSHIP_LIMIT_REACHED");
  }
  const member = await prisma.member.create({
    data: { organizationId: input.organizationId, userId: input.userId, role, teamId: input.teamId ?? null },
  });
  if (input.teamId) await prisma.teamMember.create({ data: { teamId: input.teamId, userId: input.userId } });
  await auditOrganization(meta, input.userId, input.organizationId, "add-member", "member", member.id, {
    organizationId: input.organizationId,
    role,
  });
  return member;
}

/**
 * How many owners `organizationId` has. The database narrows the members to the roles that
 * mention "owner" (a few, however many members there are); isOwner then tells "owner" from
 * a custom role such as "co-owner".
 */
export async function ownerCount(organizationId: string, tx: Prisma.TransactionClient | typeof prisma = prisma) {
  const members = await tx.member.findMany({
    where: { organizationId, role: { contains: "owner" } },
    select: { role: true },
  });
  return members.filter((m) => isOwner(m.role)).length;
}

/**
 * The organization's owners counted in transaction `tx` with their rows locked until it ends
 * (PostgreSQL's FOR UPDATE; SQLite runs one write transaction at a time). Two owners demoting,
 * removing or leaving at once cannot both count two: the second counts after the first's
 * change, and the last-owner rule refuses it.
 */
async function lockedOwnerCount(organizationId: string, tx: Prisma.TransactionClient): Promise<number> {
  if (databaseProvider() !== "postgresql") return ownerCount(organizationId, tx);
  const rows = await tx.$queryRaw<{ role: string }[]>`
    SELECT "role" FROM "member" WHERE "organizationId" = ${organizationId} AND "role" LIKE '%owner%' FOR UPDATE`;
  return rows.filter((row) => isOwner(row.role)).length;
}

/** Changes a member's role, under the member-over-member and last-owner rules (permissions.server.ts). */
export async function updateMemberRole(
  auth: AuthSession,
  input: { memberId: string; role: string | string[]; organizationId?: string },
  meta: RequestMeta,
) {
  const caller = await requireMembership(auth, input.organizationId, { missing: "NO_ACTIVE_ORGANIZATION" });
  const role = parseRoles(input.role, caller.roleTable);
  if (!role) throw new AppError("ROLE_NOT_FOUND", `ROLE_NOT_FOUND: ${String(input.role)}`);
  // Before the lookup too: without the permission, any member named is refused alike.
  requirePermission(caller, "member", ["update"], "YOU_ARE_NOT_ALLOWED_TO_UPDATE_THIS_MEMBER");
  const target = await prisma.member.findFirst({
    where: { id: input.memberId, organizationId: caller.organizationId },
  });
  if (!target) fail("MEMBER_NOT_FOUND");
  if (!mayActOnMember(caller, "update", target.role) || !mayAssign(caller, role)) {
    fail("YOU_ARE_NOT_ALLOWED_TO_UPDATE_THIS_MEMBER");
  }
  const updated = await prisma.$transaction(async (tx) => {
    if (await takesLastOwner(target.role, role, () => lockedOwnerCount(caller.organizationId, tx))) {
      fail("YOU_CANNOT_LEAVE_THE_ORGANIZATION_WITHOUT_AN_OWNER");
    }
    return tx.member.update({ where: { id: target.id }, data: { role } });
  });
  await auditOrganization(meta, auth.user.id, caller.organizationId, "update-member-role", "member", target.id, {
    organizationId: caller.organizationId,
    from: target.role,
    to: role,
  });
  return updated;
}

/** Removes a member by id or email, under the member-over-member and last-owner rules (permissions.server.ts). */
export async function removeMember(
  auth: AuthSession,
  input: { memberIdOrEmail: string; organizationId?: string },
  meta: RequestMeta,
) {
  const caller = await requireMembership(auth, input.organizationId, { missing: "NO_ACTIVE_ORGANIZATION" });
  const target = input.memberIdOrEmail.includes("@")
    ? await prisma.member.findFirst({
        where: { organizationId: caller.organizationId, user: { email: input.memberIdOrEmail.toLowerCase() } },
      })
    : await prisma.member.findFirst({ where: { id: input.memberIdOrEmail, organizationId: caller.organizationId } });
  if (!target) fail("MEMBER_NOT_FOUND");
  const self = target.userId === auth.user.id;
  if (!mayActOnMember(caller, "delete", target.role, self)) fail("YOU_ARE_NOT_ALLOWED_TO_DELETE_THIS_MEMBER");
  await dropMembership(target);
  await auditOrganization(meta, auth.user.id, caller.organizationId, "remove-member", "member", target.id, {
    organizationId: caller.organizationId,
    userId: target.userId,
  });
  return { member: target };
}

/**
 * The member row, their team memberships in the organization, and their sessions' active
 * choice; refused when they are its only owner.
 */
async function dropMembership(member: { id: string; userId: string; organizationId: string; role: string }) {
  await prisma.$transaction(async (tx) => {
    if (await takesLastOwner(member.role, null, () => lockedOwnerCount(member.organizationId, tx))) {
      fail("YOU_CANNOT_LEAVE_THE_ORGANIZATION_AS_THE_ONLY_OWNER");
    }
    await tx.teamMember.deleteMany({
      where: { userId: member.userId, team: { organizationId: member.organizationId } },
    });
    await tx.member.delete({ where: { id: member.id } });
    await clearActiveOrganization(member.userId, member.organizationId, tx);
  });
}

/** Leaves an organization; the only owner cannot. */
export async function leaveOrganization(auth: AuthSession, organizationId: string, meta: RequestMeta) {
  const member = await membershipOf(auth.user.id, organizationId);
  if (!member) fail("MEMBER_NOT_FOUND");
  await dropMembership(member);
  await auditOrganization(meta, auth.user.id, organizationId, "leave-organization", "member", member.id, {
    organizationId,
  });
  return member;
}
