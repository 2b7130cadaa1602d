/**
 * Social sign-in and account linking: the verbs the /api/auth endpoints (better-auth's
 * sign-in/social, callback, link-social, unlink-account, list-accounts and token calls) and
 * the pages call. The OAuth mechanics are the providers' strategies (strategy.server.ts);
 * here is what they mean for our users:
 *
 * - a provider account already linked signs its user in;
 * - otherwise an existing user with the same email gets the account linked, only when linking
 *   is on and the provider is trusted (TRUSTED_PROVIDERS) or vouches for the email. When that
 *   local user never verified the address, the provider's proof counts as the verification,
 *   and a password set by whoever registered the address without proving it is dropped (with
 *   its sessions): it must not survive the owner's arrival (as in sign-up, decision 0008);
 * - otherwise a new user is created (SOCIAL_SIGN_UP), without a password;
 * - a social user must have an email.
 *
 * Provider tokens are stored encrypted (crypto.server.ts); only this module reads them.
 */
import type { OAuth2Tokens } from "arctic";
import { redirect } from "react-router";
import { z } from "zod";
import { audit } from "~/server/audit.server";
import { decryptSecret, encryptSecret } from "~/server/crypto.server";
import { isUniqueViolation, newId, prisma } from "~/server/db.server";
import { loadEnv } from "~/server/env.server";
import { AppError, fail, isAppError } from "~/server/errors.server";
import { localizePath } from "~/i18n/config";
import { auditEndedLinks, forgetUnprovenHolder, proveEmail, type EndedLink } from "../accounts.server";
import { SecondFactorRequired, signInSession, SsoRequired } from "../sign-in.server";
import { normalizeEmail } from "../schemas.server";
import { authUserSelect, isFresh, type AuthSession, type AuthUser, type RequestMeta } from "../session.server";
import { IdTokenError, verifyIdToken } from "./id-token.server";
import { createOAuthState, type OAuthState } from "./oauth-state.server";
import {
  isSocialProviderId,
  SOCIAL_PROVIDERS,
  type ProviderTokens,
  type SocialProfile,
  type SocialProviderId,
} from "./providers/index.server";
import { CallbackError } from "./callback-error.server";
import type { createAuthenticator, SocialStrategy, SocialVerifyOptions } from "./strategy.server";
import { logger } from "~/server/log.server";

// Refreshed before use when fewer than this many milliseconds remain.
const REFRESH_MARGIN_MS = 5000;

// ---- input schemas (the endpoints validate with these) ----

const idTokenInput = z.object({
  token: z.string().min(1),
  nonce: z.string().optional(),
  accessToken: z.string().optional(),
  refreshToken: z.string().optional(),
  expiresAt: z.number().optional(),
});

export const signInSocialInput = z.object({
  provider: z.string().min(1),
  callbackURL: z.string().optional(),
  newUserCallbackURL: z.string().optional(),
  errorCallbackURL: z.string().optional(),
  disableRedirect: z.boolean().optional(),
  idToken: idTokenInput.optional(),
  scopes: z.array(z.string()).optional(),
  requestSignUp: z.boolean().optional(),
  loginHint: z.string().optional(),
});
export type SignInSocialInput = z.infer<typeof signInSocialInput>;

export const linkSocialInput = signInSocialInput.omit({ newUserCallbackURL: true });
export type LinkSocialInput = z.infer<typeof linkSocialInput>;

export const accountQueryInput = z.object({
  providerId: z.string().min(1),
  accountId: z.string().optional(),
  userId: z.string().optional(),
});
export type AccountQueryInput = z.infer<typeof accountQueryInput>;

export const unlinkAccountInput = z.object({ accountId: z.string().optional(), providerId: z.string().optional() });

// ---- the strategies ----

interface Verified {
  profile: SocialProfile;
  tokens: ProviderTokens;
  state: OAuthState;
}

let registry: Promise<ReturnType<typeof createAuthenticator<Verified>>> | undefined;
/**
 * The strategies, made with the first flow through a provider: the OAuth libraries they are
 * built on load then, not with every server start (most requests never reach a provider).
 */
const loadRegistry = () =>
  (registry ??= import("./strategy.server").then(({ createAuthenticator }) => createAuthenticator(verifyCallback)));
