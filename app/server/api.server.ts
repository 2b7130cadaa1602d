/**
 * The /api/auth endpoint registry and dispatcher, at the top of the server's layers. Each
 * domain owns its table beside its services (auth: sign-up/in/out, sessions, verification,
 * account management, social sign-in, two-factor, passkeys; organization: organizations and
 * members, invitations, teams; billing: subscriptions and webhooks; admin: the admin plugin's user management) and this module only puts them together, so
 * no domain imports one above it and adding an endpoint never means editing another's file.
 */
import type { RouterContextProvider } from "react-router";
import type { z } from "zod";
import { safeRedirect } from "~/lib/safe-redirect";
import { errorText, isDatabaseUnavailable } from "~/server/db.server";
import { FORBIDDEN_CHARACTERS, LINE_CHARACTERS } from "~/lib/text";
import { loadEnv } from "~/server/env.server";
import { AppError, errorResponse, fail, isAppError, isErrorCode, type ErrorCode } from "~/server/errors.server";
import { reportError } from "~/server/error-report.server";
import { logger, noteRequest } from "~/server/log.server";
import { endpoints as adminEndpoints } from "./admin/api.server";
import { endpoints as accountEndpoints } from "./auth/api/account.server";
import { endpoints as coreEndpoints, getSessionEndpoint } from "./auth/api/core.server";
import { endpoints as passkeyEndpoints } from "./auth/api/passkey.server";
import { endpoints as socialEndpoints } from "./auth/api/social.server";
import { endpoints as twoFactorEndpoints } from "./auth/api/two-factor.server";
import { checkRateLimit, rateLimitEnabled, rateLimitKey, ruleFor } from "./auth/rate-limit.server";
import { apiKeyFrom, refuseForKey, requestSession, withKeyScope } from "./auth/api-keys.server";
import {
  cachedSession,
  isFresh,
  refuseWhileImpersonating,
  requestMeta,
  type AuthSession,
  type GetSessionOptions,
} from "./auth/session.server";
import { endpoints as billingEndpoints } from "./billing/api.server";
import { sessionSubscriptions } from "./billing/billing.server";
import { preferredLocale } from "~/server/i18n.server";
import type { QuickAnswer, RequestHead } from "~/server/request-head.server";
import type { Endpoint } from "./endpoint.server";
import { endpoints as apiKeyEndpoints } from "./organization/api/api-keys.server";
import { endpoints as invitationEndpoints } from "./organization/api/invitations.server";
import { endpoints as organizationEndpoints } from "./organization/api/organizations.server";
import { endpoints as roleEndpoints } from "./organization/api/roles.server";
import { endpoints as teamEndpoints } from "./organization/api/teams.server";
import { endpoints as ssoProviderEndpoints } from "./sso/api/providers.server";
import { endpoints as samlEndpoints } from "./sso/api/saml.server";
import { endpoints as scimEndpoints } from "./sso/api/scim.server";
import { endpoints as ssoSignInEndpoints } from "./sso/api/sign-in.server";

export const BASE_PATH = "/api/auth";

type Compiled = { endpoint: Endpoint; pattern: RegExp; names: string[] };

function compile(endpoint: Endpoint): Compiled {
  // Only POST bodies are read as JSON or forms below: another method's body must be taken raw.
  if (!["GET", "POST"].includes(endpoint.method) && !endpoint.rawBody) {
    throw new Error(`${endpoint.method} ${endpoint.path} must declare rawBody`);
  }
  const names: string[] = [];
  const source = endpoint.path
    .split("/")
    .map((segment) => {
      if (!segment.startsWith(":")) return segment.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
      names.push(segment.slice(1));
      return "([^/]+)";
    })
    .join("/");
  return { endpoint, pattern: new RegExp(`^${source}$`), names };
}

/** What get-session adds to the session: the subscriptions of the user and of their active organization. */
const sessionExtras = async (auth: AuthSession) => ({ subscriptions: await sessionSubscriptions(auth) });
const getSession = getSessionEndpoint(sessionExtras);

