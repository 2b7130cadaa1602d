/**
 * Two-factor authentication (the requests and answers of better-auth's two-factor plugin,
 * with the stricter rules of docs/decisions/0015):
 *
 * - TOTP (RFC 6238: HMAC-SHA1, 6 digits, 30 s; the previous, current and next step are
 *   accepted). The accepted step is remembered, so a code works once: neither it nor an
 *   older one is accepted again. The secret is encrypted at rest.
 * - Ten backup codes, stored as HMACs, each good once (one row each: using one deletes it).
 *   A set made with an authenticator set-up waits beside it and replaces the user's codes only
 *   when the set-up's first code confirms it.
 * - A six-digit code by email, valid 3 minutes, hashed, 5 wrong tries.
 * - Switching two-factor on always takes the password, and only happens after a first valid
 *   code from the authenticator. An authenticator that never gave that code counts for
 *   nothing at sign-in, and its secret is shown again only to someone who gives the password.
 *
 * Sign-in: when the first factor was right for a user with two-factor (and the browser is
 * not a trusted one), `signInSession` throws `SecondFactorRequired` instead of making a
 * session: a PendingSignIn row, named by a short-lived signed cookie, waits for the second
 * step (the gate is in sign-in.server.ts). Limits: 5 code tries per pending sign-in; 10 tries
 * in a row without a right code (across sign-ins) lock the second step for 15 minutes. Each
 * try is taken before its code is checked, in one statement, so codes sent at once cannot all
 * be checked before the count catches up. A new password ends every pending sign-in.
 */
import { createHmac, randomBytes, randomInt, timingSafeEqual } from "node:crypto";
import { decodeBase32IgnorePadding, encodeBase32UpperCaseNoPadding } from "@oslojs/encoding";
import { generateHOTP } from "@oslojs/otp";
import { z } from "zod";
import { audit } from "~/server/audit.server";
import { decryptSecret, encryptSecret } from "~/server/crypto.server";
import { prisma, type Prisma, type TwoFactor } from "~/server/db.server";
import { loadEnv } from "~/server/env.server";
import { fail } from "~/server/errors.server";
import { i18nFor } from "~/server/i18n.server";
import { sendMail } from "~/server/mail/index.server";
import { credentialAccount, removeTwoFactor } from "./accounts.server";
import { backupCodeCandidates, newBackupCode } from "./backup-codes.server";
import { verifyPassword } from "./password.server";
import { booleanish } from "./schemas.server";
import { methodsOf, pendingCookieName, signInSession, trustDevice } from "./sign-in.server";
import {
  authUserSelect,
  createSession,
  deleteSessions,
  expiredCookie,
  hashToken,
  readSignedCookie,
  trustDeviceCookieName,
  wasRemembered,
  type AuthSession,
  type AuthUser,
  type RequestMeta,
} from "./session.server";

type Tx = Prisma.TransactionClient;

const TOTP_PERIOD = 30;
const TOTP_DIGITS = 6;
const OTP_LIFETIME = 3 * 60;
const BACKUP_CODE_COUNT = 10;
/** Code tries on one pending sign-in (TOTP and backup codes), and on one emailed code. */
const MAX_ATTEMPTS = 5;
const LOCK_AFTER_FAILURES = 10;
const LOCK_DURATION = 15 * 60;

// ---- inputs (the API's and the pages') ----

const code = z.string().trim().min(1);
export const enableInput = z.object({
  password: z.string().min(1),
  method: z.enum(["totp", "otp"]).optional(),
  issuer: z.string().max(100).optional(),
});
export const passwordInput = z.object({ password: z.string().min(1) });
export const verifyCodeInput = z.object({ code, trustDevice: booleanish.optional() });
export const verifyBackupCodeInput = verifyCodeInput.extend({ disableSession: booleanish.optional() });
export const sendOtpInput = z.object({ trustDevice: booleanish.optional() });

// ---- who is taking the second step ----

type PendingRow = Prisma.PendingSignInGetPayload<{ include: { user: { select: typeof authUserSelect } } }>;
export type SecondStepCaller = { kind: "pending"; pending: PendingRow } | { kind: "session"; auth: AuthSession };

