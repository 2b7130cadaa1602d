/**
 * API keys (@better-auth/api-key 1.7.5 is the wire contract; docs/decisions/0027): storage,
 * and the verification the session gate runs for every request that sends `x-api-key`.
 *
 * - A key is its prefix plus 64 random letters; only sha256(key) is stored, and `start` (its
 *   first 6 characters) is kept for display. It is shown once, in the reply that creates it.
 * - Every request with a key reads its row (no cache), so disabling, expiring or deleting it
 *   refuses it at once on every instance. The per-key rate limit and the request budget are
 *   counted by conditional updates in the database, so two instances never both pass the
 *   last request of a window or of a budget.
 * - While a request acts through a key, `actingKey()` names it (an AsyncLocalStorage scope the
 *   dispatcher opens): organization permission checks intersect the member's grants with the
 *   key's, and the dispatcher keeps a key away from what it must not do (`refuseForKey`).
 *   Keys are for the JSON API only: the pages refuse them (guards.server.ts).
 */
import { AsyncLocalStorage } from "node:async_hooks";
import { z } from "zod";
import { audit } from "~/server/audit.server";
import { prisma, type Prisma } from "~/server/db.server";
import { AppError, fail } from "~/server/errors.server";
import { rateLimitRefusals } from "~/server/metrics.server";
import type { RequestHead } from "~/server/request-head.server";
import {
  ACCOUNT_ACCESS_ROUTES,
  authUserSelect,
  getSession,
  hashToken,
  randomToken,
  routeIn,
  type AuthSession,
  type GetSessionOptions,
  type RequestMeta,
} from "./session.server";

export const API_KEY_HEADER = "x-api-key";
const KEY_LENGTH = 64;
const KEY_LETTERS = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz";
const START_LENGTH = 6;
export const NAME_MAX = 32;
/** better-auth's bounds for `expiresIn`: none below 0, none beyond 365 days. */
export const EXPIRES_IN_MAX = 365 * 24 * 60 * 60;
/** better-auth's default per-key rate limit: 10 requests per 24 hours. */
export const DEFAULT_RATE_LIMIT = { max: 10, timeWindow: 24 * 60 * 60 * 1000 };
export const CONFIG_IDS = ["default", "org"] as const;
export type ConfigId = (typeof CONFIG_IDS)[number];

/** Organization permissions as stored on a key (organization/permissions.server.ts `Grants`). */
export type KeyGrants = Record<string, readonly string[]>;

// ---- the key a request acts through ----

export interface ActingKey {
  id: string;
  userId: string;
  organizationId: string | null;
  /** null: all of the acting member's rights. */
  permissions: KeyGrants | null;
}

const scope = new AsyncLocalStorage<{ key: ActingKey | null }>();

/** Runs one request's handling in a scope where the session gate can record the key it used. */
export function withKeyScope<T>(run: () => T): T {
  return scope.run({ key: null }, run);
}

/** The key the current request acts through, if any. */
export function actingKey(): ActingKey | null {
  return scope.getStore()?.key ?? null;
}

/**
 * The organization permissions of the key the request acts through: null for a request
 * without a key, or with a key that keeps all of its member's rights.
 */
export function keyPermissions(): Readonly<Record<string, readonly string[]>> | null {
  return actingKey()?.permissions ?? null;
}

/**
 * What a request made with a key may not do, whatever its permissions: manage how the account
 * is reached or delete it (ACCOUNT_ACCESS_ROUTES: a leaked key must not mint others, lift its
 * own limits, lock the owner out or become access to their Google or GitHub), or use the
 * admin plugin.
 */
const REFUSED_FOR_KEYS = [...ACCOUNT_ACCESS_ROUTES, "/admin/"];

/**
 * An organization's key reaches only the routes that act within one organization: the one
 * they name by id (checked against the key's below) or the active one (the key's). Routes
 * that find a team or invitation by its id alone name their organization through it
 * (`ADDRESSED_BY_ID`). None spans the author's other organizations or their own account.
 */
