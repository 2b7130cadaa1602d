/**
 * Account management: password reset / change / set, email change, profile update, session
 * management and account deletion. One verb per flow, each taking validated input plus the
 * request's meta, throwing AppError from the catalogue, writing audit rows and sending mail.
 * The JSON API (api/account.server.ts) and the profile / password pages both call these, so
 * the two can never disagree. (Sign-up, sign-in and verify-email live in accounts.server.ts;
 * the change-email confirmation link is followed there, by the one verify-email endpoint.)
 *
 * Signed-in verbs take the caller's `AuthSession` first. It may come from the cookie cache,
 * so every sensitive verb re-reads the session row and user from the database first
 * (`authoritative`): a session revoked a few seconds ago, or a user whose email changed,
 * must not act on a cached copy.
 *
 * Decisions (docs/decisions/0004):
 * - A password reset revokes every session of the user: whoever asked for the reset may be
 *   locking out someone who knows the old password. (better-auth leaves them unless
 *   `revokeSessionsOnPasswordReset`.)
 * - revoke-session with another user's live session answers 401 UNAUTHORIZED and changes
 *   nothing: callers revoke only their own sessions, and are told so rather than given
 *   better-auth's silent success. A token that matches no session is a no-op success: it is
 *   already gone.
 * - change-email to an address another account has answers exactly like a successful request
 *   (nothing changes; the owner of that address is told), whether or not the caller's own
 *   address is verified, so the API cannot be used to find out who has an account.
 * - delete-user: password → delete at once; token → delete at once; neither → the session
 *   must be fresh (else SESSION_EXPIRED) and a confirmation link is emailed.
 */
import { z } from "zod";
import { localizePath } from "~/i18n/config";
import { safeRedirect } from "~/lib/safe-redirect";
import { audit } from "~/server/audit.server";
import { prepareDeletion } from "~/server/deletion.server";
import { prisma, type Prisma } from "~/server/db.server";
import { loadEnv } from "~/server/env.server";
import { fail, isAppError, isErrorCode, type ErrorCode } from "~/server/errors.server";
import { sendMail } from "~/server/mail/index.server";
import {
  credentialAccount,
  moveToUnverifiedEmail,
  sendVerificationMail,
  verificationLink,
  verifyEmailLandingPath,
  writePassword,
} from "./accounts.server";
import { hashPassword, passwordSchema, PASSWORD_MAX, spendPasswordCheck, verifyPassword } from "./password.server";
import { booleanish, emailSchema, normalizeEmail } from "./schemas.server";
import {
  authUserSelect,
  clearSessionCookies,
  cookieCacheCookie,
  createSession,
  deleteSessions,
  endImpersonationsBy,
  hashToken,
  isFresh,
  listSessions,
  wasRemembered,
  type AuthSession,
  type AuthUser,
  type RequestMeta,
  type SessionRow,
} from "./session.server";
import {
  consumeToken,
  DELETE_ACCOUNT_EXPIRES_IN,
  DELETE_ACCOUNT_PREFIX,
  newDeleteAccountToken,
  newResetPasswordToken,
  peekToken,
  RESET_PASSWORD_EXPIRES_IN,
  RESET_PASSWORD_PREFIX,
  storeToken,
} from "./tokens.server";

// ---- inputs (the API uses these as its body schemas; pages validate their forms first) ----

/** A password being checked, not chosen: only its size is bounded (better-auth: PASSWORD_TOO_LONG). */
const currentPasswordSchema = z.string().max(PASSWORD_MAX, { message: "PASSWORD_TOO_LONG" });

export const requestPasswordResetInput = z.object({
  email: emailSchema,
  redirectTo: z.string().optional(),
});
export type RequestPasswordResetInput = z.infer<typeof requestPasswordResetInput>;

export const resetPasswordInput = z.object({
  token: z.string().min(1, { message: "INVALID_TOKEN" }),
  newPassword: passwordSchema,
});
export type ResetPasswordInput = z.infer<typeof resetPasswordInput>;

export const changePasswordInput = z.object({
  newPassword: passwordSchema,
  currentPassword: currentPasswordSchema,
  revokeOtherSessions: booleanish.optional(),
});
export type ChangePasswordInput = z.infer<typeof changePasswordInput>;

const setPasswordInput = z.object({ newPassword: passwordSchema });
export type SetPasswordInput = z.infer<typeof setPasswordInput>;

