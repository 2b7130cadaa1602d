/**
 * The /api/auth framework: an endpoint is a plain object (method, path, zod schemas for body
 * and query, a handler); `dispatch` (index.server.ts) does everything the wire contract asks
 * of every call, so handlers only call a service verb and return its answer:
 *
 * - 415 for a POST body that is not JSON (or, with `formBody`, form-encoded);
 *   400 BAD_REQUEST "Invalid JSON in request body" for malformed JSON;
 * - 400 VALIDATION_ERROR "Invalid body parameters: …" / "Invalid query parameters: …", or the
 *   catalogue code a schema names as its message (INVALID_EMAIL, PASSWORD_TOO_SHORT, …);
 * - 403 for an untrusted callbackURL / redirectTo / errorCallbackURL / newUserCallbackURL;
 * - rate limits (429 + X-Retry-After), AppError → `{code, message}`, anything else → 500
 *   with an empty body (logged).
 */
import type { RouterContextProvider } from "react-router";
import { z } from "zod";
import type { RateLimitRule } from "../rate-limit.server";
import { SecondFactorRequired } from "../two-factor.server";
import type { AuthSession, GetSessionOptions, RequestMeta } from "../session.server";

export interface EndpointContext<Body, Query> {
  request: Request;
  context: Readonly<RouterContextProvider>;
  /** The validated body (an empty object for a bodiless POST). */
  body: Body;
  /** The validated query. Repeated keys arrive as arrays: wrap scalar fields in `param()`. */
  query: Query;
  /** Path parameters, e.g. `token` of "/reset-password/:token". */
  params: Record<string, string>;
  meta: RequestMeta;
  /** Set-Cookie lines the response will carry (whatever the handler returns). */
  cookies: string[];
  /** Extra response headers. */
  headers: Headers;
  /**
   * The caller's session, read once per request (later calls return the first answer); its
   * refresh and cookie-cache Set-Cookie lines are added to the response.
   */
  session(options?: GetSessionOptions): Promise<AuthSession | null>;
  /** The session, or 401 UNAUTHORIZED; with `fresh`, 403 SESSION_NOT_FRESH for an old one. */
  requireSession(options?: { fresh?: boolean }): Promise<AuthSession>;
}

export interface Endpoint<B extends z.ZodType = z.ZodType, Q extends z.ZodType = z.ZodType> {
  method: "GET" | "POST";
  /** Relative to /api/auth, e.g. "/sign-in/email" or "/reset-password/:token". */
  path: string;
  body?: B;
  query?: Q;
  /** Also accept application/x-www-form-urlencoded (and multipart) bodies. */
  formBody?: boolean;
  /** Hand the body over as the exact text received (webhooks: their signature covers it). */
  rawBody?: boolean;
  /** When false the route does not exist (404), e.g. the payment provider not in use. */
  enabled?: () => boolean;
  /** Overrides the path's rule (rate-limit.server.ts `ruleFor`); false = never limited. */
  rateLimit?: RateLimitRule | false;
  /** A Response is sent as is (plus cookies); anything else is sent as JSON (`null` too). */
  handler(ctx: EndpointContext<z.output<B>, z.output<Q>>): Promise<unknown>;
}

/** Declares an endpoint with its handler typed from its schemas. */
export function endpoint<B extends z.ZodType = z.ZodObject, Q extends z.ZodType = z.ZodObject>(
  definition: Endpoint<B, Q>,
): Endpoint {
  return definition as unknown as Endpoint;
}

// ---- schema helpers for wire input ----

/** A query field that may be repeated: the first value counts. */
export function param<T extends z.ZodType>(schema: T) {
  return z.preprocess((value) => (Array.isArray(value) ? value[0] : value), schema);
}

/**
 * Runs a sign-in; when the user's second step is due, answers better-auth's
 * `{twoFactorRedirect, twoFactorMethods}` instead (the pending cookie goes into `cookies`).
 */
export async function secondStepOr<T>(
  signIn: () => Promise<T>,
  cookies: string[],
): Promise<T | { twoFactorRedirect: true; twoFactorMethods: string[] }> {
  try {
    return await signIn();
  } catch (error) {
    if (!(error instanceof SecondFactorRequired)) throw error;
    cookies.push(...error.setCookies);
    return { twoFactorRedirect: true, twoFactorMethods: error.methods };
  }
}