const ORGANIZATION_KEY_ROUTES = [
  "/get-session",
  "/organization/get-full-organization",
  "/organization/update",
  "/organization/delete",
  "/organization/list-members",
  "/organization/get-active-member",
  "/organization/get-active-member-role",
  "/organization/invite-member",
  "/organization/list-invitations",
  "/organization/update-member-role",
  "/organization/remove-member",
  "/organization/create-team",
  "/organization/list-teams",
  // A team is looked up within the named (else the active) organization.
  "/organization/update-team",
  "/organization/remove-team",
  "/organization/add-team-member",
  "/organization/remove-team-member",
  // Found by their own id in any organization: checked through it (ADDRESSED_BY_ID).
  "/organization/list-team-members",
  "/organization/cancel-invitation",
  // Custom roles, likewise looked up within the named or active organization.
  "/organization/create-role",
  "/organization/list-roles",
  "/organization/get-role",
  "/organization/update-role",
  "/organization/delete-role",
  "/organization/has-permission",
  "/sso/register",
];

type Fields = Record<string, unknown>;

/**
 * Routes whose handler finds its object by id in any organization: the organization of the
 * object the request names (undefined when it names none or it does not exist, which the
 * handler answers as it would for anyone).
 */
const ADDRESSED_BY_ID: Record<string, (body: Fields, query: Fields) => Promise<string | undefined>> = {
  "/organization/list-team-members": (_body, query) => organizationOf("team", query.teamId),
  "/organization/cancel-invitation": (body) => organizationOf("invitation", body.invitationId),
};

async function organizationOf(table: "team" | "invitation", id: unknown): Promise<string | undefined> {
  if (typeof id !== "string") return undefined;
  const args = { where: { id }, select: { organizationId: true } };
  const row = table === "team" ? await prisma.team.findUnique(args) : await prisma.invitation.findUnique(args);
  return row?.organizationId;
}

const first = (value: unknown) => (Array.isArray(value) ? value[0] : value);

const fieldsOf = (source: unknown): Fields => (source && typeof source === "object" ? (source as Fields) : {});

/** The organizations a request's input names: `organizationId`, and `data.organizationId` (update-team's). */
function namedOrganizations(fields: Fields): unknown[] {
  return [first(fields.organizationId), first(fieldsOf(fields.data).organizationId)].filter(
    (id) => id !== undefined && id !== null,
  );
}

/** The gate for requests made with a key (the dispatcher calls it before every handler): 403 API_KEY_NOT_ALLOWED. */
export async function refuseForKey(path: string, body: unknown, query: unknown): Promise<void> {
  const key = actingKey();
  if (!key) return;
  if (routeIn(path, REFUSED_FOR_KEYS)) fail("API_KEY_NOT_ALLOWED");
  if (!key.organizationId) return;
  if (!ORGANIZATION_KEY_ROUTES.includes(path)) fail("API_KEY_NOT_ALLOWED");
  const [bodyFields, queryFields] = [fieldsOf(body), fieldsOf(query)];
  for (const fields of [bodyFields, queryFields]) {
    // A slug names an organization the gate would have to look up: the key's is the default anyway.
    if (fields.organizationSlug !== undefined) fail("API_KEY_NOT_ALLOWED");
    if (namedOrganizations(fields).some((id) => id !== key.organizationId)) fail("API_KEY_NOT_ALLOWED");
  }
  const owner = await ADDRESSED_BY_ID[path]?.(bodyFields, queryFields);
  if (owner !== undefined && owner !== key.organizationId) fail("API_KEY_NOT_ALLOWED");
}

// ---- reading ----

type Row = Prisma.ApiKeyGetPayload<object>;

function parseJson(text: string | null): Record<string, unknown> | null {
  if (!text) return null;
  try {
    return JSON.parse(text) as Record<string, unknown>;
  } catch {
    return null;
  }
}

/**
 * A key as the API returns it (better-auth's record: `referenceId` is the user for a personal
 * key, the organization for an organization's); never the key or its hash.
 */
export function apiKeyOut(row: Row) {
  const { keyHash: _hash, userId, organizationId, windowStart: _window, ...rest } = row;
  return {
    ...rest,
    referenceId: organizationId ?? userId,
    metadata: parseJson(row.metadata),
    permissions: parseJson(row.permissions) as KeyGrants | null,
  };
}
export type ApiKeyRecord = ReturnType<typeof apiKeyOut>;

// ---- writing ----

export interface NewKey {
  configId: ConfigId;
  userId: string;
  organizationId: string | null;
  name?: string | undefined;
  prefix?: string | undefined;
  expiresIn?: number | null | undefined;
  metadata?: Record<string, unknown> | null | undefined;
  /** Server-side only (the product's pages): the API refuses them with SERVER_ONLY_PROPERTY. */
  permissions?: KeyGrants | null | undefined;
  remaining?: number | null | undefined;
  refillAmount?: number | null | undefined;
  refillInterval?: number | null | undefined;
  rateLimit?: { max: number; timeWindow: number } | null | undefined;
}

