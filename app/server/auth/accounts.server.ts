/**
 * Sign-up, sign-in and email verification: one verb per flow, each taking validated input
 * and the request's meta, throwing AppError, writing audit rows and sending mail. The JSON
 * API and the pages both call these, so they cannot disagree. (Password, email-change,
 * session and deletion verbs live in account-management.server.ts.)
 */
import { createHash } from "node:crypto";
import { z } from "zod";
import { localizePath } from "~/i18n/config";
import { roleNames } from "~/lib/organization-paths";
import { audit } from "~/server/audit.server";
import { isUniqueViolation, newId, prisma, type Prisma } from "~/server/db.server";
import { loadEnv } from "~/server/env.server";
import { AppError, fail } from "~/server/errors.server";
import { sendMail } from "~/server/mail/index.server";
import { auditingBan, endAccessOutsideSso, SecondFactorRequired, signInSession, SsoRequired } from "./sign-in.server";
import { hashPassword, passwordSchema, spendPasswordCheck, verifyPassword } from "./password.server";
import { announceRevocation } from "./revocation.server";
import { booleanish, emailSchema, normalizeEmail } from "./schemas.server";
import {
  authUserSelect,
  clearActiveOrganization,
  cookieCacheCookie,
  deleteSessions,
  refuseBanned,
  type AuthSession,
  type AuthUser,
  type RequestMeta,
} from "./session.server";
import {
  createEmailVerificationToken,
  endResetLinks,
  verifyEmailVerificationToken,
  type EmailVerificationPayload,
} from "./tokens.server";

// ---- inputs ----

export const signUpEmailInput = z.object({
  // The same bounds as update-user's: a name and an image URL are stored and shown everywhere.
  name: z.string().max(255),
  // A malformed email is INVALID_EMAIL on sign-in, reset request, send-verification and
  // change-email only; sign-up answers it as better-auth does, VALIDATION_ERROR.
  email: z.email(),
  password: passwordSchema,
  image: z.string().max(2048).nullish(),
  callbackURL: z.string().optional(),
  rememberMe: booleanish.optional(),
});
export type SignUpEmailInput = z.infer<typeof signUpEmailInput>;

export const signInEmailInput = z.object({
  email: emailSchema,
  password: z.string(),
  callbackURL: z.string().optional(),
  rememberMe: booleanish.optional(),
});
export type SignInEmailInput = z.infer<typeof signInEmailInput>;

export const sendVerificationEmailInput = z.object({
  email: emailSchema,
  callbackURL: z.string().optional(),
});
export type SendVerificationEmailInput = z.infer<typeof sendVerificationEmailInput>;

// ---- links ----

/** Where a verification link lands by default: the verify-email page in the user's language. */
export const verifyEmailLandingPath = (meta: Pick<RequestMeta, "locale">) => localizePath("/verify-email", meta.locale);

/** The emailed verification link: the API verifies, then redirects to `callbackURL`. */
export function verificationLink(payload: EmailVerificationPayload, callbackURL: string): string {
  const token = createEmailVerificationToken(payload);
  return `${loadEnv().BASE_URL}/api/auth/verify-email?token=${token}&callbackURL=${encodeURIComponent(callbackURL)}`;
}

// ---- the credential (email + password) ----

type Tx = Prisma.TransactionClient;

export function credentialAccount(userId: string, db: Pick<Tx, "account"> = prisma) {
  return db.account.findFirst({ where: { userId, providerId: "credential" }, select: { id: true, password: true } });
}

/** A directory's link that an address's proof ended (proveEmail), to be audited for its organization. */
export interface EndedLink {
  organizationId: string;
  scimUserId: string;
  userName: string;
  /** The membership the directory gave, when it went with the link (an owner's stays). */
  removedMemberId: string | null;
}

/**
 * Switches two-factor off for `userId` and forgets everything that came with it: the secret,
 * the backup codes, the trusted browsers and any sign-in waiting for its second step. Every
 * instance stops trusting cached copies of the user (which carry `twoFactorEnabled`).
 */
export async function removeTwoFactor(userId: string, tx?: Tx): Promise<void> {
  const run = async (db: Tx) => {
    await db.twoFactor.deleteMany({ where: { userId } });
    await db.backupCode.deleteMany({ where: { userId } });
    await db.trustedDevice.deleteMany({ where: { userId } });
    await db.pendingSignIn.deleteMany({ where: { userId } });
    await db.user.update({ where: { id: userId }, data: { twoFactorEnabled: false } });
    await announceRevocation(db, userId);
  };
  await (tx ? run(tx) : prisma.$transaction(run));
}

