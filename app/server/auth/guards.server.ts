import { redirect, type MiddlewareFunction, type RouterContextProvider } from "react-router";
import { navigation } from "~/config/navigation";
import { localizePath, splitLocale } from "~/i18n/config";
import { isExternalUrl, safeRedirect } from "~/lib/safe-redirect";
import { loadEnv } from "~/server/env.server";
import { noteRequest } from "~/server/log.server";
import { pageUrl } from "~/server/page-url.server";
import { AppError, errorResponse } from "~/server/errors.server";
import { apiKeyFrom } from "./api-keys.server";
import {
  clearSessionCookies,
  getSession,
  hasSessionCookies,
  sessionContext,
  type AuthSession,
  type SessionUser,
} from "./session.server";

/**
 * Reads the session once per request; every guard and loader shares it. A due sliding
 * refresh or a new cookie cache goes out on whatever response the request ends with, and
 * stale session cookies are cleared. /api/auth reads the session itself, with the options
 * of each call (disableCookieCache, disableRefresh), so it is skipped here.
 *
 * Pages are for people: a request with an API key is refused here, before the key is read
 * (403 API_KEY_NOT_ALLOWED). The rules that bound a key (an organization's key to its
 * organization, no key in the admin console or on its author's account) are the JSON API's
 * gate; a page honouring the key would open all of that to it.
 */
export const sessionMiddleware: MiddlewareFunction<Response> = async ({ request, url, context }, next) => {
  if (url.pathname.startsWith("/api/auth/")) return next();
  if (apiKeyFrom(request) !== null) return errorResponse(new AppError("API_KEY_NOT_ALLOWED"));
  const auth = await getSession(request);
  context.set(sessionContext, auth && { session: auth.session, user: auth.user });
  if (auth) noteRequest({ userId: auth.user.id });
  const setCookies = auth ? auth.setCookies : hasSessionCookies(request) ? clearSessionCookies() : [];
  const response = await next();
  for (const cookie of setCookies) appendSetCookie(response, cookie);
  return response;
};

/** Adds a cookie unless the response (an action signing in or out) already sets that cookie itself. */
function appendSetCookie(response: Response, cookie: string) {
  const name = cookie.slice(0, cookie.indexOf("="));
  if (response.headers.getSetCookie().some((line) => line.startsWith(`${name}=`))) return;
  response.headers.append("Set-Cookie", cookie);
}

export function getUser(context: Readonly<RouterContextProvider>): SessionUser | null {
  return context.get(sessionContext)?.user ?? null;
}

/** The signed-in session (row + user), e.g. to mark "this device" in a session list. */
export function getAuthSession(context: Readonly<RouterContextProvider>): AuthSession | null {
  return context.get(sessionContext);
}

/** Redirects to an unprefixed path in the language of the page at `url`. */
export function localizedRedirect(url: URL, path: string, init?: ResponseInit): Response {
  const { locale } = splitLocale(url.pathname);
  return redirect(localizePath(path, locale), init);
}

/** Route rules: an exact-path table that can redirect, locally (localized) or externally. */
export const routeRulesMiddleware: MiddlewareFunction<Response> = ({ url }) => {
  const rule = navigation.routeRules[splitLocale(url.pathname).path];
  if (!rule) return;
  throw isExternalUrl(rule.redirect) ? redirect(rule.redirect) : localizedRedirect(url, rule.redirect + url.search);
};

/** The signed-in session (row + user), or a redirect to sign in that brings the visitor back afterwards. */
export function requireAuthSession(context: Readonly<RouterContextProvider>): AuthSession {
  const auth = context.get(sessionContext);
  if (auth) return auth;
  const url = pageUrl(context);
  const back = encodeURIComponent(url.pathname + url.search);
  throw localizedRedirect(url, `${navigation.guestRedirect}?redirect=${back}`);
}

/** The signed-in user, or a redirect to sign in (see requireAuthSession). */
export const requireUser = (context: Readonly<RouterContextProvider>): SessionUser => requireAuthSession(context).user;

export const requireUserMiddleware: MiddlewareFunction<Response> = ({ context }) => {
  requireUser(context);
};

/** Where the page's `?redirect=` asks to go afterwards, when that is safe; null otherwise. */
export const redirectParam = (url: URL): string | null =>
  safeRedirect(url.searchParams.get("redirect"), loadEnv().trustedOrigins);

/** Signed-in visitors go to the page they asked for in `redirect` (when safe), else on. */
export const guestOnlyMiddleware: MiddlewareFunction<Response> = ({ url, context }) => {
  if (!getUser(context)) return;
  const target = redirectParam(url);
  throw target ? redirect(target) : localizedRedirect(url, navigation.signedInRedirect);
};
