/**
 * Signing in through an organization's identity provider (OpenID Connect or SAML 2.0): which
 * connection serves a person, the trip to the provider and back, and what the provider's
 * answer means for our users:
 *
 * - an account of this connection for the provider's subject signs its user in;
 * - otherwise an existing user with the same email is linked to it, only when the email's
 *   domain is a verified domain of this connection (else `account_not_linked`): an
 *   organization must not take over an address it has not proved it controls;
 * - otherwise a new user is made, its email verified only when the domain is;
 * - the user becomes a member of the connection's organization (role member) if they are not
 *   one, within the membership limit, and the session starts in that organization;
 * - the session comes from signInSession like every sign-in, so the ban rule and two-factor
 *   apply as they do to passwords.
 *
 * A sign-in in progress is a record in the verification table for 10 minutes, used once,
 * under its OIDC `state` or SAML RelayState, which the browser that started it also holds in
 * a signed SameSite=Lax cookie: an answer carried to another browser is refused (login CSRF:
 * someone else's account signed in there). The IdP's SAML form post is cross-site and brings
 * no such cookie, so the ACS checks the response, keeps the identity it proved for a moment
 * under a one-use handoff, and sends the browser on to a GET of its own (a top-level
 * navigation, which brings the cookie), where the sign-in completes. Every success and
 * refusal is audited (category "sso", action "sign-in").
 */
import { z } from "zod";
import { localizePath } from "~/i18n/config";
import { audit } from "~/server/audit.server";
import { auditEndedLinks, forgetUnprovenHolder, proveEmail, type EndedLink } from "~/server/auth/accounts.server";
import { normalizeEmail, emailSchema } from "~/server/auth/schemas.server";
import {
  cookieName,
  expiredCookie,
  randomToken,
  readSignedCookie,
  refuseBanned,
  signedCookie,
  type RequestMeta,
} from "~/server/auth/session.server";
import { SecondFactorRequired, signInSession, SSO_METHOD_PREFIX, SsoRequired } from "~/server/auth/sign-in.server";
import { newCodeVerifier } from "~/server/auth/social/oauth-state.server";
import { consumeToken, storeToken } from "~/server/auth/tokens.server";
import { isUniqueViolation, newId, prisma } from "~/server/db.server";
import { absoluteWith } from "~/server/endpoint.server";
import { loadEnv } from "~/server/env.server";
import { fail, isAppError } from "~/server/errors.server";
import { addMember, membershipLimit, membershipOf } from "~/server/organization/organizations.server";
import { domainList, loadedProvider, samlFinishUrl, type LoadedProvider } from "./config.server";
import { authorizationUrl, oidcIdentity, OidcRefused } from "./oidc.server";
import { readSamlResponse, SamlRefused, samlSignInUrl } from "./saml.server";
import { logger } from "~/server/log.server";

const FLOW_EXPIRES_IN = 10 * 60; // seconds
const OIDC_STATE_PREFIX = "sso-state:";
const SAML_RELAY_PREFIX = "sso-relay:";
const SAML_HANDOFF_PREFIX = "sso-saml-handoff:";
/** From the ACS's answer to the browser's next request: a redirect, followed at once. */
const HANDOFF_EXPIRES_IN = 2 * 60; // seconds
/** Where a failed sign-in goes when it did not say (or cannot be trusted to say) where. */
const DEFAULT_ERROR_PAGE = "/api/auth/error";

// ---- input ----

const selector = z.string().trim().min(1).optional();

/** POST /sign-in/sso (and the page's form): exactly one way of naming the connection. */
export const signInSsoInput = z
  .object({
    email: emailSchema.optional(),
    domain: selector,
    providerId: selector,
    organizationSlug: selector,
    callbackURL: z.string().min(1),
    errorCallbackURL: z.string().optional(),
    newUserCallbackURL: z.string().optional(),
    scopes: z.array(z.string().min(1)).optional(),
    loginHint: z.string().optional(),
  })
  .refine(
    (input) => [input.email, input.domain, input.providerId, input.organizationSlug].filter(Boolean).length === 1,
    { message: "Exactly one of email, domain, providerId or organizationSlug is required" },
  );
export type SignInSsoInput = z.infer<typeof signInSsoInput>;

export type ProviderQuery =
  { email: string } | { domain: string } | { providerId: string } | { organizationSlug: string };