const strategies = async () => (await loadRegistry()).strategies;

/** The enabled providers, for the sign-in buttons: id and display name, in SOCIAL_PROVIDER_IDS' order. */
export function enabledProviders(): { id: SocialProviderId; name: string }[] {
  return loadEnv().socialProviders.map((config) => ({ id: config.id, name: SOCIAL_PROVIDERS[config.id].name }));
}

async function strategyOf(providerId: string): Promise<SocialStrategy<Verified>> {
  const strategy = (await strategies()).get(providerId as SocialProviderId);
  if (!strategy) fail("PROVIDER_NOT_FOUND");
  return strategy;
}

const trusted = (providerId: string) => (loadEnv().TRUSTED_PROVIDERS as string[]).includes(providerId);

/** What the verified tokens of a provider are, in the shape the profile mapping reads. */
function providerTokens(tokens: OAuth2Tokens, idTokenClaims?: Record<string, unknown>): ProviderTokens {
  const data = tokens.data as Record<string, unknown>;
  return {
    accessToken: tokens.accessToken(),
    refreshToken: typeof data.refresh_token === "string" ? data.refresh_token : undefined,
    idToken: typeof data.id_token === "string" ? data.id_token : undefined,
    idTokenClaims,
    scope: typeof data.scope === "string" ? data.scope : undefined,
    expiresAt: typeof data.expires_in === "number" ? new Date(Date.now() + data.expires_in * 1000) : undefined,
  };
}

async function profileOf(strategy: SocialStrategy<Verified>, tokens: ProviderTokens, callbackUser?: string) {
  try {
    const raw = await strategy.definition.fetchProfile({ tokens, config: strategy.config, fetch, callbackUser });
    return strategy.definition.mapProfile(raw);
  } catch (error) {
    logger().warn({ reason: (error as Error).message }, `[social] ${strategy.name}: user info failed`);
    return null;
  }
}

/** The remix-auth verify function of every strategy: the ID token (when one came), then the profile. */
async function verifyCallback({ request, tokens, state, provider }: SocialVerifyOptions<Verified>): Promise<Verified> {
  let claims: Record<string, unknown> | undefined;
  const data = tokens.data as Record<string, unknown>;
  if (typeof data.id_token === "string" && provider.config.issuer) {
    try {
      claims = await verifyIdToken(provider.config, data.id_token, { nonce: state.nonce });
    } catch (error) {
      logger().warn({ reason: (error as Error).message }, `[social] ${provider.name}: ID token refused`);
      throw new CallbackError("invalid_code", undefined, state);
    }
  }
  const verified = providerTokens(tokens, claims);
  const callbackUser = new URL(request.url).searchParams.get("user") ?? undefined;
  const profile = await profileOf(provider, verified, callbackUser);
  if (!profile) throw new CallbackError("unable_to_get_user_info", undefined, state);
  return { profile, tokens: verified, state };
}

// ---- starting a flow ----

/** The provider's authorization URL for a new flow, and the state cookie for this browser. */
export async function startSocialFlow(
  input: SignInSocialInput,
  link: { email: string; userId: string } | null,
): Promise<{ url: string; cookie: string }> {
  const strategy = await strategyOf(input.provider);
  const { state, record, cookie } = await createOAuthState({
    providerId: strategy.name,
    callbackURL: input.callbackURL || "/",
    errorURL: input.errorCallbackURL || null,
    newUserURL: input.newUserCallbackURL || null,
    link,
    requestSignUp: input.requestSignUp ?? false,
  });
  const url = strategy.authorizationURL({
    state,
    codeVerifier: record.codeVerifier,
    nonce: record.nonce,
    scopes: input.scopes,
    loginHint: input.loginHint,
  });
  return { url: url.href, cookie };
}

// ---- the user behind a provider account ----

interface Resolution {
  user: AuthUser;
  isNew: boolean;
}

type Refusal = "email_not_found" | "account_not_linked" | "signup_disabled" | "unable_to_create_user" | "banned";

class SignInRefused extends Error {
  constructor(readonly code: Refusal) {
    super(code);
  }
}

