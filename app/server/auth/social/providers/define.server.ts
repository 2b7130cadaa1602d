/**
 * What a social provider definition is, and the pieces the definitions share: calls to the
 * provider and lenient profile mapping. A definition is data: where the provider's endpoints
 * are, what it is asked for, and how its user info becomes our profile. No OAuth flow, no
 * database and no ID-token verification here: the caller runs the flow, verifies ID tokens
 * (issuer and key set from the resolved config) and hands the verified claims in.
 *
 * Endpoints, default scopes, PKCE, email-verified rules and name/image choices follow
 * better-auth's providers, so an account linked by either means the same user.
 */
import { z } from "zod";
import type { SocialProviderId } from "~/lib/social-providers";

export interface SocialProfile {
  /** The provider's stable user id, stored as the account id. */
  id: string;
  email: string | null;
  /** True only when the provider vouches for `email`. */
  emailVerified: boolean;
  /** May be "" when the provider knows no name. */
  name: string;
  image: string | null;
}

export interface ProviderTokens {
  accessToken: string;
  refreshToken?: string;
  idToken?: string;
  /** The ID token's claims, verified by the caller. */
  idTokenClaims?: Record<string, unknown>;
  scope?: string;
  expiresAt?: Date;
}

/**
 * Provider settings beyond credentials and endpoints. The provider they belong to declares
 * the variable each is read from (`variables` in its definition).
 */
export interface ProviderExtras {
  /** Microsoft: a directory (tenant) GUID, `common`, `organizations` or `consumers`. */
  tenantId?: string;
  /** Microsoft: edge in pixels of the Graph photo used as the image. */
  profilePhotoSize?: number;
  /** Apple: native iOS sign-in puts the bundle id, not the client id, in `aud`. */
  appBundleIdentifier?: string;
  /** Apple: needed when the client secret is the .p8 private key. */
  teamId?: string;
  keyId?: string;
  /** Google: only accounts of this Google Workspace domain (`*`: any Workspace domain). */
  hostedDomain?: string;
  /** GitLab: a self-hosted GitLab; all GitLab endpoints are derived from it. */
  baseUrl?: string;
}

/** Where one provider setting comes from: its environment variable and how the value is read. */
export interface ProviderVariable<T> {
  name: `${Uppercase<SocialProviderId>}_${string}`;
  /** Checks and converts the trimmed, non-blank value; a failure reads "<name>: <message>". */
  schema: z.ZodType<T, string>;
}

export interface ProviderEndpoints {
  authorizationUrl: string;
  tokenUrl: string;
  userInfoUrl?: string;
  /**
   * Set for providers that issue ID tokens, together with `jwksUrl`. Microsoft's multi-tenant
   * issuer keeps Microsoft's own `{tenantid}` placeholder: the verifier puts the token's `tid`
   * claim in its place.
   */
  issuer?: string;
  jwksUrl?: string;
}

/** One enabled provider as configured: defaults, then environment overrides. */
export interface ProviderConfig extends ProviderEndpoints {
  id: SocialProviderId;
  clientId: string;
  clientSecret: string;
  extras: ProviderExtras;
}

export interface FetchProfileContext {
  tokens: ProviderTokens;
  config: ProviderConfig;
  fetch: typeof fetch;
  /** The `user` form field Apple posts to the callback, JSON with the name, on the first sign-in only. */
  callbackUser?: string;
}

export interface ProviderDefinition {
  id: SocialProviderId;
  /** Display name, e.g. "GitHub", "X (Twitter)". */
  name: string;
  /** The provider's own endpoints; Microsoft's depend on the tenant, GitLab's on its base URL. */
  endpoints(extras: ProviderExtras): ProviderEndpoints;
  /** Default scopes. */
  scopes: string[];
  /** Whether PKCE (S256) is sent. */
  pkce: boolean;
  /** Joins `scopes` in the authorization URL; default " ". */
  scopeSeparator?: string;
  /** Name of the client id parameter (authorization URL and token request); default "client_id". */
  clientIdParam?: string;
  /** How client credentials reach the token endpoint: HTTP Basic or form fields. */
  tokenAuth: "basic" | "body";
  /** Extra authorization URL parameters. */
  authorizationParams?(config: ProviderConfig): Record<string, string>;
  /** The raw profile, from the user-info endpoint and/or the verified ID-token claims; throws when a call fails. */
  fetchProfile(ctx: FetchProfileContext): Promise<unknown>;
  /** Our profile from what `fetchProfile` returned; null when the payload has no user id. */
  mapProfile(raw: unknown): SocialProfile | null;
  /** The provider's variables beyond `<ID>_CLIENT_ID`, `_CLIENT_SECRET` and the endpoint overrides. */
  variables?: { [K in keyof ProviderExtras]?: ProviderVariable<NonNullable<ProviderExtras[K]>> };
  /** Rules across the provider's variables, on the raw environment; each problem reads "VARIABLE: problem". */
  checkVariables?(input: Record<string, string>): string[];
}

