/**
 * The admin console's verbs on users and their sessions (the requests and answers of
 * better-auth's admin plugin): the JSON API and the console's pages call these, so both
 * refuse the same things. Each verb first checks the caller's permission
 * (permissions.server.ts), with the code the API answers for it. Every change is audited
 * with category "admin", naming the admin and the target; every change that must reach a
 * user's open sessions (a ban, a role change, revocations) goes through `deleteSessions` or
 * `announceRevocation`, so it takes effect on the next request on every instance, cookie
 * cache or not.
 */
import { z } from "zod";
import { RESET_REASON_MAX } from "~/lib/form-limits";
import { audit } from "~/server/audit.server";
import { emailSchema, normalizeEmail } from "~/server/auth/schemas.server";
import { hashPassword, PASSWORD_MAX, PASSWORD_MIN } from "~/server/auth/password.server";
import { deleteAccountRows } from "~/server/auth/account-management.server";
import { writePassword } from "~/server/auth/accounts.server";
import { announceRevocation } from "~/server/auth/revocation.server";
import { endAccessOutsideSso } from "~/server/auth/sign-in.server";
import { removeTwoFactor } from "~/server/auth/accounts.server";
import {
  authUserSelect,
  cookieName,
  createSession,
  deleteSessions,
  endImpersonationsBy,
  expiredCookie,
  hashToken,
  readSignedCookie,
  sessionCookies,
  sessionTokenFrom,
  signedCookie,
  dontRememberCookieName,
  type AuthSession,
  type AuthUser,
  type RequestMeta,
} from "~/server/auth/session.server";
import { prepareDeletion } from "~/server/deletion.server";
import { databaseProvider, isUniqueViolation, prisma, type Prisma } from "~/server/db.server";
import { AppError, fail } from "~/server/errors.server";
import { adminCan, ADMIN_ROLES, isAdmin, requireAdminPermission } from "./permissions.server";

const IMPERSONATION_EXPIRES_IN = 60 * 60;
const DEFAULT_BAN_REASON = "No reason";

function auditAdmin(
  admin: AuthSession,
  action: string,
  targetId: string,
  meta: RequestMeta,
  details?: Record<string, unknown>,
) {
  return audit({
    userId: admin.user.id,
    category: "admin",
    action,
    status: "success",
    targetType: "user",
    targetId,
    details: { admin: admin.user.email, ...details },
    meta,
  });
}

async function targetUser(userId: string): Promise<AuthUser> {
  const user = await prisma.user.findUnique({ where: { id: userId }, select: authUserSelect });
  if (!user) fail("USER_NOT_FOUND");
  return user;
}

// ---- input ----

const roleInput = z
  .union([z.string(), z.array(z.string())])
  .transform((value) => [...new Set((Array.isArray(value) ? value : value.split(",")).map((r) => r.trim()))])
  .refine((roles) => roles.length > 0 && roles.every((role) => (ADMIN_ROLES as readonly string[]).includes(role)), {
    message: "YOU_ARE_NOT_ALLOWED_TO_SET_NON_EXISTENT_VALUE",
  })
  .transform((roles) => roles.join(","));

export const userIdInput = z.object({ userId: z.string().min(1) });

export const createUserInput = z.object({
  email: emailSchema,
  // Only the maximum is checked here, as better-auth's create-user does: an admin may set a
  // short one-time password.
  password: z.string().max(PASSWORD_MAX, { message: "PASSWORD_TOO_LONG" }).optional(),
  name: z.string().min(1).max(256),
  role: roleInput.optional(),
  data: z.record(z.string(), z.unknown()).optional(),
});

export const setRoleInput = z.object({ userId: z.string().min(1), role: roleInput });

export const banUserInput = z.object({
  userId: z.string().min(1),
  banReason: z.string().max(1000).optional(),
  banExpiresIn: z
    .number()
    .int()
    .positive()
    .max(100 * 365 * 86_400)
    .optional(),
});