export const changeEmailInput = z.object({
  newEmail: emailSchema,
  callbackURL: z.string().optional(),
});
export type ChangeEmailInput = z.infer<typeof changeEmailInput>;

/**
 * better-auth's update-user takes any object; this product has no additional user fields,
 * so other keys are ignored. `email` is named so that sending it fails loudly instead.
 */
export const updateUserInput = z.object({
  name: z.string().max(255).optional(),
  image: z.string().max(2048).nullable().optional(),
  email: z.unknown().optional(),
});
export type UpdateUserInput = z.infer<typeof updateUserInput>;

export const deleteUserInput = z.object({
  password: currentPasswordSchema.optional(),
  token: z.string().optional(),
  callbackURL: z.string().optional(),
});
export type DeleteUserInput = z.infer<typeof deleteUserInput>;

export const revokeSessionInput = z.object({ token: z.string().min(1) });
export type RevokeSessionInput = z.infer<typeof revokeSessionInput>;

/**
 * Re-checks `input` against `schema` inside the verb, so a caller that skipped validation
 * (a page action with a looser form schema, a script) still gets the catalogue's codes.
 */
function check<T extends z.ZodType>(schema: T, input: unknown): z.output<T> {
  const result = schema.safeParse(input);
  if (result.success) return result.data;
  const coded = result.error.issues.find((issue) => isErrorCode(issue.message));
  if (coded) fail(coded.message as ErrorCode);
  fail("VALIDATION_ERROR");
}

/** The one redirect validator, with the error of the field it guards. */
function checkUrl(value: string | undefined, code: "INVALID_CALLBACK_URL" | "INVALID_REDIRECT_URL"): void {
  if (value && safeRedirect(value, loadEnv().trustedOrigins) === null) fail(code);
}

// ---- helpers ----

/**
 * The caller's session and user as the database has them now (see the header), or 401.
 * An expired row reads as gone, like everywhere else.
 */
async function authoritative(auth: AuthSession): Promise<AuthSession> {
  const row = await prisma.session.findUnique({
    where: { id: auth.session.id },
    include: { user: { select: authUserSelect } },
  });
  if (!row || row.expiresAt.getTime() <= Date.now()) fail("UNAUTHORIZED");
  const { user, ...session } = row;
  return { session, user };
}

/** True when the user can sign in with a password (pages show "change" or "set" accordingly). */
export async function hasPassword(userId: string): Promise<boolean> {
  return Boolean((await credentialAccount(userId))?.password);
}

/** Enough time that "no such account" and "mail sent" cannot be told apart by timing. */
const ANONYMOUS_FLOOR_MS = 500;

async function atLeast<T>(ms: number, work: () => Promise<T>): Promise<T> {
  const started = Date.now();
  try {
    return await work();
  } finally {
    const remaining = ms - (Date.now() - started);
    if (remaining > 0) await new Promise((resolve) => setTimeout(resolve, remaining));
  }
}

// ---- password reset ----

/** The emailed reset link: the API checks the token, then redirects to `callbackURL?token=…`. */
function resetPasswordLink(token: string, callbackURL: string): string {
  return `${loadEnv().BASE_URL}/api/auth/reset-password/${token}?callbackURL=${encodeURIComponent(callbackURL)}`;
}

/**
 * Emails a reset link (24-character token, stored hashed as `reset-password:{sha256}`, valid
 * 1 hour, single use). An unknown email gets the same answer after the same minimum time
 * and the same kind of work, so the call reveals nothing about who has an account.
 */
export async function requestPasswordReset(input: RequestPasswordResetInput, meta: RequestMeta): Promise<void> {
  const { email: rawEmail, redirectTo } = check(requestPasswordResetInput, input);
  checkUrl(redirectTo, "INVALID_REDIRECT_URL");
  const email = normalizeEmail(rawEmail);
  await atLeast(ANONYMOUS_FLOOR_MS, async () => {
    const user = await prisma.user.findUnique({ where: { email }, select: { id: true, email: true, name: true } });
    const token = newResetPasswordToken();
    if (!user) {
      await peekToken(RESET_PASSWORD_PREFIX, token);
      await audit({
        category: "auth",
        action: "request-password-reset",
        status: "failure",
        details: { reason: "USER_NOT_FOUND", email },
        meta,
      });
      return;
    }
    await storeToken(RESET_PASSWORD_PREFIX, token, user.id, RESET_PASSWORD_EXPIRES_IN);
    const url = resetPasswordLink(token, redirectTo || localizePath("/reset-password", meta.locale));
    await sendMail({ to: user.email, template: "reset-password", locale: meta.locale, data: { url, name: user.name } });
    await audit({ userId: user.id, category: "auth", action: "request-password-reset", status: "success", meta });
  });
}

