/**
 * Passkeys (WebAuthn): the requests and answers of better-auth's passkey plugin on
 * @simplewebauthn/server, with the stricter rules of docs/decisions/0016-passkeys.md.
 *
 * - The relying party is BASE_URL: its hostname is the RP id, its origin the only origin a
 *   response may come from (never the request's own Origin header, which the caller chooses).
 * - A ceremony's challenge lives 5 minutes in the verification table under the hash of a
 *   random 32-character token; the browser holds the token in a signed cookie. The first
 *   verify deletes the record before anything else is checked, so each challenge gets one try.
 * - User verification is asked for ("preferred") but not required: a passkey is a possession
 *   factor whatever the authenticator's PIN or biometrics did.
 */
import type {
  AuthenticationResponseJSON,
  AuthenticatorTransportFuture,
  PublicKeyCredentialCreationOptionsJSON,
  PublicKeyCredentialRequestOptionsJSON,
  RegistrationResponseJSON,
} from "@simplewebauthn/server";
import { z } from "zod";
import { defaultLocale } from "~/i18n/config";
import { audit } from "~/server/audit.server";
import { isUniqueViolation, prisma } from "~/server/db.server";
import { loadEnv } from "~/server/env.server";
import { fail, type ErrorCode } from "~/server/errors.server";
import { i18nFor } from "~/server/i18n.server";
import { signInSession } from "./sign-in.server";
import {
  cookieName,
  randomToken,
  readSignedCookie,
  signedCookie,
  type AuthSession,
  type RequestMeta,
} from "./session.server";
import { consumeToken, storeToken } from "./tokens.server";
import { logger } from "~/server/log.server";

/** The WebAuthn library loads with the first passkey ceremony: most requests never need it. */
const webauthn = () => import("@simplewebauthn/server");

const PASSKEY_CHALLENGE_EXPIRES_IN = 5 * 60; // seconds, cookie and record alike
const CHALLENGE_PREFIX = "passkey-challenge:";
// better-auth's `better-auth.better-auth-passkey`, under our cookie prefix.
const passkeyChallengeCookieName = () => cookieName("better-auth-passkey");
// The counter column is a 32-bit integer on both databases; a larger signCount cannot be stored.
const MAX_COUNTER = 2 ** 31 - 1;

// ---- inputs ----

// The shapes of @simplewebauthn's RegistrationResponseJSON and AuthenticationResponseJSON.
// Only the types are checked here: what the values mean (credential type, encodings, client
// data) is the verifier's to judge, so a wrong value answers the ceremony's own error code.
const credentialFields = {
  id: z.string(),
  rawId: z.string(),
  type: z.string(),
  clientExtensionResults: z.record(z.string(), z.unknown()).default({}),
  authenticatorAttachment: z.string().optional(),
};

const registrationResponseSchema = z.looseObject({
  ...credentialFields,
  response: z.looseObject({
    clientDataJSON: z.string(),
    attestationObject: z.string(),
    transports: z.array(z.string()).optional(),
  }),
});

const authenticationResponseSchema = z.looseObject({
  ...credentialFields,
  response: z.looseObject({
    clientDataJSON: z.string(),
    authenticatorData: z.string(),
    signature: z.string(),
    userHandle: z.string().optional(),
  }),
});

export const AUTHENTICATOR_ATTACHMENTS = ["platform", "cross-platform"] as const;
export interface RegistrationOptionsInput {
  /** The user name the authenticator shows (default: the email). */
  name?: string;
  authenticatorAttachment?: (typeof AUTHENTICATOR_ATTACHMENTS)[number];
}

export const verifyRegistrationInput = z.object({
  response: registrationResponseSchema,
  name: z.string().optional(),
});
export type VerifyRegistrationInput = z.infer<typeof verifyRegistrationInput>;

export const verifyAuthenticationInput = z.object({ response: authenticationResponseSchema });
export type VerifyAuthenticationInput = z.infer<typeof verifyAuthenticationInput>;

export const updatePasskeyInput = z.object({ id: z.string().min(1), name: z.string().trim().min(1) });
export type UpdatePasskeyInput = z.infer<typeof updatePasskeyInput>;