// Provider tokens as stored: encrypted, and back.
const seal = (value: string | null | undefined) => encryptSecret(loadEnv().AUTH_SECRET, value || null);
const unseal = (value: string | null) => decryptSecret(loadEnv().AUTH_SECRET, value);

function accountTokens(tokens: ProviderTokens) {
  return {
    accessToken: seal(tokens.accessToken),
    refreshToken: seal(tokens.refreshToken),
    idToken: seal(tokens.idToken),
    accessTokenExpiresAt: tokens.expiresAt ?? null,
  };
}

const mergeScopes = (stored: string | null, granted?: string) =>
  [...new Set([...(stored?.split(",") ?? []), ...(granted?.split(/[\s,]+/) ?? [])].filter(Boolean))].join(",") || null;

/**
 * Finds or creates the user a provider account signs in, or says why not. Concurrent first
 * sign-ins of one person create one user (the unique email decides, the loser re-reads).
 */
async function resolveUser(
  providerId: SocialProviderId,
  profile: SocialProfile,
  tokens: ProviderTokens,
  requestSignUp: boolean,
  meta: RequestMeta,
): Promise<Resolution> {
  const linked = await prisma.account.findUnique({
    where: { providerId_accountId: { providerId, accountId: profile.id } },
    select: { id: true, scope: true, user: { select: authUserSelect } },
  });
  if (linked) {
    await prisma.account.update({
      where: { id: linked.id },
      data: { ...accountTokens(tokens), scope: mergeScopes(linked.scope, tokens.scope) },
    });
    return { user: linked.user, isNew: false };
  }
  if (!profile.email) throw new SignInRefused("email_not_found");
  const email = normalizeEmail(profile.email);
  const vouched = profile.emailVerified || trusted(providerId);
  const existing = await prisma.user.findUnique({ where: { email }, select: authUserSelect });
  if (existing) {
    if (!loadEnv().ACCOUNT_LINKING || !vouched) throw new SignInRefused("account_not_linked");
    const { user, endedLinks } = await linkToUser(existing, providerId, profile, tokens);
    await auditEndedLinks(user.id, endedLinks, meta);
    await audit({
      userId: user.id,
      category: "auth",
      action: "link-social",
      status: "success",
      details: { provider: providerId, implicit: true, verifiedByProvider: !existing.emailVerified },
      meta,
    });
    return { user, isNew: false };
  }
  const signUp = loadEnv().SOCIAL_SIGN_UP;
  if (signUp === "off" || (signUp === "explicit" && !requestSignUp)) throw new SignInRefused("signup_disabled");
  return createSocialUser(providerId, profile, tokens, email, vouched, meta);
}

async function createSocialUser(
  providerId: SocialProviderId,
  profile: SocialProfile,
  tokens: ProviderTokens,
  email: string,
  vouched: boolean,
  meta: RequestMeta,
): Promise<Resolution> {
  try {
    const user = await prisma.user.create({
      data: {
        id: newId(),
        email,
        name: profile.name,
        image: profile.image,
        emailVerified: vouched,
        accounts: {
          create: {
            providerId,
            accountId: profile.id,
            scope: mergeScopes(null, tokens.scope),
            ...accountTokens(tokens),
          },
        },
      },
      select: authUserSelect,
    });
    await audit({
      userId: user.id,
      category: "auth",
      action: "sign-up",
      status: "success",
      details: { email, provider: providerId },
      meta,
    });
    return { user, isNew: true };
  } catch (error) {
    if (!isUniqueViolation(error)) {
      logger().error({ err: error }, `[social] ${providerId}: creating the user failed`);
      throw new SignInRefused("unable_to_create_user");
    }
    // Someone else created this provider account meanwhile: that user signs in.
    const again = await prisma.account.findUnique({
      where: { providerId_accountId: { providerId, accountId: profile.id } },
      select: { user: { select: authUserSelect } },
    });
    if (again) return { user: again.user, isNew: false };
    throw new SignInRefused("unable_to_create_user");
  }
}

/**
 * Links a provider account to an existing user found by email. An unverified user becomes
 * verified by the provider's proof; every other way in that nobody proved the address for
 * goes, and so do the sessions they opened.
 */
