/**
 * Verification of the ID tokens social providers issue, whether they come from our own code
 * exchange or from a client that signed in natively (sign-in/social with `idToken`), and of
 * those an organization's own identity provider issues (single sign-on, `verifyIdTokenAt`:
 * its key set is fetched through the caller's function, which keeps to the rules for
 * addresses an organization chose).
 *
 * Checks, as OpenID Connect Core 3.1.3.7 asks: the signature against the provider's published
 * key set (RS256 or ES256 only), issuer, audience, expiry, the nonce when one is expected and,
 * for Apple, that the token is at most an hour old. Claims are checked with a 30 s clock
 * tolerance, the skew openid-client and better-auth allow.
 */
import { createHash } from "node:crypto";
import { createLocalJWKSet, decodeJwt, errors, jwtVerify, type JWSHeaderParameters, type JWTPayload } from "jose";
import { idTokenAudiences, type ProviderConfig, type SocialProviderId } from "./providers/index.server";

export const KEY_SET_TIMEOUT_MS = 5_000;
export const KEY_SET_MAX_AGE_MS = 10 * 60_000;
export const KEY_SET_COOLDOWN_MS = 30_000;
const CLOCK_TOLERANCE_S = 30;
const APPLE_MAX_AGE = "1h";
// Never "none" or HS*: a shared-secret algorithm would let anyone holding the public key sign.
const ALGORITHMS = ["RS256", "ES256"];
// Claims every ID token carries (OpenID Connect Core 2).
const REQUIRED_CLAIMS = ["iss", "sub", "aud", "exp", "iat"];
const MICROSOFT_TENANT_PLACEHOLDER = "{tenantid}";

export type IdTokenFailure =
  | "unsupported"
  | "malformed"
  | "keys_unavailable"
  | "signature"
  | "issuer"
  | "audience"
  | "expired"
  | "not_yet_valid"
  | "too_old"
  | "nonce";

export class IdTokenError extends Error {
  readonly reason: IdTokenFailure;

  constructor(reason: IdTokenFailure, options?: ErrorOptions) {
    super(`ID token rejected: ${reason}`, options);
    this.name = "IdTokenError";
    this.reason = reason;
  }
}

/**
 * One provider's key set. jose's createRemoteJWKSet has the same timeout, cache age and
 * unknown-kid cooldown, but retries a failed fetch on the very next token: with a provider
 * down, every sign-in would wait out the timeout again. Here any fetch, failed or not, is
 * followed by a cooldown, while keys already fetched stay usable for their 10 minutes.
 */
class KeySet {
  private keys: ReturnType<typeof createLocalJWKSet> | undefined;
  private fetchedAt = -Infinity;
  private attemptedAt = -Infinity;
  private pending: Promise<void> | undefined;

  constructor(
    private readonly url: string,
    private readonly fetchKeys: KeySetFetch,
  ) {}

  async key(header: JWSHeaderParameters, now: number) {
    if (!this.fresh(now)) await this.refresh(now);
    try {
      return await this.current(now)(header);
    } catch (error) {
      // A kid we do not know yet: the provider may have rotated its keys since our fetch.
      if (!(error instanceof errors.JWKSNoMatchingKey)) throw error;
      await this.refresh(now);
      return this.current(now)(header);
    }
  }

  private fresh(now: number) {
    return this.keys !== undefined && now - this.fetchedAt < KEY_SET_MAX_AGE_MS;
  }

  private current(now: number) {
    if (!this.fresh(now)) throw new IdTokenError("keys_unavailable");
    return this.keys!;
  }

  /** Fetches unless a fetch is under way (then waits for it) or one started within the cooldown. */
  private async refresh(now: number) {
    if (!this.pending && now - this.attemptedAt < KEY_SET_COOLDOWN_MS) return;
    this.pending ??= this.fetch(now).finally(() => (this.pending = undefined));
    await this.pending;
  }

  private async fetch(now: number) {
    this.attemptedAt = now;
    try {
      const response = await this.fetchKeys(this.url);
      if (!response.ok) throw new Error(`${this.url} answered HTTP ${response.status}`);
      this.keys = createLocalJWKSet(await response.json());
      this.fetchedAt = now;
    } catch (cause) {
      throw new IdTokenError("keys_unavailable", { cause });
    }
  }
}

/** How a key set is fetched: a GET of its URL. */
export type KeySetFetch = (url: string) => Promise<Response>;

const publicFetch: KeySetFetch = (url) =>
  fetch(url, {
    headers: { accept: "application/json" },
    redirect: "error",
    signal: AbortSignal.timeout(KEY_SET_TIMEOUT_MS),
  });

// Per URL and per way of fetching it: the same URL reached under other rules is another cache.
const keySets = new Map<string, KeySet>();
const fetchers = new Map<KeySetFetch, number>();