export const deletePasskeyInput = z.object({ id: z.string().min(1) });
export type DeletePasskeyInput = z.infer<typeof deletePasskeyInput>;

// ---- the relying party ----

function relyingParty() {
  const url = new URL(loadEnv().BASE_URL);
  return {
    rpID: url.hostname,
    origin: url.origin,
    // The product's name, as the navbar shows it; authenticators list passkeys under it.
    rpName: i18nFor(defaultLocale).t("brand", { ns: "common" }),
  };
}

/** What a response must carry: the challenge this server issued, signed for this origin and RP id. */
function expected(expectedChallenge: string) {
  const { rpID, origin } = relyingParty();
  return { expectedChallenge, expectedOrigin: origin, expectedRPID: rpID, requireUserVerification: false };
}

// ---- rows ----

/** better-auth's passkey row, column for column. */
const passkeySelect = {
  id: true,
  name: true,
  publicKey: true,
  userId: true,
  credentialID: true,
  counter: true,
  deviceType: true,
  backedUp: true,
  transports: true,
  createdAt: true,
  aaguid: true,
} as const;

const transportsOf = (joined: string | null) =>
  joined ? (joined.split(",") as AuthenticatorTransportFuture[]) : undefined;

/** The user's passkeys, oldest first. */
export function listPasskeys(userId: string) {
  return prisma.passkey.findMany({ where: { userId }, select: passkeySelect, orderBy: { createdAt: "asc" } });
}
export type PasskeyRow = Awaited<ReturnType<typeof listPasskeys>>[number];

// ---- challenges ----

const challengeRecord = z.object({
  type: z.enum(["registration", "authentication"]),
  expectedChallenge: z.string(),
  userId: z.string().optional(),
});
type ChallengeRecord = z.infer<typeof challengeRecord>;

/** Stores the ceremony's challenge; returns the cookie that names it. */
async function storeChallenge(record: ChallengeRecord): Promise<string> {
  const token = randomToken(32);
  await storeToken(CHALLENGE_PREFIX, token, JSON.stringify(record), PASSKEY_CHALLENGE_EXPIRES_IN);
  // Conditional UI makes a challenge on every sign-in page view; most are never used.
  if (Math.random() < 0.01) void sweepChallenges();
  return signedCookie(passkeyChallengeCookieName(), token, PASSKEY_CHALLENGE_EXPIRES_IN);
}

async function sweepChallenges(): Promise<void> {
  try {
    await prisma.verification.deleteMany({
      where: { identifier: { startsWith: CHALLENGE_PREFIX }, expiresAt: { lt: new Date() } },
    });
  } catch (error) {
    logger().error({ err: error }, "Passkey challenge cleanup failed");
  }
}

/**
 * Uses up the request's challenge of ceremony `type`: CHALLENGE_NOT_FOUND when the cookie is
 * missing or forged, or its record unknown, expired, already used or of the other ceremony.
 * The record is gone whatever follows, so a response can never be tried twice.
 */
async function consumeChallenge(request: Request, type: ChallengeRecord["type"]): Promise<ChallengeRecord> {
  const token = readSignedCookie(request, passkeyChallengeCookieName());
  const value = token ? await consumeToken(CHALLENGE_PREFIX, token) : null;
  const record = value === null ? null : challengeRecord.safeParse(JSON.parse(value)).data;
  if (!record || record.type !== type) fail("CHALLENGE_NOT_FOUND");
  return record;
}

// ---- registration ----

/** Creation options for a new passkey of the signed-in user, and the challenge cookie. */
export async function registrationOptions(
  auth: AuthSession,
  input: RegistrationOptionsInput,
): Promise<{ options: PublicKeyCredentialCreationOptionsJSON; cookie: string }> {
  const { rpID, rpName } = relyingParty();
  const existing = await prisma.passkey.findMany({
    where: { userId: auth.user.id },
    select: { credentialID: true, transports: true },
  });
  const options = await (
    await webauthn()
  ).generateRegistrationOptions({
    rpName,
    rpID,
    // No userID: the library makes a random one, so the authenticator learns nothing of ours.
    userName: input.name || auth.user.email,
    userDisplayName: auth.user.email,
    attestationType: "none",
    // An authenticator that already holds one of the user's passkeys is not asked for another.
    excludeCredentials: existing.map((passkey) => ({
      id: passkey.credentialID,
      transports: transportsOf(passkey.transports),
    })),
    authenticatorSelection: {
      residentKey: "preferred",
      userVerification: "preferred",
      ...(input.authenticatorAttachment && { authenticatorAttachment: input.authenticatorAttachment }),
    },
  });
  const cookie = await storeChallenge({
    type: "registration",
    expectedChallenge: options.challenge,
    userId: auth.user.id,
  });
  return { options, cookie };
}