/** Whether a reset link's token is still usable (the link's redirect), without using it up. */
export async function isResetTokenValid(token: string): Promise<boolean> {
  return token.length > 0 && (await peekToken(RESET_PASSWORD_PREFIX, token)) !== null;
}

/**
 * Sets a new password with a reset token (used up: a second use is INVALID_TOKEN) and
 * revokes every session of the user (see the header).
 */
export async function resetPassword(input: ResetPasswordInput, meta: RequestMeta): Promise<void> {
  const { token, newPassword } = check(resetPasswordInput, input);
  const userId = await consumeToken(RESET_PASSWORD_PREFIX, token);
  if (!userId) fail("INVALID_TOKEN");
  const hash = await hashPassword(newPassword);
  const revoked = await prisma.$transaction(async (tx) => {
    // The user may have been deleted since the link was sent; the link is dead then.
    if (!(await tx.user.findUnique({ where: { id: userId }, select: { id: true } }))) return null;
    await writePassword(tx, userId, hash); // ends the user's other reset links too
    return deleteSessions(userId, {}, tx);
  });
  if (revoked === null) fail("INVALID_TOKEN");
  await audit({
    userId,
    category: "auth",
    action: "reset-password",
    status: "success",
    details: { sessionsRevoked: revoked },
    meta,
  });
}

// ---- change / set password ----

/**
 * Changes the password after checking the current one. With `revokeOtherSessions` every
 * session of the user is deleted (this one too) and a new session replaces the caller's:
 * the result carries its token (the stored hash, as sign-in answers) and cookies.
 */
export async function changePassword(
  auth: AuthSession,
  input: ChangePasswordInput,
  meta: RequestMeta,
): Promise<{ token: string | null; user: AuthUser; setCookies: string[] }> {
  const { newPassword, currentPassword, revokeOtherSessions: revokeOthers } = check(changePasswordInput, input);
  const { session, user } = await authoritative(auth);
  const failure = async (code: "CREDENTIAL_ACCOUNT_NOT_FOUND" | "INVALID_PASSWORD"): Promise<never> => {
    await audit({
      userId: user.id,
      category: "auth",
      action: "change-password",
      status: "failure",
      details: { reason: code },
      meta,
    });
    fail(code);
  };
  const account = await credentialAccount(user.id);
  if (!account?.password) return failure("CREDENTIAL_ACCOUNT_NOT_FOUND");
  if (!(await verifyPassword(currentPassword, account.password))) return failure("INVALID_PASSWORD");
  const hash = await hashPassword(newPassword);

  let result: { token: string | null; setCookies: string[] } = { token: null, setCookies: [] };
  await prisma.$transaction(async (tx) => {
    await writePassword(tx, user.id, hash);
    if (revokeOthers) await deleteSessions(user.id, {}, tx);
  });
  if (revokeOthers) {
    const created = await createSession(user.id, meta, {
      rememberMe: wasRemembered(session),
      signInMethod: session.signInMethod,
    });
    result = { token: created.session.token, setCookies: created.setCookies };
  }
  await audit({
    userId: user.id,
    category: "auth",
    action: "change-password",
    status: "success",
    details: { revokeOtherSessions: Boolean(revokeOthers) },
    meta,
  });
  return { ...result, user };
}

/**
 * Gives a password to a user who has none (signed up with a social provider). There is no
 * API route, and the session must be fresh (SESSION_NOT_FRESH otherwise, docs/decisions/0004):
 * with no current password to ask for, a recent sign-in is the re-authentication, so an old
 * stolen session cannot add a password and keep the account. "user already has a password" otherwise.
 */
export async function setPassword(auth: AuthSession, input: SetPasswordInput, meta: RequestMeta): Promise<void> {
  const { newPassword } = check(setPasswordInput, input);
  const { session, user } = await authoritative(auth);
  const userId = user.id;
  if (!isFresh(session)) fail("SESSION_NOT_FRESH");
  if (await hasPassword(userId)) {
    await audit({
      userId,
      category: "auth",
      action: "set-password",
      status: "failure",
      details: { reason: "USER_ALREADY_HAS_PASSWORD" },
      meta,
    });
    fail("USER_ALREADY_HAS_PASSWORD");
  }
  const hash = await hashPassword(newPassword);
  await prisma.$transaction((tx) => writePassword(tx, userId, hash));
  await audit({ userId, category: "auth", action: "set-password", status: "success", meta });
}