/**
 * Whoever held an account before its address was proved keeps no way back in once someone
 * else proves it (a sign-up over the unproven account, a provider or a verified domain
 * vouching for the address): every password and provider account, session, passkey, API key
 * and second factor of the account goes, and it holds only what the prover brings next. An
 * address can move onto someone else's mailbox before it is proved (an email change): a
 * passkey or a key made before the move would otherwise open the account its new owner took.
 */
export async function forgetUnprovenHolder(tx: Tx, userId: string): Promise<void> {
  await tx.account.deleteMany({ where: { userId } });
  await tx.passkey.deleteMany({ where: { userId } });
  await tx.apiKey.deleteMany({ where: { userId } });
  await deleteSessions(userId, {}, tx);
  await removeTwoFactor(userId, tx);
}

/**
 * Marks the user's address proved (by its mailbox, a provider that vouches for it, or an
 * organization's verified domain), in the transaction that hands the account to whoever
 * proved it. A directory (SCIM) that provisioned the account under an address its
 * organization never proved made someone else's claim: its link goes, with the membership it
 * gave and its teams (an owner's stays: the organization made that one), or the directory
 * could still add the account to its organization, or deactivate it and so end its sessions.
 * A directory whose organization verified the address's domain keeps its link. The caller
 * audits the ended links after the commit (auditEndedLinks).
 */
export async function proveEmail(
  tx: Tx,
  user: { id: string; email: string },
): Promise<{ user: AuthUser; endedLinks: EndedLink[] }> {
  const domain = user.email.split("@").pop();
  const verifiedHere = { ssoProviders: { some: { domains: { some: { domain, verifiedAt: { not: null } } } } } };
  const links = await tx.scimUser.findMany({
    where: { userId: user.id, organization: { NOT: verifiedHere } },
    select: { id: true, organizationId: true, userName: true },
  });
  const endedLinks: EndedLink[] = [];
  for (const link of links) {
    const { organizationId } = link;
    const member = await tx.member.findUnique({
      where: { organizationId_userId: { organizationId, userId: user.id } },
      select: { id: true, role: true },
    });
    const removed = member !== null && !roleNames(member.role).includes("owner");
    if (removed) {
      await tx.teamMember.deleteMany({ where: { userId: user.id, team: { organizationId } } });
      await tx.member.delete({ where: { id: member.id } });
      await clearActiveOrganization(user.id, organizationId, tx);
    }
    await tx.scimUser.delete({ where: { id: link.id } });
    endedLinks.push({
      organizationId,
      scimUserId: link.id,
      userName: link.userName,
      removedMemberId: removed ? member.id : null,
    });
  }
  const proved = await tx.user.update({
    where: { id: user.id },
    data: { emailVerified: true },
    select: authUserSelect,
  });
  // An address proved on a domain whose organization requires single sign-on is under it now.
  await endAccessOutsideSso(tx, user.id);
  return { user: proved, endedLinks };
}

/** Audits, for each organization, a directory link that an address's proof ended, and the membership that went with it. */
export async function auditEndedLinks(userId: string, endedLinks: EndedLink[], meta: RequestMeta): Promise<void> {
  for (const { organizationId, scimUserId, userName, removedMemberId } of endedLinks) {
    const reason = "address-proved";
    await audit({
      category: "scim",
      action: "scim-unlink-user",
      status: "success",
      targetType: "user",
      targetId: userId,
      organizationId,
      details: { scimUserId, userName, reason },
      meta,
    });
    if (removedMemberId) {
      await audit({
        category: "organization",
        action: "remove-member",
        status: "success",
        targetType: "member",
        targetId: removedMemberId,
        organizationId,
        details: { organizationId, userId, reason },
        meta,
      });
    }
  }
}

/**
 * Sets the user's password hash on their credential account (created when the user has
 * none, e.g. a social-only user who sets or resets one). Every outstanding reset link of the
 * user ends with it: a link sent for the old password must not change the new one. So does
 * every sign-in waiting for its second step: one the old password started must not become a
 * session after the password changed.
 */
export async function writePassword(tx: Tx, userId: string, hash: string): Promise<void> {
  const account = await credentialAccount(userId, tx);
  if (account) await tx.account.update({ where: { id: account.id }, data: { password: hash } });
  else await tx.account.create({ data: { userId, providerId: "credential", accountId: userId, password: hash } });
  await endResetLinks(tx, userId);
  await tx.pendingSignIn.deleteMany({ where: { userId } });
}