/**
 * Checks an authenticator's registration response against the request's challenge and
 * stores the passkey. A response that does not verify, or whose credential is already
 * registered (to anyone), is FAILED_TO_VERIFY_REGISTRATION (400).
 */
export async function verifyRegistration(
  auth: AuthSession,
  request: Request,
  input: VerifyRegistrationInput,
  meta: RequestMeta,
): Promise<PasskeyRow> {
  const challenge = await consumeChallenge(request, "registration");
  if (challenge.userId !== auth.user.id) fail("YOU_ARE_NOT_ALLOWED_TO_REGISTER_THIS_PASSKEY");
  const info = await (
    await webauthn()
  )
    .verifyRegistrationResponse({
      response: input.response as RegistrationResponseJSON,
      ...expected(challenge.expectedChallenge),
    })
    .then(
      (result) => (result.verified ? result.registrationInfo : null),
      () => null, // the library throws for every malformed or mismatched response
    );
  if (!info || info.credential.counter > MAX_COUNTER) fail("FAILED_TO_VERIFY_REGISTRATION");

  let passkey: PasskeyRow;
  try {
    passkey = await prisma.passkey.create({
      data: {
        name: input.name?.trim() || null,
        userId: auth.user.id,
        credentialID: info.credential.id,
        publicKey: Buffer.from(info.credential.publicKey).toString("base64"),
        counter: info.credential.counter,
        deviceType: info.credentialDeviceType,
        backedUp: info.credentialBackedUp,
        transports: input.response.response.transports?.join(",") || null,
        aaguid: info.aaguid,
      },
      select: passkeySelect,
    });
  } catch (error) {
    if (isUniqueViolation(error)) fail("FAILED_TO_VERIFY_REGISTRATION");
    throw error;
  }
  await audit({
    userId: auth.user.id,
    category: "security",
    action: "add-passkey",
    status: "success",
    targetType: "passkey",
    targetId: passkey.id,
    details: { name: passkey.name, deviceType: passkey.deviceType },
    meta,
  });
  return passkey;
}

// ---- authentication ----

/**
 * Request options for signing in, and the challenge cookie. Anyone may ask; a signed-in
 * caller's own credentials are listed (better-auth does the same), otherwise the browser
 * offers whichever passkey of this site the person picks.
 */
export async function authenticationOptions(
  auth: AuthSession | null,
): Promise<{ options: PublicKeyCredentialRequestOptionsJSON; cookie: string }> {
  const { rpID } = relyingParty();
  const mine = auth
    ? await prisma.passkey.findMany({
        where: { userId: auth.user.id },
        select: { credentialID: true, transports: true },
      })
    : [];
  const options = await (
    await webauthn()
  ).generateAuthenticationOptions({
    rpID,
    userVerification: "preferred",
    ...(mine.length && {
      allowCredentials: mine.map((passkey) => ({
        id: passkey.credentialID,
        transports: transportsOf(passkey.transports),
      })),
    }),
  });
  const cookie = await storeChallenge({ type: "authentication", expectedChallenge: options.challenge });
  return { options, cookie };
}

/** A refused passkey sign-in: its audit row, then the error. */
async function signInFailure(
  reason: string,
  userId: string | null,
  credentialID: string,
  meta: RequestMeta,
  code: ErrorCode,
  status?: number,
): Promise<never> {
  await audit({
    userId,
    category: "auth",
    action: "sign-in",
    status: "failure",
    details: { method: "passkey", reason, credentialID },
    meta,
  });
  fail(code, undefined, status);
}