const endpoints = [
  ...coreEndpoints,
  getSession,
  ...accountEndpoints,
  ...socialEndpoints,
  ...organizationEndpoints,
  ...invitationEndpoints,
  ...teamEndpoints,
  ...apiKeyEndpoints,
  ...roleEndpoints,
  ...ssoProviderEndpoints,
  ...samlEndpoints,
  ...billingEndpoints,
  ...adminEndpoints,
  ...twoFactorEndpoints,
  ...passkeyEndpoints,
  ...ssoSignInEndpoints,
  ...scimEndpoints,
];

/** The path of every registered endpoint: page actions name the rate-limit rule they count under by one. */
export type EndpointPath = (typeof endpoints)[number]["path"];

const registry: Compiled[] = endpoints.map(compile);

/** What tests (tests/integration/hostile-input.test.ts) may know of one endpoint: read-only, no handler. */
export interface RegisteredEndpoint {
  readonly method: Endpoint["method"];
  /** Relative to BASE_PATH, with `:name` path parameters. */
  readonly path: string;
  /** Whether it exists under the current environment (a payment provider's routes only while in use). */
  enabled(): boolean;
  /** Whether the route's existence depends on the environment at all. */
  readonly conditional: boolean;
  readonly body?: z.ZodType;
  readonly query?: z.ZodType;
  readonly formBody: boolean;
  readonly rawBody: boolean;
  /** Whether the endpoint needs a session (answered 401 before its body is read). */
  readonly session: boolean;
}

/** Every registered endpoint, in matching order, so a test can cover each without a hand-written list. */
export function registeredEndpoints(): readonly RegisteredEndpoint[] {
  return registry.map(({ endpoint: e }) =>
    Object.freeze({
      method: e.method,
      path: e.path,
      enabled: () => e.enabled?.() !== false,
      conditional: e.enabled !== undefined,
      body: e.body,
      query: e.query,
      formBody: Boolean(e.formBody),
      rawBody: Boolean(e.rawBody),
      session: e.session !== undefined,
    }),
  );
}

function match(method: string, path: string): { endpoint: Endpoint; params: Record<string, string> } | null {
  for (const { endpoint, pattern, names } of registry) {
    if (endpoint.method !== method || endpoint.enabled?.() === false) continue;
    const found = pattern.exec(path);
    if (!found) continue;
    const params: Record<string, string> = {};
    try {
      names.forEach((name, i) => (params[name] = decodeURIComponent(found[i + 1]!)));
    } catch {
      return null; // malformed percent-encoding in a path parameter
    }
    // A path parameter names a token or an id: one with a control character names nothing,
    // and must not reach a handler (PostgreSQL refuses a NUL in any query with an error).
    const values = Object.values(params);
    if (values.some((value) => FORBIDDEN_CHARACTERS.test(value) || LINE_CHARACTERS.test(value))) return null;
    return { endpoint, params };
  }
  return null;
}

/** Query string → object; a repeated key becomes an array of its values. */
function queryObject(url: URL): Record<string, string | string[]> {
  const out: Record<string, string | string[]> = {};
  for (const [key, value] of url.searchParams) {
    const existing = out[key];
    out[key] = existing === undefined ? value : Array.isArray(existing) ? [...existing, value] : [existing, value];
  }
  return out;
}

const JSON_TYPE = /^application\/(?:[\w.+-]+\+)?json\b/i;
const FORM_TYPE = /^(application\/x-www-form-urlencoded|multipart\/form-data)\b/i;

async function readBody(request: Request, endpoint: Endpoint): Promise<unknown> {
  const type = request.headers.get("Content-Type") ?? "";
  const text = await request.text();
  if (!type) {
    // A bodiless POST (sign-out, revoke-sessions from a plain fetch) is an empty object.
    if (text.trim() === "") return {};
    fail("UNSUPPORTED_MEDIA_TYPE");
  }
  if (JSON_TYPE.test(type)) {
    if (text.trim() === "") return {};
    try {
      return JSON.parse(text) as unknown;
    } catch {
      fail("BAD_REQUEST");
    }
  }
  if (endpoint.formBody && FORM_TYPE.test(type)) {
    let form: FormData;
    try {
      form = await new Response(text, { headers: { "Content-Type": type } }).formData();
    } catch {
      // A multipart body without its boundary, cut short, or otherwise unreadable.
      fail("BAD_REQUEST", "Invalid form data in request body");
    }
    return Object.fromEntries([...form].filter((entry): entry is [string, string] => typeof entry[1] === "string"));
  }
  fail("UNSUPPORTED_MEDIA_TYPE");
}

