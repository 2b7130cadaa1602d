/**
 * Sessions: a database row per signed-in device, a signed cookie carrying its token, and a
 * short-lived signed cookie cache of the session + user so most requests skip the database.
 *
 * - The session cookie is `token.signature` (HMAC-SHA256, 44-character base64 signature).
 *   Only sha256(token) is stored, so a leaked database grants no live session.
 * - expiresIn 7 days with a sliding refresh once a day (updateAge); `rememberMe: false` gives
 *   a browser-session cookie, a 1-day session and no refresh. Whether a session slides is
 *   read from its row (its lifetime), never from a cookie the client could leave out; the
 *   signed `dont_remember` cookie is still set, as better-auth's contract has it.
 * - The cookie cache (`session_data`, max age 60 s, at most 4093 characters) is HMAC-signed;
 *   it is only honoured together with a valid session cookie whose hash it names, and not
 *   for a user whose sessions were revoked within the last minute (revocation.server.ts).
 * - Every deletion of sessions goes through `deleteSessions`, which announces it to every
 *   instance; apart from those short-lived marks nothing is kept in process memory.
 */
import { createHash, createHmac, randomInt, timingSafeEqual } from "node:crypto";
import { createContext, type RouterContextProvider } from "react-router";
import { clientAddressContext } from "~/context";
import type { Locale } from "~/i18n/config";
import { prisma, type Prisma, type Session } from "~/server/db.server";
import { loadEnv } from "~/server/env.server";
import { fail } from "~/server/errors.server";
import { getLocale } from "~/server/i18n.server";
import type { RequestHead } from "~/server/request-head.server";
import { parseCookies, serializeCookie, sign, unsign } from "./cookies.server";
import { announceRevocation, cacheTrusted, COOKIE_CACHE_MAX_AGE } from "./revocation.server";

const SESSION_EXPIRES_IN = 7 * 24 * 60 * 60; // seconds
const SESSION_UPDATE_AGE = 24 * 60 * 60;
const SESSION_FRESH_AGE = 24 * 60 * 60;
/** The lifetime of a session created with rememberMe off. */
const SHORT_SESSION_EXPIRES_IN = 24 * 60 * 60;
/**
 * Browsers silently drop a cookie whose name and value pass 4096 bytes; a cache cookie over
 * 4093 characters is not written at all, and that session is read from the database instead.
 */
const COOKIE_CACHE_MAX_LENGTH = 4093;

const ALPHANUMERIC = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789";

/** A random string over `alphabet` (default [A-Za-z0-9]) from the CSPRNG, without modulo bias. */
export function randomToken(length = 32, alphabet = ALPHANUMERIC): string {
  let out = "";
  for (let i = 0; i < length; i++) out += alphabet[randomInt(alphabet.length)];
  return out;
}

/** Only this hash is stored, so a leaked database grants no live session. */
export function hashToken(token: string): string {
  return createHash("sha256").update(token).digest("hex");
}

// ---- cookie names: `__Secure-` prefix (and the Secure flag) when BASE_URL is https ----

export function cookieName(name: string): string {
  return loadEnv().secureCookies ? `__Secure-app.${name}` : `app.${name}`;
}
const sessionCookieName = () => cookieName("session_token");
export const sessionDataCookieName = () => cookieName("session_data");
export const dontRememberCookieName = () => cookieName("dont_remember");
/** Names a trusted browser that may skip the second step (two-factor.server.ts). */
export const trustDeviceCookieName = () => cookieName("trust_device");

// ---- types ----

export type SessionRow = Session;

/** The user as the API returns it (better-auth's user plus the admin and two-factor plugins' fields). */
export const authUserSelect = {
  id: true,
  name: true,
  email: true,
  emailVerified: true,
  image: true,
  createdAt: true,
  updatedAt: true,
  role: true,
  banned: true,
  banReason: true,
  banExpires: true,
  twoFactorEnabled: true,
} as const;

export type AuthUser = {
  id: string;
  name: string;
  email: string;
  emailVerified: boolean;
  image: string | null;
  createdAt: Date;
  updatedAt: Date;
  role: string;
  banned: boolean;
  banReason: string | null;
  banExpires: Date | null;
  twoFactorEnabled: boolean;
};