// ---- which connection ----

type ProviderRow = NonNullable<Awaited<ReturnType<typeof prisma.ssoProvider.findFirst>>> & {
  domains: { domain: string; verifiedAt: Date | null }[];
};

const hasVerifiedDomain = (row: ProviderRow) => row.domains.some((entry) => entry.verifiedAt !== null);

/** Verified connections first; among equals the oldest (the sort is stable over createdAt). */
const verifiedFirst = (rows: ProviderRow[]) =>
  [...rows].sort((a, b) => Number(hasVerifiedDomain(b)) - Number(hasVerifiedDomain(a)));

/** The connections that serve `domain`: it is in their domain list or has a domain row of theirs. */
async function providersOfDomain(domain: string): Promise<ProviderRow[]> {
  const rows = await prisma.ssoProvider.findMany({
    where: { OR: [{ domains: { some: { domain } } }, { domain: { contains: domain } }] },
    include: { domains: { where: { domain }, select: { domain: true, verifiedAt: true } } },
    orderBy: { createdAt: "asc" },
  });
  return rows.filter((row) => row.domains.length > 0 || domainList(row.domain).includes(domain));
}

async function providerRow(query: ProviderQuery): Promise<ProviderRow | undefined> {
  const include = { domains: { select: { domain: true, verifiedAt: true } } };
  if ("providerId" in query) {
    return (await prisma.ssoProvider.findUnique({ where: { providerId: query.providerId }, include })) ?? undefined;
  }
  if ("organizationSlug" in query) {
    const rows = await prisma.ssoProvider.findMany({
      where: { organization: { slug: query.organizationSlug } },
      include,
      orderBy: { createdAt: "asc" },
    });
    return verifiedFirst(rows)[0];
  }
  const domain = ("email" in query ? query.email.split("@").pop()! : query.domain).trim().toLowerCase();
  return verifiedFirst(await providersOfDomain(domain))[0];
}

/**
 * The connection a sign-in goes through, named by exactly one of: an email (its domain), a
 * domain, the provider id, or the organization's slug. By domain, connections with that domain
 * verified come before unverified ones. NO_PROVIDER_FOUND (404) when there is none.
 */
export async function resolveProvider(query: ProviderQuery): Promise<LoadedProvider> {
  const row = await providerRow(query);
  if (!row) fail("NO_PROVIDER_FOUND");
  let provider: LoadedProvider | null;
  try {
    provider = loadedProvider(row);
  } catch (error) {
    logger().error({ reason: (error as Error).message }, `[sso] ${row.providerId}: stored settings unusable`);
    provider = null;
  }
  if (!provider) fail("INVALID_SSO_PROVIDER");
  return provider;
}

/** The connection named in a callback's path, or null when it is gone or unusable. */
async function providerNamed(providerId: string): Promise<LoadedProvider | null> {
  try {
    return await resolveProvider({ providerId });
  } catch (error) {
    if (isAppError(error)) return null;
    throw error;
  }
}

// ---- the flow in progress ----

const flowRecord = z.object({
  providerId: z.string(),
  callbackURL: z.string(),
  errorURL: z.string().nullable(),
  newUserURL: z.string().nullable(),
});
/** Where the browser goes once the provider has answered. */
export type SsoFlow = z.infer<typeof flowRecord>;

const oidcRecord = flowRecord.extend({ codeVerifier: z.string(), nonce: z.string() });

const stateCookieName = () => cookieName("sso_state");

/** Removes the browser's state cookie once the callback is done with it. */
export const clearSsoStateCookie = () => expiredCookie(stateCookieName());

/** Uses a stored record up and reads it; null when unknown, spent, expired or not of this shape. */
async function takeRecord<T extends z.ZodType>(prefix: string, key: string | undefined, schema: T) {
  if (!key) return null;
  const value = await consumeToken(prefix, key);
  if (value === null) return null;
  try {
    const parsed = schema.safeParse(JSON.parse(value));
    return parsed.success ? (parsed.data as z.output<T>) : null;
  } catch {
    return null;
  }
}

/** The one way the input names the connection. */
function queryOf({ email, domain, providerId, organizationSlug }: SignInSsoInput): ProviderQuery {
  if (email) return { email };
  if (domain) return { domain };
  if (providerId) return { providerId };
  return { organizationSlug: organizationSlug! };
}