/**
 * The longest string any field takes (32 KiB). The largest real ones, an ID token or a passkey's
 * attestation, are a few KiB; names, ids and URLs have tighter bounds of their own.
 */
const MAX_STRING_LENGTH = 32 * 1024;

type Problem = { path: string[]; reason: string };

/**
 * The first string (key or value) in `input` that no call takes, with why, or null. No string
 * has FORBIDDEN_CHARACTERS (app/lib/text.ts); line breaks and tabs are only allowed in the
 * multi-line fields: `metadata` (free-form data organizations and subscriptions keep, and an
 * identity provider's SAML metadata XML), a ban's reason (the console's dialog is a textarea),
 * a password (it is the user's own choice) and `cert` (a PEM certificate).
 */
const MULTI_LINE_FIELDS = new Set(["metadata", "banReason", "password", "currentPassword", "newPassword", "cert"]);
/**
 * Longer strings than MAX_STRING_LENGTH: an identity provider's SAML metadata document
 * (`samlConfig.idpMetadata.metadata`), up to better-auth's 100 KB.
 */
const LONG_STRINGS: Record<string, number> = { metadata: 100 * 1024 };
function badStringIn(input: unknown, path: string[] = [], freeText = false): Problem | null {
  if (typeof input === "string") {
    const max = LONG_STRINGS[path.at(-1) ?? ""] ?? MAX_STRING_LENGTH;
    if (input.length > max) return { path, reason: `is longer than ${max} characters` };
    if (FORBIDDEN_CHARACTERS.test(input) || (!freeText && LINE_CHARACTERS.test(input))) {
      return { path, reason: "contains a control character" };
    }
    return null;
  }
  if (!input || typeof input !== "object") return null;
  for (const [key, value] of Object.entries(input)) {
    if (key.length > 256 || FORBIDDEN_CHARACTERS.test(key) || LINE_CHARACTERS.test(key)) {
      return { path: [...path, key.slice(0, 64)], reason: "is not a valid key" };
    }
    const found = badStringIn(value, [...path, key], freeText || MULTI_LINE_FIELDS.has(key));
    if (found) return found;
  }
  return null;
}

/**
 * The checks every JSON or form body and every query gets before its schema: a body is an
 * object (or nothing), and no string in it carries a control character or runs past 32 KiB.
 */
function checkInput(input: unknown, where: "body" | "query"): void {
  if (where === "body" && (input === null || typeof input !== "object" || Array.isArray(input))) {
    fail("VALIDATION_ERROR", "Invalid body parameters: [body] expected an object");
  }
  const bad = badStringIn(input);
  if (bad) fail("VALIDATION_ERROR", `Invalid ${where} parameters: [${[where, ...bad.path].join(".")}] ${bad.reason}`);
}

function validate<T extends z.ZodType>(schema: T, input: unknown, where: "body" | "query"): z.output<T> {
  const result = schema.safeParse(input);
  if (result.success) return result.data;
  // A schema names a catalogue code as its message when better-auth has one for that case.
  const coded = result.error.issues.find((issue) => isErrorCode(issue.message) && issue.message !== "VALIDATION_ERROR");
  if (coded) fail(coded.message as ErrorCode);
  const details = result.error.issues
    .map((issue) => `[${[where, ...issue.path.map(String)].join(".")}] ${issue.message}`)
    .join("; ");
  fail("VALIDATION_ERROR", `Invalid ${where} parameters: ${details}`);
}