async function linkToUser(
  user: AuthUser,
  providerId: SocialProviderId,
  profile: SocialProfile,
  tokens: ProviderTokens,
): Promise<{ user: AuthUser; endedLinks: EndedLink[] }> {
  return prisma.$transaction(async (tx) => {
    // Nothing attached to an unproven address survives its proof.
    if (!user.emailVerified) await forgetUnprovenHolder(tx, user.id);
    await tx.account.create({
      data: {
        providerId,
        accountId: profile.id,
        userId: user.id,
        scope: mergeScopes(null, tokens.scope),
        ...accountTokens(tokens),
      },
    });
    return user.emailVerified ? { user, endedLinks: [] } : proveEmail(tx, user);
  });
}

async function signInResolved(
  providerId: SocialProviderId,
  resolution: Resolution,
  meta: RequestMeta,
): Promise<Awaited<ReturnType<typeof signInSession>>> {
  try {
    return await signInSession(resolution.user.id, meta, { method: `social:${providerId}` });
  } catch (error) {
    if (isAppError(error) && error.code === "BANNED_USER") throw new SignInRefused("banned");
    throw error;
  }
}

// ---- the callback ----

export type CallbackOutcome =
  | { ok: true; redirectTo: string; setCookies: string[] }
  | {
      ok: false;
      error: string;
      description?: string;
      errorURL: string | null;
      /** With `sso_required`: the address the single sign-on form is filled with. */
      email?: string;
    };

/**
 * Completes a flow: signs in (or up) or links, and says where the browser goes next. Every
 * failure is an outcome with its `error=` code (CALLBACK_ERROR_CODES), never an exception.
 */
export async function completeCallback(
  providerId: string,
  request: Request,
  current: AuthSession | null,
  meta: RequestMeta,
): Promise<CallbackOutcome> {
  if (!isSocialProviderId(providerId) || !(await strategies()).has(providerId)) {
    return { ok: false, error: "oauth_provider_not_found", errorURL: null };
  }
  let verified: Verified;
  try {
    verified = await (await loadRegistry()).authenticator.authenticate(providerId, request);
  } catch (error) {
    if (error instanceof CallbackError) {
      return { ok: false, error: error.code, description: error.description, errorURL: error.state?.errorURL ?? null };
    }
    logger().error({ err: error }, `[social] ${providerId}: callback failed`);
    return { ok: false, error: "internal_server_error", errorURL: null };
  }
  const { profile, tokens, state } = verified;
  const refused = (error: string) => ({ ok: false as const, error, errorURL: state.errorURL });
  // Every flow we start has one (default "/"); a record without one was not made by us.
  if (!state.callbackURL) return refused("no_callback_url");
  if (state.link) return linkFromCallback(providerId, verified, current, meta);
  try {
    const resolution = await resolveUser(providerId, profile, tokens, state.requestSignUp, meta);
    const redirectTo = resolution.isNew && state.newUserURL ? state.newUserURL : state.callbackURL;
    try {
      const created = await signInResolved(providerId, resolution, meta);
      return { ok: true, redirectTo, setCookies: created.setCookies };
    } catch (error) {
      // The provider was the first factor: the second-step page continues to the same place.
      if (!(error instanceof SecondFactorRequired)) throw error;
      const query = new URLSearchParams({ redirect: redirectTo });
      return {
        ok: true,
        redirectTo: `${localizePath("/signin/two-factor", meta.locale)}?${query}`,
        setCookies: error.setCookies,
      };
    }
  } catch (error) {
    // Its organization signs this address in through its own provider (signInSession audited it).
    if (error instanceof SsoRequired) return { ...refused("sso_required"), email: error.email };
    if (error instanceof SignInRefused) {
      await audit({
        userId: null,
        category: "auth",
        action: "sign-in",
        status: "failure",
        details: { reason: error.code, provider: providerId, email: profile.email },
        meta,
      });
      return refused(error.code);
    }
    logger().error({ err: error }, `[social] ${providerId}: sign-in failed`);
    return refused("unable_to_create_session");
  }
}