/**
 * Starts a sign-in: the provider's URL to send the browser to (OIDC: the authorization URL
 * with state, nonce and PKCE S256; SAML: the IdP's SSO URL with a deflated AuthnRequest and
 * RelayState) and, for OIDC, the state cookie for this browser.
 */
export async function startSsoSignIn(
  input: SignInSsoInput,
): Promise<{ url: string; redirect: true; setCookies: string[] }> {
  const provider = await resolveProvider(queryOf(input));
  const flow: SsoFlow = {
    providerId: provider.providerId,
    callbackURL: input.callbackURL,
    errorURL: input.errorCallbackURL || null,
    newUserURL: input.newUserCallbackURL || null,
  };
  if (provider.kind === "saml") {
    const relayState = randomToken(32);
    await storeToken(SAML_RELAY_PREFIX, relayState, JSON.stringify(flow), FLOW_EXPIRES_IN);
    const url = await samlSignInUrl(provider, relayState);
    return { url, redirect: true, setCookies: [signedCookie(stateCookieName(), relayState, FLOW_EXPIRES_IN)] };
  }
  const state = randomToken(32);
  const record = { ...flow, codeVerifier: newCodeVerifier(), nonce: randomToken(32) };
  await storeToken(OIDC_STATE_PREFIX, state, JSON.stringify(record), FLOW_EXPIRES_IN);
  const url = authorizationUrl(provider, {
    state,
    nonce: record.nonce,
    codeVerifier: record.codeVerifier,
    scopes: input.scopes,
    loginHint: input.loginHint || input.email,
  });
  return { url, redirect: true, setCookies: [signedCookie(stateCookieName(), state, FLOW_EXPIRES_IN)] };
}

// ---- the answer ----

/** Where the browser goes after the provider's answer, with the cookies it gets. */
export interface SsoOutcome {
  redirectTo: string;
  setCookies: string[];
}

/** A refusal: the `error=` the browser is sent back with, and what exactly for the audit log. */
class SsoRefused extends Error {
  constructor(
    readonly code: string,
    readonly detail?: string,
  ) {
    super(detail ? `${code}: ${detail}` : code);
  }
}

/** `target` (relative, or trusted: the dispatcher checked it) on BASE_URL; home should that fail. */
const onBase = (target: string, params?: Record<string, string>) =>
  absoluteWith(target, params) ?? `${loadEnv().BASE_URL}/`;

/** The organization of connection `providerId`, for a failed sign-in's audit row; null when there is none. */
async function organizationOfConnection(providerId: string): Promise<string | null> {
  const row = await prisma.ssoProvider.findUnique({ where: { providerId }, select: { organizationId: true } });
  return row?.organizationId ?? null;
}

/** Audits a refused sign-in and sends the browser to the flow's error page (or the API's) with `error=`. */
async function refusal(
  flow: SsoFlow | null,
  providerId: string,
  refused: SsoRefused,
  meta: RequestMeta,
  extra: Record<string, unknown> = {},
): Promise<SsoOutcome> {
  await audit({
    userId: null,
    category: "sso",
    action: "sign-in",
    status: "failure",
    organizationId: await organizationOfConnection(providerId),
    details: { providerId, reason: refused.code, ...(refused.detail && { detail: refused.detail }), ...extra },
    meta,
  });
  const params: Record<string, string> = { error: refused.code };
  // The failed check's name only (e.g. "token_not_verified"): what exactly failed is the audit log's.
  const description = refused.detail?.split(":")[0];
  if (description) params.error_description = description;
  return { redirectTo: onBase(flow?.errorURL ?? DEFAULT_ERROR_PAGE, params), setCookies: [] };
}