/**
 * The pending sign-in the request's cookie names, else the session; neither (or a forged,
 * expired or spent cookie) is 401 INVALID_TWO_FACTOR_COOKIE.
 */
export async function secondStepCaller(request: Request, auth: AuthSession | null): Promise<SecondStepCaller> {
  const pending = await pendingSignIn(request);
  if (pending) return { kind: "pending", pending };
  if (auth) return { kind: "session", auth };
  fail("INVALID_TWO_FACTOR_COOKIE");
}

/** The live pending sign-in the request's cookie names, or null. */
export async function pendingSignIn(request: Request): Promise<PendingRow | null> {
  const token = readSignedCookie(request, pendingCookieName());
  if (!token) return null;
  const row = await prisma.pendingSignIn.findUnique({
    where: { tokenHash: hashToken(token) },
    include: { user: { select: authUserSelect } },
  });
  return row && row.expiresAt.getTime() > Date.now() ? row : null;
}

/** The second-step methods a pending sign-in can use (the page shows their forms). */
export const pendingMethods = (pending: PendingRow) => methodsOf(pending.userId);

// ---- codes ----

const macOf = (purpose: string, value: string) =>
  createHmac("sha256", loadEnv().AUTH_SECRET).update(`${purpose}:${value}`).digest("base64url");

function sameString(a: string, b: string): boolean {
  const left = Buffer.from(a);
  const right = Buffer.from(b);
  return left.length === right.length && timingSafeEqual(left, right);
}

const currentStep = () => Math.floor(Date.now() / 1000 / TOTP_PERIOD);

/** The TOTP code of `secret` (base32) at `step`; tests and the bench compute codes with it. */
function totpAt(secret: string, step: number): string {
  return generateHOTP(decodeBase32IgnorePadding(secret), BigInt(step), TOTP_DIGITS);
}

/**
 * True when `given` is the code of the previous, current or next step and that step is later
 * than the last one accepted; the step is claimed in the same statement, so a code (or an
 * older one) cannot be used twice, even by two requests at once.
 */
async function acceptTotp(row: TwoFactor, given: string): Promise<boolean> {
  if (!row.secret || !/^\d{6}$/.test(given)) return false;
  const secret = decryptSecret(loadEnv().AUTH_SECRET, row.secret);
  const now = currentStep();
  const step = [now - 1, now, now + 1].find((s) => sameString(totpAt(secret, s), given));
  if (step === undefined) return false;
  const { count } = await prisma.twoFactor.updateMany({
    where: { id: row.id, OR: [{ lastUsedStep: null }, { lastUsedStep: { lt: step } }] },
    data: { lastUsedStep: step },
  });
  return count === 1;
}

/** Uses up the stored code the typed one stands for (see backupCodeCandidates), if any. */
async function acceptBackupCode(userId: string, given: string): Promise<boolean> {
  for (const candidate of backupCodeCandidates(given)) {
    const { count } = await prisma.backupCode.deleteMany({
      where: { userId, codeHash: macOf("backup-code", candidate) },
    });
    if (count === 1) return true;
  }
  return false;
}

/** Ten new backup codes: as shown (once), and their HMACs as stored. */
function newBackupCodes(): { codes: string[]; hashes: string[] } {
  const made = Array.from({ length: BACKUP_CODE_COUNT }, newBackupCode);
  return {
    codes: made.map(({ shown }) => shown),
    hashes: made.map(({ value }) => macOf("backup-code", value)),
  };
}

/** The user's backup codes become exactly `hashes`. */
async function replaceBackupCodes(tx: Tx, userId: string, hashes: string[]): Promise<void> {
  await tx.backupCode.deleteMany({ where: { userId } });
  await tx.backupCode.createMany({ data: hashes.map((codeHash) => ({ userId, codeHash })) });
}

// ---- enabling, disabling, backup codes (a session and the password) ----