async function linkFromCallback(
  providerId: SocialProviderId,
  { profile, tokens, state }: Verified,
  current: AuthSession | null,
  meta: RequestMeta,
): Promise<CallbackOutcome> {
  const refused = (error: string) => ({ ok: false as const, error, errorURL: state.errorURL });
  // The session that started the link must still be the same user's.
  if (!current || current.user.id !== state.link!.userId) return refused("unable_to_link_account");
  if (!loadEnv().ACCOUNT_LINKING || !(profile.emailVerified || trusted(providerId))) {
    return refused("unable_to_link_account");
  }
  const result = await attachAccount(current.user.id, providerId, profile, tokens);
  if (result !== "linked") return refused(result);
  await audit({
    userId: current.user.id,
    category: "auth",
    action: "link-social",
    status: "success",
    details: { provider: providerId },
    meta,
  });
  return { ok: true, redirectTo: state.callbackURL, setCookies: [] };
}

/** Links (or refreshes) a provider account on `userId`, unless another user holds it. */
async function attachAccount(
  userId: string,
  providerId: SocialProviderId,
  profile: SocialProfile,
  tokens: ProviderTokens,
): Promise<"linked" | "account_already_linked_to_different_user" | "unable_to_link_account"> {
  const where = { providerId_accountId: { providerId, accountId: profile.id } };
  const existing = await prisma.account.findUnique({ where, select: { id: true, userId: true, scope: true } });
  if (existing && existing.userId !== userId) return "account_already_linked_to_different_user";
  try {
    if (existing) {
      await prisma.account.update({
        where: { id: existing.id },
        data: { ...accountTokens(tokens), scope: mergeScopes(existing.scope, tokens.scope) },
      });
    } else {
      await prisma.account.create({
        data: {
          providerId,
          accountId: profile.id,
          userId,
          scope: mergeScopes(null, tokens.scope),
          ...accountTokens(tokens),
        },
      });
    }
    return "linked";
  } catch (error) {
    if (isUniqueViolation(error)) return "account_already_linked_to_different_user";
    throw error;
  }
}

// ---- ID tokens (sign-in and link without a redirect) ----

async function verifiedIdToken(strategy: SocialStrategy<Verified>, idToken: z.infer<typeof idTokenInput>) {
  if (!strategy.config.issuer) fail("ID_TOKEN_NOT_SUPPORTED");
  let claims: Record<string, unknown>;
  try {
    claims = await verifyIdToken(strategy.config, idToken.token, { nonce: idToken.nonce });
  } catch (error) {
    if (error instanceof IdTokenError && error.reason === "unsupported") fail("ID_TOKEN_NOT_SUPPORTED");
    fail("INVALID_TOKEN", undefined, 401);
  }
  const tokens: ProviderTokens = {
    accessToken: idToken.accessToken ?? "",
    refreshToken: idToken.refreshToken,
    idToken: idToken.token,
    idTokenClaims: claims,
    expiresAt: idToken.expiresAt ? new Date(idToken.expiresAt) : undefined,
  };
  const profile = await profileOf(strategy, tokens);
  if (!profile) fail("FAILED_TO_GET_USER_INFO");
  return { profile, tokens };
}

const REFUSAL_ERRORS: Record<Refusal, AppError> = {
  email_not_found: new AppError("USER_EMAIL_NOT_FOUND"),
  account_not_linked: new AppError("ACCOUNT_NOT_LINKED"),
  signup_disabled: new AppError("SIGN_UP_DISABLED"),
  unable_to_create_user: new AppError("FAILED_TO_CREATE_USER"),
  banned: new AppError("BANNED_USER"),
};

/** POST /sign-in/social with `idToken`: signs in (or up) at once. */
export async function signInWithIdToken(
  input: SignInSocialInput & { idToken: z.infer<typeof idTokenInput> },
  meta: RequestMeta,
): Promise<Awaited<ReturnType<typeof signInSession>>> {
  const strategy = await strategyOf(input.provider);
  const { profile, tokens } = await verifiedIdToken(strategy, input.idToken);
  try {
    const resolution = await resolveUser(strategy.name, profile, tokens, input.requestSignUp ?? false, meta);
    return await signInResolved(strategy.name, resolution, meta);
  } catch (error) {
    if (error instanceof SignInRefused) throw REFUSAL_ERRORS[error.code];
    throw error;
  }
}