/** GET /sso/callback/:providerId: the OIDC provider's answer, from the browser that started the sign-in. */
export async function finishOidcSignIn(
  providerId: string,
  request: Request,
  query: { code?: string; state?: string; error?: string; error_description?: string },
  meta: RequestMeta,
): Promise<SsoOutcome> {
  const record = await takeRecord(OIDC_STATE_PREFIX, query.state, oidcRecord);
  // Unknown, replayed, expired, started in another browser or for another connection.
  const own = record && readSignedCookie(request, stateCookieName()) === query.state;
  if (!record || !own || record.providerId !== providerId) {
    return refusal(own ? record : null, providerId, new SsoRefused("state_mismatch"), meta);
  }
  if (query.error) {
    await audit({
      userId: null,
      category: "sso",
      action: "sign-in",
      status: "failure",
      organizationId: await organizationOfConnection(providerId),
      details: { providerId, reason: "provider_error", error: query.error },
      meta,
    });
    const params: Record<string, string> = { error: query.error };
    if (query.error_description) params.error_description = query.error_description;
    return { redirectTo: onBase(record.errorURL ?? DEFAULT_ERROR_PAGE, params), setCookies: [] };
  }
  if (!query.code) return refusal(record, providerId, new SsoRefused("invalid_request", "no_code"), meta);
  const provider = await providerNamed(providerId);
  if (provider?.kind !== "oidc") {
    return refusal(record, providerId, new SsoRefused("invalid_provider", "provider_not_found"), meta);
  }
  let identity: Awaited<ReturnType<typeof oidcIdentity>>;
  try {
    identity = await oidcIdentity(provider, {
      code: query.code,
      codeVerifier: record.codeVerifier,
      nonce: record.nonce,
    });
  } catch (error) {
    if (!(error instanceof OidcRefused)) throw error;
    return refusal(record, providerId, new SsoRefused(error.code, error.detail), meta);
  }
  return completeSsoSignIn(provider, identity, record, meta);
}

export const samlResponseInput = z.object({
  // A signed response with its certificate is a few KiB; IdPs that send many attributes, more.
  SAMLResponse: z
    .string()
    .min(1)
    .max(512 * 1024),
  RelayState: z.string().max(256).optional(),
});

/**
 * POST /sso/saml2/sp/acs/:providerId: the IdP's signed response, posted by the browser. Only
 * an answer to a sign-in started here counts (its RelayState, and the AuthnRequest its
 * InResponseTo names, each used once). What it proves is handed to finishSamlSignIn's GET,
 * which only the browser that started the sign-in can complete.
 */
export async function answerSamlResponse(
  providerId: string,
  body: z.infer<typeof samlResponseInput>,
  meta: RequestMeta,
): Promise<SsoOutcome> {
  const flow = await takeRecord(SAML_RELAY_PREFIX, body.RelayState, flowRecord);
  const own = flow?.providerId === providerId ? flow : null;
  const provider = await providerNamed(providerId);
  if (provider?.kind !== "saml") {
    return refusal(own, providerId, new SsoRefused("saml_error", "provider_not_found"), meta);
  }
  let identity: Awaited<ReturnType<typeof readSamlResponse>>;
  try {
    identity = await readSamlResponse(provider, body.SAMLResponse);
  } catch (error) {
    if (!(error instanceof SamlRefused)) throw error;
    return refusal(own, providerId, new SsoRefused(error.reason, error.detail), meta);
  }
  if (!own) return refusal(null, providerId, new SsoRefused("unsolicited_response", "relay_state"), meta);
  if (!identity.email || !identity.subject) {
    return refusal(own, providerId, new SsoRefused("invalid_saml_response", "missing_user_info"), meta);
  }
  const handoff = randomToken(32);
  const record: SamlHandoff = {
    ...own,
    relayState: body.RelayState!,
    identity: { subject: identity.subject, email: identity.email, name: identity.name },
  };
  await storeToken(SAML_HANDOFF_PREFIX, handoff, JSON.stringify(record), HANDOFF_EXPIRES_IN);
  return { redirectTo: samlFinishUrl(providerId, handoff), setCookies: [] };
}

const samlHandoff = flowRecord.extend({
  relayState: z.string(),
  identity: z.object({ subject: z.string(), email: z.string(), name: z.string().nullable() }),
});
type SamlHandoff = z.infer<typeof samlHandoff>;

/**
 * GET /sso/saml2/sp/finish/:providerId?handoff=: completes a SAML sign-in the ACS accepted,
 * for the browser holding its RelayState's cookie only. Any other browser (one a form post
 * was forged into) is refused with state_mismatch, and the handoff is spent either way.
 */