export const setUserPasswordInput = z.object({
  userId: z.string().min(1, { message: "VALIDATION_ERROR" }),
  // Empty is a VALIDATION_ERROR (as better-auth answers it), before any length rule is looked at.
  newPassword: z
    .string()
    .min(1, { message: "VALIDATION_ERROR" })
    .pipe(
      z
        .string()
        .min(PASSWORD_MIN, { message: "PASSWORD_TOO_SHORT" })
        .max(PASSWORD_MAX, { message: "PASSWORD_TOO_LONG" }),
    ),
});

const resetTwoFactorInput = z.object({
  userId: z.string().min(1),
  reason: z.string().trim().min(1).max(RESET_REASON_MAX),
});

export const updateUserInput = z.object({ userId: z.string().min(1), data: z.record(z.string(), z.unknown()) });

/** The fields update-user and create-user's `data` may set; anything else is ignored. */
const userData = z
  .object({
    name: z.string().min(1).max(256),
    image: z.string().max(2048).nullable(),
    email: emailSchema,
    emailVerified: z.boolean(),
    role: roleInput,
  })
  .partial();

// ---- create, read, update ----

export async function createUser(admin: AuthSession, input: z.infer<typeof createUserInput>, meta: RequestMeta) {
  requireAdminPermission(admin, { user: ["create"] }, "YOU_ARE_NOT_ALLOWED_TO_CREATE_USERS");
  const extra = userData.parse(input.data ?? {});
  const email = normalizeEmail(input.email);
  const passwordHash = input.password ? await hashPassword(input.password) : null;
  let user: AuthUser;
  try {
    user = await prisma.$transaction(async (tx) => {
      const created = await tx.user.create({
        data: {
          email,
          name: input.name,
          role: input.role ?? extra.role ?? "user",
          emailVerified: extra.emailVerified ?? false,
          image: extra.image ?? null,
        },
        select: authUserSelect,
      });
      if (passwordHash) await writePassword(tx, created.id, passwordHash);
      return created;
    });
  } catch (error) {
    if (isUniqueViolation(error)) throw new AppError("USER_ALREADY_EXISTS_USE_ANOTHER_EMAIL", undefined, 400);
    throw error;
  }
  await auditAdmin(admin, "create-user", user.id, meta, { email, role: user.role });
  return { user };
}

export async function getUser(admin: AuthSession, userId: string) {
  requireAdminPermission(admin, { user: ["get"] }, "YOU_ARE_NOT_ALLOWED_TO_GET_USER");
  return targetUser(userId);
}

export async function updateUser(admin: AuthSession, input: z.infer<typeof updateUserInput>, meta: RequestMeta) {
  requireAdminPermission(admin, { user: ["update"] }, "YOU_ARE_NOT_ALLOWED_TO_UPDATE_USERS");
  const parsed = userData.safeParse(input.data);
  if (!parsed.success) fail("VALIDATION_ERROR", parsed.error.issues.map((issue) => issue.message).join("; "));
  const data = parsed.data;
  if (Object.keys(data).length === 0) fail("NO_DATA_TO_UPDATE");
  if (data.role !== undefined) {
    requireAdminPermission(admin, { user: ["set-role"] }, "YOU_ARE_NOT_ALLOWED_TO_CHANGE_USERS_ROLE");
  }
  await targetUser(input.userId);
  let user: AuthUser;
  try {
    user = await prisma.$transaction(async (tx) => {
      const updated = await tx.user.update({
        where: { id: input.userId },
        data: { ...data, ...(data.email ? { email: normalizeEmail(data.email) } : {}) },
        select: authUserSelect,
      });
      await announceRevocation(tx, input.userId); // cached copies of the old user must go
      if (data.email) await endAccessOutsideSso(tx, input.userId);
      return updated;
    });
  } catch (error) {
    if (isUniqueViolation(error)) throw new AppError("USER_ALREADY_EXISTS_USE_ANOTHER_EMAIL", undefined, 400);
    throw error;
  }
  await auditAdmin(admin, "update-user", user.id, meta, { fields: Object.keys(data) });
  return user;
}