/** Stores a new key; returns its record with the key itself, the one time it is shown. */
export async function storeApiKey(input: NewKey, meta: RequestMeta) {
  const key = `${input.prefix ?? ""}${randomToken(KEY_LENGTH, KEY_LETTERS)}`;
  const now = new Date();
  const limit = input.rateLimit === undefined ? DEFAULT_RATE_LIMIT : input.rateLimit;
  const row = await prisma.apiKey.create({
    data: {
      configId: input.configId,
      name: input.name ?? null,
      prefix: input.prefix ?? null,
      start: key.slice(0, START_LENGTH),
      keyHash: hashToken(key),
      userId: input.userId,
      organizationId: input.organizationId,
      expiresAt: input.expiresIn ? new Date(now.getTime() + input.expiresIn * 1000) : null,
      metadata: input.metadata ? JSON.stringify(input.metadata) : null,
      permissions: input.permissions ? JSON.stringify(input.permissions) : null,
      remaining: input.remaining ?? input.refillAmount ?? null,
      refillAmount: input.refillAmount ?? null,
      refillInterval: input.refillInterval ?? null,
      lastRefillAt: input.refillAmount ? now : null,
      rateLimitEnabled: limit !== null,
      rateLimitMax: limit?.max ?? null,
      rateLimitTimeWindow: limit?.timeWindow ?? null,
      createdAt: now,
    },
  });
  await auditKey(meta, input.userId, row, "create-api-key");
  return { ...apiKeyOut(row), key };
}

/** Records `actorId`'s change to a key: in its organization's log for an organization's key. */
export function auditKey(
  meta: RequestMeta,
  actorId: string,
  row: Row,
  action: string,
  details: Record<string, unknown> = {},
) {
  return audit({
    userId: actorId,
    category: "api-key",
    action,
    status: "success",
    targetType: "apiKey",
    targetId: row.id,
    organizationId: row.organizationId,
    details: { name: row.name, start: row.start, configId: row.configId, ...details },
    meta,
  });
}

// ---- verification: the session gate ----

/** Reads the key a request sends, when it sends one. */
export function apiKeyFrom(request: RequestHead): string | null {
  return request.headers.get(API_KEY_HEADER);
}

/**
 * The session a request with `key` acts as: its owner's (for an organization's key, its
 * author's, with that organization active), after the checks better-auth makes in this
 * order: unknown → 401 INVALID_API_KEY, disabled → 401 KEY_DISABLED, expired → 401
 * KEY_EXPIRED (and the row goes), budget spent → 429 USAGE_EXCEEDED, rate limit → 429
 * RATE_LIMITED. Records the key as the request's acting key.
 */
export async function sessionForKey(key: string, request: Request, ipAddress: string | null): Promise<AuthSession> {
  const row = key.length >= KEY_LENGTH ? await prisma.apiKey.findUnique({ where: { keyHash: hashToken(key) } }) : null;
  if (!row) fail("INVALID_API_KEY");
  if (!row.enabled) fail("KEY_DISABLED");
  const now = new Date();
  if (row.expiresAt && row.expiresAt <= now) {
    await prisma.apiKey.deleteMany({ where: { id: row.id } });
    fail("KEY_EXPIRED");
  }
  const user = await prisma.user.findUnique({ where: { id: row.userId }, select: authUserSelect });
  if (!user || (user.banned && (!user.banExpires || user.banExpires > now))) fail("INVALID_API_KEY");
  if (row.organizationId) {
    // An organization's key acts as its author, and only while they are still a member.
    const member = await prisma.member.findUnique({
      where: { organizationId_userId: { organizationId: row.organizationId, userId: row.userId } },
      select: { id: true },
    });
    if (!member) fail("INVALID_API_KEY");
  }
  await spendBudget(row, now);
  await countRequest(row, now);

  const store = scope.getStore();
  // A request handled outside a scope could not carry the key's limits: it gets no session.
  if (!store) fail("INVALID_API_KEY");
  store.key = {
    id: row.id,
    userId: row.userId,
    organizationId: row.organizationId,
    permissions: parseJson(row.permissions) as KeyGrants | null,
  };
  return {
    user,
    session: {
      id: row.id,
      token: "",
      userId: row.userId,
      expiresAt: row.expiresAt ?? new Date(now.getTime() + 7 * 24 * 60 * 60 * 1000),
      ipAddress,
      userAgent: request.headers.get("User-Agent"),
      activeOrganizationId: row.organizationId,
      activeTeamId: null,
      impersonatedBy: null,
      signInMethod: "api-key",
      createdAt: now,
      updatedAt: now,
    },
  };
}