/** What pages know about the signed-in user (kept as a name for existing callers). */
export type SessionUser = AuthUser;

export interface AuthSession {
  session: SessionRow;
  user: AuthUser;
}

/** The request's session (row + user), read once by the session middleware for pages. */
export const sessionContext = createContext<AuthSession | null>(null);

export interface RequestMeta {
  ipAddress: string | null;
  userAgent: string | null;
  /**
   * The admin acting as the user when the request comes from an impersonation session; every
   * audit row the request writes names them. The API sets it when it reads the session.
   */
  impersonatedBy?: string | null;
  /** The language for emails and messages this request triggers. */
  locale: Locale;
  /** The token of the browser's trusted-device cookie (two-factor.server.ts), if any. */
  trustedDevice?: string | null;
}

/**
 * Who is asking, for sessions, audit rows and emails. Pages speak the language of their URL
 * prefix (as the i18n middleware read it); the API, whose paths have none, replaces it with
 * the visitor's preferred language (handleAuthRequest).
 */
export function requestMeta(request: Request, context: Readonly<RouterContextProvider>): RequestMeta {
  return {
    ipAddress: context.get(clientAddressContext),
    userAgent: request.headers.get("User-Agent"),
    locale: getLocale(context),
    trustedDevice: readSignedCookie(request, trustDeviceCookieName()),
    impersonatedBy: context.get(sessionContext)?.session.impersonatedBy ?? null,
  };
}

// ---- cookies ----

/** `name=encodeURIComponent(value.signature)`; without maxAge it lasts for the browser session. */
export function signedCookie(name: string, value: string, maxAge: number | undefined): string {
  const { AUTH_SECRET, secureCookies } = loadEnv();
  return serializeCookie(name, encodeURIComponent(`${value}.${sign(value, AUTH_SECRET)}`), {
    maxAge,
    secure: secureCookies,
  });
}

const sessionTokenCookie = (token: string, maxAge: number | undefined) =>
  signedCookie(sessionCookieName(), token, maxAge);

export function expiredCookie(name: string): string {
  return serializeCookie(name, "", { maxAge: 0, secure: loadEnv().secureCookies });
}

/** Set-Cookie lines that remove every session cookie. */
export function clearSessionCookies(): string[] {
  return [sessionCookieName(), sessionDataCookieName(), dontRememberCookieName()].map(expiredCookie);
}

/** Removes only the cookie cache, so the next request reads the database. */
export function clearCookieCacheCookie(): string {
  return expiredCookie(sessionDataCookieName());
}

const macOf = (payload: string) =>
  createHmac("sha256", loadEnv().AUTH_SECRET).update(`session_data:${payload}`).digest("base64url");

/**
 * The cookie cache: base64url(JSON {session, user, expiresAt}) + "." + base64url(HMAC), valid
 * for COOKIE_CACHE_MAX_AGE seconds. Returns a clearing cookie instead when the result would
 * exceed COOKIE_CACHE_MAX_LENGTH characters (a browser would silently drop it).
 */
export function cookieCacheCookie(auth: AuthSession): string {
  const expiresAt = Date.now() + COOKIE_CACHE_MAX_AGE * 1000;
  const payload = Buffer.from(JSON.stringify({ session: auth.session, user: auth.user, expiresAt })).toString(
    "base64url",
  );
  const cookie = serializeCookie(sessionDataCookieName(), `${payload}.${macOf(payload)}`, {
    maxAge: COOKIE_CACHE_MAX_AGE,
    secure: loadEnv().secureCookies,
  });
  const nameAndValue = cookie.slice(0, cookie.indexOf(";"));
  return nameAndValue.length <= COOKIE_CACHE_MAX_LENGTH ? cookie : clearCookieCacheCookie();
}

