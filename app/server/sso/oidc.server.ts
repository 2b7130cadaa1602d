/**
 * The OpenID Connect side of single sign-on: the authorization request an organization's
 * provider receives, and what its answer proves. The code is exchanged at the stored token
 * endpoint (client_secret_basic or client_secret_post, as registered), the ID token is checked
 * against the provider's key set (signature, issuer, audience, expiry, nonce), user info is
 * read when the ID token does not say enough, and the claims are mapped to a profile as the
 * connection's `mapping` says. Every request to the provider goes through idpFetch.
 */
import { createHash } from "node:crypto";
import { IdTokenError, verifyIdTokenAt } from "~/server/auth/social/id-token.server";
import type { LoadedProvider, StoredOidcConfig } from "./config.server";
import { oidcRedirectUri } from "./config.server";
import { IdpFetchError, idpFetch } from "./idp-fetch.server";

export type OidcProvider = LoadedProvider & { kind: "oidc"; oidc: StoredOidcConfig };

/** What an identity provider says about the person: the subject, always; the rest when it says it. */
export interface OidcIdentity {
  subject: string;
  email: string | null;
  name: string | null;
  image: string | null;
}

/**
 * Why a callback's code was not accepted: `code` is the callback's `error=` (better-auth's
 * `invalid_provider`), `detail` says what exactly, for the audit log and `error_description`.
 */
export class OidcRefused extends Error {
  constructor(
    readonly detail: string,
    readonly code = "invalid_provider",
  ) {
    super(`${code}: ${detail}`);
    this.name = "OidcRefused";
  }
}

/** The provider's authorization URL for one sign-in (state, nonce and the PKCE S256 challenge). */
export function authorizationUrl(
  provider: OidcProvider,
  request: { state: string; nonce: string; codeVerifier: string; scopes?: string[]; loginHint?: string },
): string {
  const { oidc } = provider;
  const url = new URL(oidc.authorizationEndpoint);
  const query = url.searchParams;
  query.set("response_type", "code");
  query.set("client_id", oidc.clientId);
  query.set("redirect_uri", oidcRedirectUri(provider.providerId));
  query.set("scope", [...new Set([...oidc.scopes, ...(request.scopes ?? [])])].join(" "));
  query.set("state", request.state);
  query.set("nonce", request.nonce);
  if (oidc.pkce) {
    query.set("code_challenge", createHash("sha256").update(request.codeVerifier).digest("base64url"));
    query.set("code_challenge_method", "S256");
  }
  if (request.loginHint) query.set("login_hint", request.loginHint);
  return url.href;
}

/** A JSON object from the provider, or OidcRefused(`failure`). */
async function jsonOf(response: Response, failure: string): Promise<Record<string, unknown>> {
  const body: unknown = await response.json().catch(() => null);
  if (!response.ok || !body || typeof body !== "object" || Array.isArray(body)) {
    const said = body && typeof body === "object" ? (body as Record<string, unknown>) : {};
    const description = typeof said.error_description === "string" ? said.error_description : said.error;
    throw new OidcRefused(typeof description === "string" && description ? `${failure}: ${description}` : failure);
  }
  return body as Record<string, unknown>;
}

/** idpFetch, with a refusal of its address (private, untrusted) or a dead provider as OidcRefused. */
async function call(url: string, init: Parameters<typeof idpFetch>[1], failure: string): Promise<Response> {
  try {
    return await idpFetch(url, init);
  } catch (error) {
    if (error instanceof IdpFetchError) throw new OidcRefused(`${failure}: ${error.reason}`);
    throw error;
  }
}

