/**
 * The API key verbs (@better-auth/api-key's /api-key/* routes and the product's key pages):
 * a user's own keys (configId "default") and an organization's (configId "org"), which its
 * owners and admins manage (`apiKey: manage`; 403 INSUFFICIENT_API_KEY_PERMISSIONS for a
 * plain member, USER_NOT_MEMBER_OF_ORGANIZATION for an outsider). A key's permissions, budget
 * and rate limit are set only here, on the server: the API refuses them from a client with
 * SERVER_ONLY_PROPERTY, and the pages set them within the creator's rights
 * (docs/decisions/0027). Storage and verification are the auth layer's (auth/api-keys.server.ts).
 */
import { z } from "zod";
import { prisma } from "~/server/db.server";
import { fail } from "~/server/errors.server";
import {
  apiKeyOut,
  auditKey,
  configIdSchema,
  expiresInSchema,
  keyName,
  metadataSchema,
  SERVER_ONLY_FIELDS,
  storeApiKey,
  type KeyGrants,
  type NewKey,
} from "~/server/auth/api-keys.server";
import type { AuthSession, RequestMeta } from "~/server/auth/session.server";
import { requireMembership, requirePermission, roleTableOf } from "./organizations.server";
import { grantsOf, PERMISSIONS, type Grants } from "./permissions.server";

// ---- input ----

const serverOnly = Object.fromEntries(SERVER_ONLY_FIELDS.map((field) => [field, z.unknown().optional()]));

/** Refuses a client's attempt to set what only the server may (400 SERVER_ONLY_PROPERTY). */
function refuseServerOnly(input: Record<string, unknown>): void {
  if (SERVER_ONLY_FIELDS.some((field) => input[field] !== undefined)) fail("SERVER_ONLY_PROPERTY");
}

export const createApiKeyInput = z.object({
  name: keyName.optional(),
  prefix: z
    .string()
    .min(1, "INVALID_PREFIX_LENGTH")
    .max(32, "INVALID_PREFIX_LENGTH")
    .regex(/^[A-Za-z0-9_-]+$/, "INVALID_PREFIX_LENGTH")
    .optional(),
  expiresIn: expiresInSchema.optional(),
  metadata: metadataSchema.optional(),
  configId: configIdSchema.optional(),
  organizationId: z.string().min(1).max(200).optional(),
  ...serverOnly,
});

export const updateApiKeyInput = z.object({
  keyId: z.string().min(1).max(200),
  configId: configIdSchema.optional(),
  name: keyName.optional(),
  enabled: z.boolean().optional(),
  metadata: metadataSchema.optional(),
  expiresIn: expiresInSchema.optional(),
  ...serverOnly,
});

export const keyIdInput = z.object({ keyId: z.string().min(1).max(200), configId: configIdSchema.optional() });

export const listApiKeysInput = z.object({
  configId: configIdSchema.optional(),
  organizationId: z.string().min(1).max(200).optional(),
  limit: z.coerce.number().int().min(1).max(1000).optional(),
  offset: z.coerce.number().int().min(0).optional(),
  sortBy: z.enum(["createdAt", "updatedAt", "name", "expiresAt", "lastRequest"]).optional(),
  sortDirection: z.enum(["asc", "desc"]).optional(),
});

// ---- permissions ----

/** The permissions a key may carry: the table's, less key management (a key never manages keys). */
export const KEY_PERMISSIONS = Object.fromEntries(
  Object.entries(PERMISSIONS).filter(([resource]) => resource !== "apiKey"),
) as Grants;

/**
 * What `userId` holds and so may give a key: their grants in the key's organization, or for a
 * personal key those of any of their organizations (in each, the key is cut to the member's).
 */
export async function grantsHeld(userId: string, organizationId: string | null): Promise<Grants> {
  const memberships = await prisma.member.findMany({
    where: { userId, ...(organizationId ? { organizationId } : {}) },
    select: { role: true, organizationId: true },
  });
  const held: Record<string, string[]> = {};
  for (const { role, organizationId: id } of memberships) {
    for (const [resource, actions] of Object.entries(grantsOf({ role, roleTable: await roleTableOf(id) }))) {
      held[resource] = [...new Set([...(held[resource] ?? []), ...actions])];
    }
  }
  return held as Grants;
}

/** Refuses a permission set with anything its creator does not hold, or that no key may carry. */
function requireWithin(requested: KeyGrants, held: Grants): void {
  const allowed = held as KeyGrants;
  const keyable = KEY_PERMISSIONS as KeyGrants;
  for (const [resource, actions] of Object.entries(requested)) {
    for (const action of actions) {
      if (!allowed[resource]?.includes(action) || !keyable[resource]?.includes(action)) {
        fail("API_KEY_PERMISSIONS_TOO_BROAD");
      }
    }
  }
}

/**
 * The caller's right to an organization's keys: a member whose role has `apiKey: manage`.
 * An outsider learns only that they are not a member.
 */