const TIMEOUT_MS = 5000;
// GitHub refuses requests without a User-Agent and Reddit throttles generic ones.
const USER_AGENT = "web:saas-app:1.0 (social sign-in)";

/** The ID-token audiences to accept: the client id, and for Apple the app's bundle id too. */
export function idTokenAudiences(config: ProviderConfig): string[] {
  const bundle = config.extras.appBundleIdentifier;
  return bundle ? [config.clientId, bundle] : [config.clientId];
}

// ---- calls ----

interface Call {
  method?: "GET" | "POST";
  headers?: Record<string, string>;
  body?: string;
}

export function call(ctx: FetchProfileContext, url: string, { method = "GET", headers, body }: Call = {}) {
  const signal = AbortSignal.timeout(TIMEOUT_MS);
  return ctx.fetch(url, { method, headers: { "user-agent": USER_AGENT, ...headers }, body, signal });
}

export async function callJson(ctx: FetchProfileContext, url: string, init: Call = {}): Promise<unknown> {
  const response = await call(ctx, url, { ...init, headers: { accept: "application/json", ...init.headers } });
  if (!response.ok) throw new Error(`${ctx.config.id}: ${url} answered HTTP ${response.status}`);
  return response.json();
}

export const bearer = (ctx: FetchProfileContext) => ({ authorization: `Bearer ${ctx.tokens.accessToken}` });

export function userInfoUrl(config: ProviderConfig): string {
  if (!config.userInfoUrl) throw new Error(`${config.id} has no user-info endpoint`);
  return config.userInfoUrl;
}

export function idTokenClaims(ctx: FetchProfileContext): Record<string, unknown> {
  const claims = ctx.tokens.idTokenClaims;
  if (!claims) throw new Error(`${ctx.config.id}: the profile comes from an ID token, none was given`);
  return claims;
}

/**
 * GET the user-info endpoint with the access token. When an ID token came along, the user
 * info must be about its subject (OpenID Connect Core 5.3.2): otherwise an access token of
 * another user could ride on a genuine ID token.
 */
export async function getUserInfo(
  ctx: FetchProfileContext,
  map: (raw: unknown) => SocialProfile | null,
  headers: Record<string, string> = {},
): Promise<unknown> {
  const raw = await callJson(ctx, userInfoUrl(ctx.config), { headers: { ...bearer(ctx), ...headers } });
  const subject = ctx.tokens.idTokenClaims?.sub;
  if (subject !== undefined && map(raw)?.id !== String(subject)) {
    throw new Error(`${ctx.config.id}: the user info is about another user than the ID token`);
  }
  return raw;
}

// ---- mapping ----

// Every field but the id is lenient: a missing or odd field costs that field, not the sign-in.
export const userId = z.union([z.string().min(1), z.number()]).transform(String);
export const text = z
  .string()
  .nullish()
  .catch(null)
  .transform((value) => value || null);
// Apple sends "true"/"false" strings for its boolean claims.
export const flag = z
  .unknown()
  .optional()
  .transform((value) => value === true || value === "true");

export function mapWith<T>(schema: z.ZodType<T>, map: (payload: T) => SocialProfile) {
  return (raw: unknown): SocialProfile | null => {
    const parsed = schema.safeParse(raw);
    return parsed.success ? map(parsed.data) : null;
  };
}

export function profile(fields: {
  id: string;
  email: string | null;
  emailVerified: boolean;
  name: string | null;
  image: string | null;
}): SocialProfile {
  return { ...fields, emailVerified: fields.email !== null && fields.emailVerified, name: fields.name ?? "" };
}

export const joinName = (...parts: (string | null)[]) => parts.filter(Boolean).join(" ") || null;

// ---- the definition ----

type DefinitionInput = Omit<ProviderDefinition, "fetchProfile"> & Partial<Pick<ProviderDefinition, "fetchProfile">>;

/** Unless a provider says otherwise, its profile is a GET of its user-info endpoint with the access token. */
export function define(definition: DefinitionInput): ProviderDefinition {
  return { fetchProfile: (ctx) => getUserInfo(ctx, definition.mapProfile), ...definition };
}
