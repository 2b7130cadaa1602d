/**
 * How an /api/auth endpoint is declared: a plain object (method, path, zod schemas for body
 * and query, a handler). Each domain keeps its own table of them beside its services; the
 * dispatcher (api.server.ts) imports the tables and does everything better-auth's wire
 * format asks of every call, so handlers only call a service verb and return its answer:
 *
 * - for an endpoint that declares `session`, 401 UNAUTHORIZED without one (403
 *   SESSION_NOT_FRESH for "fresh" and an old one), before the body is read or validated;
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
import { withParams } from "~/lib/safe-redirect";
import type { RateLimitRule } from "~/server/auth/rate-limit.server";
import type { AuthSession, GetSessionOptions, RequestMeta } from "~/server/auth/session.server";
import { loadEnv } from "~/server/env.server";
import { fail } from "~/server/errors.server";

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
}

/** "required": a session; "fresh": a session signed in within the fresh age (SESSION_NOT_FRESH otherwise). */
export type SessionNeed = "required" | "fresh";

/** What a handler receives: with `session` declared, the caller's session as `auth`. */
export type HandlerContext<Body, Query, S extends SessionNeed | undefined> = EndpointContext<Body, Query> &
  (S extends SessionNeed ? { auth: AuthSession } : unknown);

export interface Endpoint<
  B extends z.ZodType = z.ZodType,
  Q extends z.ZodType = z.ZodType,
  S extends SessionNeed | undefined = SessionNeed | undefined,
> {
  /**
   * PUT, PATCH and DELETE only for protocols that name them (SCIM); such an endpoint takes its
   * body raw (`rawBody`), as the dispatcher reads JSON bodies for POST alone.
   */
  method: "GET" | "POST" | "PUT" | "PATCH" | "DELETE";
  /** Relative to /api/auth, e.g. "/sign-in/email" or "/reset-password/:token". */
  path: string;
  /**
   * The endpoint needs a session: the dispatcher answers 401 without one before it reads the
   * body, so no endpoint can tell a caller anything about its input before they are signed in.
   */
  session?: S;
  /** Answer a missing session with an empty 401 body (the admin plugin's contract), not `{code, message}`. */
  emptyUnauthorized?: boolean;
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
  handler(ctx: HandlerContext<z.output<B>, z.output<Q>, S>): Promise<unknown>;
}

/** An endpoint as its table holds it: its path stays a literal type (see EndpointPath in api.server.ts). */
export type Declared<P extends string = string> = Endpoint & { readonly path: P };

/** Declares an endpoint with its handler typed from its schemas and its session need. */
export function endpoint<
  const P extends string,
  B extends z.ZodType = z.ZodObject,
  Q extends z.ZodType = z.ZodObject,
  S extends SessionNeed | undefined = undefined,
>(definition: Endpoint<B, Q, S> & { path: P }): Declared<P> {
  return definition as unknown as Declared<P>;
}

// ---- schema helpers for wire input ----

/** A query field that may be repeated: the first value counts. */
export function param<T extends z.ZodType>(schema: T) {
  return z.preprocess((value) => (Array.isArray(value) ? value[0] : value), schema);
}

/**
 * `target` (a relative path or a trusted absolute URL: the dispatcher has checked it) as an
 * absolute URL on BASE_URL with `params` added to its query, or null if the result is not
 * trusted.
 */
export function absoluteWith(target: string, params: Record<string, string> = {}): string | null {
  const { BASE_URL, trustedOrigins } = loadEnv();
  return withParams(new URL(target, BASE_URL).href, params, trustedOrigins);
}

/** `target` on BASE_URL with `params` (see absoluteWith); INVALID_CALLBACK_URL should that make it untrusted. */
export const callbackTo = (target: string, params?: Record<string, string>) =>
  absoluteWith(target, params) ?? fail("INVALID_CALLBACK_URL");