/**
 * A short fingerprint of a password hash (bcrypt salts it, so every new password has a new
 * one). A verification link carries the fingerprint of the password the account had when
 * the link was sent, so that following it can tell whether that password is still the one.
 */
function credentialStamp(hash: string | null | undefined): string | undefined {
  return hash ? createHash("sha256").update(hash).digest("base64url").slice(0, 22) : undefined;
}

/**
 * Sends the verification email for `user`'s current address. The link vouches for the
 * account's password as it is now (see `verifyEmail`).
 */
export async function sendVerificationMail(
  user: Pick<AuthUser, "id" | "email" | "name">,
  meta: RequestMeta,
  callbackURL?: string,
  /** The password hash the link vouches for, when it is about to be written rather than stored already. */
  passwordHash?: string,
): Promise<void> {
  const credential = credentialStamp(passwordHash ?? (await credentialAccount(user.id))?.password);
  const url = verificationLink(
    { email: user.email, userId: user.id, ...(credential && { credential }) },
    callbackURL || verifyEmailLandingPath(meta),
  );
  await sendMail({ to: user.email, template: "verify-email", locale: meta.locale, data: { url, name: user.name } });
}

// ---- sign-up ----

/** A user-shaped answer for an email that already exists, indistinguishable from a new one. */
function syntheticUser(input: SignUpEmailInput, email: string): AuthUser {
  const now = new Date();
  return {
    id: newId(), // made exactly as a real user's id is, creation time included
    name: input.name,
    email,
    emailVerified: false,
    image: input.image ?? null,
    createdAt: now,
    updatedAt: now,
    role: "user",
    banned: false,
    banReason: null,
    banExpires: null,
    twoFactorEnabled: false,
  };
}

/**
 * Creates an unverified user with a credential account and emails the verification link.
 * No session: verification is required first.
 *
 * An email that is already registered gets the very same answer (a synthetic user) after the
 * same work (a password hash, a few writes, one email), so sign-up cannot tell anyone, by
 * its answer or its timing, who has an account. What the owner of the address receives:
 * - unverified account: the new password replaces the old one, its social accounts and
 *   sessions end, and a new verification link goes out. A password set by someone who never proved the address
 *   cannot outlive the owner's own sign-up (and `verifyEmail` drops one that changed since).
 * - verified account: nothing changes; a notice says someone tried to sign up with it.
 *
 * The email is queued (sendMail): a mail server that is down delays it and fails nothing.
 */
export async function signUpEmail(input: SignUpEmailInput, meta: RequestMeta): Promise<{ user: AuthUser }> {
  const email = normalizeEmail(input.email);
  const passwordHash = await hashPassword(input.password);
  const ownerSelect = { id: true, email: true, name: true, emailVerified: true } as const;
  let owner = await prisma.user.findUnique({ where: { email }, select: ownerSelect });
  if (!owner) {
    try {
      const user = await prisma.$transaction(async (tx) => {
        const created = await tx.user.create({
          data: { id: newId(), email, name: input.name, image: input.image ?? null },
          select: authUserSelect,
        });
        // accountId = user id for credential accounts (the better-auth convention).
        await tx.account.create({
          data: { providerId: "credential", accountId: created.id, userId: created.id, password: passwordHash },
        });
        return created;
      });
      await sendVerificationMail(user, meta, input.callbackURL, passwordHash);
      await audit({
        userId: user.id,
        category: "auth",
        action: "sign-up",
        status: "success",
        details: { email },
        meta,
      });
      return { user };
    } catch (error) {
      if (!isUniqueViolation(error)) throw error;
      // A concurrent sign-up with the same email won: answer as for any existing email.
      owner = await prisma.user.findUnique({ where: { email }, select: ownerSelect });
      if (!owner) throw error;
    }
  }

  const replaced = !owner.emailVerified;
  if (replaced) {
    const userId = owner.id;
    await prisma.$transaction(async (tx) => {
      await forgetUnprovenHolder(tx, userId);
      await writePassword(tx, userId, passwordHash);
    });
    await sendVerificationMail(owner, meta, input.callbackURL, passwordHash);
  }
  await audit({
    userId: owner.id,
    category: "auth",
    action: "sign-up",
    status: "failure",
    details: { reason: "USER_ALREADY_EXISTS", email, ...(replaced && { replacedUnverifiedPassword: true }) },
    meta,
  });
  if (!replaced) {
    const url = `${loadEnv().BASE_URL}${localizePath("/signin", meta.locale)}`;
    await sendMail({
      to: owner.email,
      template: "sign-up-attempt",
      locale: meta.locale,
      data: { url, name: owner.name },
    });
  }
  return { user: syntheticUser(input, email) };
}

