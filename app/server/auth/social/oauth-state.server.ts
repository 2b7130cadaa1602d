/**
 * The OAuth state record of a social sign-in or link in progress: created when the flow
 * starts, kept 10 minutes, used up by the callback (an expired or missing one ends the flow
 * with `please_restart_the_process`). The row lives in the verification table under the
 * hash of the 32-character `state`; the browser that started the flow also gets the state in
 * a signed cookie, and only that browser can finish it: a callback URL carried to someone
 * else (login CSRF, "sign in as me") is refused.
 */
import { z } from "zod";
import { consumeToken, storeToken } from "../tokens.server";
import { cookieName, expiredCookie, randomToken, readSignedCookie, signedCookie } from "../session.server";
import { SOCIAL_PROVIDER_IDS } from "./providers/index.server";

const OAUTH_STATE_EXPIRES_IN = 10 * 60; // seconds
const STATE_LENGTH = 32;
const CODE_VERIFIER_LENGTH = 128;
const STATE_PREFIX = "oauth-state:";
// RFC 7636 section 4.1: the code verifier's unreserved characters.
const VERIFIER_ALPHABET = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-._~";

const record = z.object({
  providerId: z.enum(SOCIAL_PROVIDER_IDS),
  codeVerifier: z.string(),
  callbackURL: z.string(),
  errorURL: z.string().nullable(),
  newUserURL: z.string().nullable(),
  /** Set when a signed-in user links another provider to their account. */
  link: z.object({ email: z.string(), userId: z.string() }).nullable(),
  requestSignUp: z.boolean(),
  /** Sent as the authorization request's `nonce`: the ID token must carry it back. */
  nonce: z.string(),
  expiresAt: z.number(),
});
export type OAuthState = z.infer<typeof record>;
export type NewOAuthState = Omit<OAuthState, "codeVerifier" | "nonce" | "expiresAt">;

const stateCookieName = () => cookieName("oauth_state");

/** A PKCE code verifier: 128 characters of RFC 7636's alphabet. */
export const newCodeVerifier = () => randomToken(CODE_VERIFIER_LENGTH, VERIFIER_ALPHABET);

/** Stores a new state record; returns its state, the record and the cookie for the browser. */
export async function createOAuthState(
  input: NewOAuthState,
): Promise<{ state: string; record: OAuthState; cookie: string }> {
  const state = randomToken(STATE_LENGTH);
  const created: OAuthState = {
    ...input,
    codeVerifier: newCodeVerifier(),
    nonce: randomToken(32),
    expiresAt: Date.now() + OAUTH_STATE_EXPIRES_IN * 1000,
  };
  await storeToken(STATE_PREFIX, state, JSON.stringify(created), OAUTH_STATE_EXPIRES_IN);
  return { state, record: created, cookie: signedCookie(stateCookieName(), state, OAUTH_STATE_EXPIRES_IN) };
}

/**
 * Uses the record of `state` up (whoever asks: a replayed callback finds nothing). Null when
 * it is unknown, expired, already used, or was started in another browser.
 */
export async function consumeOAuthState(request: Request, state: string): Promise<OAuthState | null> {
  const value = await consumeToken(STATE_PREFIX, state);
  if (value === null || readSignedCookie(request, stateCookieName()) !== state) return null;
  const parsed = record.safeParse(JSON.parse(value));
  return parsed.success ? parsed.data : null;
}

/** Removes the browser's state cookie once the callback is done with it. */
export const clearOAuthStateCookie = () => expiredCookie(stateCookieName());
