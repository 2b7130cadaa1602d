/**
 * Tokens sent by email.
 *
 * - Email verification: an HS256 JWT signed with AUTH_SECRET (payload `{email, userId?,
 *   updateTo?, requestType?}`, 1 hour), built with node:crypto alone. Stateless, so nothing
 *   needs storing; better-auth's tokens have the same form.
 * - Password reset and delete-account confirmation: random tokens whose sha256 is stored in
 *   `verification` under `reset-password:{hash}` / `delete-account-{hash}`, with an expiry,
 *   consumed once. The raw token only exists in the email.
 */
import { createHmac, timingSafeEqual } from "node:crypto";
import { prisma, type Prisma } from "~/server/db.server";
import { AppError } from "~/server/errors.server";
import { loadEnv } from "~/server/env.server";
import { hashToken, randomToken } from "./session.server";

const EMAIL_VERIFICATION_EXPIRES_IN = 3600; // seconds
export const RESET_PASSWORD_EXPIRES_IN = 3600;
export const DELETE_ACCOUNT_EXPIRES_IN = 24 * 3600;

// ---- HS256 JWT ----

export interface EmailVerificationPayload {
  email: string;
  userId?: string;
  /** The new address, for change-email tokens. */
  updateTo?: string;
  /** e.g. "change-email-confirmation"; absent for a plain verification. */
  requestType?: string;
  /** Fingerprint of the password the account had when the link was sent (accounts.server.ts). */
  credential?: string;
}

const b64url = (value: string | Buffer) => Buffer.from(value).toString("base64url");
const hmac = (data: string) => createHmac("sha256", loadEnv().AUTH_SECRET).update(data).digest();

export function createEmailVerificationToken(
  payload: EmailVerificationPayload,
  expiresIn = EMAIL_VERIFICATION_EXPIRES_IN,
): string {
  const now = Math.floor(Date.now() / 1000);
  const header = b64url(JSON.stringify({ alg: "HS256", typ: "JWT" }));
  const body = b64url(
    JSON.stringify({ ...payload, email: payload.email.toLowerCase(), iat: now, exp: now + expiresIn }),
  );
  return `${header}.${body}.${b64url(hmac(`${header}.${body}`))}`;
}

/** The payload of a genuine, unexpired token; throws INVALID_TOKEN or TOKEN_EXPIRED otherwise. */
export function verifyEmailVerificationToken(token: string): EmailVerificationPayload {
  const parts = token.split(".");
  if (parts.length !== 3) throw new AppError("INVALID_TOKEN");
  const [header, body, signature] = parts as [string, string, string];
  const given = Buffer.from(signature, "base64url");
  const expected = hmac(`${header}.${body}`);
  if (given.length !== expected.length || !timingSafeEqual(given, expected)) throw new AppError("INVALID_TOKEN");
  let claims: Record<string, unknown>;
  try {
    const alg = (JSON.parse(Buffer.from(header, "base64url").toString("utf8")) as { alg?: unknown }).alg;
    if (alg !== "HS256") throw new Error("alg");
    claims = JSON.parse(Buffer.from(body, "base64url").toString("utf8")) as Record<string, unknown>;
  } catch {
    throw new AppError("INVALID_TOKEN");
  }
  if (typeof claims.exp !== "number" || claims.exp * 1000 <= Date.now()) throw new AppError("TOKEN_EXPIRED");
  const optional = (key: string) => (typeof claims[key] === "string" ? (claims[key] as string) : undefined);
  if (typeof claims.email !== "string" || !claims.email.includes("@")) throw new AppError("INVALID_TOKEN");
  return {
    email: claims.email.toLowerCase(),
    userId: optional("userId"),
    updateTo: optional("updateTo"),
    requestType: optional("requestType"),
    credential: optional("credential"),
  };
}

// ---- stored single-use tokens ----

export const RESET_PASSWORD_PREFIX = "reset-password:";
export const DELETE_ACCOUNT_PREFIX = "delete-account-";

/** A reset-password token: 24 characters [A-Za-z0-9]. */
export const newResetPasswordToken = () => randomToken(24);
/** A delete-account token: 32 lowercase letters and digits. */
export const newDeleteAccountToken = () => randomToken(32, "abcdefghijklmnopqrstuvwxyz0123456789");

const identifierOf = (prefix: string, token: string) => `${prefix}${hashToken(token)}`;

/** Stores `value` (e.g. a user id) under the token's hash for `expiresIn` seconds. */
export async function storeToken(prefix: string, token: string, value: string, expiresIn: number): Promise<void> {
  await prisma.verification.create({
    data: { identifier: identifierOf(prefix, token), value, expiresAt: new Date(Date.now() + expiresIn * 1000) },
  });
}

/** The value stored under an unexpired token, without using it up (e.g. to check a link). */
export async function peekToken(prefix: string, token: string): Promise<string | null> {
  const row = await prisma.verification.findFirst({
    where: { identifier: identifierOf(prefix, token), expiresAt: { gt: new Date() } },
    select: { value: true },
  });
  return row?.value ?? null;
}

/**
 * Uses a token up: returns its value once, null for an unknown, expired or already used
 * token. The delete decides, so two concurrent uses cannot both succeed.
 */
export async function consumeToken(prefix: string, token: string): Promise<string | null> {
  const row = await prisma.verification.findFirst({
    where: { identifier: identifierOf(prefix, token) },
    select: { id: true, value: true, expiresAt: true },
  });
  if (!row) return null;
  const { count } = await prisma.verification.deleteMany({ where: { id: row.id } });
  if (count !== 1 || row.expiresAt.getTime() <= Date.now()) return null;
  return row.value;
}

/** Ends every outstanding reset link of the user (after a reset, a password or an email change). */
export async function endResetLinks(db: Pick<Prisma.TransactionClient, "verification">, userId: string): Promise<void> {
  await db.verification.deleteMany({ where: { identifier: { startsWith: RESET_PASSWORD_PREFIX }, value: userId } });
}