// ---- change email ----

/**
 * Changes the user's email. Lower-cased; "Email is the same" when unchanged. An unverified
 * user's email changes at once and a verification goes to the new address; a verified
 * user's old address gets a confirmation link (JWT with the old email, `updateTo` and
 * requestType "change-email-confirmation", followed by verify-email in accounts.server.ts:
 * the email then changes, becomes unverified, and the new address gets a verification). An address another account has: the same answer, after the same work (one
 * email: the owner of the address learns that someone tried to use it), and nothing changes.
 * `wasVerified` tells a page which message to show (the same for a taken address as for a
 * free one); the API answers `{status: true}`.
 */
export async function changeEmail(
  auth: AuthSession,
  input: ChangeEmailInput,
  meta: RequestMeta,
): Promise<{ wasVerified: boolean; user: AuthUser; setCookies: string[] }> {
  const parsed = check(changeEmailInput, input);
  checkUrl(parsed.callbackURL, "INVALID_CALLBACK_URL");
  const { session, user } = await authoritative(auth);
  const newEmail = normalizeEmail(parsed.newEmail);
  if (newEmail === user.email) fail("EMAIL_IS_THE_SAME");
  const callbackURL = parsed.callbackURL || verifyEmailLandingPath(meta);
  const record = (status: "success" | "failure", details: Record<string, unknown>) =>
    audit({ userId: user.id, category: "email", action: "change-email", status, details, meta });

  // Taken or free, verified or not: the same answer, after at least the same time.
  return atLeast(ANONYMOUS_FLOOR_MS, async () => {
    const unchanged = { wasVerified: user.emailVerified, user, setCookies: [] };
    const taken = await prisma.user.findUnique({ where: { email: newEmail }, select: { id: true, name: true } });
    if (taken) {
      await record("failure", { reason: "USER_ALREADY_EXISTS", from: user.email, to: newEmail });
      // The same work as the free-address paths below (one email), so that timing tells nothing;
      // the owner of the address learns that someone tried to use it.
      await sendMail({
        to: newEmail,
        template: "email-in-use",
        locale: meta.locale,
        data: { url: `${loadEnv().BASE_URL}${localizePath("/signin", meta.locale)}`, name: taken.name },
      });
      return unchanged;
    }

    if (!user.emailVerified) {
      let updated: AuthUser;
      try {
        updated = await moveToUnverifiedEmail(user.id, newEmail);
      } catch (error) {
        // Taken meanwhile by another account: the same answer as for a taken address.
        if (!isAppError(error) || error.code !== "USER_ALREADY_EXISTS") throw error;
        await record("failure", { reason: "USER_ALREADY_EXISTS", from: user.email, to: newEmail });
        return unchanged;
      }
      await sendVerificationMail({ id: user.id, email: newEmail, name: user.name }, meta, callbackURL);
      await record("success", { from: user.email, to: newEmail, step: "updated" });
      return { wasVerified: false, user: updated, setCookies: [cookieCacheCookie({ session, user: updated })] };
    }

    const url = verificationLink(
      { email: user.email, userId: user.id, updateTo: newEmail, requestType: "change-email-confirmation" },
      callbackURL,
    );
    await sendMail({
      to: user.email,
      template: "change-email-confirmation",
      locale: meta.locale,
      data: { url, name: user.name, oldEmail: user.email, newEmail },
    });
    await record("success", { from: user.email, to: newEmail, step: "confirmation-sent" });
    return unchanged;
  });
}

// ---- update user ----

/**
 * Updates name and/or image (`null` removes the image). The email is not updatable here
 * (EMAIL_CAN_NOT_BE_UPDATED: change-email is the way); nothing to update is an error.
 * The result's cookie replaces the cookie cache, which still holds the old user.
 */