async function assertPassword(auth: AuthSession, password: string, meta: RequestMeta, action: string) {
  const account = await credentialAccount(auth.user.id);
  const ok = Boolean(account?.password) && (await verifyPassword(password, account!.password!));
  if (ok) return;
  await audit({
    userId: auth.user.id,
    category: "security",
    action,
    status: "failure",
    details: { reason: account?.password ? "INVALID_PASSWORD" : "CREDENTIAL_ACCOUNT_NOT_FOUND" },
    meta,
  });
  fail(account?.password ? "INVALID_PASSWORD" : "CREDENTIAL_ACCOUNT_NOT_FOUND");
}

export function totpURI(secret: string, email: string, issuer: string): string {
  const label = `${encodeURIComponent(issuer)}:${encodeURIComponent(email)}`;
  const query = new URLSearchParams({ secret, issuer, digits: String(TOTP_DIGITS), period: String(TOTP_PERIOD) });
  return `otpauth://totp/${label}?${query}`;
}

/** The product's name as authenticator apps show it. */
const defaultIssuer = () => i18nFor("en").t("common:brand");

/** The setup QR code as an SVG document, drawn on the server so it shows without JavaScript. */
export async function qrCodeSvg(uri: string): Promise<string> {
  // Loaded when a code is drawn (setting up two-factor), not with every server start.
  const { default: QRCode } = await import("qrcode");
  return QRCode.toString(uri, { type: "svg", margin: 1, errorCorrectionLevel: "M" });
}

/** The base32 secret of an otpauth URI (the setup page shows it as text too). */
export const secretOf = (uri: string) => new URL(uri).searchParams.get("secret") ?? "";

/**
 * Starts two-factor. TOTP: a new secret is stored unverified, with a new set of backup codes
 * that waits beside the current one; at the first valid code (`verifySecondStep`) the secret
 * counts and the new set replaces the old. Email codes: on at once.
 */
export async function enableTwoFactor(
  auth: AuthSession,
  input: z.infer<typeof enableInput>,
  meta: RequestMeta,
): Promise<
  | { method: "totp"; totpURI: string; backupCodes: string[] }
  | { method: "otp"; session: Awaited<ReturnType<typeof replaceSession>> }
> {
  await assertPassword(auth, input.password, meta, "two-factor-enable");
  const existing = await prisma.twoFactor.findUnique({ where: { userId: auth.user.id } });
  if (input.method === "otp") {
    await prisma.$transaction(async (tx) => {
      if (!existing) await tx.twoFactor.create({ data: { userId: auth.user.id } });
      await tx.user.update({ where: { id: auth.user.id }, data: { twoFactorEnabled: true } });
    });
    await audit({
      userId: auth.user.id,
      category: "security",
      action: "two-factor-enabled",
      status: "success",
      details: { method: "otp" },
      meta,
    });
    return { method: "otp", session: await replaceSession(auth, meta) };
  }
  if (existing?.secret && existing.verified) fail("TOTP_ALREADY_ENABLED");
  const secret = encodeBase32UpperCaseNoPadding(randomBytes(20));
  const { codes, hashes } = newBackupCodes();
  const data = {
    secret: encryptSecret(loadEnv().AUTH_SECRET, secret),
    verified: false,
    lastUsedStep: null,
    pendingBackupCodes: hashes.join(" "),
  };
  await prisma.twoFactor.upsert({
    where: { userId: auth.user.id },
    create: { userId: auth.user.id, ...data },
    update: data,
  });
  return {
    method: "totp",
    totpURI: totpURI(secret, auth.user.email, input.issuer || defaultIssuer()),
    backupCodes: codes,
  };
}

/** The otpauth URI of the secret stored at enable, confirmed or not (password required). */
export async function getTotpURI(auth: AuthSession, password: string, meta: RequestMeta): Promise<string> {
  await assertPassword(auth, password, meta, "two-factor-get-uri");
  const row = await prisma.twoFactor.findUnique({ where: { userId: auth.user.id } });
  if (!row?.secret) fail("TOTP_NOT_ENABLED");
  return totpURI(decryptSecret(loadEnv().AUTH_SECRET, row.secret), auth.user.email, defaultIssuer());
}