/**
 * POST /link-social with `idToken`: the provider email must be the user's. Only a redirect
 * link, which the signed-in user completes at the provider themself, may bring another
 * address (decision 0010).
 */
export async function linkWithIdToken(
  auth: AuthSession,
  input: LinkSocialInput & { idToken: z.infer<typeof idTokenInput> },
  meta: RequestMeta,
): Promise<void> {
  const strategy = await strategyOf(input.provider);
  const { profile, tokens } = await verifiedIdToken(strategy, input.idToken);
  if (!loadEnv().ACCOUNT_LINKING || !(profile.emailVerified || trusted(strategy.name))) fail("LINKING_NOT_ALLOWED");
  if (!profile.email || normalizeEmail(profile.email) !== auth.user.email) fail("LINKING_DIFFERENT_EMAILS_NOT_ALLOWED");
  const result = await attachAccount(auth.user.id, strategy.name, profile, tokens);
  if (result === "account_already_linked_to_different_user") fail("SOCIAL_ACCOUNT_ALREADY_LINKED");
  if (result !== "linked") fail("LINKING_FAILED");
  await audit({
    userId: auth.user.id,
    category: "auth",
    action: "link-social",
    status: "success",
    details: { provider: strategy.name, idToken: true },
    meta,
  });
}

// ---- the user's accounts ----

/** GET /list-accounts: never a token or a password; scopes as an array. */
export async function listAccounts(userId: string) {
  const rows = await prisma.account.findMany({
    where: { userId },
    select: {
      id: true,
      providerId: true,
      accountId: true,
      userId: true,
      createdAt: true,
      updatedAt: true,
      scope: true,
    },
    orderBy: { createdAt: "asc" },
  });
  return rows.map(({ scope, ...row }) => ({ ...row, scopes: scope ? scope.split(",") : [] }));
}

/**
 * POST /unlink-account. The account is named by its row id (better-auth 1.7) or by provider
 * (and provider account id). Needs a fresh session; the last way in cannot go.
 */
export async function unlinkAccount(
  auth: AuthSession,
  input: z.infer<typeof unlinkAccountInput>,
  meta: RequestMeta,
): Promise<void> {
  if (!isFresh(auth.session)) fail("SESSION_NOT_FRESH");
  const accounts = await prisma.account.findMany({
    where: { userId: auth.user.id },
    select: { id: true, providerId: true, accountId: true },
  });
  const target = accounts.find((account) =>
    input.providerId
      ? account.providerId === input.providerId && (!input.accountId || account.accountId === input.accountId)
      : account.id === input.accountId,
  );
  if (!target) fail("ACCOUNT_NOT_FOUND");
  if (accounts.length <= 1) fail("FAILED_TO_UNLINK_LAST_ACCOUNT");
  await prisma.account.delete({ where: { id: target.id } });
  await audit({
    userId: auth.user.id,
    category: "auth",
    action: "unlink-account",
    status: "success",
    details: { provider: target.providerId },
    meta,
  });
}

/** The user's provider account named by provider and/or account id (row id or the provider's). */
async function providerAccount(userId: string, input: { providerId?: string; accountId?: string }) {
  const account = await prisma.account.findFirst({
    where: {
      userId,
      NOT: { providerId: "credential" },
      ...(input.providerId ? { providerId: input.providerId } : {}),
      ...(input.accountId ? { OR: [{ accountId: input.accountId }, { id: input.accountId }] } : {}),
    },
  });
  if (!account) fail("ACCOUNT_NOT_FOUND");
  const strategy = isSocialProviderId(account.providerId) ? (await strategies()).get(account.providerId) : undefined;
  if (!strategy) throw new AppError(null, `Provider ${account.providerId} is not supported.`, 400);
  return { account, strategy };
}

type StoredAccount = Awaited<ReturnType<typeof providerAccount>>["account"];

