/**
 * The social sign-in providers as data: where each one's endpoints are, what it is asked for,
 * and how its user info becomes our profile. No OAuth flow, no database and no ID-token
 * verification here: the caller runs the flow, verifies ID tokens (issuer and key set from
 * the resolved config) and hands the verified claims in.
 *
 * Endpoints, default scopes, PKCE, email-verified rules and name/image choices follow
 * better-auth's providers, so an account linked by either means the same user.
 */
import { z } from "zod";
import type { SocialProviderId } from "~/server/env.server";

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

/** Provider settings beyond credentials and endpoints, from `<ID>_*` variables. */
export interface ProviderExtras {
  /** MICROSOFT_TENANT_ID: a directory (tenant) GUID, `common`, `organizations` or `consumers`. */
  tenantId?: string;
  /** MICROSOFT_PROFILE_PHOTO_SIZE: edge in pixels of the Graph photo used as the image. */
  profilePhotoSize?: number;
  /** APPLE_APP_BUNDLE_IDENTIFIER: native iOS sign-in puts the bundle id, not the client id, in `aud`. */
  appBundleIdentifier?: string;
  /** APPLE_TEAM_ID and APPLE_KEY_ID: needed when APPLE_CLIENT_SECRET is the .p8 private key. */
  teamId?: string;
  keyId?: string;
  /** GOOGLE_HOSTED_DOMAIN: only accounts of this Google Workspace domain (`*`: any Workspace domain). */
  hostedDomain?: string;
  /** GITLAB_BASE_URL: a self-hosted GitLab; all GitLab endpoints are derived from it. */
  baseUrl?: string;
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
}

const TIMEOUT_MS = 5000;
// GitHub refuses requests without a User-Agent and Reddit throttles generic ones.
const USER_AGENT = "web:saas-app:1.0 (social sign-in)";
const MICROSOFT_DEFAULT_TENANT = "common";
const MICROSOFT_MULTI_TENANTS = ["common", "organizations", "consumers"];
// Personal Microsoft accounts all carry this `tid`.
const MICROSOFT_CONSUMER_TENANT = "9188040d-6c67-4c5b-b112-36a304b66dad";
const MICROSOFT_DEFAULT_PHOTO_SIZE = 48;

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

function call(ctx: FetchProfileContext, url: string, { method = "GET", headers, body }: Call = {}) {
  const signal = AbortSignal.timeout(TIMEOUT_MS);
  return ctx.fetch(url, { method, headers: { "user-agent": USER_AGENT, ...headers }, body, signal });
}

async function callJson(ctx: FetchProfileContext, url: string, init: Call = {}): Promise<unknown> {
  const response = await call(ctx, url, { ...init, headers: { accept: "application/json", ...init.headers } });
  if (!response.ok) throw new Error(`${ctx.config.id}: ${url} answered HTTP ${response.status}`);
  return response.json();
}

const bearer = (ctx: FetchProfileContext) => ({ authorization: `Bearer ${ctx.tokens.accessToken}` });

function userInfoUrl(config: ProviderConfig): string {
  if (!config.userInfoUrl) throw new Error(`${config.id} has no user-info endpoint`);
  return config.userInfoUrl;
}

function idTokenClaims(ctx: FetchProfileContext): Record<string, unknown> {
  const claims = ctx.tokens.idTokenClaims;
  if (!claims) throw new Error(`${ctx.config.id}: the profile comes from an ID token, none was given`);
  return claims;
}

/**
 * GET the user-info endpoint with the access token. When an ID token came along, the user
 * info must be about its subject (OpenID Connect Core 5.3.2): otherwise an access token of
 * another user could ride on a genuine ID token.
 */
