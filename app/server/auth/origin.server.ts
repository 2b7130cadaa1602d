/**
 * Cross-site request forgery protection. A state-changing request that carries cookies must
 * come from a trusted origin (BASE_URL + TRUSTED_ORIGINS), told by its Origin header or,
 * without one, its Referer, as better-auth does it; this applies to pages and the API alike.
 * Pages and resource routes also refuse a cookie-less request that names a foreign (or
 * "null") origin: a cross-site form can change state without cookies too (set our locale
 * cookie, sign someone in). The API leaves cookie-less calls to its own login checks
 * (`assertLoginOrigin`), as better-auth's clients expect.
 */
import { createContext, type MiddlewareFunction } from "react-router";
import { loadEnv } from "~/server/env.server";
import { AppError, errorResponse, type ErrorCode } from "~/server/errors.server";

/** The request's origin from Origin, else from Referer; null when neither names one. */
function originOf(request: Request): string | null {
  const origin = request.headers.get("Origin");
  if (origin && origin !== "null") return origin;
  const referer = request.headers.get("Referer");
  if (!origin && referer) {
    try {
      return new URL(referer).origin;
    } catch {
      return null;
    }
  }
  return null;
}

/** null when the request's origin is trusted, else the error code to answer. */
function originProblem(request: Request): ErrorCode | null {
  const origin = originOf(request);
  if (!origin) return "MISSING_OR_NULL_ORIGIN";
  return loadEnv().trustedOrigins.includes(origin) ? null : "INVALID_ORIGIN";
}

const SAFE_METHODS = new Set(["GET", "HEAD", "OPTIONS"]);

const API_PREFIX = "/api/auth/";
// A provider's form_post (Apple) arrives cross-site, by design; the endpoint only re-issues
// it as a GET, and the state record and state cookie authenticate that GET.
const PROVIDER_CALLBACK_PREFIX = "/api/auth/callback/";
// So does a SAML IdP's response (HTTP-POST binding), at single sign-on's Assertion Consumer
// Service: the signed response, and the one-use request it answers, authenticate it.
const SAML_ACS_PREFIX = "/api/auth/sso/saml2/sp/acs/";

/** The 403 to answer a state-changing request from an untrusted origin (see the header), or null. */
export function untrustedOriginResponse(request: Request): Response | null {
  if (SAFE_METHODS.has(request.method)) return null;
  const { pathname } = new URL(request.url);
  if (pathname.startsWith(PROVIDER_CALLBACK_PREFIX) || pathname.startsWith(SAML_ACS_PREFIX)) return null;
  if (!request.headers.get("Cookie")) {
    const namesOrigin = request.headers.has("Origin") || request.headers.has("Referer");
    if (!namesOrigin || new URL(request.url).pathname.startsWith(API_PREFIX)) return null;
  }
  const problem = originProblem(request);
  return problem ? errorResponse(new AppError(problem)) : null;
}

/**
 * Set once a request's origin has been checked: the production entry (app.server.ts) checks
 * every request before React Router or the /api/auth dispatcher sees it, so the check runs
 * once per request.
 */
export const originCheckedContext = createContext<boolean>(false);

/** Root middleware: the check where the production entry has not made it (development). */
export const originMiddleware: MiddlewareFunction<Response> = ({ request, context }) => {
  if (context.get(originCheckedContext)) return;
  const refused = untrustedOriginResponse(request);
  if (refused) throw refused;
};

/**
 * Sign-in and sign-up are checked even without cookies (login CSRF) when the request shows
 * it comes from a browser-like fetch (any Sec-Fetch-* header): the origin must be trusted,
 * and a cross-site top-level navigation is refused outright.
 */
export function assertLoginOrigin(request: Request): void {
  const headers = request.headers;
  const site = headers.get("Sec-Fetch-Site");
  const mode = headers.get("Sec-Fetch-Mode");
  if (!site && !mode && !headers.get("Sec-Fetch-Dest") && !headers.get("Sec-Fetch-User")) return;
  if (site === "cross-site" && mode === "navigate") throw new AppError("CROSS_SITE_NAVIGATION_LOGIN_BLOCKED");
  const problem = originProblem(request);
  if (problem) throw new AppError(problem);
}
