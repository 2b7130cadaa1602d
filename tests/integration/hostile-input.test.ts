/**
 * Hostile input against the built server: every /api/auth endpoint (enumerated from the
 * dispatcher's own registry, so a new one is covered without touching this file) and every
 * page action (a list checked against the route modules) is fed malformed JSON, wrong types,
 * missing fields, oversize bodies, 100 KB strings, control and non-ASCII characters, and
 * forged or tampered cookies. Each must answer 4xx with a message (never 5xx, and 2xx only
 * where better-auth does so: EXCEPTIONS below, each with its reason), change no data (every
 * table compared before and after) and leave no "failed:" 500 line in the server's output.
 * A corpus of open-redirect attempts goes into every URL field of the API and every page
 * `redirect` parameter: refused (403 and the field's code) or neutralized (same-origin).
 * Runs on SQLite, or on PostgreSQL with TEST_DATABASE_URL.
 */
import { readdirSync, readFileSync } from "node:fs";
import { join, relative } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { z } from "zod";
import type { RegisteredEndpoint } from "~/server/api.server";
import { startPolarStandIn, type PolarStandIn } from "../support/polar-stand-in";
import { startStripeStandIn, type StripeStandIn } from "../support/stripe-stand-in";
import { secretOfURI, totp } from "../support/totp";
import { startTestApp, type TestApp } from "./helpers/app";
import { applySetCookies } from "./helpers/auth-client";
import { createOrganization, createUser, PASSWORD, signInInProcess, uniqueEmail } from "./helpers/factories";
import { BROWSER_UA } from "./helpers/http";
import { ROOT, startServer, type RunningServer } from "./helpers/server";

const SECRET = "hostile-input-test-secret-0123456789abcdefghijkl";
const CONCURRENCY = 6;
const BODY_LIMIT = 1024 * 1024; // server.ts's default BODY_LIMIT

let app: TestApp;
let stripe: StripeStandIn;
let polar: PolarStandIn;
let base: string;
let prisma: TestApp["prisma"];
let endpoints: readonly RegisteredEndpoint[];
let urlFields: ReadonlyMap<string, string>;

// ---------------------------------------------------------------------------------------
// Fixtures: who calls, and the rows the calls may name
// ---------------------------------------------------------------------------------------

interface Person {
  id: string;
  email: string;
  /** The Cookie header of a fresh session (token and cookie cache). */
  cookie: string;
  /** Cookie name → raw value of that session. */
  jar: Map<string, string>;
}

let user: Person;
let admin: Person;
let other: Person;
/** Signs in over and over in the open-redirect tests; another has two-factor on. */
let redirectUser: Person;
let twoFactorUser: Person & { secret: string };
let org: { id: string; slug: string };
let team: { id: string };
let member: { id: string };
let invitation: { id: string };
/** An identity provider (SSO connection) of `org`: its pages and its SCIM page. */
let provider: { providerId: string };
let role: { id: string };
let webhook: { id: string };
let counter = 0;

const cookieOf = (jar: Map<string, string>) => [...jar].map(([k, v]) => `${k}=${v}`).join("; ");

const sessionCookie = async (userId: string) =>
  (await signInInProcess({ jar: new Map<string, string>() }, userId, { userAgent: BROWSER_UA })).jar;

/** A verified user with a password and a fresh session. */
async function person(label: string, role = "user"): Promise<Person> {
  const { id, email } = await createUser({ email: uniqueEmail(label), name: `Hostile ${label}`, role });
  const jar = await sessionCookie(id);
  return { id, email, jar, cookie: cookieOf(jar) };
}

/** Gives `who` a new session when a probe ended the one it had (sign-out, revoke-sessions). */
async function ensureSession(who: Person): Promise<void> {
  const { hashToken } = await import("~/server/auth/session.server");
  const token = decodeURIComponent(who.jar.get("app.session_token") ?? "").split(".")[0] ?? "";
  if (await prisma.session.findFirst({ where: { token: hashToken(token) } })) return;
  if (!(await prisma.user.findUnique({ where: { id: who.id } }))) {
    // A probe deleted a fixture: the data check has said so; put it back for the next ones.
    await createUser({ id: who.id, email: who.email, name: "Hostile restored", password: null });
  }
  // A probe banned a fixture (admin/ban-user): no session is made for a banned user, so lift it.
  await prisma.user.updateMany({ where: { id: who.id, banned: true }, data: { banned: false, banExpires: null } });
  who.jar = await sessionCookie(who.id);
  who.cookie = cookieOf(who.jar);
}

// ---------------------------------------------------------------------------------------
// Data snapshots: every table, row by row
// ---------------------------------------------------------------------------------------

type Snapshot = Map<string, string[]>;

function serialize(value: unknown): string {
  return JSON.stringify(value, (_key, v: unknown) =>
    typeof v === "bigint" ? v.toString() : v instanceof Uint8Array ? Buffer.from(v).toString("hex") : v,
  );
}

async function snapshot(): Promise<Snapshot> {
  const { Prisma } = await import("~/server/db.server");
  const out: Snapshot = new Map();
  for (const model of Object.values(Prisma.ModelName)) {
    const delegate = (prisma as unknown as Record<string, { findMany(args?: object): Promise<unknown[]> }>)[
      model.charAt(0).toLowerCase() + model.slice(1)
    ]!;
    // The audit log's refused attempts are never compared (see diff) and are most of its rows.
    const where = model === "AuditLog" ? { where: { status: { not: "failure" } } } : undefined;
    out.set(model, (await delegate.findMany(where)).map(serialize).sort());
  }
  return out;
}

/** What changed between two snapshots, table by table ("" when nothing did). */
function diff(before: Snapshot, after: Snapshot, ignore: readonly string[] = []): string {
  const changes: string[] = [];
  for (const [model, rows] of before) {
    if (ignore.includes(model)) continue;
    const now = after.get(model) ?? [];
    const was = new Set(rows);
    const is = new Set(now);
    // The audit log records refused attempts (status "failure") by design: that is not data changing.
    const added = now.filter((row) => !was.has(row) && !(model === "AuditLog" && row.includes('"status":"failure"')));
    const removed = rows.filter((row) => !is.has(row));
    if (added.length || removed.length) {
      const sample = (added[0] ?? removed[0] ?? "").slice(0, 300);
      changes.push(`${model}: +${added.length} -${removed.length} (e.g. ${sample})`);
    }
  }
  return changes.join("\n");
}

// ---------------------------------------------------------------------------------------
// The server's output: a request that failed with a 500 logs its error object ("err") through
// the error hook (app/server/error-report.server.ts), whether the dispatcher, a page or server.ts caught it.
// ---------------------------------------------------------------------------------------

