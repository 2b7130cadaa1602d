/**
 * Who may administer users, in one place (docs/decisions/0013): who is an admin, and the
 * admin permission table. The table is better-auth's admin plugin's (role admin: every
 * permission; role user: none), so its clients see the same answers. Every admin verb checks
 * it itself, first, with the refusal code the API answers for that endpoint; the console's
 * pages also send non-admins to /403 before any verb runs.
 */
import type { AuthSession, SessionUser } from "~/server/auth/session.server";
import { loadEnv } from "~/server/env.server";
import { fail, type ErrorCode } from "~/server/errors.server";

export const ADMIN_ROLES = ["user", "admin"] as const;
type AdminRole = (typeof ADMIN_ROLES)[number];

export const ADMIN_PERMISSIONS = {
  user: ["create", "list", "set-role", "ban", "impersonate", "delete", "set-password", "get", "update"],
  session: ["list", "revoke", "delete"],
} as const;
type AdminResource = keyof typeof ADMIN_PERMISSIONS;
export type AdminPermissions = { [R in AdminResource]?: readonly (typeof ADMIN_PERMISSIONS)[R][number][] };

/** What each role may do: an admin everything, a user nothing. */
const GRANTS: Record<AdminRole, AdminPermissions> = { admin: ADMIN_PERMISSIONS, user: {} };

/** Role admin (among a user's comma-separated roles), or a user id in ADMIN_USER_IDS. */
export function isAdmin(user: Pick<SessionUser, "id" | "role"> | null): boolean {
  if (!user) return false;
  const roles = (user.role ?? "").split(",").map((role) => role.trim());
  return roles.includes("admin") || loadEnv().ADMIN_USER_IDS.includes(user.id);
}

/**
 * Whether `user` holds every permission asked for. Resources and actions outside the table
 * (better-auth's admin plugin has some this product does not) are held by nobody.
 */
export function adminCan(user: Pick<SessionUser, "id" | "role">, asked: Record<string, readonly string[]>): boolean {
  const granted: Record<string, readonly string[]> = GRANTS[isAdmin(user) ? "admin" : "user"];
  return Object.entries(asked).every(([resource, actions]) =>
    actions.every((action) => granted[resource]?.includes(action) ?? false),
  );
}

/** Throws `code` (403) unless the caller holds the permissions asked for. */
export function requireAdminPermission(auth: AuthSession, asked: AdminPermissions, code: ErrorCode): void {
  if (!adminCan(auth.user, asked)) fail(code);
}

/**
 * Throws `code` (403) unless the caller is an admin: for the console's own operations, which
 * the table does not name (maintenance).
 */
export function requireAdmin(auth: AuthSession, code: ErrorCode): void {
  if (!isAdmin(auth.user)) fail(code);
}