/** The session a cookie cache holds, and when the cache ends, if it is genuine and of `tokenHash`'s session. */
function readCookieCache(raw: string, tokenHash: string): (AuthSession & { expiresAt: number }) | null {
  const dot = raw.lastIndexOf(".");
  if (dot < 1) return null;
  const payload = raw.slice(0, dot);
  const given = Buffer.from(raw.slice(dot + 1));
  const expected = Buffer.from(macOf(payload));
  if (given.length !== expected.length || !timingSafeEqual(given, expected)) return null;
  try {
    const data = JSON.parse(Buffer.from(payload, "base64url").toString("utf8")) as {
      session: Record<string, unknown>;
      user: Record<string, unknown>;
      expiresAt: number;
    };
    if (typeof data.expiresAt !== "number" || data.session.token !== tokenHash) return null;
    const session = reviveDates(data.session, ["expiresAt", "createdAt", "updatedAt"]) as unknown as SessionRow;
    const user = reviveDates(data.user, ["createdAt", "updatedAt", "banExpires"]) as unknown as AuthUser;
    return { session, user, expiresAt: data.expiresAt };
  } catch {
    return null;
  }
}

function reviveDates(row: Record<string, unknown>, keys: string[]): Record<string, unknown> {
  const out = { ...row };
  for (const key of keys) if (typeof out[key] === "string") out[key] = new Date(out[key]);
  return out;
}

/** The value of a signed cookie when its signature is genuine, else null. */
export function readSignedCookie(request: RequestHead, name: string): string | null {
  return signedValue(parseCookies(request.headers.get("Cookie")).get(name));
}

/** A signed cookie's value as the browser sent it → its value when the signature is genuine, else null. */
function signedValue(raw: string | undefined): string | null {
  if (!raw) return null;
  try {
    return unsign(decodeURIComponent(raw), loadEnv().AUTH_SECRET);
  } catch {
    return null; // malformed percent-encoding
  }
}

/** The raw session token from the request's signed cookie, or null (missing, forged, malformed). */
export const sessionTokenFrom = (request: RequestHead) => readSignedCookie(request, sessionCookieName());

/** True when the request carries any of the session cookies (e.g. to clear stale ones). */
export function hasSessionCookies(request: RequestHead): boolean {
  const jar = parseCookies(request.headers.get("Cookie"));
  return [sessionCookieName(), sessionDataCookieName(), dontRememberCookieName()].some((name) => jar.has(name));
}

// ---- sessions ----

export interface CreateSessionOptions {
  rememberMe?: boolean;
  /** Set by admin impersonation (admin plugin). */
  impersonatedBy?: string | null;
  /** Overrides the lifetime in seconds (e.g. impersonation: 1 hour). */
  expiresIn?: number;
  /** How the user signed in (signInSession's method); a session that replaces another keeps its method. */
  signInMethod?: string | null;
}

/**
 * The ban rule, for every way a session (or a sign-in waiting for its second step) is made:
 * a banned user gets none (403 BANNED_USER); a ban whose time has passed is lifted here.
 */
export async function refuseBanned(userId: string): Promise<void> {
  const user = await prisma.user.findUnique({ where: { id: userId }, select: { banned: true, banExpires: true } });
  if (!user?.banned) return;
  if (!user.banExpires || user.banExpires.getTime() > Date.now()) fail("BANNED_USER");
  await prisma.user.update({ where: { id: userId }, data: { banned: false, banReason: null, banExpires: null } });
}

/**
 * Creates a session for `userId` and returns the cookies that carry it. Every session is
 * made here, so this is where a banned user is refused; only an admin's impersonation
 * session is exempt (the admin console shows a banned user as they see the product).
 */
export async function createSession(
  userId: string,
  meta: Partial<RequestMeta> = {},
  { rememberMe = true, impersonatedBy = null, expiresIn, signInMethod = null }: CreateSessionOptions = {},
): Promise<{ session: SessionRow; user: AuthUser; token: string; setCookies: string[] }> {
  if (!impersonatedBy) await refuseBanned(userId);
  const token = randomToken();
  const lifetime = expiresIn ?? (rememberMe ? SESSION_EXPIRES_IN : SHORT_SESSION_EXPIRES_IN);
  // One clock for both ends: the lifetime they span is how wasRemembered() tells the kind.
  const now = Date.now();
  const { user, ...session } = await prisma.session.create({
    data: {
      userId,
      activeOrganizationId: await startingOrganization(userId),
      token: hashToken(token),
      createdAt: new Date(now),
      expiresAt: new Date(now + lifetime * 1000),
      ipAddress: meta.ipAddress ?? null,
      userAgent: meta.userAgent ?? null,
      impersonatedBy,
      signInMethod,
    },
    include: { user: { select: authUserSelect } },
  });
  const setCookies = [
    sessionTokenCookie(token, rememberMe ? lifetime : undefined),
    // Signing in again with rememberMe on must undo an earlier rememberMe off.
    rememberMe ? expiredCookie(dontRememberCookieName()) : signedCookie(dontRememberCookieName(), "true", undefined),
    cookieCacheCookie({ session, user }),
  ];
  return { session, user, token, setCookies };
}