/** Exchanges the callback's code at the token endpoint: the ID token (if any) and the access token. */
async function exchangeCode(provider: OidcProvider, code: string, codeVerifier: string) {
  const { oidc } = provider;
  const form = new URLSearchParams({
    grant_type: "authorization_code",
    code,
    redirect_uri: oidcRedirectUri(provider.providerId),
  });
  if (oidc.pkce) form.set("code_verifier", codeVerifier);
  const headers: Record<string, string> = {
    "content-type": "application/x-www-form-urlencoded",
    accept: "application/json",
  };
  if (oidc.tokenEndpointAuthentication === "client_secret_post") {
    form.set("client_id", oidc.clientId);
    form.set("client_secret", oidc.clientSecret);
  } else {
    // RFC 6749 2.3.1: each part form-encoded before they are joined.
    const encode = (value: string) => encodeURIComponent(value).replace(/%20/g, "+");
    headers.authorization = `Basic ${Buffer.from(`${encode(oidc.clientId)}:${encode(oidc.clientSecret)}`).toString("base64")}`;
  }
  const response = await call(
    oidc.tokenEndpoint,
    { method: "POST", headers, body: form.toString() },
    "token_response_error",
  );
  const tokens = await jsonOf(response, "token_response_error");
  const accessToken = typeof tokens.access_token === "string" ? tokens.access_token : null;
  const idToken = typeof tokens.id_token === "string" ? tokens.id_token : null;
  if (!accessToken && !idToken) throw new OidcRefused("token_response_error");
  return { accessToken, idToken };
}

const keySetFetch = (url: string) => idpFetch(url, { headers: { accept: "application/json" } });

/** The claims of the provider's ID token; OidcRefused with the failed check otherwise. */
async function verifiedClaims(provider: OidcProvider, idToken: string, nonce: string) {
  let claims: Record<string, unknown>;
  try {
    claims = await verifyIdTokenAt(idToken, {
      jwksUrl: provider.oidc.jwksEndpoint,
      issuers: [provider.issuer],
      audiences: [provider.oidc.clientId],
      fetchKeys: keySetFetch,
    });
  } catch (error) {
    if (error instanceof IdTokenError) throw new OidcRefused(`token_not_verified: ${error.reason}`);
    throw error;
  }
  if (claims.nonce !== nonce) throw new OidcRefused("token_not_verified: nonce");
  return claims;
}

const text = (value: unknown) => (typeof value === "string" && value.trim() ? value.trim() : null);

/** The profile in the claims, read where the connection's mapping says (standard claims otherwise). */
function mapped(provider: OidcProvider, claims: Record<string, unknown>): OidcIdentity {
  const mapping = provider.oidc.mapping ?? {};
  const fullName = [text(claims[mapping.firstName ?? "given_name"]), text(claims[mapping.lastName ?? "family_name"])]
    .filter(Boolean)
    .join(" ");
  return {
    subject: text(claims[mapping.id ?? "sub"]) ?? "",
    email: text(claims[mapping.email ?? "email"]),
    name: text(claims[mapping.name ?? "name"]) ?? (fullName || null),
    image: text(claims[mapping.image ?? "picture"]),
  };
}

/**
 * Who the callback's `code` signs in, as the provider proves it. `codeVerifier` and `nonce` are
 * the sign-in's own (its state record). Throws OidcRefused when anything does not hold.
 */
export async function oidcIdentity(
  provider: OidcProvider,
  { code, codeVerifier, nonce }: { code: string; codeVerifier: string; nonce: string },
): Promise<OidcIdentity & { email: string }> {
  const { accessToken, idToken } = await exchangeCode(provider, code, codeVerifier);
  const claims = idToken ? await verifiedClaims(provider, idToken, nonce) : null;
  let identity = claims ? mapped(provider, claims) : null;
  const { userInfoEndpoint } = provider.oidc;
  // User info when the ID token is missing or does not say who the person is.
  if (!identity?.email && userInfoEndpoint && accessToken) {
    const response = await call(
      userInfoEndpoint,
      { headers: { authorization: `Bearer ${accessToken}`, accept: "application/json" } },
      "userinfo_response_error",
    );
    const info = await jsonOf(response, "userinfo_response_error");
    // OpenID Connect Core 5.3.2: user info about someone else than the token's subject is not used.
    if (claims && info.sub !== claims.sub) throw new OidcRefused("id_token_userinfo_subject_mismatch");
    const fromInfo = mapped(provider, info);
    identity = identity
      ? {
          subject: identity.subject || fromInfo.subject,
          email: fromInfo.email,
          name: identity.name ?? fromInfo.name,
          image: identity.image ?? fromInfo.image,
        }
      : fromInfo;
  }
  if (!identity) throw new OidcRefused("user_info_endpoint_not_found");
  const { subject, email } = identity;
  // No account without both: who the person is at the provider, and the address they are known by here.
  if (!subject || !email) throw new OidcRefused("missing_user_info");
  return { ...identity, email };
}