const SERVER_ERROR = /"err":\{|Internal Server Error|PrismaClient|\bat .*\.js:\d+/;
const logOffsets = new Map<RunningServer, number>();

function newServerErrors(server: RunningServer): string[] {
  const output = server.stdout();
  const from = logOffsets.get(server) ?? 0;
  logOffsets.set(server, output.length);
  return output
    .slice(from)
    .split("\n")
    .filter((line) => SERVER_ERROR.test(line))
    .map((line) => line.slice(0, 400));
}

// ---------------------------------------------------------------------------------------
// Requests
// ---------------------------------------------------------------------------------------

async function pool<T, R>(items: readonly T[], limit: number, work: (item: T) => Promise<R>): Promise<R[]> {
  const results: R[] = new Array(items.length);
  let next = 0;
  const run = async () => {
    while (next < items.length) {
      const index = next++;
      results[index] = await work(items[index]!);
    }
  };
  await Promise.all(Array.from({ length: Math.min(limit, items.length) }, run));
  return results;
}

interface Sent {
  status: number;
  setCookies: string[];
  type: string;
  location: string | null;
  text: string;
}

async function send(
  server: string,
  path: string,
  init: {
    method: string;
    body?: string | null;
    type?: string | null;
    cookie?: string;
    headers?: Record<string, string>;
  },
): Promise<Sent> {
  const headers: Record<string, string> = { "user-agent": BROWSER_UA, origin: server, ...init.headers };
  if (init.type) headers["content-type"] = init.type;
  if (init.cookie) headers.cookie = init.cookie;
  let response: Response;
  try {
    response = await fetch(server + path, {
      method: init.method,
      redirect: "manual",
      body: init.body ?? undefined,
      headers,
    });
  } catch (error) {
    // An answer no client can read (e.g. headers past 16 KB) is a failure like a 500.
    const cause = (error as { cause?: { code?: string; message?: string } }).cause;
    return {
      status: 599,
      setCookies: [],
      type: "",
      location: null,
      text: `unreadable answer: ${cause?.code ?? cause?.message ?? error}`,
    };
  }
  return {
    status: response.status,
    setCookies: response.headers.getSetCookie(),
    type: response.headers.get("content-type") ?? "",
    location: response.headers.get("location"),
    text: await response.text(),
  };
}

/** Whether a Location (absolute or relative) stays on `server`'s origin, read the way a browser would. */
function sameOrigin(server: string, location: string): boolean {
  if (/[\u0000-\u001f\\]/.test(location)) return false;
  try {
    return new URL(location, server + "/somewhere/").origin === new URL(server).origin;
  } catch {
    return false;
  }
}

// ---------------------------------------------------------------------------------------
// Hostile values
// ---------------------------------------------------------------------------------------

const LONG = "x".repeat(100 * 1024);
/** Query values travel in the request line: Node refuses headers past 16 KB, so 8 KB reaches the app. */
const LONG_QUERY = "x".repeat(8 * 1024);
const TEXT = {
  nul: "a\u0000b",
  esc: "a\u001b[31mred\u001b[0m",
  crlf: "a\r\nSet-Cookie: x=1",
  bell: "a\u0007\u0008\u007f",
  bidi: "a\u202Egnp.exe\u202C",
} as const;
/** Legitimate text in a multilingual app: never a 500, but it may be accepted. */
const UNICODE = "山田 Ünïcødé 🎉 مرحبا";
const WRONG_TYPES: Record<string, unknown> = {
  number: 12345,
  object: { $gt: "" },
  array: ["a", "b"],
  null: null,
};

/** Fields whose content is opaque (a secret is hashed, never shown): any character is a valid password. */
const OPAQUE_FIELD = /password$/i;

// ---------------------------------------------------------------------------------------
// Plausible bodies derived from an endpoint's zod schema
// ---------------------------------------------------------------------------------------

type Def = { type: string; [key: string]: unknown };
const defOf = (schema: z.ZodType) => (schema as unknown as { _zod: { def: Def } })._zod.def;

/** Object schemas inside wrappers (optional, default, pipe, preprocess). */
function objectShape(schema: z.ZodType | undefined): Record<string, z.ZodType> | null {
  if (!schema) return null;
  const def = defOf(schema);
  if (def.type === "object") return def.shape as Record<string, z.ZodType>;
  if (def.type === "optional" || def.type === "default" || def.type === "nullable" || def.type === "prefault")
    return objectShape(def.innerType as z.ZodType);
  if (def.type === "pipe") {
    const input = def.in as z.ZodType;
    return defOf(input).type === "transform" ? objectShape(def.out as z.ZodType) : objectShape(input);
  }
  return null;
}

/** A value the field schema would plausibly take, named after fixtures where the name says what it is. */
function sample(key: string, schema: z.ZodType, depth = 0): unknown {
  if (urlFields.has(key)) return "/";
  const fixture = FIXTURE_FIELDS()[key];
  if (fixture !== undefined) return fixture;
  const def = defOf(schema);
  switch (def.type) {
    case "optional":
    case "nullable":
    case "default":
    case "prefault":
    case "readonly":
    case "catch":
      return sample(key, def.innerType as z.ZodType, depth);
    case "pipe": {
      const input = def.in as z.ZodType;
      return sample(key, defOf(input).type === "transform" ? (def.out as z.ZodType) : input, depth);
    }
    case "string": {
      if (def.format === "email") return `nobody-${counter}@example.com`;
      if (def.format === "url") return "https://example.com/x.png";
      const min = (schema as unknown as { minLength?: number | null }).minLength ?? 0;
      return "hostile-probe".padEnd(Math.max(min, 13), "x");
    }
    case "number":
    case "int":
      return 1;
    case "boolean":
      return true;
    case "enum":
      return Object.values(def.entries as Record<string, string>)[0];
    case "literal":
      return (def.values as unknown[])[0];
    case "array":
      return depth > 2 ? [] : [sample(key, def.element as z.ZodType, depth + 1)];
    case "union":
      return sample(key, (def.options as z.ZodType[])[0]!, depth);
    case "object": {
      if (depth > 2) return {};
      const shape = def.shape as Record<string, z.ZodType>;
      return Object.fromEntries(
        Object.entries(shape)
          .map(([k, s]) => [k, sample(k, s, depth + 1)] as const)
          .filter(([, v]) => v !== undefined),
      );
    }
    case "record":
      return {};
    default:
      return undefined; // unknown, any, never, lazy…: left out
  }
}

/** Ids and addresses the plausible bodies use, so that a call gets past "not found" to the code under test. */
const FIXTURE_FIELDS = (): Record<string, unknown> => ({
  organizationId: org.id,
  organizationSlug: org.slug,
  teamId: team.id,
  memberId: member.id,
  memberIdOrEmail: member.id,
  invitationId: invitation.id,
  userId: other.id,
  // Never the caller's own address: a reset or verification would write a token.
  email: `nobody-${counter}@example.com`,
  password: "not the password",
  currentPassword: "not the password",
  newPassword: "a brand new password",
});

/** Per-endpoint plausible values that keep the unmutated call harmless (see each reason). */
const BASE_OVERRIDES: Record<string, () => Record<string, unknown>> = {
  // A duplicate sign-up answers like a fresh one and changes nothing (no account enumeration).
  "POST /sign-up/email": () => ({ email: user.email }),
};

function plausibleBody(endpoint: RegisteredEndpoint): Record<string, unknown> {
  if (!objectShape(endpoint.body)) return {};
  return { ...(sample("", endpoint.body!) as Record<string, unknown>), ...BASE_OVERRIDES[key(endpoint)]?.() };
}

interface Leaf {
  path: string[];
  schema: z.ZodType;
}

/** The fields of a body schema, one level of nesting included (organization update's `data`). */
function leaves(shape: Record<string, z.ZodType>, prefix: string[] = []): Leaf[] {
  return Object.entries(shape).flatMap(([key, schema]) => {
    const nested = prefix.length === 0 ? objectShape(schema) : null;
    return nested ? leaves(nested, [key]) : [{ path: [...prefix, key], schema }];
  });
}

function setPath(target: Record<string, unknown>, path: string[], value: unknown): Record<string, unknown> {
  const copy = structuredClone(target);
  let cursor = copy;
  for (const key of path.slice(0, -1)) {
    if (typeof cursor[key] !== "object" || cursor[key] === null) cursor[key] = {};
    cursor = cursor[key] as Record<string, unknown>;
  }
  cursor[path.at(-1)!] = value;
  return copy;
}

// ---------------------------------------------------------------------------------------
// API probes
// ---------------------------------------------------------------------------------------

type Caller = "guest" | "user" | "admin";

interface ApiProbe {
  endpoint: RegisteredEndpoint;
  caller: Caller;
  label: string;
  path: string;
  body?: string | null;
  type?: string | null;
  /** A cookie of its own; otherwise the caller's current session (cookieFor). */
  cookie?: string;
  /** Legitimate input (non-ASCII text, an opaque password): never a 5xx, may be accepted. */
  legit?: boolean;
}

const key = (e: Pick<RegisteredEndpoint, "method" | "path">) => `${e.method} ${e.path}`;

/** The caller's current cookie (a probe may have ended a session, and ensureSession made a new one). */
const cookieFor = (probe: Pick<ApiProbe, "caller" | "cookie">) =>
  probe.cookie ?? (probe.caller === "user" ? user.cookie : probe.caller === "admin" ? admin.cookie : undefined);

/** Probes that amount to a call with nothing in it: no fields, keys nothing reads, a query the endpoint ignores. */
const EMPTY_CALL =
  /^(missing fields: \{\}|body: __proto__ keys|query: (8 KB string|repeated keys|bad percent-encoding|unicode))$/;

/**
 * Where better-auth answers 2xx for input this suite sends. Each entry: which probes, and
 * why that is right. WRITES says what those accepted calls may write.
 */
const EXCEPTIONS: Record<string, { allow: (probe: ApiProbe) => boolean; why: string }> = {
  "GET /ok": { allow: () => true, why: "a health check answers {ok:true} whatever is asked" },
  "GET /get-session": {
    allow: () => true,
    why: "answers the session or the JSON literal null with 200, also for a garbage cookie (as better-auth does)",
  },
  "GET /error": {
    allow: () => true,
    why: "the Authentication Error page shows whatever code it is given, escaped",
  },
  "GET /passkey/generate-authenticate-options": {
    allow: () => true,
    why: "anyone may start a passkey sign-in: options plus a 5-minute challenge record (as in better-auth's passkey plugin)",
  },
  "POST /sign-out": {
    allow: (p) => EMPTY_CALL.test(p.label),
    why: "{success:true} for a bodiless call, with or without a session (as in better-auth)",
  },
  "POST /revoke-sessions": {
    allow: (p) => p.caller !== "guest" && EMPTY_CALL.test(p.label),
    why: "takes no input: a signed-in caller's call ends their sessions (as in better-auth)",
  },
  "POST /revoke-other-sessions": {
    allow: (p) => p.caller !== "guest" && EMPTY_CALL.test(p.label),
    why: "takes no input: a signed-in caller's call ends their other sessions (as in better-auth)",
  },
  "POST /delete-user": {
    allow: (p) => p.caller === "user" && EMPTY_CALL.test(p.label),
    why: "every field is optional: a fresh session without a password gets the emailed confirmation (as in better-auth, within freshAge)",
  },
  "POST /api-key/create": {
    allow: (p) => p.caller !== "guest" && EMPTY_CALL.test(p.label),
    why: "every field is optional: a signed-in caller's bodiless call makes a personal key (as in better-auth)",
  },
  "POST /organization/set-active": {
    allow: (p) => p.caller === "user" && EMPTY_CALL.test(p.label),
    why: "neither organizationId nor organizationSlug unsets the active organization and answers null (as in better-auth)",
  },
  "POST /admin/ban-user": {
    allow: (p) => p.caller === "admin" && p.label === "field banReason: crlf",
    why: "a ban's reason is multi-line text (the console's dialog is a textarea); an admin may ban with one",
  },
  "POST /organization/set-active-team": {
    allow: (p) => p.caller === "user" && (EMPTY_CALL.test(p.label) || p.label === "every field: null"),
    why: "teamId null or absent unsets the active team and answers null (as in better-auth)",
  },
};

/** The tables each endpoint's accepted calls (EXCEPTIONS) write, as is their job. */
const WRITES: Record<string, readonly string[]> = {
  "GET /passkey/generate-authenticate-options": ["Verification"],
  "GET /passkey/generate-register-options": ["Verification"],
  "POST /sign-out": ["Session"],
  "POST /revoke-sessions": ["Session", "AuditLog"],
  "POST /revoke-other-sessions": ["Session", "AuditLog"],
  "POST /delete-user": ["Verification", "AuditLog"],
  "POST /organization/set-active": ["Session"],
  "POST /api-key/create": ["ApiKey", "AuditLog"],
  "POST /organization/set-active-team": ["Session"],
  "POST /admin/ban-user": ["User", "Session", "AuditLog"],
};

function fillPath(path: string, value: string): string {
  return path.replace(/:[a-zA-Z]+/g, value);
}

/** The probes of one endpoint for one caller (bodies and query strings). */
function apiProbes(
  endpoint: RegisteredEndpoint,
  caller: Caller,
  cookie: string | undefined,
  perField = true,
): ApiProbe[] {
  const probes: ApiProbe[] = [];
  const path = `/api/auth${fillPath(endpoint.path, "hostile-probe")}`;
  const add = (label: string, init: Partial<ApiProbe> = {}) =>
    probes.push({ endpoint, caller, label, path, cookie, ...init });
  const json = (value: unknown) => ({ body: serialize(value), type: "application/json" });

  // Junk path parameters.
  if (endpoint.path.includes(":")) {
    for (const [label, value] of [
      ["long", "p".repeat(4000)],
      ["percent-encoded NUL", "%00"],
      ["bad percent-encoding", "%E0%A4%A"],
      ["dot segments", "..%2F..%2Fadmin"],
      ["unicode", encodeURIComponent(UNICODE)],
    ] as const) {
      add(`path param: ${label}`, {
        path: `/api/auth${fillPath(endpoint.path, value)}`,
        ...(endpoint.method === "POST" ? json({}) : {}),
      });
    }
  }

  // Query strings (every endpoint reads its query, and the URL fields in it are checked).
  const queryShape = objectShape(endpoint.query) ?? {};
  const queryKeys = Object.keys(queryShape).length ? Object.keys(queryShape) : ["q"];
  const postBody = endpoint.method === "POST" ? json({}) : {};
  const queryValues: [string, string, boolean][] = [
    ["8 KB string", LONG_QUERY, false],
    ...Object.entries(TEXT).map(([name, text]) => [name, text, false] as [string, string, boolean]),
    ["unicode", UNICODE, true],
  ];
  for (const [name, value, legit] of queryValues) {
    const query = new URLSearchParams(queryKeys.map((k) => [k, value]));
    add(`query: ${name}`, { path: `${path}?${query}`, ...postBody, legit });
  }
  add("query: repeated keys", {
    path: `${path}?${queryKeys.flatMap((k) => [`${k}=a`, `${k}=b`]).join("&")}`,
    ...postBody,
  });
  add("query: bad percent-encoding", { path: `${path}?${queryKeys[0]}=%E0%A4%A&%ZZ=1`, ...postBody });

  if (endpoint.method !== "POST") return probes;

  // Transport: what the body is, before what it says.
  add("body: malformed JSON", { body: '{"a":', type: "application/json" });
  add("body: JSON with a BOM and trailing junk", { body: '\ufeff{"a":1}}', type: "application/json" });
  for (const [name, value] of [
    ["array", []],
    ["string", "text"],
    ["number", 42],
    ["null", null],
    ["true", true],
  ] as const) {
    add(`body: top-level ${name}`, json(value));
  }
  add("body: wrong content type (text/plain)", { body: "{}", type: "text/plain" });
  add("body: wrong content type (xml)", { body: "<a/>", type: "application/xml" });
  add("body: form-encoded", { body: "a=1&a=2", type: "application/x-www-form-urlencoded" });
  add("body: broken multipart", { body: "--x\r\nbroken", type: "multipart/form-data; boundary=x" });
  add("body: deeply nested", { body: "[".repeat(5000) + "]".repeat(5000), type: "application/json" });
  add("body: __proto__ keys", {
    body: '{"__proto__":{"admin":true},"constructor":{"prototype":{}}}',
    type: "application/json",
  });
  add("missing fields: {}", json({}));

  const shape = objectShape(endpoint.body);
  if (!shape) return probes;
  const fields = leaves(shape);
  const stringFields = fields.filter((f) => typeof sample(f.path.at(-1)!, f.schema) === "string");

  // Every field at once with the wrong type.
  for (const [name, value] of Object.entries(WRONG_TYPES)) {
    const body = fields.reduce<Record<string, unknown>>((acc, f) => setPath(acc, f.path, value), {});
    add(`every field: ${name}`, json(body));
  }
  // Every string field at once: very long, control characters, bidi overrides, non-ASCII.
  if (stringFields.length) {
    const every = (value: string) =>
      stringFields.reduce<Record<string, unknown>>((acc, f) => setPath(acc, f.path, value), {});
    add("every string field: 100 KB", json(every(LONG)));
    for (const [name, text] of Object.entries(TEXT)) add(`every string field: ${name}`, json(every(text)));
  }

  if (!perField) return probes;
  // One field at a time over a plausible body, so the others do not hide it.
  const plausible = plausibleBody(endpoint);
  for (const field of fields) {
    const name = field.path.join(".");
    const leaf = field.path.at(-1)!;
    if (urlFields.has(leaf)) continue; // the open-redirect corpus covers these
    for (const [typeName, value] of Object.entries(WRONG_TYPES)) {
      // A type the field's own schema takes is not a wrong type (role: string | string[], …).
      if (field.schema.safeParse(value).success) continue;
      add(`field ${name}: wrong type ${typeName}`, json(setPath(plausible, field.path, value)));
    }
    if (typeof sample(leaf, field.schema) !== "string") continue;
    add(`field ${name}: 100 KB`, json(setPath(plausible, field.path, LONG)));
    for (const [textName, text] of Object.entries(TEXT)) {
      if (textName === "bell") continue; // as esc, field by field; the every-field probe sends it
      const legit = OPAQUE_FIELD.test(leaf) && textName !== "nul";
      add(`field ${name}: ${textName}`, { ...json(setPath(plausible, field.path, text)), legit });
    }
    add(`field ${name}: unicode`, { ...json(setPath(plausible, field.path, UNICODE)), legit: true });
  }
  return probes;
}

/** One answer judged: null when fine, else what is wrong. */
function judgeApi(probe: ApiProbe, sent: Sent, server: string): string | null {
  const what = `${key(probe.endpoint)} [${probe.caller}] ${probe.label} → ${sent.status}`;
  if (sent.status >= 500) return `${what}: server error ${sent.text.slice(0, 120)}`;
  if (sent.location !== null && !sameOrigin(server, sent.location) && !isProviderRedirect(probe, sent)) {
    return `${what}: Location leaves the site: ${sent.location}`;
  }
  if (sent.status >= 300 && sent.status < 400) return null;
  if (sent.status < 300) {
    if (probe.legit) return null;
    // A read asked for junk (a filter, an id) legitimately finds nothing: 2xx is fine, nothing
    // changes (the snapshots check it), the values were validated (a 5xx or a leak would show).
    if (probe.endpoint.method === "GET" && /^query: |^path param: /.test(probe.label)) return null;
    if (EXCEPTIONS[key(probe.endpoint)]?.allow(probe)) return null;
    return `${what}: accepted (${sent.text.slice(0, 160)})`;
  }
  // 4xx: a JSON error with a message or a code, except better-auth's empty bodies.
  if (sent.text === "") {
    const emptyAllowed =
      sent.status === 404 || // unknown path, or a route that does not exist in this configuration
      sent.status === 431 || // Node's own answer to oversized headers
      (sent.status === 401 && /^\/admin\/|^\/passkey\/delete-passkey$/.test(probe.endpoint.path)); // better-auth's
    return emptyAllowed ? null : `${what}: empty error body`;
  }
  if (sent.status === 413) return /Payload Too Large/.test(sent.text) ? null : `${what}: 413 without a message`;
  if (!/json/.test(sent.type)) return `${what}: error is not JSON (${sent.type}) ${sent.text.slice(0, 80)}`;
  try {
    const parsed = JSON.parse(sent.text) as { message?: unknown; code?: unknown; schemas?: unknown; detail?: unknown };
    // SCIM answers in its own error shape (RFC 7644), whose message is its `detail`.
    const scim =
      Array.isArray(parsed.schemas) && parsed.schemas.includes("urn:ietf:params:scim:api:messages:2.0:Error");
    const ok =
      (typeof parsed.message === "string" && parsed.message) ||
      (typeof parsed.code === "string" && parsed.code) ||
      (scim && typeof parsed.detail === "string" && parsed.detail);
    return ok ? null : `${what}: error without message or code: ${sent.text.slice(0, 120)}`;
  } catch {
    return `${what}: error body is not JSON: ${sent.text.slice(0, 120)}`;
  }
}

/** The social flows answer 200 with a Location at the provider: that is where they go (as in better-auth). */
function isProviderRedirect(probe: ApiProbe, sent: Sent): boolean {
  return (
    sent.status === 200 &&
    /^\/(sign-in\/social|link-social)$/.test(probe.endpoint.path) &&
    /^https:\/\/accounts\.google\.com\//.test(sent.location ?? "")
  );
}

interface CallerCookie {
  caller: Caller;
  /** Field-by-field probes only for the caller who gets deepest (the rest stop at the same check). */
  perField: boolean;
}

function callersFor(endpoint: RegisteredEndpoint): CallerCookie[] {
  const isAdmin = endpoint.path.startsWith("/admin/");
  const callers: CallerCookie[] = [
    { caller: "guest", perField: false },
    { caller: "user", perField: !isAdmin },
  ];
  if (isAdmin) callers.push({ caller: "admin", perField: true });
  return callers;
}

/** Runs probes endpoint by endpoint, each group between two snapshots; returns every failure. */
async function runApiGroups(
  server: string,
  groups: { endpoint: RegisteredEndpoint; probes: ApiProbe[] }[],
  sink?: (probe: ApiProbe, sent: Sent) => void,
): Promise<string[]> {
  const failures: string[] = [];
  for (const { endpoint, probes } of groups) {
    const before = await snapshot();
    await pool(probes, CONCURRENCY, async (probe) => {
      const sent = await send(server, probe.path, {
        method: endpoint.method,
        body: probe.body,
        type: probe.type,
        cookie: cookieFor(probe),
      });
      sink?.(probe, sent);
      const verdict = judgeApi(probe, sent, server);
      if (verdict) failures.push(verdict);
    });
    const changed = diff(before, await snapshot(), WRITES[key(endpoint)] ?? []);
    if (changed) failures.push(`${key(endpoint)}: data changed\n${changed}`);
    for (const who of [user, admin, other]) await ensureSession(who);
  }
  return failures;
}

// ---------------------------------------------------------------------------------------
// Set-up
// ---------------------------------------------------------------------------------------

beforeAll(async () => {
  stripe = await startStripeStandIn({
    secretKey: "sk_test_hostile",
    webhookSecret: "whsec_hostile",
    prices: { price_pro_monthly: { plan: "pro", interval: "month", amount: 1900 } },
  });
  polar = await startPolarStandIn({
    accessToken: "polar_oat_hostile",
    webhookSecret: "polar_whs_hostile",
    products: { "0b5e1c2a-7d3f-4e8a-9c6b-000000000000": { plan: "pro", interval: "month", amount: 1900 } },
  });
  process.env.PAYMENT_PROVIDER = "stripe";
  app = await startTestApp({
    secret: SECRET,
    env: {
      PAYMENT_PROVIDER: "stripe",
      STRIPE_SECRET_KEY: "sk_test_hostile",
      STRIPE_WEBHOOK_SECRET: "whsec_hostile",
      STRIPE_API_BASE_URL: stripe.url,
      STRIPE_PRICE_PRO_MONTHLY: "price_pro_monthly",
      POLAR_ACCESS_TOKEN: "polar_oat_hostile",
      POLAR_WEBHOOK_SECRET: "polar_whs_hostile",
      POLAR_API_BASE_URL: polar.url,
      POLAR_PRODUCT_PRO_MONTHLY: "0b5e1c2a-7d3f-4e8a-9c6b-000000000000",
      // A provider with credentials, so that the social forms and calls get as far as leaving.
      GOOGLE_CLIENT_ID: "google-client-id",
      GOOGLE_CLIENT_SECRET: "google-client-secret",
    },
  });
  ({ base, prisma } = app);
  const api = await import("~/server/api.server");
  endpoints = api.registeredEndpoints();
  urlFields = new Map(api.URL_FIELDS.map(([field, code]) => [field, code]));

  user = await person("user");
  admin = await person("admin", "admin");
  other = await person("other");
  const created = await createOrganization({
    name: "Hostile Org",
    members: [
      { userId: user.id, role: "owner" },
      { userId: other.id, role: "member" },
    ],
  });
  org = { id: created.id, slug: created.slug };
  member = created.members.find((row) => row.userId === other.id)!;
  team = await prisma.team.create({ data: { name: "Hostile Team", organizationId: org.id } });
  role = await prisma.organizationRole.create({
    data: { organizationId: org.id, role: "hostile", permission: JSON.stringify({ team: ["create"] }) },
  });
  invitation = await prisma.invitation.create({
    data: {
      organizationId: org.id,
      email: `invitee-${Date.now()}@example.com`,
      role: "member",
      status: "pending",
      inviterId: user.id,
      expiresAt: new Date(Date.now() + 86_400_000),
    },
  });
  provider = await prisma.ssoProvider.create({
    data: {
      providerId: `hostile-idp-${Date.now()}`,
      issuer: "https://idp.example.com",
      domain: "hostile.example.com",
      organizationId: org.id,
      samlConfig: JSON.stringify({ entryPoint: "https://idp.example.com/sso", certs: ["not a certificate"] }),
      domains: { create: { domain: "hostile.example.com", token: "hostile-token" } },
    },
  });
  webhook = await prisma.webhookEndpoint.create({
    data: {
      organizationId: org.id,
      url: "https://hooks.example.com/",
      eventTypes: "team.changed",
      secret: "v1.unused",
    },
  });
  redirectUser = await person("redirect");
  twoFactorUser = { ...(await person("twofactor")), secret: "" };
  const enabled = await send(base, "/api/auth/two-factor/enable", {
    method: "POST",
    body: serialize({ password: PASSWORD }),
    type: "application/json",
    cookie: twoFactorUser.cookie,
  });
  twoFactorUser.secret = secretOfURI((JSON.parse(enabled.text) as { totpURI: string }).totpURI);
  const verified = await send(base, "/api/auth/two-factor/verify-totp", {
    method: "POST",
    body: serialize({ code: totp(twoFactorUser.secret) }),
    type: "application/json",
    cookie: twoFactorUser.cookie,
  });
  expect(verified.status).toBe(200);
  // Switching two-factor on replaced the session.
  applySetCookies(twoFactorUser.jar, verified.setCookies);
  twoFactorUser.cookie = cookieOf(twoFactorUser.jar);
  newServerErrors(app.server);
}, 120_000);

afterAll(async () => {
  await app?.stop();
  await stripe?.close();
  await polar?.close();
});

// ---------------------------------------------------------------------------------------
// /api/auth
// ---------------------------------------------------------------------------------------

describe("/api/auth under hostile input", () => {
  it("enumerates the registry (a new endpoint is covered without editing this file)", () => {
    expect(endpoints.length).toBeGreaterThan(80);
    const keys = endpoints.map(key);
    for (const known of ["POST /sign-in/email", "GET /reset-password/:token", "POST /admin/ban-user"]) {
      expect(keys).toContain(known);
    }
    // Every exception names an endpoint that exists.
    for (const name of [...Object.keys(EXCEPTIONS), ...Object.keys(WRITES)]) {
      expect(keys, name).toContain(name);
    }
  });

  it("bodies, fields and query strings: 4xx with a message, never 5xx, no data changed", async () => {
    const groups = endpoints
      .filter((e) => !e.rawBody)
      .map((endpoint) => ({
        endpoint,
        probes: callersFor(endpoint).flatMap(({ caller, perField }) =>
          apiProbes(endpoint, caller, undefined, perField).filter((p) => !p.legit),
        ),
      }));
    const failures = await runApiGroups(base, groups);
    expect(failures).toEqual([]);
    expect(newServerErrors(app.server)).toEqual([]);
  }, 300_000);
});

describe("/api/auth with forged and tampered cookies", () => {
  /** Cookie headers that must count for nothing: each is answered as if there were no cookie. */
  function forgeries(): [string, string][] {
    const token = decodeURIComponent(user.jar.get("app.session_token")!);
    const [raw = ""] = token.split(".");
    const data = user.jar.get("app.session_data") ?? "";
    const flip = (text: string, at: number) => text.slice(0, at) + (text[at] === "A" ? "B" : "A") + text.slice(at + 1);
    const badSignature = encodeURIComponent(`${raw}.${"A".repeat(43)}=`);
    return [
      ["session token with a bad signature", `app.session_token=${badSignature}`],
      ["session token without a signature", `app.session_token=${raw}`],
      [
        "a flipped byte in the cookie cache",
        `app.session_token=${badSignature}; app.session_data=${flip(data, Math.floor(data.length / 2))}`,
      ],
      ["garbage percent-encoding", "app.session_token=%E0%A4%A; app.session_data=%ZZ%; app.dont_remember=%"],
      ["a 12 KB cookie", `app.session_token=${badSignature}; app.session_data=${"A".repeat(12 * 1024)}`],
      ["control characters", `app.session_token=${encodeURIComponent("a\u0000\u001b")}`],
    ];
  }

  it("is answered as a guest is, never 5xx, no data changed", async () => {
    const failures: string[] = [];
    for (const endpoint of endpoints.filter((e) => !e.rawBody)) {
      const path = `/api/auth${fillPath(endpoint.path, "hostile-probe")}`;
      const body = endpoint.method === "POST" ? serialize(plausibleBody(endpoint)) : undefined;
      const type = endpoint.method === "POST" ? "application/json" : undefined;
      const before = await snapshot();
      const guest = await send(base, path, { method: endpoint.method, body, type });
      await pool(forgeries(), CONCURRENCY, async ([label, cookie]) => {
        const sent = await send(base, path, { method: endpoint.method, body, type, cookie });
        const what = `${key(endpoint)} [${label}] → ${sent.status}`;
        if (sent.status >= 500) failures.push(`${what}: server error`);
        else if (sent.status !== guest.status) failures.push(`${what}: a guest gets ${guest.status}`);
      });
      const changed = diff(before, await snapshot(), WRITES[key(endpoint)] ?? []);
      if (changed) failures.push(`${key(endpoint)}: data changed\n${changed}`);
    }
    expect(failures).toEqual([]);
    expect(newServerErrors(app.server)).toEqual([]);
  }, 120_000);

  it("a user's session token with an admin's cookie cache gets no admin rights", async () => {
    const swapped = `app.session_token=${user.jar.get("app.session_token")}; app.session_data=${admin.jar.get("app.session_data")}`;
    const failures: string[] = [];
    await pool(
      endpoints.filter((e) => e.path.startsWith("/admin/") && e.path !== "/admin/has-permission"),
      CONCURRENCY,
      async (endpoint) => {
        const body = endpoint.method === "POST" ? serialize(plausibleBody(endpoint)) : undefined;
        const sent = await send(base, `/api/auth${endpoint.path}?id=${other.id}`, {
          method: endpoint.method,
          body,
          type: body ? "application/json" : undefined,
          cookie: swapped,
        });
        if (sent.status < 400 || sent.status >= 500)
          failures.push(`${key(endpoint)} → ${sent.status}: ${sent.text.slice(0, 100)}`);
      },
    );
    expect(failures).toEqual([]);
    expect(newServerErrors(app.server)).toEqual([]);
  });

  it("a huge cookie (past the server's 16 KB header limit) is a 431, not a crash", async () => {
    const sent = await send(base, "/api/auth/get-session", {
      method: "GET",
      cookie: `app.session_data=${"A".repeat(40 * 1024)}`,
    });
    expect(sent.status).toBe(431);
    expect((await fetch(`${base}/healthz`)).status).toBe(200);
  });
});

describe("/api/auth bodies over the server's limit", () => {
  it("answer 413 on every POST endpoint, before any handler runs", async () => {
    const failures: string[] = [];
    const oversize = `{"name":"${"x".repeat(BODY_LIMIT)}"}`;
    const before = await snapshot();
    await pool(
      endpoints.filter((e) => e.method === "POST"),
      2,
      async (endpoint) => {
        const sent = await send(base, `/api/auth${fillPath(endpoint.path, "hostile-probe")}`, {
          method: "POST",
          body: oversize,
          type: "application/json",
          cookie: user.cookie,
        });
        if (sent.status !== 413 || !/Payload Too Large/.test(sent.text)) {
          failures.push(`${key(endpoint)} → ${sent.status} ${sent.text.slice(0, 80)}`);
        }
      },
    );
    expect(failures).toEqual([]);
    expect(diff(before, await snapshot())).toBe("");
    expect(newServerErrors(app.server)).toEqual([]);
  });
});

describe("/api/auth with legitimate non-ASCII text and opaque passwords", () => {
  it("never answers 5xx, and refusals carry a message", async () => {
    const probes = endpoints
      .filter((e) => !e.rawBody)
      .flatMap((endpoint) =>
        callersFor(endpoint)
          .filter((c) => c.perField)
          .flatMap(({ caller }) => apiProbes(endpoint, caller, undefined).filter((p) => p.legit)),
      );
    expect(probes.length).toBeGreaterThan(50);
    const failures: string[] = [];
    await pool(probes, CONCURRENCY, async (probe) => {
      const sent = await send(base, probe.path, {
        method: probe.endpoint.method,
        body: probe.body,
        type: probe.type,
        cookie: cookieFor(probe),
      });
      const verdict = judgeApi(probe, sent, base);
      if (verdict) failures.push(verdict);
    });
    for (const who of [user, admin, other]) await ensureSession(who);
    expect(failures).toEqual([]);
    expect(newServerErrors(app.server)).toEqual([]);
  }, 120_000);
});

describe("/api/auth with the other payment provider (Polar)", () => {
  it("the provider-dependent endpoints: 4xx, never 5xx, no data changed, each one reached on one server", async () => {
    // The same database and secret, PAYMENT_PROVIDER=polar: the routes that 404 above exist here.
    const { PORT: _port, BASE_URL: _base, HOST: _host, ...env } = app.server.env;
    const server = await startServer({ ...env, PAYMENT_PROVIDER: "polar" });
    try {
      newServerErrors(server);
      const conditional = endpoints.filter((e) => e.conditional && !e.rawBody);
      expect(conditional.length).toBeGreaterThan(5);
      const reached = new Set<string>();
      const note = (probe: ApiProbe, sent: Sent) => {
        if (sent.status !== 404) reached.add(key(probe.endpoint));
      };
      const groups = conditional.map((endpoint) => ({
        endpoint,
        probes: callersFor(endpoint).flatMap(({ caller, perField }) =>
          apiProbes(endpoint, caller, undefined, perField).filter((p) => !p.legit),
        ),
      }));
      const failures = [...(await runApiGroups(server.url, groups, note)), ...(await runApiGroups(base, groups, note))];
      expect(failures).toEqual([]);
      expect(conditional.map(key).filter((k) => !reached.has(k))).toEqual([]);
      expect(newServerErrors(server)).toEqual([]);
    } finally {
      await server.stop();
    }
  }, 180_000);
});

// ---------------------------------------------------------------------------------------
// Open redirects
// ---------------------------------------------------------------------------------------

/** At least 30 ways of writing "somewhere else" (and a few that only look like it). */
function redirectCorpus(): string[] {
  const { host, hostname } = new URL(base);
  return [
    "//evil.example",
    "//evil.example/path?x=1",
    "/\\evil.example",
    "\\\\evil.example",
    "\\/evil.example",
    "/\\/evil.example",
    "https:evil.example",
    "https:/evil.example",
    "http:/\\evil.example",
    "https://evil.example",
    "HTTPS://EVIL.EXAMPLE/",
    "ftp://evil.example/",
    "%2F%2Fevil.example",
    "/%2F/evil.example",
    "/%5Cevil.example",
    "%5C%5Cevil.example",
    "%09//evil.example",
    "javascript:alert(1)",
    "JaVaScRiPt:alert(document.domain)",
    "java\nscript:alert(1)",
    "java\tscript:alert(1)",
    "data:text/html,<script>alert(1)</script>",
    "vbscript:msgbox(1)",
    `https://${host}@evil.example`,
    `https://evil.example@${host}`,
    `http://user:pass@${host}/`,
    `//evil.example\\@${host}`,
    `http://evil.example#@${host}`,
    `//${host}.evil.example`,
    `https://${host}.evil.example`,
    `http://${hostname}.evil.example/`,
    "https://ｅｖｉｌ.example",
    "//evil。example",
    "／／evil.example",
    "/\t/evil.example",
    "/\n/evil.example",
    "\t//evil.example",
    " //evil.example",
    "\u0000//evil.example",
    "///evil.example",
    "////evil.example",
    "/./\\evil.example",
    "/.//evil.example",
    "/..//evil.example",
    "http://2130706433/",
    "http://1113982867/",
    "http://0x7f.1/",
    "http://[::ffff:7f00:1]/",
    `http://2130706433:${new URL(base).port}/profile`,
  ];
}

/** Where a browser would go with `target` as a Location on our site: somewhere else? */
function leavesSite(target: string): boolean {
  try {
    const url = new URL(target, `${base}/somewhere/`);
    return url.origin !== new URL(base).origin || !/^https?:$/.test(url.protocol);
  } catch {
    return true; // not even a URL: nothing to follow, so nothing to accept
  }
}

/** Relative paths that must keep working (so refusing everything cannot pass). */
const LEGIT_TARGETS = () => ["/profile", "/fr/pricing?x=1#top", `/organizations/${org.slug}`, `${base}/ja/billing`];

/** Follows a page's redirects by hand with `cookie`: every hop must stay on the site. */
async function redirectChain(
  path: string,
  init: Parameters<typeof send>[2],
): Promise<{ hops: string[]; left: boolean }> {
  const hops: string[] = [];
  let sent = await send(base, path, init);
  for (let i = 0; i < 5 && sent.location !== null; i++) {
    hops.push(sent.location);
    if (!sameOrigin(base, sent.location)) return { hops, left: true };
    const next = new URL(sent.location, `${base}${path}`);
    sent = await send(base, next.pathname + next.search, { method: "GET", cookie: init.cookie });
  }
  return { hops, left: false };
}

describe("open redirects", () => {
  it("the corpus is big enough and mostly hostile", () => {
    expect(redirectCorpus().length).toBeGreaterThanOrEqual(30);
    expect(redirectCorpus().filter(leavesSite).length).toBeGreaterThanOrEqual(30);
    expect(LEGIT_TARGETS().some(leavesSite)).toBe(false);
  });

  it("every URL field of every endpoint, in body and query: refused with its code, or same-origin", async () => {
    const failures: string[] = [];
    const probes: { endpoint: RegisteredEndpoint; field: string; where: "body" | "query"; target: string }[] = [];
    for (const endpoint of endpoints.filter((e) => !e.rawBody && e.enabled())) {
      const bodyFields = Object.keys(objectShape(endpoint.body) ?? {}).filter((f) => urlFields.has(f));
      const queryFields = Object.keys(objectShape(endpoint.query) ?? {}).filter((f) => urlFields.has(f));
      for (const target of [...redirectCorpus(), ...LEGIT_TARGETS()]) {
        for (const field of bodyFields) {
          probes.push({ endpoint, field, where: "body", target });
          probes.push({ endpoint, field, where: "query", target }); // the dispatcher reads both
        }
        for (const field of queryFields) probes.push({ endpoint, field, where: "query", target });
      }
    }
    const covered = new Set(probes.map((p) => p.field));
    expect([...urlFields.keys()].filter((f) => !covered.has(f))).toEqual([]);
    // The session comes before the body, so each target must meet a live session to be judged:
    // the probes that may end it (sign-out, and legitimate targets, e.g. a deletion) go last.
    await ensureSession(user);
    const last = probes.filter((p) => LEGIT_TARGETS().includes(p.target) || key(p.endpoint) === "POST /sign-out");
    const first = probes.filter((probe) => !last.includes(probe));

    const check = async ({ endpoint, field, where, target }: (typeof probes)[number]) => {
      const signIn = key(endpoint) === "POST /sign-in/email";
      const body = {
        ...plausibleBody(endpoint),
        // A sign-in that succeeds, so that its Location is there to check.
        ...(signIn && { email: redirectUser.email, password: PASSWORD }),
        ...(where === "body" && { [field]: target }),
      };
      const query = new URLSearchParams(
        endpoint.method === "GET" ? { token: "hostile-probe", ...(sample("", endpoint.query!) as object) } : {},
      );
      if (where === "query") query.set(field, target);
      const sent = await send(base, `/api/auth${fillPath(endpoint.path, "hostile-probe")}?${query}`, {
        method: endpoint.method,
        body: endpoint.method === "POST" ? serialize(body) : undefined,
        type: endpoint.method === "POST" ? "application/json" : undefined,
        cookie: signIn ? undefined : user.cookie,
      });
      const what = `${key(endpoint)} ${where}.${field}=${JSON.stringify(target)} → ${sent.status}`;
      const refused = sent.status === 403 && sent.text.includes(`"${urlFields.get(field)}"`);
      if (sent.status >= 500) failures.push(`${what}: server error`);
      else if (leavesSite(target) && !refused) failures.push(`${what}: not refused (${sent.text.slice(0, 100)})`);
      else if (LEGIT_TARGETS().includes(target) && sent.status === 403 && /INVALID_[A-Z_]*URL/.test(sent.text)) {
        failures.push(`${what}: a same-site target was refused`);
      } else if (
        sent.location !== null &&
        !sameOrigin(base, sent.location) &&
        !isProviderRedirect({ endpoint } as ApiProbe, sent)
      ) {
        failures.push(`${what}: Location ${sent.location}`);
      }
      if (signIn && sent.status === 200) {
        const url = (JSON.parse(sent.text) as { url?: string }).url;
        if (url !== undefined && !sameOrigin(base, url)) failures.push(`${what}: url ${url}`);
      }
    };
    for (const group of [first, last]) await pool(group, CONCURRENCY, check);
    expect(failures).toEqual([]);
    expect(newServerErrors(app.server)).toEqual([]);
  }, 120_000);

  it("a legitimate callbackURL still leads there after sign-in", async () => {
    for (const target of LEGIT_TARGETS()) {
      const sent = await send(base, "/api/auth/sign-in/email", {
        method: "POST",
        body: serialize({ email: redirectUser.email, password: PASSWORD, callbackURL: target }),
        type: "application/json",
      });
      expect(sent.status, target).toBe(200);
      expect(sent.location, target).toBe(
        target.startsWith(base)
          ? target
          : new URL(target, base).pathname + new URL(target, base).search + new URL(target, base).hash,
      );
    }
  });

  it("every page redirect parameter: the browser never leaves the site", async () => {
    const failures: string[] = [];
    const guestForm = (fields: Record<string, string>) => ({
      method: "POST",
      body: new URLSearchParams(fields).toString(),
      type: "application/x-www-form-urlencoded",
    });
    const q = (target: string) => `?${new URLSearchParams({ redirect: target })}`;
    const check = (what: string, result: { hops: string[]; left: boolean }) => {
      if (result.left) failures.push(`${what}: ${result.hops.join(" → ")}`);
    };
    const targets = [...redirectCorpus(), ...LEGIT_TARGETS()];

    await pool(targets, CONCURRENCY, async (target) => {
      // Sign-in (and its locale variant): where the browser goes once signed in.
      for (const page of ["/signin", "/fr/signin"]) {
        const sent = await send(base, page + q(target), {
          ...guestForm({ intent: "sign-in", email: redirectUser.email, password: PASSWORD }),
        });
        if (sent.status !== 302) failures.push(`POST ${page}?redirect=${JSON.stringify(target)}: ${sent.status}`);
        check(`POST ${page}?redirect=${JSON.stringify(target)}`, {
          hops: [sent.location ?? ""],
          left: sent.location !== null && !sameOrigin(base, sent.location),
        });
        if (page !== "/signin") continue; // the pages below once per target
        const jar = new Map<string, string>();
        applySetCookies(jar, sent.setCookies);
        const cookie = cookieOf(jar);
        // Guest-only pages visited signed in go on to `redirect`, and so does the verified-email page.
        for (const next of ["/signin", "/signup", "/ja/forgot-password", "/verify-email"]) {
          check(
            `GET ${next}?redirect=${JSON.stringify(target)} signed in`,
            await redirectChain(next + q(target), { method: "GET", cookie }),
          );
        }
      }
      // Sign-up: the verification link brings the new user back to `redirect`.
      const email = `redirect-signup-${++counter}-${Date.now()}@example.com`;
      await send(base, `/signup${q(target)}`, {
        ...guestForm({
          intent: "sign-up",
          name: "Redirected",
          email,
          newPassword: PASSWORD,
          confirmPassword: PASSWORD,
        }),
      });
      const mail = await app.mailbox.waitFor(email);
      const link = mail.links.find((l) => l.includes("/verify-email"));
      const back = new URL(new URL(link ?? base).searchParams.get("callbackURL") ?? "/", base).searchParams.get(
        "redirect",
      );
      if (!link || (back !== null && (!sameOrigin(base, back) || leavesSite(back)))) {
        failures.push(`POST /signup?redirect=${JSON.stringify(target)}: verification link ${link}`);
      }
      // The language switcher and the organization switcher post where to go back to.
      check(
        `POST /set-locale redirectTo=${JSON.stringify(target)}`,
        await redirectChain("/set-locale", guestForm({ lng: "fr", redirectTo: target })),
      );
      check(
        `POST /organizations redirectTo=${JSON.stringify(target)}`,
        await redirectChain("/organizations", {
          ...guestForm({ intent: "set-active", organizationId: org.id, redirectTo: target }),
          cookie: user.cookie,
        }),
      );
      // The social buttons: where the provider's callback will send the browser.
      for (const page of ["/signin", "/signup"]) {
        const sent = await send(base, page + q(target), guestForm({ intent: "social", provider: "google" }));
        const state = sent.location ? new URL(sent.location).searchParams.get("state") : null;
        if (!state) {
          failures.push(
            `POST ${page}?redirect=${JSON.stringify(target)} social: no provider redirect (${sent.status})`,
          );
          continue;
        }
        const { hashToken } = await import("~/server/auth/session.server");
        const row = await prisma.verification.findFirst({ where: { identifier: `oauth-state:${hashToken(state)}` } });
        const callbackURL = (JSON.parse(row?.value ?? "{}") as { callbackURL?: string }).callbackURL ?? "";
        if (!callbackURL || !sameOrigin(base, callbackURL) || /^\/\//.test(callbackURL)) {
          failures.push(`POST ${page}?redirect=${JSON.stringify(target)} social: callbackURL ${callbackURL}`);
        }
      }
    });

    // The second step of a two-factor sign-in, with backup codes (a TOTP step is good once),
    // ten at a time: a new set replaces the last.
    for (let i = 0; i < targets.length; i += 10) {
      const batch = targets.slice(i, i + 10);
      const regenerated = await send(base, "/api/auth/two-factor/generate-backup-codes", {
        method: "POST",
        body: serialize({ password: PASSWORD }),
        type: "application/json",
        cookie: twoFactorUser.cookie,
      });
      const codes = (JSON.parse(regenerated.text) as { backupCodes: string[] }).backupCodes;
      await pool(batch, CONCURRENCY, async (target) => {
        const first = await send(base, `/signin${q(target)}`, {
          ...guestForm({ intent: "sign-in", email: twoFactorUser.email, password: PASSWORD }),
        });
        check(`POST /signin?redirect=${JSON.stringify(target)} (two-factor)`, {
          hops: [first.location ?? ""],
          left: first.location !== null && !sameOrigin(base, first.location),
        });
        const pending = new Map<string, string>();
        applySetCookies(pending, first.setCookies);
        const second = await send(base, `/signin/two-factor${q(target)}`, {
          ...guestForm({ intent: "backup-code", code: codes[batch.indexOf(target)]! }),
          cookie: cookieOf(pending),
        });
        if (second.status !== 302)
          failures.push(`POST /signin/two-factor?redirect=${JSON.stringify(target)}: ${second.status}`);
        check(`POST /signin/two-factor?redirect=${JSON.stringify(target)}`, {
          hops: [second.location ?? ""],
          left: second.location !== null && !sameOrigin(base, second.location),
        });
      });
    }
    expect(failures).toEqual([]);
    expect(newServerErrors(app.server)).toEqual([]);
  }, 180_000);
});

// ---------------------------------------------------------------------------------------
// Page actions
// ---------------------------------------------------------------------------------------

interface FormRoute {
  /** The route module, relative to app/. */
  file: string;
  path: () => string;
  /** Who posts: guests always; users and admins where the page is theirs. */
  callers: Caller[];
  intents: string[];
  fields: string[];
  /** Confirmation dialogs whose whole input is the intent: the bare intent is the real action, so it is not sent. */
  intentOnly?: boolean;
}

/** Every route module with an action (checked against app/routes below), with what its forms send. */
const FORM_ROUTES = (): FormRoute[] => [
  {
    file: "routes/signin.tsx",
    path: () => "/signin",
    callers: ["guest", "user"],
    intents: ["sign-in", "send-verification", "social"],
    fields: ["email", "password", "rememberMe", "provider"],
  },
  {
    file: "routes/signup.tsx",
    path: () => "/signup",
    callers: ["guest", "user"],
    intents: ["sign-up", "social"],
    fields: ["name", "email", "newPassword", "confirmPassword", "provider"],
  },
  {
    file: "routes/forgot-password.tsx",
    path: () => "/forgot-password",
    callers: ["guest"],
    intents: ["forgot-password"],
    fields: ["email"],
  },
  {
    file: "routes/reset-password.tsx",
    path: () => "/reset-password",
    callers: ["guest"],
    intents: ["reset-password"],
    fields: ["token", "newPassword", "confirmPassword"],
  },
  {
    file: "routes/verify-email.tsx",
    path: () => "/verify-email",
    callers: ["guest", "user"],
    intents: ["send-verification"],
    fields: ["email"],
  },
  {
    file: "routes/signin-sso.tsx",
    path: () => "/signin/sso",
    callers: ["guest"],
    intents: ["sso"],
    fields: ["identifier"],
  },
  {
    file: "routes/signin-two-factor.tsx",
    path: () => "/signin/two-factor",
    callers: ["guest"],
    intents: ["totp", "backup-code", "otp", "send-otp"],
    fields: ["code", "trustDevice"],
  },
  {
    // The settings' index route: its forms post to /profile?index.
    file: "routes/profile/index.tsx",
    path: () => "/profile?index",
    callers: ["guest", "user"],
    intents: ["update-profile"],
    fields: ["name", "image"],
  },
  {
    file: "routes/profile/email.tsx",
    path: () => "/profile/email",
    callers: ["guest", "user"],
    intents: ["change-email", "send-verification"],
    fields: ["newEmail", "email"],
  },
  {
    file: "routes/profile/security.tsx",
    path: () => "/profile/security",
    callers: ["guest", "user"],
    intents: ["change-password", "set-password", "unlink-account", "link-social"],
    fields: ["currentPassword", "newPassword", "confirmPassword", "revokeOtherSessions", "accountId", "provider"],
  },
  {
    // Not "revoke-other-sessions": its one button carries no input, so any post is that button.
    file: "routes/profile/sessions.tsx",
    path: () => "/profile/sessions",
    callers: ["guest", "user"],
    intents: ["revoke-session"],
    fields: ["token"],
  },
  {
    file: "routes/profile/data.tsx",
    path: () => "/profile/data",
    callers: ["guest", "user"],
    intents: ["delete-account"],
    fields: ["password"],
  },
  {
    file: "routes/profile/two-factor.tsx",
    path: () => "/profile/two-factor",
    callers: ["guest", "user"],
    intents: ["enable", "verify", "reveal", "regenerate", "disable"],
    fields: ["password", "code", "backupCodes"],
  },
  {
    file: "routes/profile/passkeys.tsx",
    path: () => "/profile/passkeys",
    callers: ["guest", "user"],
    intents: ["rename", "delete"],
    fields: ["id", "name"],
  },
  {
    file: "routes/billing/billing.tsx",
    path: () => "/billing",
    callers: ["guest", "user"],
    intents: ["cancel", "restore", "portal"],
    fields: ["referenceId"],
  },
  {
    file: "routes/billing/checkout.tsx",
    path: () => "/checkout",
    callers: ["guest", "user"],
    intents: ["checkout"],
    fields: ["plan", "interval", "referenceId"],
  },
  {
    file: "routes/organizations/organizations.tsx",
    path: () => "/organizations",
    callers: ["guest", "user"],
    intents: ["set-active"],
    fields: ["organizationId", "redirectTo"],
  },
  {
    file: "routes/organizations/new-organization.tsx",
    path: () => "/organizations/new",
    callers: ["guest", "user"],
    intents: ["create-organization"],
    fields: ["name", "slug"],
  },
  {
    file: "routes/organizations/workspace/members.tsx",
    path: () => `/organizations/${org.slug}/members`,
    callers: ["guest", "user"],
    intents: ["update-member-role"],
    fields: ["memberId", "role"],
  },
  {
    file: "routes/organizations/workspace/invitations.tsx",
    path: () => `/organizations/${org.slug}/invitations`,
    callers: ["guest", "user"],
    intents: ["invite-member", "resend-invitation", "cancel-invitation"],
    fields: ["email", "role", "teamId", "invitationId"],
  },
  {
    file: "routes/organizations/workspace/teams.tsx",
    path: () => `/organizations/${org.slug}/teams`,
    callers: ["guest", "user"],
    intents: ["create-team"],
    fields: ["name"],
  },
  {
    file: "routes/organizations/workspace/settings.tsx",
    path: () => `/organizations/${org.slug}/settings`,
    callers: ["guest", "user"],
    intents: ["update-organization"],
    fields: ["name", "slug", "logo", "metadata"],
  },
  {
    file: "routes/organizations/workspace/sso.tsx",
    path: () => `/organizations/${org.slug}/sso`,
    callers: ["guest", "user"],
    intents: ["set-sso-required"],
    fields: ["required"],
  },
  {
    file: "routes/organizations/workspace/sso-new.tsx",
    path: () => `/organizations/${org.slug}/sso/new`,
    callers: ["guest", "user"],
    intents: ["register-oidc", "register-saml"],
    fields: [
      "providerId",
      "domain",
      "issuer",
      "clientId",
      "clientSecret",
      "discoveryEndpoint",
      "tokenEndpoint",
      "metadata",
      "metadataUrl",
      "entityId",
      "entryPoint",
      "cert",
    ],
  },
  {
    file: "routes/organizations/workspace/sso-connection.tsx",
    path: () => `/organizations/${org.slug}/sso/${provider.providerId}`,
    callers: ["guest", "user"],
    intents: ["verify-domain", "update-oidc", "update-saml"],
    fields: [
      "domain",
      "issuer",
      "clientId",
      "clientSecret",
      "metadata",
      "metadataUrl",
      "entityId",
      "entryPoint",
      "cert",
    ],
  },
  {
    file: "routes/organizations/workspace/sso-remove.tsx",
    path: () => `/organizations/${org.slug}/sso/${provider.providerId}/remove`,
    callers: ["guest", "user"],
    intents: ["remove-provider"],
    fields: [],
    intentOnly: true,
  },
  {
    file: "routes/organizations/workspace/roles.tsx",
    path: () => `/organizations/${org.slug}/roles`,
    callers: ["guest", "user"],
    intents: ["create-role"],
    fields: ["name", "permission"],
  },
  {
    file: "routes/organizations/workspace/role.tsx",
    path: () => `/organizations/${org.slug}/roles/${role.id}`,
    callers: ["guest", "user"],
    intents: ["update-role"],
    fields: ["name", "permission"],
  },
  {
    file: "routes/organizations/workspace/role-delete.tsx",
    path: () => `/organizations/${org.slug}/roles/${role.id}/delete`,
    callers: ["guest", "user"],
    intents: ["delete-role"],
    fields: [],
    intentOnly: true,
  },
  {
    file: "routes/organizations/workspace/webhooks.tsx",
    path: () => `/organizations/${org.slug}/webhooks`,
    callers: ["guest", "user"],
    intents: ["create-webhook"],
    fields: ["url", "eventTypes"],
  },
  {
    file: "routes/organizations/workspace/webhook.tsx",
    path: () => `/organizations/${org.slug}/webhooks/${webhook.id}`,
    callers: ["guest", "user"],
    intents: ["set-enabled", "send-test", "replay"],
    fields: ["enabled", "deliveryId"],
  },
  {
    file: "routes/organizations/workspace/webhook-remove.tsx",
    path: () => `/organizations/${org.slug}/webhooks/${webhook.id}/remove`,
    callers: ["guest", "user"],
    intents: ["delete-webhook"],
    fields: [],
    intentOnly: true,
  },
  {
    file: "routes/organizations/remove-member.tsx",
    path: () => `/organizations/${org.slug}/members/${member.id}/remove`,
    callers: ["guest", "user"],
    intents: ["remove-member"],
    fields: [],
    intentOnly: true,
  },
  {
    file: "routes/organizations/team.tsx",
    path: () => `/organizations/${org.slug}/teams/${team.id}`,
    callers: ["guest", "user"],
    intents: ["rename-team", "add-team-member", "remove-team-member"],
    fields: ["name", "userId"],
  },
  {
    file: "routes/organizations/remove-team.tsx",
    path: () => `/organizations/${org.slug}/teams/${team.id}/remove`,
    callers: ["guest", "user"],
    intents: ["remove-team"],
    fields: [],
    intentOnly: true,
  },
  {
    file: "routes/organizations/leave-organization.tsx",
    path: () => `/organizations/${org.slug}/settings/leave`,
    callers: ["guest", "user"],
    intents: ["leave-organization"],
    fields: [],
    intentOnly: true,
  },
  {
    file: "routes/organizations/delete-organization.tsx",
    path: () => `/organizations/${org.slug}/settings/delete`,
    callers: ["guest", "user"],
    intents: ["delete-organization"],
    fields: ["confirmSlug"],
  },
  {
    file: "routes/organizations/workspace/sso-scim.tsx",
    path: () => `/organizations/${org.slug}/sso/${provider.providerId}/scim`,
    callers: ["guest", "user"],
    intents: ["generate-scim-token", "revoke-scim-token"],
    fields: ["tokenId"],
  },
  {
    file: "routes/profile/api-keys.tsx",
    path: () => "/profile/api-keys",
    callers: ["guest", "user"],
    intents: ["create-key", "rename-key", "toggle-key", "delete-key"],
    fields: ["name", "expiry", "permission", "budget", "refill", "rateLimit", "rateWindow", "keyId", "enabled"],
  },
  {
    file: "routes/organizations/workspace/api-keys.tsx",
    path: () => `/organizations/${org.slug}/api-keys`,
    callers: ["guest", "user"],
    intents: ["create-key", "rename-key", "toggle-key", "delete-key"],
    fields: ["name", "expiry", "permission", "budget", "refill", "rateLimit", "rateWindow", "keyId", "enabled"],
  },
  {
    file: "routes/invitations/invitation.tsx",
    path: () => `/invitations/${invitation.id}`,
    callers: ["guest", "user"],
    intents: ["accept", "decline"],
    fields: [],
  },
  {
    file: "routes/admin/users.tsx",
    path: () => "/admin/users",
    callers: ["guest", "user", "admin"],
    intents: ["set-role", "unban", "impersonate", "revoke-sessions"],
    fields: ["userId", "role"],
  },
  {
    file: "routes/admin/new-user.tsx",
    path: () => "/admin/users/new",
    callers: ["guest", "user", "admin"],
    intents: ["create-user"],
    fields: ["name", "email", "password", "role"],
  },
  {
    file: "routes/admin/ban-user.tsx",
    path: () => `/admin/users/${other.id}/ban`,
    callers: ["guest", "user", "admin"],
    intents: ["ban-user"],
    fields: ["reason", "duration"],
  },
  {
    file: "routes/admin/user-password.tsx",
    path: () => `/admin/users/${other.id}/password`,
    callers: ["guest", "user", "admin"],
    intents: ["set-password"],
    fields: ["password"],
  },
  {
    file: "routes/admin/reset-two-factor.tsx",
    path: () => `/admin/users/${other.id}/two-factor`,
    callers: ["guest", "user", "admin"],
    intents: ["reset-two-factor"],
    fields: ["reason"],
  },
  {
    file: "routes/admin/delete-user.tsx",
    path: () => `/admin/users/${other.id}/delete`,
    callers: ["guest", "user", "admin"],
    intents: ["delete-user"],
    fields: [],
    intentOnly: true,
  },
  {
    file: "routes/admin/maintenance/database.tsx",
    path: () => "/admin/maintenance/database",
    callers: ["guest", "user", "admin"],
    intents: ["check"],
    fields: [],
  },
  {
    file: "routes/admin/maintenance/migrations.tsx",
    path: () => "/admin/maintenance/migrations",
    callers: ["guest", "user", "admin"],
    intents: ["start"],
    fields: ["operation"],
  },
  {
    file: "routes/resources/set-locale.ts",
    path: () => "/set-locale",
    callers: ["guest", "user"],
    intents: [],
    fields: ["lng", "redirectTo"],
  },
  {
    file: "routes/resources/signout.ts",
    path: () => "/signout",
    callers: ["guest", "user"],
    intents: [],
    fields: ["locale"],
  },
  {
    file: "routes/resources/stop-impersonating.ts",
    path: () => "/stop-impersonating",
    callers: ["guest", "user"],
    intents: [],
    fields: ["locale"],
  },
];

/** Route modules with an action that are not forms: /api/auth is the JSON API, covered above. */
const NOT_FORMS = ["routes/api/auth.ts"];

/**
 * Where a form answers a plain success to what this suite sends, and why: their one button
 * carries no input, so any well-formed post is that button. WRITES_BY_FORM says what they write.
 */
const FORM_EXCEPTIONS: Record<string, { allow: (label: string) => boolean; why: string }> = {
  "routes/resources/set-locale.ts": {
    allow: () => true,
    why: "any post picks a language (unknown ones mean English) and goes to a checked page on this site",
  },
  "routes/resources/signout.ts": { allow: () => true, why: "the sign-out button: any post signs out" },
  "routes/resources/stop-impersonating.ts": {
    allow: () => true,
    why: "the banner's button: without an impersonation it just goes home",
  },
  "routes/admin/maintenance/database.tsx": {
    allow: () => true,
    why: "the page's one button (SQLite's quick check): any post from an admin runs it and shows the result",
  },
  "routes/organizations/workspace/sso-scim.tsx": {
    allow: (label) => label.startsWith("generate-scim-token:"),
    why: "Generate takes no input: any well-formed post of it from an owner makes a token and shows it once",
  },
  "routes/organizations/workspace/webhook.tsx": {
    allow: (label) => label.startsWith("send-test:"),
    why: "Send test event takes no input: any well-formed post of it from an owner queues one test delivery",
  },
};
const WRITES_BY_FORM: Record<string, readonly string[]> = {
  "routes/resources/signout.ts": ["Session"],
  "routes/admin/maintenance/database.tsx": ["AuditLog"],
  "routes/organizations/workspace/sso-scim.tsx": ["ScimToken", "AuditLog"],
  "routes/organizations/workspace/webhook.tsx": ["WebhookDelivery", "AuditLog"],
};

const LOCALES = ["", "/fr", "/ja", "/zh-CN"] as const;

interface FormProbe {
  route: FormRoute;
  caller: Caller;
  label: string;
  path: string;
  body: string | null;
  type: string | null;
  legit?: boolean;
}

function formProbes(route: FormRoute, caller: Caller): FormProbe[] {
  const probes: FormProbe[] = [];
  let n = 0;
  const add = (label: string, fields: [string, string][] | null, init: Partial<FormProbe> = {}) => {
    const path = `${LOCALES[n++ % LOCALES.length]}${route.path()}`;
    probes.push({
      route,
      caller,
      label,
      path,
      body: fields && new URLSearchParams(fields).toString(),
      type: fields && "application/x-www-form-urlencoded",
      ...init,
    });
  };
  add("no body", null);
  add("JSON body", null, { body: '{"intent":"x"}', type: "application/json" });
  add("multipart without a boundary", null, { body: "--x\r\nbroken", type: "multipart/form-data" });
  add("unknown intent", [["intent", "hostile-unknown"]]);
  const intents = route.intents.length ? route.intents : [null];
  for (const intent of intents) {
    const withIntent = (fields: [string, string][]): [string, string][] =>
      intent === null ? fields : [["intent", intent], ...fields];
    const tag = intent ?? "post";
    if (!route.intentOnly) add(`${tag}: missing fields`, withIntent([]));
    // Wrong types: a repeated key is an array where a string goes (the intent too).
    add(`${tag}: repeated keys`, [
      ...(intent === null
        ? []
        : ([
            ["intent", "hostile-unknown"],
            ["intent", intent],
          ] as [string, string][])),
      ...route.fields.flatMap((f): [string, string][] => [
        [f, "a"],
        [f, "b"],
      ]),
    ]);
    if (intent !== null) add(`${tag}: 100 KB intent`, [["intent", intent + LONG]]);
    if (intent !== null) {
      add(`${tag}: control characters in the intent`, [["intent", intent + TEXT.nul + TEXT.esc + TEXT.bidi]]);
      add(`${tag}: line break in the intent`, [["intent", intent + TEXT.crlf]]);
    }
    if (route.fields.length === 0) continue; // the bare intent is the form's real action
    add(`${tag}: 100 KB`, withIntent(route.fields.map((f) => [f, LONG])));
    for (const [name, text] of Object.entries(TEXT)) {
      if (name !== "bell") add(`${tag}: ${name}`, withIntent(route.fields.map((f) => [f, text])));
    }
    add(`${tag}: unicode`, withIntent(route.fields.map((f) => [f, UNICODE])), { legit: true });
  }
  return probes;
}

const localeOf = (path: string) => /^\/(fr|ja|zh-CN)(\/|$)/.exec(path)?.[1] ?? "en";

function judgeForm(probe: FormProbe, sent: Sent): string | null {
  const what = `${probe.route.file} [${probe.caller}] ${probe.label} ${probe.path} → ${sent.status}`;
  if (sent.status >= 500) return `${what}: server error`;
  if (sent.status >= 300 && sent.status < 400) {
    return sent.location !== null && sameOrigin(base, sent.location) ? null : `${what}: Location ${sent.location}`;
  }
  const visibleError = /data-testid="(form-errors|field-errors|error-status)"/.test(sent.text);
  if (sent.status < 300) {
    if (visibleError || probe.legit || FORM_EXCEPTIONS[probe.route.file]?.allow(probe.label)) return null;
    return `${what}: accepted without an error`;
  }
  // A 4xx is a refusal whatever the page shows (a hidden section's errors are not drawn); it
  // must come as the page in the request's language, or, from a resource route, with a message.
  if (sent.status === 413) return /Payload Too Large/.test(sent.text) ? null : `${what}: 413 without a message`;
  if (/json/.test(sent.type)) {
    const parsed = JSON.parse(sent.text) as unknown;
    const message = typeof parsed === "string" ? parsed : (parsed as { message?: unknown } | null)?.message;
    return typeof message === "string" && message ? null : `${what}: JSON error without a message`;
  }
  if (!/text\/html/.test(sent.type)) return `${what}: error is neither a page nor JSON (${sent.type})`;
  const lang = /<html lang="([^"]+)"/.exec(sent.text)?.[1];
  if (lang !== localeOf(probe.path)) return `${what}: error page in "${lang}", not "${localeOf(probe.path)}"`;
  return null;
}