export async function finishSamlSignIn(
  providerId: string,
  request: Request,
  handoff: string | undefined,
  meta: RequestMeta,
): Promise<SsoOutcome> {
  const record = await takeRecord(SAML_HANDOFF_PREFIX, handoff, samlHandoff);
  const own = record && readSignedCookie(request, stateCookieName()) === record.relayState;
  if (!record || !own || record.providerId !== providerId) {
    return refusal(own ? record : null, providerId, new SsoRefused("state_mismatch", "saml_browser"), meta);
  }
  const provider = await providerNamed(providerId);
  if (provider?.kind !== "saml") {
    return refusal(record, providerId, new SsoRefused("saml_error", "provider_not_found"), meta);
  }
  return completeSsoSignIn(provider, record.identity, record, meta);
}

// ---- the user behind the answer ----

export interface SsoIdentity {
  /** Who the person is at the provider (OIDC `sub`, SAML NameID): the account's id. */
  subject: string;
  email: string;
  name: string | null;
  image?: string | null;
}

const userSelect = { id: true, email: true, emailVerified: true } as const;
type SsoUser = { id: string; email: string; emailVerified: boolean };
/** A user, and the directory links that proving their address ended (proveEmail). */
type Proved = { user: SsoUser; endedLinks: EndedLink[] };

/** Whether `email`'s domain is a verified domain of this connection. */
async function domainVerifiedFor(provider: LoadedProvider, email: string): Promise<boolean> {
  const domain = email.split("@").pop()!;
  const row = await prisma.ssoDomain.findFirst({
    where: { providerId: provider.id, domain, verifiedAt: { not: null } },
    select: { id: true },
  });
  return row !== null;
}

const organizationFull = async (organizationId: string) =>
  (await prisma.member.count({ where: { organizationId } })) >= membershipLimit();

/**
 * Links the connection's account to an existing user. A user who never proved the address
 * gets it proved by the verified domain, and whatever was attached to it unproven (a
 * password, other accounts, their sessions) goes, as with social sign-in.
 */
async function linkToUser(user: SsoUser, provider: LoadedProvider, subject: string): Promise<Proved> {
  return prisma.$transaction(async (tx) => {
    // Nothing attached to an unproven address survives its proof.
    if (!user.emailVerified) await forgetUnprovenHolder(tx, user.id);
    await tx.account.create({ data: { providerId: provider.providerId, accountId: subject, userId: user.id } });
    return user.emailVerified ? { user, endedLinks: [] } : proveEmail(tx, user);
  });
}

/** The ban rule before anything is linked or joined: a banned user gets nothing from this sign-in. */
async function notBanned(userId: string): Promise<void> {
  try {
    await refuseBanned(userId);
  } catch (error) {
    if (isAppError(error) && error.code === "BANNED_USER") throw new SsoRefused("banned");
    throw error;
  }
}

/** Finds (or links, or creates) the user the identity signs in; SsoRefused when not allowed. */
async function ssoUser(
  provider: LoadedProvider,
  identity: SsoIdentity,
  email: string,
  domainVerified: boolean,
): Promise<Proved & { isNew: boolean; linked: boolean }> {
  const accountKey = { providerId_accountId: { providerId: provider.providerId, accountId: identity.subject } };
  const account = await prisma.account.findUnique({ where: accountKey, select: { user: { select: userSelect } } });
  if (account) {
    const { user } = account;
    await notBanned(user.id);
    // A domain verified since the account was made vouches for the address it still has.
    if (domainVerified && !user.emailVerified && user.email === email) {
      return { ...(await prisma.$transaction((tx) => proveEmail(tx, user))), isNew: false, linked: false };
    }
    return { user, endedLinks: [], isNew: false, linked: false };
  }
  const existing = await prisma.user.findUnique({ where: { email }, select: userSelect });
  if (existing) {
    if (!domainVerified) throw new SsoRefused("account_not_linked", "unverified_domain");
    await notBanned(existing.id);
    return { ...(await linkToUser(existing, provider, identity.subject)), isNew: false, linked: true };
  }
  // No account is made for someone the organization cannot take in.
  if (await organizationFull(provider.organizationId)) throw new SsoRefused("organization_membership_limit_reached");
  try {
    const user = await prisma.user.create({
      data: {
        id: newId(),
        email,
        name: identity.name ?? "",
        image: identity.image ?? null,
        emailVerified: domainVerified,
        accounts: { create: { providerId: provider.providerId, accountId: identity.subject } },
      },
      select: userSelect,
    });
    return { user, endedLinks: [], isNew: true, linked: false };
  } catch (error) {
    if (!isUniqueViolation(error)) throw error;
    // The same person's other sign-in made the account meanwhile: that user signs in.
    const again = await prisma.account.findUnique({ where: accountKey, select: { user: { select: userSelect } } });
    if (again) return { user: again.user, endedLinks: [], isNew: false, linked: false };
    throw new SsoRefused("unable_to_create_user");
  }
}