export async function setRole(admin: AuthSession, input: z.infer<typeof setRoleInput>, meta: RequestMeta) {
  requireAdminPermission(admin, { user: ["set-role"] }, "YOU_ARE_NOT_ALLOWED_TO_CHANGE_USERS_ROLE");
  const before = await targetUser(input.userId);
  const user = await prisma.$transaction(async (tx) => {
    const updated = await tx.user.update({
      where: { id: input.userId },
      data: { role: input.role },
      select: authUserSelect,
    });
    await announceRevocation(tx, input.userId); // the new role holds from the user's next request
    await endImpersonationsBy(input.userId, tx); // what they opened as admin goes with the role
    return updated;
  });
  await auditAdmin(admin, "set-role", user.id, meta, { from: before.role, to: user.role });
  return { user };
}

// ---- bans ----

export async function banUser(admin: AuthSession, input: z.infer<typeof banUserInput>, meta: RequestMeta) {
  requireAdminPermission(admin, { user: ["ban"] }, "YOU_ARE_NOT_ALLOWED_TO_BAN_USERS");
  if (input.userId === admin.user.id) fail("YOU_CANNOT_BAN_YOURSELF");
  await targetUser(input.userId);
  const banExpires = input.banExpiresIn ? new Date(Date.now() + input.banExpiresIn * 1000) : null;
  const banReason = input.banReason || DEFAULT_BAN_REASON;
  const user = await prisma.$transaction(async (tx) => {
    const updated = await tx.user.update({
      where: { id: input.userId },
      data: { banned: true, banReason, banExpires },
      select: authUserSelect,
    });
    await deleteSessions(input.userId, {}, tx); // every open session ends now, on every instance
    await endImpersonationsBy(input.userId, tx); // and those they opened as other users
    await tx.pendingSignIn.deleteMany({ where: { userId: input.userId } }); // and every sign-in waiting for its second step
    return updated;
  });
  await auditAdmin(admin, "ban-user", user.id, meta, { reason: banReason, expires: banExpires });
  return { user };
}

export async function unbanUser(admin: AuthSession, userId: string, meta: RequestMeta) {
  requireAdminPermission(admin, { user: ["ban"] }, "YOU_ARE_NOT_ALLOWED_TO_BAN_USERS");
  await targetUser(userId);
  const user = await prisma.user.update({
    where: { id: userId },
    data: { banned: false, banReason: null, banExpires: null },
    select: authUserSelect,
  });
  await auditAdmin(admin, "unban-user", user.id, meta);
  return { user };
}

// ---- second factors ----

/**
 * Switches a user's two-factor off, for someone who lost both their authenticator and their
 * backup codes: they sign in with their first factor alone until they set it up again. Only
 * the reason in the audit row tells why, so one is required. The same permission as updating
 * a user.
 */
export async function resetTwoFactor(
  admin: AuthSession,
  input: z.infer<typeof resetTwoFactorInput>,
  meta: RequestMeta,
) {
  requireAdminPermission(admin, { user: ["update"] }, "YOU_ARE_NOT_ALLOWED_TO_UPDATE_USERS");
  const parsed = resetTwoFactorInput.safeParse(input);
  if (!parsed.success) fail("VALIDATION_ERROR");
  const user = await targetUser(parsed.data.userId);
  if (!user.twoFactorEnabled) fail("TWO_FACTOR_NOT_ENABLED");
  await removeTwoFactor(user.id);
  await auditAdmin(admin, "reset-two-factor", user.id, meta, { reason: parsed.data.reason });
  return { success: true };
}

// ---- sessions ----

export async function listUserSessions(admin: AuthSession, userId: string) {
  requireAdminPermission(admin, { session: ["list"] }, "YOU_ARE_NOT_ALLOWED_TO_LIST_USERS_SESSIONS");
  return {
    sessions: await prisma.session.findMany({
      where: { userId, expiresAt: { gt: new Date() } },
      orderBy: { createdAt: "desc" },
    }),
  };
}