/** Switches two-factor off; the session is replaced and every trusted browser forgotten. */
export async function disableTwoFactor(auth: AuthSession, password: string, meta: RequestMeta) {
  await assertPassword(auth, password, meta, "two-factor-disable");
  await removeTwoFactor(auth.user.id);
  await audit({ userId: auth.user.id, category: "security", action: "two-factor-disabled", status: "success", meta });
  const session = await replaceSession(auth, meta);
  session.setCookies.push(expiredCookie(trustDeviceCookieName()));
  return session;
}

/** Ends the old set of backup codes and returns a new one (shown once). */
export async function regenerateBackupCodes(auth: AuthSession, password: string, meta: RequestMeta) {
  await assertPassword(auth, password, meta, "backup-codes-regenerated");
  const user = await prisma.user.findUnique({ where: { id: auth.user.id }, select: { twoFactorEnabled: true } });
  if (!user?.twoFactorEnabled) fail("TWO_FACTOR_NOT_ENABLED");
  const { codes, hashes } = newBackupCodes();
  await prisma.$transaction((tx) => replaceBackupCodes(tx, auth.user.id, hashes));
  await audit({
    userId: auth.user.id,
    category: "security",
    action: "backup-codes-regenerated",
    status: "success",
    meta,
  });
  return codes;
}

/**
 * A privilege change gets a new session token: a new session like the current one, and the
 * current one ends (on every instance).
 */
async function replaceSession(auth: AuthSession, meta: Partial<RequestMeta>) {
  const created = await createSession(auth.user.id, meta, {
    rememberMe: wasRemembered(auth.session),
    signInMethod: auth.session.signInMethod,
  });
  await deleteSessions(auth.user.id, { id: auth.session.id });
  return created;
}

// ---- the second step ----

type StepKind = "totp" | "otp" | "backup-code";
const INVALID: Record<StepKind, "INVALID_CODE" | "INVALID_BACKUP_CODE"> = {
  totp: "INVALID_CODE",
  otp: "INVALID_CODE",
  "backup-code": "INVALID_BACKUP_CODE",
};

export interface SecondStepResult {
  token: string;
  user: AuthUser;
  setCookies: string[];
}

/** Answers 429 while the user's second step is locked. */
function assertNotLocked(row: TwoFactor | null): void {
  if (row?.lockedUntil && row.lockedUntil.getTime() > Date.now()) fail("ACCOUNT_TEMPORARILY_LOCKED");
}

const notLocked = (now: Date) => ({ OR: [{ lockedUntil: null }, { lockedUntil: { lte: now } }] });

/**
 * Takes one of the user's tries at a second step before its code is checked, in one
 * statement: codes sent at once (from many pending sign-ins, many addresses) are counted at
 * once, so no more than LOCK_AFTER_FAILURES of them are ever checked before the lock. While
 * locked, or with the tries used up, 429; the second case locks, should its lock not have
 * been written yet. A right code gives the tries back (finishPending).
 */
async function takeTry(row: TwoFactor): Promise<void> {
  const now = new Date();
  const { count } = await prisma.twoFactor.updateMany({
    where: { id: row.id, failedCount: { lt: LOCK_AFTER_FAILURES }, ...notLocked(now) },
    data: { failedCount: { increment: 1 } },
  });
  if (count === 1) return;
  await lock(row, now);
  fail("ACCOUNT_TEMPORARILY_LOCKED");
}

/** Locks the second step for LOCK_DURATION, unless a lock is running already. */
function lock(row: TwoFactor, now: Date) {
  return prisma.twoFactor.updateMany({
    where: { id: row.id, ...notLocked(now) },
    data: { failedCount: 0, lockedUntil: new Date(now.getTime() + LOCK_DURATION * 1000) },
  });
}