export async function updateUser(
  auth: AuthSession,
  input: UpdateUserInput,
  meta: RequestMeta,
): Promise<{ user: AuthUser; setCookies: string[] }> {
  if (input.email !== undefined && input.email !== null && input.email !== "") fail("EMAIL_CAN_NOT_BE_UPDATED");
  const { name, image } = check(updateUserInput, input);
  if (name === undefined && image === undefined) fail("NO_FIELDS_TO_UPDATE");
  const { session } = await authoritative(auth);
  const user = await prisma.user.update({
    where: { id: auth.user.id },
    data: { ...(name !== undefined && { name }), ...(image !== undefined && { image }) },
    select: authUserSelect,
  });
  await audit({
    userId: user.id,
    category: "auth",
    action: "update-user",
    status: "success",
    details: { fields: [...(name !== undefined ? ["name"] : []), ...(image !== undefined ? ["image"] : [])] },
    meta,
  });
  return { user, setCookies: [cookieCacheCookie({ session, user })] };
}

// ---- sessions ----

/** The user's active sessions, newest first; impersonation sessions are not the user's own doing. */
export async function listUserSessions(auth: AuthSession): Promise<SessionRow[]> {
  return (await listSessions(auth.user.id)).filter((session) => !session.impersonatedBy);
}

/**
 * Revokes one of the caller's sessions, named by the id list-sessions hands out (the stored
 * hash) or a raw token. Another user's live session: 401 UNAUTHORIZED, nothing happens.
 * An unknown token: success (already gone). Revoking the current session clears its cookies.
 */
export async function revokeUserSession(
  auth: AuthSession,
  input: RevokeSessionInput,
  meta: RequestMeta,
): Promise<{ setCookies: string[] }> {
  const { token } = check(revokeSessionInput, input);
  const { session: current, user } = await authoritative(auth);
  const target = await prisma.session.findFirst({
    where: { token: { in: [token, hashToken(token)] } },
    select: { id: true, userId: true },
  });
  if (!target) return { setCookies: [] };
  if (target.userId !== user.id) {
    await audit({
      userId: user.id,
      category: "auth",
      action: "revoke-session",
      status: "failure",
      details: { reason: "UNAUTHORIZED" },
      meta,
    });
    fail("UNAUTHORIZED");
  }
  await deleteSessions(user.id, { id: target.id });
  await audit({
    userId: user.id,
    category: "auth",
    action: "revoke-session",
    status: "success",
    targetType: "session",
    targetId: target.id,
    meta,
  });
  return { setCookies: target.id === current.id ? clearSessionCookies() : [] };
}

/** Revokes every session of the caller, this one included (its cookies are cleared). */
export async function revokeAllUserSessions(auth: AuthSession, meta: RequestMeta): Promise<{ setCookies: string[] }> {
  const { user } = await authoritative(auth);
  const count = await deleteSessions(user.id);
  await audit({
    userId: user.id,
    category: "auth",
    action: "revoke-sessions",
    status: "success",
    details: { count },
    meta,
  });
  return { setCookies: clearSessionCookies() };
}

/** Revokes every session of the caller except the current one. */
export async function revokeOtherUserSessions(auth: AuthSession, meta: RequestMeta): Promise<void> {
  const { session, user } = await authoritative(auth);
  const count = await deleteSessions(user.id, { id: { not: session.id } });
  await audit({
    userId: user.id,
    category: "auth",
    action: "revoke-other-sessions",
    status: "success",
    details: { count },
    meta,
  });
}

// ---- delete account ----

/** The emailed deletion link: the API deletes, then redirects to `callbackURL`. */
function deleteAccountLink(token: string, callbackURL: string): string {
  return `${loadEnv().BASE_URL}/api/auth/delete-user/callback?token=${token}&callbackURL=${encodeURIComponent(callbackURL)}`;
}

/**
 * Deletes the user and everything that cascades from it (sessions, accounts, memberships);
 * audit rows stay, with the user id kept as their target. Leftover reset / delete tokens of
 * the user go too.
 */
async function removeUser(user: Pick<AuthUser, "id" | "email">, how: string, meta: RequestMeta): Promise<void> {
  await audit({
    userId: user.id,
    category: "auth",
    action: "delete-user",
    status: "success",
    targetType: "user",
    targetId: user.id,
    details: { email: user.email, method: how },
    meta,
  });
  await prisma.$transaction((tx) => deleteAccountRows(user.id, tx));
}

/**
 * The last step of deleting an account, by its user or an admin: its sessions (announced to
 * every instance; the cascade would delete them unannounced), the sessions it opened as other
 * users, its tokens, its row.
 */