/** `sessionToken` is the session's `token` as the API shows it (its stored hash). */
export async function revokeUserSession(admin: AuthSession, sessionToken: string, meta: RequestMeta) {
  requireAdminPermission(admin, { session: ["revoke"] }, "YOU_ARE_NOT_ALLOWED_TO_REVOKE_USERS_SESSIONS");
  const session = await prisma.session.findUnique({
    where: { token: sessionToken },
    select: { id: true, userId: true },
  });
  if (session) {
    await deleteSessions(session.userId, { id: session.id });
    await auditAdmin(admin, "revoke-user-session", session.userId, meta, { sessionId: session.id });
  }
  return { success: true };
}

export async function revokeUserSessions(admin: AuthSession, userId: string, meta: RequestMeta) {
  requireAdminPermission(admin, { session: ["revoke"] }, "YOU_ARE_NOT_ALLOWED_TO_REVOKE_USERS_SESSIONS");
  await targetUser(userId);
  const count = await deleteSessions(userId);
  await auditAdmin(admin, "revoke-user-sessions", userId, meta, { count });
  return { success: true };
}

// ---- passwords and removal ----

export async function setUserPassword(
  admin: AuthSession,
  input: z.infer<typeof setUserPasswordInput>,
  meta: RequestMeta,
) {
  requireAdminPermission(admin, { user: ["set-password"] }, "YOU_ARE_NOT_ALLOWED_TO_SET_USERS_PASSWORD");
  await targetUser(input.userId);
  const hash = await hashPassword(input.newPassword);
  await prisma.$transaction((tx) => writePassword(tx, input.userId, hash));
  await auditAdmin(admin, "set-user-password", input.userId, meta);
  return { status: true };
}

export async function removeUser(admin: AuthSession, userId: string, meta: RequestMeta) {
  requireAdminPermission(admin, { user: ["delete"] }, "YOU_ARE_NOT_ALLOWED_TO_DELETE_USERS");
  if (userId === admin.user.id) fail("YOU_CANNOT_REMOVE_YOURSELF");
  const user = await targetUser(userId);
  await prepareDeletion({ kind: "user", id: userId, actorId: admin.user.id, meta });
  await auditAdmin(admin, "remove-user", userId, meta, { email: user.email });
  await prisma.$transaction((tx) => deleteAccountRows(userId, tx));
  return { success: true };
}

// ---- impersonation ----

const adminSessionCookieName = () => cookieName("admin_session");

/**
 * Signs the admin in as `userId` for an hour (a session marked `impersonatedBy`, kept for the
 * browser session only); the admin's own session waits in the signed `admin_session` cookie.
 * Admins cannot be impersonated.
 */
export async function impersonateUser(admin: AuthSession, userId: string, request: Request, meta: RequestMeta) {
  requireAdminPermission(admin, { user: ["impersonate"] }, "YOU_ARE_NOT_ALLOWED_TO_IMPERSONATE_USERS");
  const target = await targetUser(userId);
  if (isAdmin(target)) fail("YOU_CANNOT_IMPERSONATE_ADMINS");
  const adminToken = sessionTokenFrom(request);
  if (!adminToken) fail("UNAUTHORIZED");
  const dontRemember = readSignedCookie(request, dontRememberCookieName()) === "true";
  const { session, user, setCookies } = await createSession(target.id, meta, {
    rememberMe: false,
    impersonatedBy: admin.user.id,
    expiresIn: IMPERSONATION_EXPIRES_IN,
  });
  await auditAdmin(admin, "impersonate-user", target.id, meta, { email: target.email });
  return {
    session,
    user,
    setCookies: [...setCookies, signedCookie(adminSessionCookieName(), `${adminToken}:${dontRemember}`, undefined)],
  };
}