/** A wrong code, its try already taken: the tenth in a row locks the second step. */
async function recordFailure(row: TwoFactor, caller: PendingRow, kind: StepKind, meta: RequestMeta) {
  const current = await prisma.twoFactor.findUnique({ where: { id: row.id }, select: { failedCount: true } });
  const locked = (current?.failedCount ?? 0) >= LOCK_AFTER_FAILURES;
  if (locked) await lock(row, new Date());
  await audit({
    userId: caller.userId,
    category: "security",
    action: "two-factor-failed",
    status: "failure",
    details: { method: kind, locked },
    meta,
  });
}

/**
 * Spends the pending sign-in and makes the session it was waiting for (with a trusted-device
 * cookie when asked). Spending it first means two good codes at once make one session.
 */
async function finishPending(pending: PendingRow, kind: StepKind, trust: boolean, meta: RequestMeta) {
  const { count } = await prisma.pendingSignIn.deleteMany({ where: { id: pending.id } });
  if (count !== 1) fail("INVALID_TWO_FACTOR_COOKIE");
  await prisma.twoFactor.updateMany({ where: { userId: pending.userId }, data: { failedCount: 0 } });
  const created = await signInSession(pending.userId, meta, {
    method: pending.method,
    rememberMe: pending.rememberMe,
    secondFactor: kind,
  });
  const setCookies = [...created.setCookies, expiredCookie(pendingCookieName())];
  if (trust) setCookies.push(await trustDevice(pending.userId, meta));
  return { token: created.session.token, user: created.user, setCookies };
}

/**
 * Checks a second-step code for a pending sign-in (which then becomes a session) or for a
 * signed-in user (nothing changes, except that a first TOTP code switches two-factor on).
 */
export async function verifySecondStep(
  caller: SecondStepCaller,
  kind: StepKind,
  input: { code: string; trustDevice?: boolean },
  meta: RequestMeta,
): Promise<SecondStepResult> {
  const userId = caller.kind === "pending" ? caller.pending.userId : caller.auth.user.id;
  const row = await prisma.twoFactor.findUnique({ where: { userId } });
  // At sign-in only a confirmed authenticator counts; a signed-in user's code may confirm one.
  if (kind === "totp" && !(row?.secret && (row.verified || caller.kind === "session"))) fail("TOTP_NOT_ENABLED");
  if (kind === "otp" && !row) fail("OTP_NOT_CONFIGURED");
  if (kind === "backup-code" && !(await prisma.backupCode.count({ where: { userId } }))) {
    fail("BACKUP_CODES_NOT_ENABLED");
  }
  if (caller.kind === "session") return verifySignedIn(caller.auth, row!, kind, input.code, meta);

  const pending = caller.pending;
  if (row) await takeTry(row);
  if (kind !== "otp") {
    const { attempts } = await prisma.pendingSignIn.update({
      where: { id: pending.id },
      data: { attempts: { increment: 1 } },
    });
    if (attempts > MAX_ATTEMPTS) {
      // Spent: the next try needs a new sign-in.
      await prisma.pendingSignIn.deleteMany({ where: { id: pending.id } });
      fail("TOO_MANY_ATTEMPTS_REQUEST_NEW_CODE");
    }
  }
  const ok = await acceptCode(kind, row!, userId, input.code);
  if (!ok) {
    if (row) await recordFailure(row, pending, kind, meta);
    fail(INVALID[kind]);
  }
  if (kind === "backup-code") {
    await audit({ userId, category: "security", action: "backup-code-used", status: "success", meta });
  }
  return finishPending(pending, kind, Boolean(input.trustDevice), meta);
}