async function requireKeyManager(auth: AuthSession, organizationId: string): Promise<void> {
  const member = await requireMembership(auth, organizationId, { notMember: "USER_NOT_MEMBER_OF_ORGANIZATION" });
  requirePermission(member, "apiKey", ["manage"], "INSUFFICIENT_API_KEY_PERMISSIONS");
}

/** A key the caller may manage: their own personal key, or one of an organization they manage keys of; else 404. */
async function keyOf(auth: AuthSession, keyId: string, configId: string | undefined) {
  const row = await prisma.apiKey.findUnique({ where: { id: keyId } });
  if (!row || row.configId !== (configId ?? row.configId)) fail("KEY_NOT_FOUND");
  if (row.organizationId) {
    try {
      await requireKeyManager(auth, row.organizationId);
    } catch {
      fail("KEY_NOT_FOUND"); // another organization's keys are not there for the caller
    }
  } else if (row.userId !== auth.user.id) fail("KEY_NOT_FOUND");
  return row;
}

// ---- verbs ----

/** What the product's pages may set besides the API's fields. */
export interface ServerKeyOptions {
  permissions?: KeyGrants | null;
  remaining?: number | null;
  refillAmount?: number | null;
  refillInterval?: number | null;
  rateLimit?: { max: number; timeWindow: number } | null;
}

/**
 * `POST /api-key/create`, and the pages' create form (`server` holds what only the server
 * sets). A personal key is the caller's; an organization's key needs `apiKey: manage` there.
 */
export async function createApiKey(
  auth: AuthSession,
  input: z.infer<typeof createApiKeyInput>,
  meta: RequestMeta,
  server?: ServerKeyOptions,
) {
  if (!server) refuseServerOnly(input);
  const configId = input.configId ?? "default";
  let organizationId: string | null = null;
  if (configId === "org") {
    if (!input.organizationId) fail("ORGANIZATION_ID_REQUIRED");
    organizationId = input.organizationId;
    await requireKeyManager(auth, organizationId);
  }
  if (server?.permissions) requireWithin(server.permissions, await grantsHeld(auth.user.id, organizationId));
  const key: NewKey = {
    configId,
    userId: auth.user.id,
    organizationId,
    name: input.name,
    prefix: input.prefix,
    expiresIn: input.expiresIn,
    metadata: input.metadata,
    ...server,
  };
  return storeApiKey(key, meta);
}

/** `GET /api-key/list`: the caller's own keys, or an organization's (for its key managers). */
export async function listApiKeys(auth: AuthSession, input: z.infer<typeof listApiKeysInput>) {
  const organizationId = input.organizationId ?? null;
  if (organizationId) await requireKeyManager(auth, organizationId);
  const where = organizationId
    ? { organizationId, configId: "org" }
    : { userId: auth.user.id, organizationId: null, ...(input.configId ? { configId: input.configId } : {}) };
  const [rows, total] = await Promise.all([
    prisma.apiKey.findMany({
      where,
      orderBy: [{ [input.sortBy ?? "createdAt"]: input.sortDirection ?? "desc" }, { id: "asc" }],
      take: input.limit,
      skip: input.offset,
    }),
    prisma.apiKey.count({ where }),
  ]);
  return { apiKeys: rows.map(apiKeyOut), total, limit: input.limit ?? null, offset: input.offset ?? null };
}

/** `GET /api-key/get`: one key the caller may manage; 404 for anyone else's. */
export async function getApiKey(auth: AuthSession, input: z.infer<typeof keyIdInput>) {
  return apiKeyOut(await keyOf(auth, input.keyId, input.configId));
}

/** `POST /api-key/update`: name, enabled, metadata, expiry (from now); the pages rename, disable and enable. */
export async function updateApiKey(auth: AuthSession, input: z.infer<typeof updateApiKeyInput>, meta: RequestMeta) {
  refuseServerOnly(input);
  const row = await keyOf(auth, input.keyId, input.configId);
  const data = {
    ...(input.name !== undefined ? { name: input.name } : {}),
    ...(input.enabled !== undefined ? { enabled: input.enabled } : {}),
    ...(input.metadata !== undefined ? { metadata: input.metadata ? JSON.stringify(input.metadata) : null } : {}),
    ...(input.expiresIn !== undefined
      ? { expiresAt: input.expiresIn === null ? null : new Date(Date.now() + input.expiresIn * 1000) }
      : {}),
  };
  if (Object.keys(data).length === 0) fail("NO_VALUES_TO_UPDATE");
  const updated = await prisma.apiKey.update({ where: { id: row.id }, data });
  const changed = Object.keys(data).filter((field) => field !== "metadata");
  await auditKey(meta, auth.user.id, updated, "update-api-key", { changed, enabled: updated.enabled });
  return apiKeyOut(updated);
}

/** `POST /api-key/delete`: the key stops working at once (its row is gone). */
export async function deleteApiKey(auth: AuthSession, input: z.infer<typeof keyIdInput>, meta: RequestMeta) {
  const row = await keyOf(auth, input.keyId, input.configId);
  await prisma.apiKey.delete({ where: { id: row.id } });
  await auditKey(meta, auth.user.id, row, "delete-api-key");
  return { success: true };
}
