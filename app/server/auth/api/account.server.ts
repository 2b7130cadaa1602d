/**
 * Account management endpoints of /api/auth: password reset (request, emailed link, reset),
 * change password, change email, update user, delete user (and its emailed link), and the
 * session list / revocations. Each validates with the service's schema (via the framework)
 * and calls one verb of account-management.server.ts; every one but the reset flow needs a
 * session (401 UNAUTHORIZED). There is deliberately no /set-password route: it is a
 * server-only verb (404 over HTTP), as in better-auth.
 */
import { redirect } from "react-router";
import { z } from "zod";
import { isAppError } from "~/server/errors.server";
import {
  changeEmail,
  changeEmailInput,
  changePassword,
  changePasswordInput,
  deleteUser,
  deleteUserCallback,
  deleteUserInput,
  isResetTokenValid,
  listUserSessions,
  requestPasswordReset,
  requestPasswordResetInput,
  resetPassword,
  resetPasswordInput,
  revokeAllUserSessions,
  revokeOtherUserSessions,
  revokeSessionInput,
  revokeUserSession,
  updateUser,
  updateUserInput,
} from "../account-management.server";
import { callbackTo, endpoint, param } from "~/server/endpoint.server";

const RESET_REQUESTED = "If this email exists in our system, check your email for the reset link";

const requestReset = <const P extends string>(path: P) =>
  endpoint({
    method: "POST",
    path,
    body: requestPasswordResetInput,
    async handler({ body, meta }) {
      await requestPasswordReset(body, meta);
      return { status: true, message: RESET_REQUESTED };
    },
  });

export const endpoints = [
  // ---- password reset (no session) ----

  requestReset("/request-password-reset"),
  // The older name of the same call; better-auth clients still send it.
  requestReset("/forget-password"),

  endpoint({
    method: "GET",
    path: "/reset-password/:token",
    query: z.object({ callbackURL: param(z.string()) }),
    async handler({ params, query }) {
      // The emailed link: only checks the token (it is used up by POST /reset-password).
      const valid = await isResetTokenValid(params.token ?? "");
      return redirect(callbackTo(query.callbackURL, valid ? { token: params.token! } : { error: "INVALID_TOKEN" }));
    },
  }),

  endpoint({
    method: "POST",
    path: "/reset-password",
    // The token may come in the body or the query (better-auth accepts both).
    body: resetPasswordInput.extend({ token: z.string().optional() }),
    query: z.object({ token: param(z.string()).optional() }),
    async handler({ body, query, meta }) {
      await resetPassword({ newPassword: body.newPassword, token: body.token || query.token || "" }, meta);
      return { status: true };
    },
  }),

  // ---- signed in ----

  endpoint({
    method: "POST",
    path: "/change-password",
    session: "required",
    body: changePasswordInput,
    async handler({ body, meta, cookies, auth }) {
      const { token, user, setCookies } = await changePassword(auth, body, meta);
      cookies.push(...setCookies);
      return { token, user };
    },
  }),

  endpoint({
    method: "POST",
    path: "/change-email",
    session: "required",
    body: changeEmailInput,
    async handler({ body, meta, cookies, auth }) {
      const { setCookies } = await changeEmail(auth, body, meta);
      cookies.push(...setCookies);
      return { status: true };
    },
  }),

  endpoint({
    method: "POST",
    path: "/update-user",
    session: "required",
    body: updateUserInput,
    async handler({ body, meta, cookies, auth }) {
      const { setCookies } = await updateUser(auth, body, meta);
      cookies.push(...setCookies);
      return { status: true };
    },
  }),

  endpoint({
    method: "POST",
    path: "/delete-user",
    session: "required",
    body: deleteUserInput,
    async handler({ body, meta, cookies, auth }) {
      const { message, setCookies } = await deleteUser(auth, body, meta);
      cookies.push(...setCookies);
      return { success: true, message };
    },
  }),

  endpoint({
    method: "GET",
    path: "/delete-user/callback",
    query: z.object({ token: param(z.string()), callbackURL: param(z.string()).optional() }),
    async handler({ query, meta, cookies, session }) {
      try {
        const { setCookies } = await deleteUserCallback(await session(), { token: query.token }, meta);
        cookies.push(...setCookies);
      } catch (error) {
        // A browser following the emailed link sees the Authentication Error page, not JSON.
        if (!isAppError(error) || !query.callbackURL) throw error;
        return redirect(callbackTo("/api/auth/error", { error: error.code ?? "INVALID_TOKEN" }));
      }
      return query.callbackURL ? redirect(callbackTo(query.callbackURL)) : { success: true, message: "User deleted" };
    },
  }),

  // ---- sessions ----

  endpoint({
    method: "GET",
    path: "/list-sessions",
    session: "fresh",
    async handler({ auth }) {
      return listUserSessions(auth);
    },
  }),

  endpoint({
    method: "POST",
    path: "/revoke-session",
    session: "required",
    body: revokeSessionInput,
    async handler({ body, meta, cookies, auth }) {
      const { setCookies } = await revokeUserSession(auth, body, meta);
      cookies.push(...setCookies);
      return { status: true };
    },
  }),

  endpoint({
    method: "POST",
    path: "/revoke-sessions",
    session: "required",
    async handler({ meta, cookies, auth }) {
      const { setCookies } = await revokeAllUserSessions(auth, meta);
      cookies.push(...setCookies);
      return { status: true };
    },
  }),

  endpoint({
    method: "POST",
    path: "/revoke-other-sessions",
    session: "required",
    async handler({ meta, auth }) {
      await revokeOtherUserSessions(auth, meta);
      return { status: true };
    },
  }),
];