// ---- sign-in ----

async function signInFailure(
  reason: string,
  email: string,
  userId: string | null,
  meta: RequestMeta,
  code: "INVALID_EMAIL_OR_PASSWORD" | "EMAIL_NOT_VERIFIED" | "BANNED_USER",
): Promise<never> {
  await audit({ userId, category: "auth", action: "sign-in", status: "failure", details: { reason, email }, meta });
  fail(code);
}

/**
 * Checks email + password and creates a session. Unknown email, missing credential account
 * and wrong password all answer INVALID_EMAIL_OR_PASSWORD after one password check's worth
 * of work. A correct password on an unverified account re-sends the verification email and
 * answers EMAIL_NOT_VERIFIED (only after the password check, so it reveals nothing).
 */
export async function signInEmail(
  input: SignInEmailInput,
  meta: RequestMeta,
): Promise<AuthSession & { token: string; setCookies: string[] }> {
  const email = normalizeEmail(input.email);
  const found = await prisma.user.findUnique({
    where: { email },
    select: { ...authUserSelect, accounts: { where: { providerId: "credential" }, select: { password: true } } },
  });
  if (!found) {
    await spendPasswordCheck(input.password);
    return signInFailure("USER_NOT_FOUND", email, null, meta, "INVALID_EMAIL_OR_PASSWORD");
  }
  const { accounts, ...user } = found;
  const hash = accounts[0]?.password;
  if (!hash) {
    await spendPasswordCheck(input.password);
    return signInFailure("CREDENTIAL_ACCOUNT_NOT_FOUND", email, user.id, meta, "INVALID_EMAIL_OR_PASSWORD");
  }
  if (!(await verifyPassword(input.password, hash))) {
    return signInFailure("INVALID_PASSWORD", email, user.id, meta, "INVALID_EMAIL_OR_PASSWORD");
  }
  if (!user.emailVerified) {
    // A banned account is told so, and gets no link that would sign it in.
    await auditingBan(user.id, meta, { method: "email", email }, () => refuseBanned(user.id));
    await sendVerificationMail(user, meta, input.callbackURL);
    return signInFailure("EMAIL_NOT_VERIFIED", email, user.id, meta, "EMAIL_NOT_VERIFIED");
  }
  const rememberMe = input.rememberMe ?? true;
  const created = await signInSession(user.id, meta, { method: "email", rememberMe });
  return { session: created.session, user: created.user, token: created.token, setCookies: created.setCookies };
}

// ---- email verification ----

/** Enough time that "no such account" and "mail sent" cannot be told apart by timing. */
const ANONYMOUS_SEND_FLOOR_MS = 500;

/**
 * Re-sends the verification email. Signed in: only for one's own, unverified address
 * (EMAIL_MISMATCH / EMAIL_ALREADY_VERIFIED). Anonymous: always the same answer, after the
 * same minimum time, whether or not a mail went out.
 */
export async function sendVerificationEmail(
  input: SendVerificationEmailInput,
  meta: RequestMeta,
  current: AuthSession | null,
): Promise<void> {
  const email = normalizeEmail(input.email);
  if (current) {
    if (current.user.email !== email) fail("EMAIL_MISMATCH");
    if (current.user.emailVerified) fail("EMAIL_ALREADY_VERIFIED");
    await sendVerificationMail(current.user, meta, input.callbackURL);
    return;
  }
  const started = Date.now();
  let failure: unknown;
  const user = await prisma.user.findUnique({
    where: { email },
    select: { id: true, email: true, name: true, emailVerified: true },
  });
  if (user && !user.emailVerified) {
    try {
      await sendVerificationMail(user, meta, input.callbackURL);
    } catch (error) {
      failure = error;
    }
  }
  const remaining = ANONYMOUS_SEND_FLOOR_MS - (Date.now() - started);
  if (remaining > 0) await new Promise((resolve) => setTimeout(resolve, remaining));
  if (failure) throw failure;
}