describe("page actions under hostile input", () => {
  it("every route module with an action is in the list, and every listed one exists", () => {
    const routesDir = join(ROOT, "app/routes");
    const withAction = (readdirSync(routesDir, { recursive: true }) as string[])
      .filter((file) => /\.tsx?$/.test(file))
      .filter((file) =>
        /export\s+(async\s+)?function\s+action\b|export\s+const\s+action\b/.test(
          readFileSync(join(routesDir, file), "utf8"),
        ),
      )
      .map((file) => relative(join(ROOT, "app"), join(routesDir, file)).split("\\").join("/"))
      .sort();
    const listed = [...FORM_ROUTES().map((r) => r.file), ...NOT_FORMS].sort();
    expect(listed).toEqual(withAction);
    const routesTs = readFileSync(join(ROOT, "app/routes.ts"), "utf8");
    for (const file of listed) expect(routesTs, file).toContain(`"${file}"`);
  });

  it("no body, JSON, unknown intents, missing fields, repeated keys, 100 KB and control characters: never 5xx, a visible localized error, no data changed", async () => {
    const failures: string[] = [];
    for (const route of FORM_ROUTES()) {
      const probes = route.callers.flatMap((caller) => formProbes(route, caller).filter((p) => !p.legit));
      const before = await snapshot();
      await pool(probes, CONCURRENCY, async (probe) => {
        const sent = await send(base, probe.path, {
          method: "POST",
          body: probe.body,
          type: probe.type,
          cookie: cookieFor(probe),
        });
        const verdict = judgeForm(probe, sent);
        if (verdict) failures.push(verdict);
      });
      const changed = diff(before, await snapshot(), WRITES_BY_FORM[route.file] ?? []);
      if (changed) failures.push(`${route.file}: data changed\n${changed}`);
      for (const who of [user, admin, other]) await ensureSession(who);
    }
    expect(failures).toEqual([]);
    expect(newServerErrors(app.server)).toEqual([]);
  }, 180_000);

  it("legitimate non-ASCII text: never 5xx", async () => {
    const failures: string[] = [];
    const probes = FORM_ROUTES().flatMap((route) =>
      route.callers.flatMap((caller) => formProbes(route, caller).filter((p) => p.legit)),
    );
    await pool(probes, CONCURRENCY, async (probe) => {
      const sent = await send(base, probe.path, {
        method: "POST",
        body: probe.body,
        type: probe.type,
        cookie: cookieFor(probe),
      });
      const verdict = judgeForm(probe, sent);
      if (verdict) failures.push(verdict);
    });
    for (const who of [user, admin, other]) await ensureSession(who);
    expect(failures).toEqual([]);
    expect(newServerErrors(app.server)).toEqual([]);
  }, 120_000);
});
