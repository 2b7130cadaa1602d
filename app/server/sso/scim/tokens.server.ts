/**
 * SCIM tokens: the bearer credentials a directory (Okta, Entra ID) provisions with. An owner
 * or admin of the organization generates one for a connection; it is shown once and only its
 * SHA-256 hash is kept (with its first characters, to tell tokens apart in the list), so a
 * copy of the database provisions nothing. Each call issues a new token; revoking one ends it
 * at once. A token acts for its connection's organization and no other.
 */
import { randomBytes } from "node:crypto";
import { z } from "zod";
import { audit } from "~/server/audit.server";
import { checkRateLimit, rateLimitEnabled } from "~/server/auth/rate-limit.server";
import { hashToken, type AuthSession, type RequestMeta } from "~/server/auth/session.server";
import { prisma } from "~/server/db.server";
import { fail } from "~/server/errors.server";
import {
  callerOf,
  membershipOf,
  requireMembership,
  requirePermission,
} from "~/server/organization/organizations.server";
import { can, mayAssign } from "~/server/organization/permissions.server";
import { ScimError } from "./protocol.server";

const PREFIX = "scim_";
/** How much of a token the list shows: the prefix and a few random characters. */
const START_LENGTH = PREFIX.length + 6;
/** A directory's budget: Okta and Entra ID send bursts, but well under this. */
export const SCIM_RATE_LIMIT = { name: "scim", window: 60, max: 600 };
/** lastUsedAt is written at most this often per token, not on every request. */
const LAST_USED_GRANULARITY_MS = 60_000;

export const generateScimTokenInput = z.object({
  providerId: z.string().min(1).max(255),
  organizationId: z.string().min(1).max(255),
});

/** Who a SCIM request acts for: the connection of its token, and that connection's organization. */
export interface ScimCaller {
  tokenId: string;
  organizationId: string;
  /** The connection's row id. */
  providerRowId: string;
  /** The connection's wire name. */
  providerId: string;
}

/**
 * A new token for the connection `providerId` of `organizationId`, for its owners and admins:
 * the token itself is in this answer and nowhere else.
 */
export async function generateScimToken(
  auth: AuthSession,
  input: z.infer<typeof generateScimTokenInput>,
  meta: RequestMeta,
): Promise<{ scimToken: string }> {
  const member = await requireMembership(auth, input.organizationId);
  requirePermission(member, "sso", ["manage"], "YOU_ARE_NOT_ALLOWED_TO_MANAGE_SCIM_TOKENS");
  // A directory adds and removes members and makes admins (its Admins group): no one gives it
  // more than they may do themselves, as with a custom role or an API key.
  if (!can(member, "member", ["create", "update", "delete"]) || !mayAssign(member, "admin")) {
    fail("YOU_ARE_NOT_ALLOWED_TO_MANAGE_SCIM_TOKENS");
  }
  const provider = await prisma.ssoProvider.findUnique({ where: { providerId: input.providerId } });
  // Another organization's connection is answered like one that does not exist.
  if (provider?.organizationId !== member.organizationId) fail("SCIM_CONNECTION_NOT_FOUND");
  const scimToken = PREFIX + randomBytes(32).toString("base64url");
  const row = await prisma.scimToken.create({
    data: {
      providerId: provider.id,
      organizationId: provider.organizationId,
      tokenHash: hashToken(scimToken),
      start: scimToken.slice(0, START_LENGTH),
      createdBy: auth.user.id,
    },
  });
  await audit({
    userId: auth.user.id,
    category: "scim",
    action: "generate-scim-token",
    status: "success",
    targetType: "scim-token",
    targetId: row.id,
    organizationId: row.organizationId,
    details: { organizationId: row.organizationId, providerId: provider.providerId },
    meta,
  });
  return { scimToken };
}

/**
 * The tokens of the connection `providerId` (newest first, never the token itself), for the
 * owners and admins of its organization; with `organizationId`, a connection of any other
 * organization is not found.
 */
export async function listScimTokens(auth: AuthSession, providerId: string, organizationId?: string) {
  const provider = await prisma.ssoProvider.findUnique({ where: { providerId } });
  if (!provider || (organizationId !== undefined && provider.organizationId !== organizationId)) {
    fail("SCIM_CONNECTION_NOT_FOUND");
  }
  const member = await requireMembership(auth, provider.organizationId);
  requirePermission(member, "sso", ["manage"], "YOU_ARE_NOT_ALLOWED_TO_MANAGE_SCIM_TOKENS");
  const tokens = await prisma.scimToken.findMany({
    where: { providerId: provider.id },
    orderBy: [{ createdAt: "desc" }, { id: "asc" }],
    select: { id: true, start: true, createdAt: true, lastUsedAt: true, createdBy: true },
  });
  return tokens;
}

/** Ends a token at once; for the owners and admins of its organization (others do not find it). */
export async function revokeScimToken(auth: AuthSession, input: { tokenId: string }, meta: RequestMeta) {
  const token = await prisma.scimToken.findUnique({
    where: { id: input.tokenId },
    include: { provider: { select: { providerId: true } } },
  });
  const member = token && (await membershipOf(auth.user.id, token.organizationId));
  if (!token || !member) fail("SCIM_TOKEN_NOT_FOUND");
  requirePermission(await callerOf(member), "sso", ["manage"], "YOU_ARE_NOT_ALLOWED_TO_MANAGE_SCIM_TOKENS");
  await prisma.scimToken.delete({ where: { id: token.id } });
  await audit({
    userId: auth.user.id,
    category: "scim",
    action: "revoke-scim-token",
    status: "success",
    targetType: "scim-token",
    targetId: token.id,
    organizationId: token.organizationId,
    details: { organizationId: token.organizationId, providerId: token.provider.providerId },
    meta,
  });
  return { success: true };
}

const unauthorized = (detail: string) =>
  new ScimError(401, detail, undefined, { "WWW-Authenticate": 'Bearer realm="SCIM"' });

/**
 * The caller of a SCIM request, from its `Authorization: Bearer` token, within the token's
 * rate limit; a SCIM 401 without a token or with one that is unknown or revoked, a 429 past
 * the limit.
 */
export async function scimCaller(request: Request): Promise<ScimCaller> {
  const bearer = /^Bearer\s+(\S+)\s*$/i.exec(request.headers.get("Authorization") ?? "")?.[1];
  if (!bearer) throw unauthorized("SCIM bearer token is required");
  const tokenHash = hashToken(bearer);
  const token = await prisma.scimToken.findUnique({
    where: { tokenHash },
    include: { provider: { select: { providerId: true, organizationId: true } } },
  });
  // A token whose connection moved to another organization is no longer its organization's.
  if (!token || token.provider.organizationId !== token.organizationId) throw unauthorized("Invalid SCIM bearer token");
  if (rateLimitEnabled()) {
    const result = await checkRateLimit(`scim|${tokenHash}`, SCIM_RATE_LIMIT);
    if (!result.allowed) {
      throw new ScimError(429, "Too many requests. Please try again later.", undefined, {
        "Retry-After": String(result.retryAfter),
        "X-Retry-After": String(result.retryAfter),
      });
    }
  }
  if (!token.lastUsedAt || Date.now() - token.lastUsedAt.getTime() > LAST_USED_GRANULARITY_MS) {
    await prisma.scimToken.updateMany({ where: { id: token.id }, data: { lastUsedAt: new Date() } });
  }
  return {
    tokenId: token.id,
    organizationId: token.organizationId,
    providerRowId: token.providerId,
    providerId: token.provider.providerId,
  };
}