/** URL fields any endpoint may receive, with the error each answers when untrusted. */
export const URL_FIELDS: readonly (readonly [field: string, code: ErrorCode])[] = [
  ["callbackURL", "INVALID_CALLBACK_URL"],
  ["redirectTo", "INVALID_REDIRECT_URL"],
  ["errorCallbackURL", "INVALID_ERROR_CALLBACK_URL"],
  ["newUserCallbackURL", "INVALID_NEW_USER_CALLBACK_URL"],
  // Where a payment provider sends the user back (checkout, portal).
  ["successUrl", "INVALID_REDIRECT_URL"],
  ["cancelUrl", "INVALID_REDIRECT_URL"],
  ["returnUrl", "INVALID_REDIRECT_URL"],
];

/**
 * Checks the URL fields of a raw body or query (whether or not the endpoint declares them)
 * and puts their normalized form in place, so that handlers only ever see, and send in a
 * Location header, a URL the validator produced.
 */
function normalizeUrlFields(source: unknown): void {
  if (!source || typeof source !== "object" || Array.isArray(source)) return;
  const record = source as Record<string, unknown>;
  const trusted = loadEnv().trustedOrigins;
  for (const [field, code] of URL_FIELDS) {
    const value = Array.isArray(record[field]) ? (record[field] as unknown[])[0] : record[field];
    if (value === undefined || value === null || value === "") continue;
    const safe = safeRedirect(value, trusted);
    if (safe === null) fail(code);
    record[field] = safe;
  }
}

function withCookies(response: Response, cookies: string[], headers: Headers): Response {
  for (const [name, value] of headers) response.headers.set(name, value);
  for (const cookie of cookies) response.headers.append("Set-Cookie", cookie);
  return response;
}

const JSON_HEADER: [string, string] = ["Content-Type", "application/json"];

/** The 429 `endpoint` answers when `ipAddress` is over its rate limit, counting this request; else null. */
async function overRateLimit(endpoint: Endpoint, ipAddress: string | null): Promise<QuickAnswer | null> {
  if (!rateLimitEnabled() || endpoint.rateLimit === false) return null;
  const result = await checkRateLimit(
    rateLimitKey(ipAddress, endpoint.path),
    endpoint.rateLimit ?? ruleFor(endpoint.path),
  );
  if (result.allowed) return null;
  return {
    status: 429,
    headers: [JSON_HEADER, ["X-Retry-After", String(result.retryAfter)]],
    body: JSON.stringify({ message: "Too many requests. Please try again later." }),
  };
}

const GET_SESSION_URL = `${BASE_PATH}${getSession.path}`;

/**
 * GET /api/auth/get-session answered from a valid cookie cache without the dispatcher's fetch
 * objects: the call every client makes most (the official client on each focus and page), and
 * one that needs nothing but the cookies. It passes the dispatcher's gates (the rate limit) and
 * answers what the dispatcher would, to the byte. Anything else (a query, an API key, a cache
 * that is missing, expired or untrusted, a database error) returns null: the request then
 * takes the whole way.
 */
export async function sessionFromCookieCache(head: RequestHead, ipAddress: string | null): Promise<QuickAnswer | null> {
  if (head.method !== "GET" || apiKeyFrom(head) !== null || head.headers.get("Authorization") !== null) return null;
  const url = new URL(head.url);
  if (url.pathname !== GET_SESSION_URL || url.search !== "") return null;
  const auth = cachedSession(head);
  if (!auth) return null;
  noteRequest({ route: GET_SESSION_URL, userId: auth.user.id });
  let extras: Awaited<ReturnType<typeof sessionExtras>>;
  try {
    const limited = await overRateLimit(getSession, ipAddress);
    if (limited) return limited;
    extras = await sessionExtras(auth);
  } catch {
    return null; // the dispatcher tells a database outage (503) from a bug
  }
  return {
    status: 200,
    headers: [JSON_HEADER, ["Cache-Control", "no-store"]],
    body: JSON.stringify({ session: auth.session, user: auth.user, ...extras }),
  };
}

/** Answers one /api/auth/* request. */
export function handleAuthRequest(request: Request, context: Readonly<RouterContextProvider>): Promise<Response> {
  return withKeyScope(() => dispatch(request, context));
}