/**
 * Follows a verification link. A plain token marks the address verified and signs the user
 * in (autoSignInAfterVerification); an already verified address just succeeds without a new
 * session. A password that is not the one the link vouches for (set after the link was sent,
 * or a link without one) was never proven by the owner of the address: it is dropped, with
 * every session, so only the person who verified holds the account. A change-email
 * confirmation token (`updateTo`, sent to the old address) switches the account to the new
 * address, unverified, and sends a verification there: the old address agreed to the change,
 * and the new one must still prove itself. (better-auth instead keeps the old email until the
 * new one is verified; both end verified on the new address.)
 * Throws INVALID_TOKEN, TOKEN_EXPIRED, USER_NOT_FOUND or UNAUTHORIZED (signed in as someone else).
 */
export async function verifyEmail(
  token: string,
  meta: RequestMeta,
  current: AuthSession | null,
  callbackURL?: string,
): Promise<{ user: AuthUser | null; setCookies: string[]; emailChanged?: boolean }> {
  const payload = verifyEmailVerificationToken(token);

  if (payload.updateTo) {
    if (!payload.userId) fail("INVALID_TOKEN");
    const user = await prisma.user.findUnique({ where: { id: payload.userId }, select: authUserSelect });
    if (!user) fail("USER_NOT_FOUND");
    // Already applied (or the address changed since): the link is spent.
    if (user.email !== payload.email) fail("INVALID_TOKEN");
    if (current && current.user.id !== user.id) fail("UNAUTHORIZED");
    const newEmail = normalizeEmail(payload.updateTo);
    // The new address's verification first: if it cannot be sent, nothing changes and this
    // confirmation link still works for another try.
    await sendVerificationMail({ id: user.id, email: newEmail, name: user.name }, meta, callbackURL);
    const updated = await moveToUnverifiedEmail(user.id, newEmail);
    await audit({
      userId: user.id,
      category: "email",
      action: "change-email",
      status: "success",
      details: { from: user.email, to: newEmail, step: "confirmed" },
      meta,
    });
    const setCookies = current ? [cookieCacheCookie({ session: current.session, user: updated })] : [];
    return { user: updated, setCookies, emailChanged: true };
  }

  const user = await prisma.user.findUnique({ where: { email: payload.email }, select: authUserSelect });
  if (!user) fail("USER_NOT_FOUND");
  if (payload.userId && payload.userId !== user.id) fail("INVALID_TOKEN");
  if (user.emailVerified) return { user: null, setCookies: [] };

  const account = await credentialAccount(user.id);
  const unproven = Boolean(account?.password) && credentialStamp(account?.password) !== payload.credential;
  const verified = await prisma.$transaction(async (tx) => {
    if (account && unproven) {
      await tx.account.delete({ where: { id: account.id } });
      await deleteSessions(user.id, {}, tx);
    }
    return proveEmail(tx, user);
  });
  await auditEndedLinks(user.id, verified.endedLinks, meta);
  await audit({
    userId: user.id,
    category: "email",
    action: "verify-email",
    status: "success",
    details: unproven ? { droppedUnprovenPassword: true } : null,
    meta,
  });
  if (current && current.user.id === user.id && !unproven) {
    return { user: null, setCookies: [cookieCacheCookie({ session: current.session, user: verified.user })] };
  }
  try {
    const created = await signInSession(user.id, meta, { method: "email-verification" });
    return { user: null, setCookies: created.setCookies };
  } catch (error) {
    // A link in a mailbox is one factor: a user with two-factor signs in as usual afterwards,
    // and one whose organization requires single sign-on signs in through it.
    if (error instanceof SecondFactorRequired || error instanceof SsoRequired) return { user: null, setCookies: [] };
    throw error;
  }
}

/** The catalogue code of a verification failure as the landing page's `?error=` value. */
export function verificationErrorParam(error: AppError): string {
  return (error.code ?? "INVALID_TOKEN").toLowerCase();
}

/**
 * Switches a user to a new address that still has to be verified. The unique index is the
 * final word: another account may take the address between a caller's check and this write.
 */
export async function moveToUnverifiedEmail(userId: string, newEmail: string): Promise<AuthUser> {
  try {
    return await prisma.$transaction(async (tx) => {
      // Reset links were sent to the old address: they end with it.
      await endResetLinks(tx, userId);
      return tx.user.update({
        where: { id: userId },
        data: { email: newEmail, emailVerified: false },
        select: authUserSelect,
      });
    });
  } catch (error) {
    if (isUniqueViolation(error)) fail("USER_ALREADY_EXISTS");
    throw error;
  }
}