export async function deleteAccountRows(userId: string, tx: Prisma.TransactionClient): Promise<void> {
  await deleteSessions(userId, {}, tx);
  await endImpersonationsBy(userId, tx);
  await tx.verification.deleteMany({ where: { value: userId } });
  await tx.user.deleteMany({ where: { id: userId } });
}

/**
 * Deletes the account (product rule): with a password, after checking it; with a token from
 * the confirmation email, after using it up; with neither, when the session is fresh (else
 * SESSION_EXPIRED), by emailing a confirmation link (32 lowercase/digit characters stored as
 * `delete-account-{sha256}`, 24 hours). `deleted` tells which happened; after a deletion
 * `setCookies` clears the session cookies.
 */
export async function deleteUser(
  auth: AuthSession,
  input: DeleteUserInput,
  meta: RequestMeta,
): Promise<{ deleted: boolean; message: "User deleted" | "Verification email sent"; setCookies: string[] }> {
  const { password, token, callbackURL } = check(deleteUserInput, input);
  checkUrl(callbackURL, "INVALID_CALLBACK_URL");
  const { session, user } = await authoritative(auth);
  const refuse = async (code: ErrorCode): Promise<never> => {
    await audit({
      userId: user.id,
      category: "auth",
      action: "delete-user",
      status: "failure",
      targetType: "user",
      targetId: user.id,
      details: { reason: code },
      meta,
    });
    fail(code);
  };

  if (password) {
    const account = await credentialAccount(user.id);
    if (!account?.password) {
      // No password to check against: same answer (and about the same time) as a wrong one.
      await spendPasswordCheck(password);
      return refuse("INVALID_PASSWORD");
    }
    if (!(await verifyPassword(password, account.password))) return refuse("INVALID_PASSWORD");
    await prepareDeletion({ kind: "user", id: user.id, actorId: user.id, meta });
    await removeUser(user, "password", meta);
    return { deleted: true, message: "User deleted", setCookies: clearSessionCookies() };
  }

  if (token) {
    // Only the caller's own token counts; peek first so a wrong user cannot spend it.
    if ((await peekToken(DELETE_ACCOUNT_PREFIX, token)) !== user.id) return refuse("INVALID_TOKEN");
    await prepareDeletion({ kind: "user", id: user.id, actorId: user.id, meta }); // before the token is spent: a failure keeps it
    if ((await consumeToken(DELETE_ACCOUNT_PREFIX, token)) !== user.id) return refuse("INVALID_TOKEN");
    await removeUser(user, "token", meta);
    return { deleted: true, message: "User deleted", setCookies: clearSessionCookies() };
  }

  if (!isFresh(session)) return refuse("SESSION_EXPIRED");
  const confirmation = newDeleteAccountToken();
  await storeToken(DELETE_ACCOUNT_PREFIX, confirmation, user.id, DELETE_ACCOUNT_EXPIRES_IN);
  const url = deleteAccountLink(confirmation, callbackURL || localizePath("/", meta.locale));
  await sendMail({ to: user.email, template: "delete-account", locale: meta.locale, data: { url, name: user.name } });
  await audit({
    userId: user.id,
    category: "auth",
    action: "delete-user",
    status: "success",
    // The target keeps the id once the deletion clears userId (audit rows outlive users).
    targetType: "user",
    targetId: user.id,
    details: { step: "confirmation-sent" },
    meta,
  });
  return { deleted: false, message: "Verification email sent", setCookies: [] };
}

/**
 * Follows the emailed deletion link. Like better-auth, it needs the account's own session
 * in the browser that opens it: a GET that deletes on its own would let any link scanner
 * of a mail provider delete the account. Without a session: UNAUTHORIZED; with another
 * user's, or a wrong, expired or used token: INVALID_TOKEN (the token is then left as is).
 */
export async function deleteUserCallback(
  auth: AuthSession | null,
  input: { token: string },
  meta: RequestMeta,
): Promise<{ setCookies: string[] }> {
  if (!auth) fail("UNAUTHORIZED");
  const { user } = await authoritative(auth);
  if (!input.token || (await peekToken(DELETE_ACCOUNT_PREFIX, input.token)) !== user.id) fail("INVALID_TOKEN");
  await prepareDeletion({ kind: "user", id: user.id, actorId: user.id, meta }); // before the token is spent: a failure keeps it
  if ((await consumeToken(DELETE_ACCOUNT_PREFIX, input.token)) !== user.id) fail("INVALID_TOKEN");
  await removeUser(user, "email-confirmation", meta);
  return { setCookies: clearSessionCookies() };
}