async function getUserInfo(
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

function parseJson(text: string | undefined): unknown {
  if (!text) return undefined;
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}

/** The Graph photo as a data: URL; no photo or a failed call just means no image. */
async function microsoftPhoto(ctx: FetchProfileContext): Promise<string | null> {
  if (!ctx.tokens.accessToken) return null;
  const size = ctx.config.extras.profilePhotoSize ?? MICROSOFT_DEFAULT_PHOTO_SIZE;
  try {
    const url = `${userInfoUrl(ctx.config)}/photos/${size}x${size}/$value`;
    const response = await call(ctx, url, { headers: bearer(ctx) });
    if (!response.ok) return null;
    const type = response.headers.get("content-type")?.split(";")[0]?.trim() ?? "";
    const bytes = Buffer.from(await response.arrayBuffer());
    return `data:${type.startsWith("image/") ? type : "image/jpeg"};base64,${bytes.toString("base64")}`;
  } catch {
    return null;
  }
}

// ---- mapping ----

// Every field but the id is lenient: a missing or odd field costs that field, not the sign-in.
const userId = z.union([z.string().min(1), z.number()]).transform(String);
const text = z
  .string()
  .nullish()
  .catch(null)
  .transform((value) => value || null);
// Apple sends "true"/"false" strings for its boolean claims.
const flag = z
  .unknown()
  .optional()
  .transform((value) => value === true || value === "true");

function mapWith<T>(schema: z.ZodType<T>, map: (payload: T) => SocialProfile) {
  return (raw: unknown): SocialProfile | null => {
    const parsed = schema.safeParse(raw);
    return parsed.success ? map(parsed.data) : null;
  };
}

function profile(fields: {
  id: string;
  email: string | null;
  emailVerified: boolean;
  name: string | null;
  image: string | null;
}): SocialProfile {
  return { ...fields, emailVerified: fields.email !== null && fields.emailVerified, name: fields.name ?? "" };
}

const joinName = (...parts: (string | null)[]) => parts.filter(Boolean).join(" ") || null;

/** Discord's CDN avatar, or the default avatar Discord itself shows for the account. */
function discordAvatar(id: string, avatar: string | null, discriminator: string | null): string {
  if (avatar) return `https://cdn.discordapp.com/avatars/${id}/${avatar}.${avatar.startsWith("a_") ? "gif" : "png"}`;
  const index = !discriminator || discriminator === "0" ? Number((BigInt(id) >> 22n) % 6n) : Number(discriminator) % 5;
  return `https://cdn.discordapp.com/embed/avatars/${index}.png`;
}

// Outside the definition because Twitch's own fetchProfile checks the subject with it.
const mapTwitch = mapWith(
  z.object({
    data: z
      .array(z.object({ id: userId, login: text, display_name: text, email: text, profile_image_url: text }))
      .min(1),
  }),
  ({ data: [user] }) =>
    profile({
      id: user!.id,
      email: user!.email,
      // Twitch only returns an address once it is verified.
      emailVerified: true,
      name: user!.display_name ?? user!.login,
      image: user!.profile_image_url,
    }),
);

// ---- the providers ----

type DefinitionInput = Omit<ProviderDefinition, "fetchProfile"> & Partial<Pick<ProviderDefinition, "fetchProfile">>;

/** Unless a provider says otherwise, its profile is a GET of its user-info endpoint with the access token. */
function define(definition: DefinitionInput): ProviderDefinition {
  return { fetchProfile: (ctx) => getUserInfo(ctx, definition.mapProfile), ...definition };
}

export const SOCIAL_PROVIDERS: Record<SocialProviderId, ProviderDefinition> = {
  apple: define({
    id: "apple",
    name: "Apple",
    endpoints: () => ({
      authorizationUrl: "https://appleid.apple.com/auth/authorize",
      tokenUrl: "https://appleid.apple.com/auth/token",
      issuer: "https://appleid.apple.com",
      jwksUrl: "https://appleid.apple.com/auth/keys",
    }),
    scopes: ["email", "name"],
    pkce: true,
    tokenAuth: "body",
    // Apple only grants the name and email scopes with a form post to the callback.
    authorizationParams: () => ({ response_mode: "form_post" }),
    fetchProfile: async (ctx) => ({ claims: idTokenClaims(ctx), user: parseJson(ctx.callbackUser) }),
    mapProfile: mapWith(
      z.object({
        claims: z.object({ sub: userId, email: text, email_verified: flag, name: text }),
        user: z
          .object({ name: z.object({ firstName: text, lastName: text }).optional().catch(undefined) })
          .optional()
          .catch(undefined),
      }),
      ({ claims, user }) =>
        profile({
          id: claims.sub,
          email: claims.email,
          emailVerified: claims.email_verified,
          name: joinName(user?.name?.firstName ?? null, user?.name?.lastName ?? null) ?? claims.name,
          image: null,
        }),
    ),
  }),

  discord: define({
    id: "discord",
    name: "Discord",
    endpoints: () => ({
      authorizationUrl: "https://discord.com/api/oauth2/authorize",
      tokenUrl: "https://discord.com/api/oauth2/token",
      userInfoUrl: "https://discord.com/api/users/@me",
    }),
    scopes: ["identify", "email"],
    pkce: false,
    tokenAuth: "body",
    // A user who already authorized the app is not asked again.
    authorizationParams: () => ({ prompt: "none" }),
    mapProfile: mapWith(
      z.object({
        id: z.string().regex(/^\d+$/),
        username: text,
        global_name: text,
        discriminator: text,
        avatar: text,
        email: text,
        verified: flag,
      }),
      (user) =>
        profile({
          id: user.id,
          email: user.email,
          emailVerified: user.verified,
          name: user.global_name ?? user.username,
          image: discordAvatar(user.id, user.avatar, user.discriminator),
        }),
    ),
  }),

  facebook: define({
    id: "facebook",
    name: "Facebook",
    endpoints: () => ({
      authorizationUrl: "https://www.facebook.com/v24.0/dialog/oauth",
      tokenUrl: "https://graph.facebook.com/v24.0/oauth/access_token",
      userInfoUrl: "https://graph.facebook.com/me?fields=id,name,email,picture",
    }),
    scopes: ["email", "public_profile"],
    pkce: false,
    tokenAuth: "body",
    mapProfile: mapWith(
      z.object({
        id: userId,
        name: text,
        email: text,
        picture: z
          .object({ data: z.object({ url: text }) })
          .optional()
          .catch(undefined),
      }),
      (user) =>
        profile({
          id: user.id,
          email: user.email,
          // The Graph API does not say whether the address was confirmed.
          emailVerified: false,
          name: user.name,
          image: user.picture?.data.url ?? null,
        }),
    ),
  }),

  github: define({
    id: "github",
    name: "GitHub",
    endpoints: () => ({
      authorizationUrl: "https://github.com/login/oauth/authorize",
      tokenUrl: "https://github.com/login/oauth/access_token",
      userInfoUrl: "https://api.github.com/user",
    }),
    scopes: ["read:user", "user:email"],
    pkce: true,
    tokenAuth: "body",
    // /user shows only a public email; /user/emails has the others and who verified which.
    fetchProfile: async (ctx) => {
      const headers = { ...bearer(ctx), accept: "application/vnd.github+json" };
      const url = userInfoUrl(ctx.config);
      const [user, emails] = await Promise.all([
        callJson(ctx, url, { headers }),
        callJson(ctx, `${url}/emails`, { headers }).catch(() => []),
      ]);
      return { user, emails };
    },
    mapProfile: mapWith(
      z.object({
        user: z.object({ id: userId, login: text, name: text, email: text, avatar_url: text }),
        emails: z.array(z.object({ email: z.string(), primary: flag, verified: flag })).catch([]),
      }),
      ({ user, emails }) => {
        const email = user.email ?? emails.find((entry) => entry.primary && entry.verified)?.email ?? null;
        return profile({
          id: user.id,
          email,
          emailVerified: emails.find((entry) => entry.email === email)?.verified ?? false,
          name: user.name ?? user.login,
          image: user.avatar_url,
        });
      },
    ),
  }),

  microsoft: define({
    id: "microsoft",
    name: "Microsoft",
    endpoints: ({ tenantId = MICROSOFT_DEFAULT_TENANT }) => {
      const authority = `https://login.microsoftonline.com/${tenantId}`;
      return {
        authorizationUrl: `${authority}/oauth2/v2.0/authorize`,
        tokenUrl: `${authority}/oauth2/v2.0/token`,
        // Microsoft Graph's /me: the profile photo is read below it.
        userInfoUrl: "https://graph.microsoft.com/v1.0/me",
        issuer: MICROSOFT_MULTI_TENANTS.includes(tenantId)
          ? "https://login.microsoftonline.com/{tenantid}/v2.0"
          : `${authority}/v2.0`,
        jwksUrl: `${authority}/discovery/v2.0/keys`,
      };
    },
    scopes: ["openid", "profile", "email", "User.Read", "offline_access"],
    pkce: true,
    tokenAuth: "body",
    fetchProfile: async (ctx) => {
      const claims = idTokenClaims(ctx);
      // The organizations and consumers endpoints share one key set, so the account class is
      // only told apart by the token's tenant.
      const tenant = ctx.config.extras.tenantId;
      const personal = claims.tid === MICROSOFT_CONSUMER_TENANT;
      if ((tenant === "organizations" && personal) || (tenant === "consumers" && !personal)) {
        throw new Error(`microsoft: the account is not one the "${tenant}" tenant setting allows`);
      }
      return { claims, photo: await microsoftPhoto(ctx) };
    },
    mapProfile: mapWith(
      z.object({
        // `oid` is the user's id across apps; `sub` differs per app.
        claims: z.object({
          oid: userId,
          email: text,
          email_verified: z.unknown().optional(),
          verified_primary_email: z.array(z.string()).catch([]),
          verified_secondary_email: z.array(z.string()).catch([]),
          name: text,
        }),
        photo: text,
      }),
      ({ claims, photo }) =>
        profile({
          id: claims.oid,
          email: claims.email,
          emailVerified:
            claims.email_verified !== undefined
              ? claims.email_verified === true || claims.email_verified === "true"
              : [...claims.verified_primary_email, ...claims.verified_secondary_email].includes(claims.email ?? ""),
          name: claims.name,
          image: photo,
        }),
    ),
  }),

  google: define({
    id: "google",
    name: "Google",
    endpoints: () => ({
      authorizationUrl: "https://accounts.google.com/o/oauth2/v2/auth",
      tokenUrl: "https://oauth2.googleapis.com/token",
      issuer: "https://accounts.google.com",
      jwksUrl: "https://www.googleapis.com/oauth2/v3/certs",
    }),
    scopes: ["email", "profile", "openid"],
    pkce: true,
    tokenAuth: "body",
    // offline: a refresh token, so the account's access token can be renewed.
    authorizationParams: ({ extras }) => ({
      include_granted_scopes: "true",
      access_type: "offline",
      ...(extras.hostedDomain ? { hd: extras.hostedDomain } : {}),
    }),
    fetchProfile: async (ctx) => {
      const claims = idTokenClaims(ctx);
      // `hd` in the authorization URL only preselects; the token's claim is what proves the domain.
      const wanted = ctx.config.extras.hostedDomain;
      const domain = typeof claims.hd === "string" ? claims.hd : undefined;
      if (wanted && !(wanted === "*" ? domain : domain === wanted)) {
        throw new Error(`google: the account is not in the hosted domain "${wanted}"`);
      }
      return claims;
    },
    mapProfile: mapWith(
      z.object({ sub: userId, email: text, email_verified: flag, name: text, picture: text }),
      (claims) =>
        profile({
          id: claims.sub,
          email: claims.email,
          emailVerified: claims.email_verified,
          name: claims.name,
          image: claims.picture,
        }),
    ),
  }),

  huggingface: define({
    id: "huggingface",
    name: "Hugging Face",
    endpoints: () => ({
      authorizationUrl: "https://huggingface.co/oauth/authorize",
      tokenUrl: "https://huggingface.co/oauth/token",
      userInfoUrl: "https://huggingface.co/oauth/userinfo",
      issuer: "https://huggingface.co",
      jwksUrl: "https://huggingface.co/oauth/jwks",
    }),
    scopes: ["openid", "profile", "email"],
    pkce: true,
    tokenAuth: "body",
    mapProfile: mapWith(
      z.object({ sub: userId, name: text, preferred_username: text, email: text, email_verified: flag, picture: text }),
      (user) =>
        profile({
          id: user.sub,
          email: user.email,
          emailVerified: user.email_verified,
          name: user.name ?? user.preferred_username,
          image: user.picture,
        }),
    ),
  }),

  spotify: define({
    id: "spotify",
    name: "Spotify",
    endpoints: () => ({
      authorizationUrl: "https://accounts.spotify.com/authorize",
      tokenUrl: "https://accounts.spotify.com/api/token",
      userInfoUrl: "https://api.spotify.com/v1/me",
    }),
    scopes: ["user-read-email"],
    pkce: true,
    tokenAuth: "body",
    mapProfile: mapWith(
      z.object({ id: userId, display_name: text, email: text, images: z.array(z.object({ url: text })).catch([]) }),
      (user) =>
        profile({
          id: user.id,
          email: user.email,
          // Spotify does not say whether the address was confirmed.
          emailVerified: false,
          name: user.display_name,
          image: user.images[0]?.url ?? null,
        }),
    ),
  }),

  twitch: define({
    id: "twitch",
    name: "Twitch",
    endpoints: () => ({
      authorizationUrl: "https://id.twitch.tv/oauth2/authorize",
      tokenUrl: "https://id.twitch.tv/oauth2/token",
      userInfoUrl: "https://api.twitch.tv/helix/users",
      issuer: "https://id.twitch.tv/oauth2",
      jwksUrl: "https://id.twitch.tv/oauth2/keys",
    }),
    scopes: ["user:read:email", "openid"],
    pkce: false,
    tokenAuth: "body",
    // The Helix API wants the client id besides the token.
    fetchProfile: (ctx) => getUserInfo(ctx, mapTwitch, { "client-id": ctx.config.clientId }),
    mapProfile: mapTwitch,
  }),

  twitter: define({
    id: "twitter",
    name: "X (Twitter)",
    endpoints: () => ({
      authorizationUrl: "https://x.com/i/oauth2/authorize",
      tokenUrl: "https://api.x.com/2/oauth2/token",
      userInfoUrl: "https://api.x.com/2/users/me?user.fields=profile_image_url,confirmed_email",
    }),
    scopes: ["users.read", "tweet.read", "offline.access", "users.email"],
    pkce: true,
    tokenAuth: "basic",
    mapProfile: mapWith(
      z.object({
        data: z.object({ id: userId, name: text, username: text, profile_image_url: text, confirmed_email: text }),
      }),
      ({ data: user }) =>
        profile({
          id: user.id,
          email: user.confirmed_email,
          emailVerified: true,
          name: user.name ?? user.username,
          image: user.profile_image_url,
        }),
    ),
  }),

  dropbox: define({
    id: "dropbox",
    name: "Dropbox",
    endpoints: () => ({
      authorizationUrl: "https://www.dropbox.com/oauth2/authorize",
      tokenUrl: "https://api.dropboxapi.com/oauth2/token",
      userInfoUrl: "https://api.dropboxapi.com/2/users/get_current_account",
    }),
    scopes: ["account_info.read"],
    pkce: true,
    tokenAuth: "body",
    // An RPC endpoint: POST without a body (Dropbox rejects an empty JSON body).
    fetchProfile: (ctx) => callJson(ctx, userInfoUrl(ctx.config), { method: "POST", headers: bearer(ctx) }),
    mapProfile: mapWith(
      z.object({
        account_id: userId,
        name: z.object({ display_name: text }).optional().catch(undefined),
        email: text,
        email_verified: flag,
        profile_photo_url: text,
      }),
      (account) =>
        profile({
          id: account.account_id,
          email: account.email,
          emailVerified: account.email_verified,
          name: account.name?.display_name ?? null,
          image: account.profile_photo_url,
        }),
    ),
  }),

  kick: define({
    id: "kick",
    name: "Kick",
    endpoints: () => ({
      authorizationUrl: "https://id.kick.com/oauth/authorize",
      tokenUrl: "https://id.kick.com/oauth/token",
      userInfoUrl: "https://api.kick.com/public/v1/users",
    }),
    scopes: ["user:read"],
    pkce: true,
    tokenAuth: "body",
    mapProfile: mapWith(
      z.object({
        data: z.array(z.object({ user_id: userId, name: text, email: text, profile_picture: text })).min(1),
      }),
      ({ data: [user] }) =>
        profile({
          id: user!.user_id,
          email: user!.email,
          // Kick does not say whether the address was confirmed.
          emailVerified: false,
          name: user!.name,
          image: user!.profile_picture,
        }),
    ),
  }),

  linkedin: define({
    id: "linkedin",
    name: "LinkedIn",
    endpoints: () => ({
      authorizationUrl: "https://www.linkedin.com/oauth/v2/authorization",
      tokenUrl: "https://www.linkedin.com/oauth/v2/accessToken",
      userInfoUrl: "https://api.linkedin.com/v2/userinfo",
      issuer: "https://www.linkedin.com/oauth",
      jwksUrl: "https://www.linkedin.com/oauth/openid/jwks",
    }),
    scopes: ["profile", "email", "openid"],
    pkce: false,
    tokenAuth: "body",
    mapProfile: mapWith(
      z.object({ sub: userId, name: text, email: text, email_verified: flag, picture: text }),
      (user) =>
        profile({
          id: user.sub,
          email: user.email,
          emailVerified: user.email_verified,
          name: user.name,
          image: user.picture,
        }),
    ),
  }),

  gitlab: define({
    id: "gitlab",
    name: "GitLab",
    endpoints: ({ baseUrl = "https://gitlab.com" }) => ({
      authorizationUrl: `${baseUrl}/oauth/authorize`,
      tokenUrl: `${baseUrl}/oauth/token`,
      userInfoUrl: `${baseUrl}/api/v4/user`,
    }),
    scopes: ["read_user"],
    pkce: true,
    tokenAuth: "body",
    mapProfile: mapWith(
      // A blocked or locked GitLab account does not sign in here either.
      z.object({
        id: userId,
        username: text,
        name: text,
        email: text,
        avatar_url: text,
        state: z.literal("active"),
        locked: z.literal(false).optional(),
      }),
      (user) =>
        profile({
          id: user.id,
          email: user.email,
          // GitLab's user API does not say whether the address was confirmed.
          emailVerified: false,
          name: user.name ?? user.username,
          image: user.avatar_url,
        }),
    ),
  }),

  tiktok: define({
    id: "tiktok",
    name: "TikTok",
    endpoints: () => ({
      authorizationUrl: "https://www.tiktok.com/v2/auth/authorize",
      tokenUrl: "https://open.tiktokapis.com/v2/oauth/token/",
      userInfoUrl: "https://open.tiktokapis.com/v2/user/info/?fields=open_id,avatar_large_url,display_name,username",
    }),
    // user.info.basic covers open_id, display_name and the avatar; user.info.profile the username.
    scopes: ["user.info.basic", "user.info.profile"],
    pkce: false,
    scopeSeparator: ",",
    clientIdParam: "client_key",
    tokenAuth: "body",
    mapProfile: mapWith(
      z.object({
        data: z.object({
          user: z.object({ open_id: userId, display_name: text, username: text, avatar_large_url: text }),
        }),
      }),
      ({ data: { user } }) =>
        profile({
          id: user.open_id,
          // TikTok never discloses an email address.
          email: null,
          emailVerified: false,
          name: user.display_name ?? user.username,
          image: user.avatar_large_url,
        }),
    ),
  }),

  reddit: define({
    id: "reddit",
    name: "Reddit",
    endpoints: () => ({
      authorizationUrl: "https://www.reddit.com/api/v1/authorize",
      tokenUrl: "https://www.reddit.com/api/v1/access_token",
      userInfoUrl: "https://oauth.reddit.com/api/v1/me",
    }),
    scopes: ["identity"],
    pkce: false,
    tokenAuth: "basic",
    mapProfile: mapWith(z.object({ id: userId, name: text, icon_img: text }), (user) =>
      profile({
        id: user.id,
        // Reddit never discloses an email address.
        email: null,
        emailVerified: false,
        name: user.name,
        // The query holds HTML-escaped resizing parameters; the bare URL is the full icon.
        image: user.icon_img?.split("?")[0] ?? null,
      }),
    ),
  }),

  roblox: define({
    id: "roblox",
    name: "Roblox",
    endpoints: () => ({
      authorizationUrl: "https://apis.roblox.com/oauth/v1/authorize",
      tokenUrl: "https://apis.roblox.com/oauth/v1/token",
      userInfoUrl: "https://apis.roblox.com/oauth/v1/userinfo",
      issuer: "https://apis.roblox.com/oauth/",
      jwksUrl: "https://apis.roblox.com/oauth/v1/certs",
    }),
    scopes: ["openid", "profile"],
    pkce: false,
    tokenAuth: "body",
    authorizationParams: () => ({ prompt: "select_account consent" }),
    mapProfile: mapWith(z.object({ sub: userId, nickname: text, preferred_username: text, picture: text }), (user) =>
      profile({
        id: user.sub,
        // Roblox never discloses an email address.
        email: null,
        emailVerified: false,
        name: user.nickname ?? user.preferred_username,
        image: user.picture,
      }),
    ),
  }),

  vk: define({
    id: "vk",
    name: "VK",
    endpoints: () => ({
      authorizationUrl: "https://id.vk.com/authorize",
      tokenUrl: "https://id.vk.com/oauth2/auth",
      userInfoUrl: "https://id.vk.com/oauth2/user_info",
    }),
    scopes: ["email", "phone"],
    pkce: true,
    tokenAuth: "body",
    // VK ID takes the token and the client id as form fields, not as a Bearer header.
    fetchProfile: (ctx) =>
      callJson(ctx, userInfoUrl(ctx.config), {
        method: "POST",
        headers: { "content-type": "application/x-www-form-urlencoded" },
        body: new URLSearchParams({ access_token: ctx.tokens.accessToken, client_id: ctx.config.clientId }).toString(),
      }),
    mapProfile: mapWith(
      z.object({
        user: z.object({ user_id: userId, first_name: text, last_name: text, email: text, avatar: text }),
      }),
      ({ user }) =>
        profile({
          id: user.user_id,
          email: user.email,
          // VK does not say whether the address was confirmed.
          emailVerified: false,
          name: joinName(user.first_name, user.last_name),
          image: user.avatar,
        }),
    ),
  }),

  zoom: define({
    id: "zoom",
    name: "Zoom",
    endpoints: () => ({
      authorizationUrl: "https://zoom.us/oauth/authorize",
      tokenUrl: "https://zoom.us/oauth/token",
      userInfoUrl: "https://api.zoom.us/v2/users/me",
    }),
    // Zoom grants the scopes chosen in the app's settings.
    scopes: [],
    pkce: true,
    tokenAuth: "body",
    mapProfile: mapWith(
      z.object({
        id: userId,
        display_name: text,
        first_name: text,
        last_name: text,
        email: text,
        verified: z.unknown().optional(),
        pic_url: text,
      }),
      (user) =>
        profile({
          id: user.id,
          email: user.email,
          // 1 when the user verified the account's email address.
          emailVerified: user.verified === 1 || user.verified === true,
          name: user.display_name ?? joinName(user.first_name, user.last_name),
          image: user.pic_url,
        }),
    ),
  }),
};
