/**
 * Admin endpoints of /api/auth/admin (better-auth's admin plugin). Without a session: 401
 * with an empty body; signed in but not an admin: 403 with the endpoint's own code, which
 * the verb itself answers. The verbs are in app/server/admin/users.server.ts.
 */
import { z } from "zod";
import {
  banUser,
  banUserInput,
  createUser,
  createUserInput,
  getUser,
  hasPermission,
  hasPermissionInput,
  impersonateUser,
  listUsers,
  listUsersQuery,
  listUserSessions,
  removeUser,
  revokeUserSession,
  revokeUserSessions,
  setRole,
  setRoleInput,
  setUserPassword,
  setUserPasswordInput,
  stopImpersonating,
  unbanUser,
  updateUser,
  updateUserInput,
  userIdInput,
} from "./users.server";
import { endpoint, param } from "~/server/endpoint.server";

const P = "/admin";

/** Query values arrive as strings (or arrays of them); list-users reads them in their own types. */
const listQuery = z.preprocess(
  (raw) =>
    Object.fromEntries(
      Object.entries(raw as Record<string, unknown>).map(([key, value]) => [
        key,
        key === "filterValue" || !Array.isArray(value) ? value : value[0],
      ]),
    ),
  listUsersQuery,
);

export const endpoints = [
  endpoint({
    method: "POST",
    path: `${P}/create-user`,
    session: "required",
    emptyUnauthorized: true,
    body: createUserInput,
    async handler(ctx) {
      return createUser(ctx.auth, ctx.body, ctx.meta);
    },
  }),

  endpoint({
    method: "GET",
    path: `${P}/list-users`,
    session: "required",
    emptyUnauthorized: true,
    query: listQuery,
    async handler(ctx) {
      return listUsers(ctx.auth, ctx.query);
    },
  }),

  endpoint({
    method: "GET",
    path: `${P}/get-user`,
    session: "required",
    emptyUnauthorized: true,
    query: z.object({ id: param(z.string().min(1)) }),
    async handler(ctx) {
      return getUser(ctx.auth, ctx.query.id);
    },
  }),

  endpoint({
    method: "POST",
    path: `${P}/update-user`,
    session: "required",
    emptyUnauthorized: true,
    body: updateUserInput,
    async handler(ctx) {
      return updateUser(ctx.auth, ctx.body, ctx.meta);
    },
  }),

  endpoint({
    method: "POST",
    path: `${P}/set-role`,
    session: "required",
    emptyUnauthorized: true,
    body: setRoleInput,
    async handler(ctx) {
      return setRole(ctx.auth, ctx.body, ctx.meta);
    },
  }),

  endpoint({
    method: "POST",
    path: `${P}/ban-user`,
    session: "required",
    emptyUnauthorized: true,
    body: banUserInput,
    async handler(ctx) {
      return banUser(ctx.auth, ctx.body, ctx.meta);
    },
  }),

  endpoint({
    method: "POST",
    path: `${P}/unban-user`,
    session: "required",
    emptyUnauthorized: true,
    body: userIdInput,
    async handler(ctx) {
      return unbanUser(ctx.auth, ctx.body.userId, ctx.meta);
    },
  }),

  endpoint({
    method: "POST",
    path: `${P}/impersonate-user`,
    session: "required",
    emptyUnauthorized: true,
    body: userIdInput,
    async handler(ctx) {
      const { session, user, setCookies } = await impersonateUser(ctx.auth, ctx.body.userId, ctx.request, ctx.meta);
      ctx.cookies.push(...setCookies);
      return { session, user };
    },
  }),

  endpoint({
    method: "POST",
    path: `${P}/stop-impersonating`,
    session: "required",
    emptyUnauthorized: true,
    async handler(ctx) {
      const { session, user, setCookies } = await stopImpersonating(ctx.auth, ctx.request, ctx.meta);
      ctx.cookies.length = 0; // the impersonation session's refresh cookies must not follow
      ctx.cookies.push(...setCookies);
      return { session, user };
    },
  }),

  endpoint({
    method: "POST",
    path: `${P}/list-user-sessions`,
    session: "required",
    emptyUnauthorized: true,
    body: userIdInput,
    async handler(ctx) {
      return listUserSessions(ctx.auth, ctx.body.userId);
    },
  }),

  endpoint({
    method: "POST",
    path: `${P}/revoke-user-session`,
    session: "required",
    emptyUnauthorized: true,
    body: z.object({ sessionToken: z.string().min(1) }),
    async handler(ctx) {
      return revokeUserSession(ctx.auth, ctx.body.sessionToken, ctx.meta);
    },
  }),

  endpoint({
    method: "POST",
    path: `${P}/revoke-user-sessions`,
    session: "required",
    emptyUnauthorized: true,
    body: userIdInput,
    async handler(ctx) {
      return revokeUserSessions(ctx.auth, ctx.body.userId, ctx.meta);
    },
  }),

  endpoint({
    method: "POST",
    path: `${P}/set-user-password`,
    session: "required",
    emptyUnauthorized: true,
    body: setUserPasswordInput,
    async handler(ctx) {
      return setUserPassword(ctx.auth, ctx.body, ctx.meta);
    },
  }),

  endpoint({
    method: "POST",
    path: `${P}/remove-user`,
    session: "required",
    emptyUnauthorized: true,
    body: userIdInput,
    async handler(ctx) {
      return removeUser(ctx.auth, ctx.body.userId, ctx.meta);
    },
  }),

  endpoint({
    method: "POST",
    path: `${P}/has-permission`,
    session: "required",
    emptyUnauthorized: true,
    body: hasPermissionInput,
    async handler(ctx) {
      return hasPermission(ctx.auth, ctx.body);
    },
  }),
];