function keySet(url: string, fetchKeys: KeySetFetch = publicFetch): KeySet {
  if (!fetchers.has(fetchKeys)) fetchers.set(fetchKeys, fetchers.size);
  const key = `${fetchers.get(fetchKeys)} ${url}`;
  let set = keySets.get(key);
  if (!set) keySets.set(key, (set = new KeySet(url, fetchKeys)));
  return set;
}

/** The issuers a token from this provider may name. */
function expectedIssuers(id: SocialProviderId, issuer: string, token: string): string[] {
  // Microsoft's multi-tenant issuer names the user's tenant, which the token's `tid` gives.
  // Reading it before the signature check is safe: jose checks `iss` only once the signature,
  // which covers `tid`, has been verified.
  if (issuer.includes(MICROSOFT_TENANT_PLACEHOLDER)) {
    const { tid } = decodeJwt(token);
    return typeof tid === "string" && tid ? [issuer.replace(MICROSOFT_TENANT_PLACEHOLDER, tid)] : [];
  }
  // Google documents both spellings of its issuer.
  if (id === "google") return [issuer, issuer.replace(/^https:\/\//, "")];
  return [issuer];
}

function nonceMatches(id: SocialProviderId, claim: unknown, nonce: string): boolean {
  if (claim === nonce) return true;
  // Apple's native sign-in is handed the SHA-256 of the nonce and puts that in the token, while
  // the app sends us the nonce itself (better-auth compares the same way).
  return id === "apple" && claim === createHash("sha256").update(nonce).digest("hex");
}

function reasonFor(error: unknown): IdTokenFailure {
  if (error instanceof errors.JWTExpired) return error.claim === "iat" ? "too_old" : "expired";
  if (error instanceof errors.JWTClaimValidationFailed && error.reason === "check_failed") {
    if (error.claim === "iss") return "issuer";
    if (error.claim === "aud") return "audience";
    if (error.claim === "nbf" || error.claim === "iat") return "not_yet_valid";
  }
  if (
    error instanceof errors.JWSSignatureVerificationFailed ||
    error instanceof errors.JOSEAlgNotAllowed ||
    error instanceof errors.JOSENotSupported ||
    error instanceof errors.JWKSNoMatchingKey ||
    error instanceof errors.JWKSMultipleMatchingKeys
  ) {
    return "signature";
  }
  // A key the provider published that cannot be used.
  if (error instanceof errors.JWKInvalid || error instanceof errors.JWKSInvalid) return "keys_unavailable";
  return "malformed";
}

/** What a token must be to be accepted: signed by a key of `jwksUrl`, from one of `issuers`, for one of `audiences`. */
export interface IdTokenExpectations {
  jwksUrl: string;
  issuers: string[];
  audiences: string[];
  /** How the key set is fetched; default a plain fetch (the social providers' fixed, public URLs). */
  fetchKeys?: KeySetFetch;
  /** The oldest `iat` accepted, e.g. "1h". */
  maxTokenAge?: string;
  /** The time the claims and the key-set cache are checked against, for tests. */
  now?: Date;
}

/** The claims of a token that meets `expected`; throws `IdTokenError` otherwise (the nonce is the caller's to check). */
export async function verifyIdTokenAt(token: string, expected: IdTokenExpectations): Promise<JWTPayload> {
  const { jwksUrl, fetchKeys, now = new Date() } = expected;
  try {
    const { payload } = await jwtVerify(token, (header) => keySet(jwksUrl, fetchKeys).key(header, now.getTime()), {
      algorithms: ALGORITHMS,
      issuer: expected.issuers,
      audience: expected.audiences,
      requiredClaims: REQUIRED_CLAIMS,
      maxTokenAge: expected.maxTokenAge,
      clockTolerance: CLOCK_TOLERANCE_S,
      currentDate: now,
    });
    return payload;
  } catch (error) {
    throw error instanceof IdTokenError ? error : new IdTokenError(reasonFor(error), { cause: error });
  }
}

/**
 * The claims of a genuine ID token from this provider; throws `IdTokenError` otherwise.
 * `nonce`: the nonce the token must carry. `now`: the time the claims and the key-set cache are
 * checked against, for tests.
 */
export async function verifyIdToken(
  config: ProviderConfig,
  token: string,
  { nonce, now = new Date() }: { nonce?: string; now?: Date } = {},
): Promise<Record<string, unknown>> {
  const { id, issuer, jwksUrl } = config;
  if (!issuer || !jwksUrl) throw new IdTokenError("unsupported");
  let issuers: string[];
  try {
    issuers = expectedIssuers(id, issuer, token);
  } catch (error) {
    throw new IdTokenError("malformed", { cause: error });
  }
  const claims = await verifyIdTokenAt(token, {
    jwksUrl,
    issuers,
    audiences: idTokenAudiences(config),
    maxTokenAge: id === "apple" ? APPLE_MAX_AGE : undefined,
    now,
  });
  if (nonce !== undefined && !nonceMatches(id, claims.nonce, nonce)) throw new IdTokenError("nonce");
  return claims;
}