/**
 * Ends the impersonation session and puts the admin's own back. The caller is the
 * impersonated user's session, so it checks no permission: only a session an admin started
 * has an admin to go back to.
 */
export async function stopImpersonating(auth: AuthSession, request: Request, meta: RequestMeta) {
  const notImpersonating = () => {
    throw Response.json({ message: "You are not impersonating anyone" }, { status: 400 });
  };
  const adminId = auth.session.impersonatedBy;
  if (!adminId) notImpersonating();
  const saved = readSignedCookie(request, adminSessionCookieName());
  const adminToken = saved?.slice(0, saved.lastIndexOf(":"));
  const row = adminToken
    ? await prisma.session.findUnique({
        where: { token: hashToken(adminToken) },
        include: { user: { select: authUserSelect } },
      })
    : null;
  await deleteSessions(auth.user.id, { id: auth.session.id });
  if (!row || row.userId !== adminId || row.expiresAt.getTime() <= Date.now()) {
    // The admin's own session ended meanwhile: signed out of both.
    fail("SESSION_EXPIRED");
  }
  const { user, ...session } = row;
  await auditAdmin({ session, user }, "stop-impersonating", auth.user.id, meta);
  return {
    session,
    user,
    setCookies: [...sessionCookies(adminToken!, { session, user }), expiredCookie(adminSessionCookieName())],
  };
}

// ---- listing ----

const SORTABLE = ["createdAt", "updatedAt", "name", "email", "role", "banned", "emailVerified"] as const;
const FILTERABLE = ["id", "email", "name", "role", "banned", "emailVerified", "createdAt"] as const;
const OPERATORS = [
  "eq",
  "ne",
  "lt",
  "lte",
  "gt",
  "gte",
  "in",
  "not_in",
  "contains",
  "starts_with",
  "ends_with",
] as const;

const scalar = z.union([z.string(), z.number(), z.boolean()]);

export const listUsersQuery = z.object({
  searchValue: z.string().max(256).optional(),
  searchField: z.enum(["email", "name"]).default("email"),
  searchOperator: z.enum(["contains", "starts_with", "ends_with"]).default("contains"),
  limit: z.coerce.number().int().min(0).max(1000).optional(),
  offset: z.coerce.number().int().min(0).optional(),
  sortBy: z.enum(SORTABLE).optional(),
  sortDirection: z.enum(["asc", "desc"]).default("asc"),
  filterField: z.enum(FILTERABLE).default("email"),
  filterValue: z.union([scalar, z.array(scalar)]).optional(),
  filterOperator: z.enum(OPERATORS).default("eq"),
});
export type ListUsersQuery = z.infer<typeof listUsersQuery>;

/** A filter value in the field's own type ("true" → true for booleans, a date for createdAt). */
function typed(field: (typeof FILTERABLE)[number], value: string | number | boolean) {
  if (field === "banned" || field === "emailVerified") return value === true || value === "true";
  if (field === "createdAt") return new Date(typeof value === "boolean" ? NaN : value);
  return String(value);
}

function filterWhere(query: ListUsersQuery): Prisma.UserWhereInput {
  if (query.filterValue === undefined) return {};
  const field = query.filterField;
  const values = (Array.isArray(query.filterValue) ? query.filterValue : [query.filterValue]).map((v) =>
    typed(field, v),
  );
  const one = values[0];
  const condition: Record<string, unknown> = {
    eq: { equals: one },
    ne: { not: one },
    lt: { lt: one },
    lte: { lte: one },
    gt: { gt: one },
    gte: { gte: one },
    in: { in: values },
    not_in: { notIn: values },
    contains: { contains: String(one) },
    starts_with: { startsWith: String(one) },
    ends_with: { endsWith: String(one) },
  }[query.filterOperator];
  return { [field]: condition };
}

/**
 * Up to this many matches, a search on SQLite reads its page by id (see listUsers). Each id is
 * a bound parameter, and Prisma's cost per parameter adds up: about 3 ms for 100 ids.
 */