async function verifySignedIn(
  auth: AuthSession,
  row: TwoFactor,
  kind: StepKind,
  given: string,
  meta: RequestMeta,
): Promise<SecondStepResult> {
  const ok = await acceptCode(kind, row, auth.user.id, given);
  if (!ok) fail(INVALID[kind]);
  if (kind === "totp" && !row.verified) {
    // The first code from the authenticator: two-factor is on from now, with the set-up's codes.
    await prisma.$transaction(async (tx) => {
      // Only the secret the code was checked against: a set-up started again meanwhile waits.
      const { count } = await tx.twoFactor.updateMany({
        where: { id: row.id, secret: row.secret },
        data: { verified: true, pendingBackupCodes: null },
      });
      if (count !== 1) fail("INVALID_CODE");
      if (row.pendingBackupCodes) await replaceBackupCodes(tx, auth.user.id, row.pendingBackupCodes.split(" "));
      await tx.user.update({ where: { id: auth.user.id }, data: { twoFactorEnabled: true } });
    });
    await audit({
      userId: auth.user.id,
      category: "security",
      action: "two-factor-enabled",
      status: "success",
      details: { method: "totp" },
      meta,
    });
    const created = await replaceSession(auth, meta);
    return { token: created.session.token, user: created.user, setCookies: created.setCookies };
  }
  if (kind === "backup-code") {
    await audit({ userId: auth.user.id, category: "security", action: "backup-code-used", status: "success", meta });
  }
  return { token: auth.session.token, user: auth.user, setCookies: [] };
}

/** Checks (and spends) a code of `kind` for the user. */
function acceptCode(kind: StepKind, row: TwoFactor, userId: string, given: string): Promise<boolean> {
  if (kind === "totp") return acceptTotp(row, given);
  if (kind === "otp") return acceptOtp(row, given);
  return acceptBackupCode(userId, given);
}

// ---- codes by email ----

/** Sends a new six-digit code to the user's address (it replaces any earlier one). */
export async function sendOtp(caller: SecondStepCaller, meta: RequestMeta): Promise<void> {
  const user = caller.kind === "pending" ? caller.pending.user : caller.auth.user;
  const row = await prisma.twoFactor.findUnique({ where: { userId: user.id } });
  if (!row) fail("OTP_NOT_CONFIGURED");
  assertNotLocked(row);
  const otp = String(randomInt(0, 1_000_000)).padStart(6, "0");
  await prisma.twoFactor.update({
    where: { id: row.id },
    data: {
      otpHash: macOf("otp", `${user.id}:${otp}`),
      otpExpiresAt: new Date(Date.now() + OTP_LIFETIME * 1000),
      otpAttempts: 0,
    },
  });
  await sendMail({
    to: user.email,
    template: "two-factor-code",
    locale: meta.locale,
    data: { code: otp, name: user.name },
  });
}

/**
 * Spends the emailed code when `given` is it (in one statement, so it works once). Each try
 * is taken before the code is compared, also in one statement, so tries sent at once count
 * at once: after MAX_ATTEMPTS the code is gone.
 */
async function acceptOtp(row: TwoFactor, given: string): Promise<boolean> {
  const now = new Date();
  const live = { id: row.id, otpHash: { not: null }, otpExpiresAt: { gt: now } };
  const { count: taken } = await prisma.twoFactor.updateMany({
    where: { ...live, otpAttempts: { lt: MAX_ATTEMPTS } },
    data: { otpAttempts: { increment: 1 } },
  });
  if (taken !== 1) {
    const { count: spent } = await prisma.twoFactor.updateMany({
      where: live,
      data: { otpHash: null, otpExpiresAt: null },
    });
    fail(spent === 1 ? "TOO_MANY_ATTEMPTS_REQUEST_NEW_CODE" : "OTP_HAS_EXPIRED");
  }
  const { count } = await prisma.twoFactor.updateMany({
    where: { ...live, otpHash: macOf("otp", `${row.userId}:${given}`) },
    data: { otpHash: null, otpExpiresAt: null, otpAttempts: 0 },
  });
  return count === 1;
}

// ---- what the profile shows ----

export async function twoFactorState(userId: string) {
  const [row, backupCodes, trustedDevices] = await Promise.all([
    prisma.twoFactor.findUnique({ where: { userId }, select: { secret: true, verified: true } }),
    prisma.backupCode.count({ where: { userId } }),
    prisma.trustedDevice.count({ where: { userId, expiresAt: { gt: new Date() } } }),
  ]);
  return {
    totp: Boolean(row?.secret && row.verified),
    /** Enable was started (a secret waits for its first code). */
    setupPending: Boolean(row?.secret && !row.verified),
    backupCodes,
    trustedDevices,
  };
}