async function dispatch(request: Request, context: Readonly<RouterContextProvider>): Promise<Response> {
  const url = new URL(request.url);
  const path = url.pathname.slice(BASE_PATH.length).replace(/\/+$/, "") || "/";
  const method = request.method === "HEAD" ? "GET" : request.method;
  const found = match(method, path);
  if (!found) return new Response(null, { status: 404 });
  const { endpoint, params } = found;
  // The endpoint's pattern, not the URL: a path parameter may be a token (/reset-password/:token).
  noteRequest({ route: `${BASE_PATH}${endpoint.path}` });

  const cookies: string[] = [];
  const headers = new Headers();
  try {
    // API paths have no language prefix: emails and messages speak the visitor's preferred language.
    const meta = { ...requestMeta(request, context), locale: await preferredLocale(request) };
    const limited = await overRateLimit(endpoint, meta.ipAddress);
    if (limited) return new Response(limited.body, limited);

    let sessionRead: Promise<AuthSession | null> | undefined;
    const session = (options?: GetSessionOptions) =>
      (sessionRead ??= requestSession(request, meta.ipAddress, options).then((auth) => {
        if (!auth) return null;
        noteRequest({ userId: auth.user.id });
        cookies.push(...auth.setCookies);
        // An impersonation session: the audit rows of this request name the admin.
        meta.impersonatedBy = auth.session.impersonatedBy ?? null;
        return { session: auth.session, user: auth.user };
      }));
    // Who is asking comes before what they sent: a caller without a session learns nothing
    // about an endpoint's input.
    let auth: AuthSession | null = null;
    // A key is checked whatever the endpoint: a bad one is refused before anything else.
    if (endpoint.session || apiKeyFrom(request) !== null) {
      auth = await session();
      if (!auth && endpoint.session && endpoint.emptyUnauthorized) {
        return new Response(null, { status: 401, headers: { "Content-Type": "application/json" } });
      }
      if (!auth && endpoint.session) throw new AppError("UNAUTHORIZED");
      if (auth && endpoint.session === "fresh" && !isFresh(auth.session)) throw new AppError("SESSION_NOT_FRESH");
    }
    await refuseWhileImpersonating(endpoint.path, () => auth ?? session());

    const rawQuery = queryObject(url);
    let body: unknown;
    let query: unknown;
    if (endpoint.rawBody) {
      const text = await request.text();
      body = endpoint.body ? validate(endpoint.body, text, "body") : text;
      query = rawQuery;
    } else {
      const rawBody = method === "POST" ? await readBody(request, endpoint) : undefined;
      // URL fields first: an untrusted one answers its own code (INVALID_CALLBACK_URL, …).
      normalizeUrlFields(rawQuery);
      normalizeUrlFields(rawBody);
      checkInput(rawQuery, "query");
      if (rawBody !== undefined) checkInput(rawBody, "body");
      body = endpoint.body ? validate(endpoint.body, rawBody ?? {}, "body") : (rawBody ?? {});
      query = endpoint.query ? validate(endpoint.query, rawQuery, "query") : rawQuery;
    }

    await refuseForKey(endpoint.path, body, query);
    const ctx = { request, context, body, query, params, meta, cookies, headers, session, auth };
    const result = await endpoint.handler(ctx);
    const response = result instanceof Response ? result : Response.json(result ?? null);
    return withCookies(response, cookies, headers);
  } catch (error) {
    if (error instanceof Response) return withCookies(error, cookies, headers);
    if (isAppError(error)) return withCookies(errorResponse(error), cookies, headers);
    if (isDatabaseUnavailable(error)) {
      // An outage, not a bug: a short line rather than a stack per request, and a 503 the
      // client can retry on (the pool reconnects by itself once the database is back).
      logger().error(`${request.method} ${BASE_PATH}${endpoint.path}: database unavailable (${errorText(error)})`);
      const unavailable = new AppError("SERVICE_UNAVAILABLE", undefined, undefined, { "Retry-After": "5" });
      return withCookies(errorResponse(unavailable), cookies, headers);
    }
    reportError(error, `${request.method} ${BASE_PATH}${endpoint.path} failed`);
    return new Response(null, { status: 500 });
  }
}