async function refreshStored(strategy: SocialStrategy<Verified>, account: StoredAccount, failure: string) {
  const refreshToken = unseal(account.refreshToken);
  if (!refreshToken) throw new AppError(null, "Refresh token not found", 400);
  let tokens: ProviderTokens;
  try {
    tokens = providerTokens(await strategy.refreshToken(refreshToken));
  } catch (error) {
    logger().warn({ reason: (error as Error).message }, `[social] ${strategy.name}: refresh failed`);
    throw new AppError(null, failure, 400);
  }
  // Providers may or may not rotate the refresh token; keep the old one when they do not.
  return prisma.account.update({
    where: { id: account.id },
    data: {
      ...accountTokens({ ...tokens, refreshToken: tokens.refreshToken ?? refreshToken }),
      scope: mergeScopes(account.scope, tokens.scope),
    },
  });
}

/** The account with an access token good for at least a few seconds more (refreshed if need be). */
async function usableAccount(userId: string, input: { providerId?: string; accountId?: string }) {
  const { account, strategy } = await providerAccount(userId, input);
  const expiresAt = account.accessTokenExpiresAt?.getTime();
  if (expiresAt === undefined || expiresAt - Date.now() >= REFRESH_MARGIN_MS) return { account, strategy };
  return { account: await refreshStored(strategy, account, "Failed to get a valid access token"), strategy };
}

function tokenReply(account: StoredAccount) {
  return {
    accessToken: unseal(account.accessToken),
    accessTokenExpiresAt: account.accessTokenExpiresAt,
    scopes: account.scope ? account.scope.split(",") : [],
    idToken: unseal(account.idToken),
  };
}

/** POST /get-access-token: a valid access token, refreshed first when it is about to expire. */
export async function getAccessToken(userId: string, input: AccountQueryInput) {
  return tokenReply((await usableAccount(userId, input)).account);
}

/** POST /refresh-token: a new access token now. */
export async function refreshAccessToken(userId: string, input: AccountQueryInput) {
  const { account, strategy } = await providerAccount(userId, input);
  const refreshed = await refreshStored(strategy, account, "Failed to refresh access token");
  return {
    ...tokenReply(refreshed),
    refreshToken: unseal(refreshed.refreshToken),
    refreshTokenExpiresAt: refreshed.refreshTokenExpiresAt,
    providerId: refreshed.providerId,
    accountId: refreshed.accountId,
  };
}

/** /account-info: what the provider says about the user now. */
export async function accountInfo(userId: string, accountId: string) {
  const { account, strategy } = await usableAccount(userId, { accountId });
  const idToken = unseal(account.idToken) ?? undefined;
  let claims: Record<string, unknown> | undefined;
  if (idToken && strategy.config.issuer) claims = await verifyIdToken(strategy.config, idToken).catch(() => undefined);
  const tokens: ProviderTokens = {
    accessToken: unseal(account.accessToken) ?? "",
    idToken,
    idTokenClaims: claims,
    refreshToken: unseal(account.refreshToken) ?? undefined,
  };
  let data: unknown;
  try {
    data = await strategy.definition.fetchProfile({ tokens, config: strategy.config, fetch });
  } catch (error) {
    logger().warn({ reason: (error as Error).message }, `[social] ${strategy.name}: account info failed`);
    fail("FAILED_TO_GET_USER_INFO");
  }
  const profile = strategy.definition.mapProfile(data);
  if (!profile) fail("FAILED_TO_GET_USER_INFO");
  return {
    user: {
      id: profile.id,
      name: profile.name,
      email: profile.email,
      image: profile.image,
      emailVerified: profile.emailVerified,
    },
    data,
  };
}

/**
 * Where a failed callback sent the browser: its `error=` code and the provider's own words, if
 * any; with `sso_required`, the address to sign in with through single sign-on.
 */
export function callbackError(
  request: Request,
): { code: string; description: string | null; email: string | null } | null {
  const query = new URL(request.url).searchParams;
  const code = query.get("error");
  return code ? { code, description: query.get("error_description"), email: query.get("email") } : null;
}

/**
 * A page's social button (a plain form post, with or without JavaScript): 302 to the
 * provider, with the state cookie for this browser.
 */
export async function socialRedirect(
  input: SignInSocialInput,
  link: { email: string; userId: string } | null,
): Promise<Response> {
  const { url, cookie } = await startSocialFlow(input, link);
  return redirect(url, { headers: { "Set-Cookie": cookie } });
}