/**
 * Signs in with an authenticator's assertion: the challenge is used up, the credential must
 * be registered (401 PASSKEY_NOT_FOUND), the response must match the challenge, origin and
 * RP id with the user present and a counter that went up when either is non-zero (400
 * AUTHENTICATION_FAILED), the signature must hold (401 AUTHENTICATION_FAILED), and the
 * user must not be banned (an expired ban is lifted, as in signInEmail).
 */
export async function verifyAuthentication(
  request: Request,
  input: VerifyAuthenticationInput,
  meta: RequestMeta,
): Promise<Awaited<ReturnType<typeof signInSession>>> {
  const challenge = await consumeChallenge(request, "authentication");
  const credentialID = input.response.id;
  const passkey = await prisma.passkey.findUnique({
    where: { credentialID },
    select: {
      id: true,
      userId: true,
      publicKey: true,
      counter: true,
      transports: true,
    },
  });
  // 401, not the catalogue's 404: better-auth's answer for an unknown credential at sign-in.
  if (!passkey) return signInFailure("PASSKEY_NOT_FOUND", null, credentialID, meta, "PASSKEY_NOT_FOUND", 401);
  const refuse = (reason: string, status: 400 | 401) =>
    signInFailure(reason, passkey.userId, credentialID, meta, "AUTHENTICATION_FAILED", status);

  const result = await (
    await webauthn()
  )
    .verifyAuthenticationResponse({
      response: input.response as AuthenticationResponseJSON,
      ...expected(challenge.expectedChallenge),
      credential: {
        id: credentialID,
        publicKey: new Uint8Array(Buffer.from(passkey.publicKey, "base64")),
        counter: passkey.counter,
        transports: transportsOf(passkey.transports),
      },
    })
    .catch(() => null); // thrown: wrong type, challenge, origin, RP id, UP flag, counter or encoding
  if (!result || result.authenticationInfo.newCounter > MAX_COUNTER) return refuse("INVALID_RESPONSE", 400);
  if (!result.verified) return refuse("INVALID_SIGNATURE", 401);

  // Only from the counter this check was made against: of two racing assertions one wins.
  const { count } = await prisma.passkey.updateMany({
    where: { id: passkey.id, counter: passkey.counter },
    data: { counter: result.authenticationInfo.newCounter },
  });
  if (count !== 1) return refuse("COUNTER_RACE", 400);

  return signInSession(passkey.userId, meta, { method: "passkey" });
}

// ---- management ----

/** The passkey `id` when it is `userId`'s: PASSKEY_NOT_FOUND, or YOU_ARE_NOT_ALLOWED_… for another's. */
async function ownPasskey(userId: string, id: string): Promise<PasskeyRow> {
  const passkey = await prisma.passkey.findUnique({ where: { id }, select: passkeySelect });
  if (!passkey) fail("PASSKEY_NOT_FOUND");
  if (passkey.userId !== userId) fail("YOU_ARE_NOT_ALLOWED_TO_REGISTER_THIS_PASSKEY");
  return passkey;
}

/** Renames one of the user's passkeys. */
export async function updatePasskey(auth: AuthSession, input: UpdatePasskeyInput, meta: RequestMeta) {
  const passkey = await ownPasskey(auth.user.id, input.id);
  const { count } = await prisma.passkey.updateMany({
    where: { id: passkey.id, userId: auth.user.id },
    data: { name: input.name },
  });
  if (count !== 1) fail("PASSKEY_NOT_FOUND"); // deleted meanwhile
  await audit({
    userId: auth.user.id,
    category: "security",
    action: "rename-passkey",
    status: "success",
    targetType: "passkey",
    targetId: passkey.id,
    details: { from: passkey.name, to: input.name },
    meta,
  });
  return { ...passkey, name: input.name };
}

/** Removes one of the user's passkeys. */
export async function deletePasskey(auth: AuthSession, input: DeletePasskeyInput, meta: RequestMeta) {
  const passkey = await ownPasskey(auth.user.id, input.id);
  const { count } = await prisma.passkey.deleteMany({ where: { id: passkey.id, userId: auth.user.id } });
  if (count !== 1) fail("PASSKEY_NOT_FOUND");
  await audit({
    userId: auth.user.id,
    category: "security",
    action: "delete-passkey",
    status: "success",
    targetType: "passkey",
    targetId: passkey.id,
    details: { name: passkey.name },
    meta,
  });
}