const FEW_MATCHES = 100;

/** The API's list; the console's table adds its own filters (`extra`) to the query's. */
export async function listUsers(admin: AuthSession, query: ListUsersQuery, extra: Prisma.UserWhereInput = {}) {
  requireAdminPermission(admin, { user: ["list"] }, "YOU_ARE_NOT_ALLOWED_TO_LIST_USERS");
  const search = query.searchValue
    ? {
        [query.searchField]: {
          [{ contains: "contains", starts_with: "startsWith", ends_with: "endsWith" }[query.searchOperator]]:
            query.searchField === "email" ? query.searchValue.toLowerCase() : query.searchValue,
        },
      }
    : {};
  const conditions = [search, filterWhere(query), extra];
  const where: Prisma.UserWhereInput = { AND: conditions };
  const page = (matching: Prisma.UserWhereInput) =>
    prisma.user.findMany({
      where: matching,
      select: authUserSelect,
      // A stable order: ties broken by id, so pages never repeat or skip a user.
      orderBy: query.sortBy
        ? [{ [query.sortBy]: query.sortDirection }, { id: "asc" }]
        : [{ createdAt: "asc" }, { id: "asc" }],
      take: query.limit || undefined,
      skip: query.offset || undefined,
    });
  const listed = (users: AuthUser[], total: number) => ({
    users,
    total,
    ...(query.limit ? { limit: query.limit } : {}),
    ...(query.offset ? { offset: query.offset } : {}),
  });
  if (query.searchValue && databaseProvider() === "sqlite") {
    // No index can answer a search, and SQLite, which keeps no statistics of a column's
    // values, then walks the sort order's index for the page, reading every user's row to
    // test it: 45 ms over 100,000 users for a rare match. (PostgreSQL's planner sees the
    // match is rare and scans the table once.) So the matches are looked up first, ordered by
    // the searched column so that SQLite reads only its narrow (column, id) index (10 ms).
    // When they are few, the page is sorted from them alone and they are the total.
    const matches = await prisma.user.findMany({
      where,
      select: { id: true },
      orderBy: { [query.searchField]: "asc" },
      take: FEW_MATCHES + 1,
    });
    if (matches.length <= FEW_MATCHES) {
      return listed(await page({ id: { in: matches.map((match) => match.id) } }), matches.length);
    }
  }
  const everyone = conditions.every((condition) => Object.keys(condition).length === 0);
  const [users, total] = await Promise.all([page(where), everyone ? countEveryone() : prisma.user.count({ where })]);
  return listed(users, total);
}

/**
 * How many users there are. Prisma counts through a subquery (for count's own skip and take),
 * which SQLite cannot answer from the table's b-tree alone: 6 ms over 100,000 users, against
 * 0.01 ms for a plain COUNT(*).
 */
async function countEveryone() {
  const [{ n }] = await prisma.$queryRaw<[{ n: number | bigint }]>`SELECT COUNT(*) AS n FROM "user"`;
  return Number(n); // a bigint on PostgreSQL
}

// ---- permissions ----

export const hasPermissionInput = z.object({
  userId: z.string().optional(),
  role: z.string().optional(),
  permission: z.record(z.string(), z.array(z.string())).optional(),
  permissions: z.record(z.string(), z.array(z.string())).optional(),
});

/**
 * Whether the caller (or `role`, or `userId`'s role) holds every permission asked for. Any
 * signed-in user may ask, as with better-auth: it reads the table and changes nothing.
 */
export async function hasPermission(auth: AuthSession, input: z.infer<typeof hasPermissionInput>) {
  const asked = input.permissions ?? input.permission;
  if (!asked) fail("VALIDATION_ERROR", "invalid permission check. no permission(s) were passed.");
  const subject = input.role ? { id: "", role: input.role } : input.userId ? await targetUser(input.userId) : auth.user;
  return { error: null, success: adminCan(subject, asked) };
}