/** Makes the user a member (role member) of the connection's organization, and the one its next session starts in. */
async function joinOrganization(provider: LoadedProvider, userId: string, meta: RequestMeta): Promise<boolean> {
  const { organizationId } = provider;
  // The organization's directory has the last word: someone it deactivated (SCIM) stays out,
  // whatever the identity provider still lets through.
  const directory = await prisma.scimUser.findUnique({
    where: { organizationId_userId: { organizationId, userId } },
    select: { active: true },
  });
  if (directory && !directory.active) throw new SsoRefused("account_deactivated");
  let joined = false;
  if (!(await membershipOf(userId, organizationId))) {
    try {
      await addMember({ userId, organizationId, role: "member" }, meta);
      joined = true;
    } catch (error) {
      if (!isAppError(error)) throw error;
      if (error.code === "ORGANIZATION_MEMBERSHIP_LIMIT_REACHED") {
        throw new SsoRefused("organization_membership_limit_reached");
      }
      // Another sign-in of the same person added them meanwhile.
      if (error.code !== "USER_IS_ALREADY_A_MEMBER_OF_THIS_ORGANIZATION") throw error;
    }
  }
  // createSession starts a session in the organization its user last used: this one, now.
  await prisma.member.updateMany({ where: { userId, organizationId }, data: { lastActiveAt: new Date() } });
  return joined;
}

/**
 * Signs in the person the provider vouched for (see the module's header for the rules) and
 * says where the browser goes: `callbackURL` (`newUserURL` for a new user), the second step of
 * a user with two-factor, or the flow's error page with `error=` and the refusal audited.
 */
export async function completeSsoSignIn(
  provider: LoadedProvider,
  identity: SsoIdentity,
  flow: SsoFlow,
  meta: RequestMeta,
): Promise<SsoOutcome> {
  const email = normalizeEmail(identity.email);
  const { providerId, organizationId } = provider;
  try {
    const domainVerified = await domainVerifiedFor(provider, email);
    const { user, isNew, linked, endedLinks } = await ssoUser(provider, identity, email, domainVerified);
    await auditEndedLinks(user.id, endedLinks, meta);
    const joined = await joinOrganization(provider, user.id, meta);
    await audit({
      userId: user.id,
      category: "sso",
      action: "sign-in",
      status: "success",
      targetType: "organization",
      targetId: organizationId,
      organizationId,
      details: { providerId, organizationId, newUser: isNew, linked, joined, domainVerified },
      meta,
    });
    const target = isNew && flow.newUserURL ? flow.newUserURL : flow.callbackURL;
    try {
      const created = await signInSession(user.id, meta, { method: `${SSO_METHOD_PREFIX}${providerId}` });
      return { redirectTo: onBase(target), setCookies: created.setCookies };
    } catch (error) {
      // The provider was the first factor: the second-step page continues to the same place.
      if (!(error instanceof SecondFactorRequired)) throw error;
      const next = `${localizePath("/signin/two-factor", meta.locale)}?${new URLSearchParams({ redirect: target })}`;
      return { redirectTo: onBase(next), setCookies: error.setCookies };
    }
  } catch (error) {
    if (error instanceof SsoRefused) return refusal(flow, providerId, error, meta, { email });
    // signInSession audited a ban that came between the check above and the session.
    if (isAppError(error) && error.code === "BANNED_USER") {
      return { redirectTo: onBase(flow.errorURL ?? DEFAULT_ERROR_PAGE, { error: "banned" }), setCookies: [] };
    }
    // Another organization requires its own single sign-on for this email (signInSession audited it).
    if (error instanceof SsoRequired) {
      const query = { error: "sso_required", email: error.email };
      return { redirectTo: onBase(flow.errorURL ?? DEFAULT_ERROR_PAGE, query), setCookies: [] };
    }
    logger().error({ err: error }, `[sso] ${providerId}: sign-in failed`);
    return refusal(flow, providerId, new SsoRefused("unable_to_create_session"), meta, { email });
  }
}