/** Takes one request from the key's budget, refilling it first when its interval has passed. */
async function spendBudget(row: Row, now: Date): Promise<void> {
  if (row.remaining === null && row.refillAmount === null) return;
  if (row.refillAmount !== null && row.refillInterval !== null) {
    const due = new Date(now.getTime() - row.refillInterval);
    // Only one instance wins the refill: the condition names the refill time it read.
    await prisma.apiKey.updateMany({
      where: { id: row.id, OR: [{ lastRefillAt: null }, { lastRefillAt: { lte: due } }] },
      data: { remaining: row.refillAmount, lastRefillAt: now },
    });
  }
  const { count } = await prisma.apiKey.updateMany({
    where: { id: row.id, remaining: { gt: 0 } },
    data: { remaining: { decrement: 1 } },
  });
  if (count === 0) fail("USAGE_EXCEEDED");
}

/** Counts the request against the key's rate limit (a fixed window from its first request). */
async function countRequest(row: Row, now: Date): Promise<void> {
  const { rateLimitMax: max, rateLimitTimeWindow: window } = row;
  if (!row.rateLimitEnabled || max === null || window === null) {
    await prisma.apiKey.update({ where: { id: row.id }, data: { lastRequest: now } });
    return;
  }
  const windowFrom = new Date(now.getTime() - window);
  // A new window, when the last one is over; else one more in this one, while below the limit.
  const opened = await prisma.apiKey.updateMany({
    where: { id: row.id, OR: [{ windowStart: null }, { windowStart: { lte: windowFrom } }] },
    data: { windowStart: now, requestCount: 1, lastRequest: now },
  });
  if (opened.count > 0) return;
  const counted = await prisma.apiKey.updateMany({
    where: { id: row.id, windowStart: { gt: windowFrom }, requestCount: { lt: max } },
    data: { requestCount: { increment: 1 }, lastRequest: now },
  });
  if (counted.count > 0) return;
  const current = await prisma.apiKey.findUnique({ where: { id: row.id }, select: { windowStart: true } });
  // Refused by the key's own limit, beside the rate limiter's rules (rate-limit.server.ts).
  rateLimitRefusals.inc({ rule: "api-key" });
  const tryAgainIn = current?.windowStart ? Math.max(0, current.windowStart.getTime() + window - now.getTime()) : 0;
  throw new AppError("RATE_LIMITED", undefined, undefined, { "X-Retry-After": String(Math.ceil(tryAgainIn / 1000)) });
}

// ---- the API's input ----

/** Fields only the server may set; a client sending any of them gets 400 SERVER_ONLY_PROPERTY. */
export const SERVER_ONLY_FIELDS = [
  "permissions",
  "remaining",
  "refillAmount",
  "refillInterval",
  "rateLimitEnabled",
  "rateLimitTimeWindow",
  "rateLimitMax",
  "userId",
] as const;

export const keyName = z.string().min(1, "INVALID_NAME_LENGTH").max(NAME_MAX, "INVALID_NAME_LENGTH");
export const expiresInSchema = z
  .number()
  .min(0, "EXPIRES_IN_IS_TOO_SMALL")
  .max(EXPIRES_IN_MAX, "EXPIRES_IN_IS_TOO_LARGE")
  .nullable();
export const metadataSchema = z.record(z.string(), z.unknown()).nullable();
export const configIdSchema = z.enum(CONFIG_IDS);

/**
 * The request's session, the one place both the API and the pages read it: from its
 * `x-api-key` when it sends one (the key's errors are thrown), else from its session cookie.
 */
export async function requestSession(
  request: Request,
  ipAddress: string | null,
  options?: GetSessionOptions,
): Promise<(AuthSession & { setCookies: string[] }) | null> {
  const key = apiKeyFrom(request);
  if (key === null) return getSession(request, options);
  return { ...(await sessionForKey(key, request, ipAddress)), setCookies: [] };
}