/**
 * The organization a new session starts in: the one its user last made active, else their
 * only one. Only while they are a member: a membership that ends takes its row with it.
 */
async function startingOrganization(userId: string): Promise<string | null> {
  const memberships = await prisma.member.findMany({
    where: { userId },
    select: { organizationId: true, lastActiveAt: true },
    orderBy: { lastActiveAt: { sort: "desc", nulls: "last" } },
    take: 2,
  });
  const [latest] = memberships;
  return latest && (latest.lastActiveAt || memberships.length === 1) ? latest.organizationId : null;
}

/**
 * The cookies that put an existing session (its raw `token`) back in the browser, e.g. the
 * admin's own session when impersonation stops.
 */
export function sessionCookies(token: string, auth: AuthSession): string[] {
  const remember = wasRemembered(auth.session);
  const maxAge = Math.max(0, Math.floor((auth.session.expiresAt.getTime() - Date.now()) / 1000));
  return [
    sessionTokenCookie(token, remember ? maxAge : undefined),
    remember ? expiredCookie(dontRememberCookieName()) : signedCookie(dontRememberCookieName(), "true", undefined),
    cookieCacheCookie(auth),
  ];
}

export interface GetSessionOptions {
  /** Read the database even when a valid cookie cache is present. */
  disableCookieCache?: boolean;
  /** Do not extend the session even when it is due. */
  disableRefresh?: boolean;
}

/**
 * The request's session, or null (no cookie, bad signature, unknown or expired session;
 * an expired row is deleted). Served from the cookie cache when it is valid; otherwise from
 * the database, extending the session when the refresh is due, and re-setting the cache.
 * `setCookies` holds the Set-Cookie lines the response must carry.
 */
export async function getSession(
  request: Request,
  options: GetSessionOptions = {},
): Promise<(AuthSession & { setCookies: string[] }) | null> {
  if (!options.disableCookieCache) {
    const cached = cachedSession(request);
    if (cached) return { ...cached, setCookies: [] };
  }
  const token = sessionTokenFrom(request);
  if (!token) return null;
  const tokenHash = hashToken(token);

  const row = await prisma.session.findUnique({
    where: { token: tokenHash },
    include: { user: { select: authUserSelect } },
  });
  if (!row) return null;
  let { user, ...session } = row;
  const now = Date.now();
  if (session.expiresAt.getTime() <= now) {
    await prisma.session.deleteMany({ where: { id: session.id } }); // expired: no cache can outlive it
    return null;
  }

  const setCookies: string[] = [];
  // Sliding refresh: once a day at most, and never for a rememberMe-off (or impersonation) session.
  const dueAt = session.expiresAt.getTime() - SESSION_EXPIRES_IN * 1000 + SESSION_UPDATE_AGE * 1000;
  if (!options.disableRefresh && wasRemembered(session) && dueAt <= now) {
    const updated = await prisma.session.update({
      where: { id: session.id },
      data: { expiresAt: new Date(now + SESSION_EXPIRES_IN * 1000) },
      include: { user: { select: authUserSelect } },
    });
    ({ user, ...session } = updated);
    setCookies.push(sessionTokenCookie(token, SESSION_EXPIRES_IN));
  }
  setCookies.push(cookieCacheCookie({ session, user }));
  return { session, user, setCookies };
}

/**
 * The session the request's cookie cache holds, when the cache is genuine, unexpired, of the
 * session its signed token cookie names, and its user has had nothing revoked since it was
 * made; else null, and the session must come from the database.
 */
export function cachedSession(request: RequestHead): AuthSession | null {
  const jar = parseCookies(request.headers.get("Cookie"));
  const tokenCookie = jar.get(sessionCookieName());
  const cacheCookie = jar.get(sessionDataCookieName());
  if (!tokenCookie || !cacheCookie) return null;
  const key = `${tokenCookie} ${cacheCookie}`;
  let verified = verifiedCaches.get(key);
  if (!verified) {
    const token = signedValue(tokenCookie);
    const read = token === null ? null : readCookieCache(cacheCookie, hashToken(token));
    if (!read) return null;
    verified = read;
    verifiedCaches.set(key, read);
    if (verifiedCaches.size > VERIFIED_CACHES_MAX) verifiedCaches.delete(verifiedCaches.keys().next().value!);
  }
  const now = Date.now();
  if (verified.expiresAt <= now || verified.session.expiresAt.getTime() <= now) {
    verifiedCaches.delete(key);
    return null;
  }
  if (!cacheTrusted(verified.user.id)) return null;
  // Copies: a caller may change what it is given, never what the next request gets.
  return { session: { ...verified.session }, user: { ...verified.user } };
}

/**
 * Cookie caches already verified, by the raw values of the two cookies: a browser sends the
 * same pair with every request for up to a minute, and verifying it (two HMACs, a hash and a
 * parse) was most of what get-session cost. Expiry and revocation are checked on every use
 * all the same; the oldest entries go first.
 */
const verifiedCaches = new Map<string, AuthSession & { expiresAt: number }>();
const VERIFIED_CACHES_MAX = 1000;

/**
 * A session created with rememberMe off lives exactly SHORT_SESSION_EXPIRES_IN and is never
 * refreshed (an impersonation session lives shorter still); a remembered one lives longer from
 * the start and only grows. So the row itself tells, and no client can turn one into the other.
 */
export function wasRemembered(session: Pick<SessionRow, "createdAt" | "expiresAt">): boolean {
  return session.expiresAt.getTime() - session.createdAt.getTime() > SHORT_SESSION_EXPIRES_IN * 1000;
}

/** Fresh = signed in (not merely refreshed) within freshAge; sensitive actions need it. */
export function isFresh(session: Pick<SessionRow, "createdAt">): boolean {
  return Date.now() - session.createdAt.getTime() < SESSION_FRESH_AGE * 1000;
}

/**
 * Changes the session's active organization and/or team; returns it with the cookie cache
 * that carries the change (the old cache would show the old organization for a minute).
 * The organization made active is remembered as the one the user last used.
 */
export async function updateActive(
  auth: AuthSession,
  data: { activeOrganizationId?: string | null; activeTeamId?: string | null },
): Promise<{ session: SessionRow; setCookies: string[] }> {
  const session = await prisma.session.update({ where: { id: auth.session.id }, data });
  if (data.activeOrganizationId) {
    await prisma.member.updateMany({
      where: { userId: auth.user.id, organizationId: data.activeOrganizationId },
      data: { lastActiveAt: new Date() },
    });
  }
  return { session, setCookies: [cookieCacheCookie({ session, user: auth.user })] };
}

/**
 * Clears `organizationId` as the active organization of every session of `userId` (removed,
 * left, deleted), and stops every instance trusting cached copies of them.
 */
export async function clearActiveOrganization(userId: string, organizationId: string, tx?: Db): Promise<void> {
  const db = tx ?? prisma;
  await db.session.updateMany({
    where: { userId, activeOrganizationId: organizationId },
    data: { activeOrganizationId: null, activeTeamId: null },
  });
  await announceRevocation(db, userId);
}

/**
 * Clears `teamId` as the active team of every session that has it (the team was removed),
 * and stops every instance trusting cached copies of them.
 */
export async function clearActiveTeam(teamId: string, tx?: Db): Promise<void> {
  const db = tx ?? prisma;
  const holders = await db.session.findMany({
    where: { activeTeamId: teamId },
    select: { userId: true },
    distinct: ["userId"],
  });
  await db.session.updateMany({ where: { activeTeamId: teamId }, data: { activeTeamId: null } });
  for (const { userId } of holders) await announceRevocation(db, userId);
}

/** The user's unexpired sessions, newest first. */
export function listSessions(userId: string): Promise<SessionRow[]> {
  return prisma.session.findMany({
    where: { userId, expiresAt: { gt: new Date() } },
    orderBy: { createdAt: "desc" },
  });
}

type Db = Pick<Prisma.TransactionClient, "session" | "$executeRaw">;

/**
 * The one way sessions are deleted: the rows `where` selects among `userId`'s sessions go,
 * and every instance stops trusting cached copies of them at once (revocation.server.ts).
 * Pass `tx` to make it part of a larger transaction. Returns how many were deleted.
 */
export async function deleteSessions(userId: string, where: Prisma.SessionWhereInput = {}, tx?: Db): Promise<number> {
  const run = async (db: Db) => {
    const { count } = await db.session.deleteMany({ where: { ...where, userId } });
    if (count > 0) await announceRevocation(db, userId);
    return count;
  };
  return tx ? run(tx) : prisma.$transaction(run);
}

/**
 * Ends the sessions `adminId` opened as other users (impersonation), on every instance. They
 * belong to the impersonated users, so ending the admin's own sessions leaves them: an admin
 * banned, removed or given another role must lose these too.
 */
export async function endImpersonationsBy(adminId: string, tx: Db): Promise<void> {
  const rows = await tx.session.findMany({ where: { impersonatedBy: adminId }, select: { userId: true } });
  for (const userId of new Set(rows.map((row) => row.userId))) {
    await deleteSessions(userId, { impersonatedBy: adminId }, tx);
  }
}

/**
 * The routes that manage how an account is reached, or remove it: its keys, password, email,
 * sessions, provider accounts and their tokens, second factor and passkeys, and directory
 * tokens. Neither an API key nor an admin's impersonation may use them (a listed path ending
 * in "/" stands for every route under it).
 */
export const ACCOUNT_ACCESS_ROUTES = [
  "/get-access-token",
  "/refresh-token",
  "/account-info",
  "/api-key/",
  "/delete-user",
  "/change-password",
  "/set-password",
  "/change-email",
  "/revoke-session",
  "/revoke-sessions",
  "/revoke-other-sessions",
  "/link-social",
  "/unlink-account",
  "/two-factor/",
  "/passkey/",
  "/scim/generate-token",
];

/** Whether `path` is one of `routes` (see ACCOUNT_ACCESS_ROUTES for the prefix form). */
export const routeIn = (path: string, routes: readonly string[]) =>
  routes.some((listed) => (listed.endsWith("/") ? path.startsWith(listed) : path === listed));

/** What an impersonation may not use: the account's ways in, and single sign-on's connections. */
const REFUSED_WHILE_IMPERSONATING = [...ACCOUNT_ACCESS_ROUTES, "/sso/"];

/**
 * An admin's impersonation acts in the product as the user, but never on how the user, or
 * anyone, gets in: a key, passkey, provider link, directory token or single sign-on
 * connection made then would outlast it (keys and passkeys have no hour), and a password,
 * email or second factor changed then would take the account from its owner. The API
 * dispatcher and every page action ask it with the route they are about to run:
 * 403 NOT_ALLOWED_WHILE_IMPERSONATING.
 */
export async function refuseWhileImpersonating(
  path: string,
  auth: () => Promise<AuthSession | null> | AuthSession | null,
): Promise<void> {
  // The session is looked up only for a listed route: the others pay nothing.
  if (routeIn(path, REFUSED_WHILE_IMPERSONATING) && (await auth())?.session.impersonatedBy) {
    fail("NOT_ALLOWED_WHILE_IMPERSONATING");
  }
}

/** Ends the request's session (if any) and returns the Set-Cookie lines that clear its cookies. */
export async function endSession(request: Request): Promise<string[]> {
  const token = sessionTokenFrom(request);
  const row = token
    ? await prisma.session.findUnique({ where: { token: hashToken(token) }, select: { id: true, userId: true } })
    : null;
  if (row) await deleteSessions(row.userId, { id: row.id });
  return clearSessionCookies();
}
