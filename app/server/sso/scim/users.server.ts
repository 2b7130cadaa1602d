/**
 * SCIM Users of an organization, as its directory provisions them with a SCIM token. A User is
 * a product user (its name from displayName, or givenName and familyName; its email the
 * primary email, else the userName when that is an address) and, while active, a member of
 * the token's organization (membership.server.ts). The ScimUser row keeps the directory's view:
 * the userName in lower case (userName is matched without regard to case), the externalId,
 * `active`, and the attributes as last sent.
 *
 * A User whose email already belongs to a product account is linked to that account only when
 * the email's domain is a verified domain of one of the organization's connections; otherwise
 * it is refused (409 uniqueness), or any organization could take over an account by naming its
 * email. New users' emails count as verified only on a verified domain. Deactivating or
 * deleting a User ends their membership and sessions; the account itself stays.
 */
import { z } from "zod";
import { audit } from "~/server/audit.server";
import { announceRevocation } from "~/server/auth/revocation.server";
import { normalizeEmail } from "~/server/auth/schemas.server";
import type { RequestMeta } from "~/server/auth/session.server";
import { endAccessOutsideSso } from "~/server/auth/sign-in.server";
import { isUniqueViolation, prisma, type Prisma } from "~/server/db.server";
import { auditRoleChange, endAccess, scimDetails, syncMembership, type MembershipChange } from "./membership.server";
import { applyPatch, patchRequest, type DocumentShape } from "./patch.server";
import { userFilter } from "./filter.server";
import { pagedList, projected, SCHEMAS, scimFail, scimLocation, scimParse, type ScimQuery } from "./protocol.server";
import type { ScimCaller } from "./tokens.server";

const ENTERPRISE = SCHEMAS.enterpriseUser;

const text = (max = 256) => z.string().trim().min(1).max(max);
/** Entra ID sends booleans as "True" and "False". */
const boolean = z.preprocess(
  (value) => (typeof value === "string" && /^(true|false)$/i.test(value) ? value.toLowerCase() === "true" : value),
  z.boolean(),
);
const emailAddress = z.string().trim().max(254).pipe(z.email());
const atMostOnePrimary = (values: { primary?: boolean }[]) => values.filter((value) => value.primary).length <= 1;

/** A User as POST and PUT take it (and as a PATCH must leave it); other attributes are dropped. */
export const userInput = z
  .object({
    schemas: z
      .array(z.string())
      .refine((schemas) => schemas.includes(SCHEMAS.user), { message: `schemas must contain ${SCHEMAS.user}` })
      .refine((schemas) => schemas.every((schema) => schema === SCHEMAS.user || schema === ENTERPRISE), {
        message: "schemas names a schema this service does not support",
      }),
    userName: text(512),
    externalId: text(1024).optional(),
    displayName: text().optional(),
    nickName: text().optional(),
    title: text(1024).optional(),
    userType: text().optional(),
    preferredLanguage: text().optional(),
    locale: text().optional(),
    timezone: text().optional(),
    name: z
      .object({
        formatted: text(1024).optional(),
        familyName: text().optional(),
        givenName: text().optional(),
        middleName: text().optional(),
        honorificPrefix: text().optional(),
        honorificSuffix: text().optional(),
      })
      .optional(),
    emails: z
      .array(
        z.object({
          value: emailAddress,
          type: text().optional(),
          primary: boolean.optional(),
          display: text().optional(),
        }),
      )
      .max(20)
      .refine(atMostOnePrimary, { message: "emails has more than one primary value" })
      .optional(),
    phoneNumbers: z
      .array(z.object({ value: text(), type: text().optional(), primary: boolean.optional() }))
      .max(10)
      .refine(atMostOnePrimary, { message: "phoneNumbers has more than one primary value" })
      .optional(),
    addresses: z
      .array(
        z.object({
          formatted: text(1024).optional(),
          streetAddress: text(1024).optional(),
          locality: text().optional(),
          region: text().optional(),
          postalCode: text().optional(),
          country: text().optional(),
          type: text().optional(),
          primary: boolean.optional(),
        }),
      )
      .max(10)
      .refine(atMostOnePrimary, { message: "addresses has more than one primary value" })
      .optional(),
    active: boolean.optional(),
    [ENTERPRISE]: z
      .object({
        employeeNumber: text().optional(),
        costCenter: text().optional(),
        organization: text(1024).optional(),
        division: text(1024).optional(),
        department: text(1024).optional(),
        manager: z
          .object({ value: text().optional(), displayName: text().optional(), $ref: text(2048).optional() })
          .optional(),
      })
      .optional(),
  })
  .superRefine((user, ctx) => {
    if (!primaryEmail(user)) {
      ctx.addIssue({
        code: "custom",
        path: ["emails"],
        message: "emails must contain an email when userName is not an email address",
      });
    }
    if (user[ENTERPRISE] && !user.schemas.includes(ENTERPRISE)) {
      ctx.addIssue({ code: "custom", path: ["schemas"], message: `schemas must contain ${ENTERPRISE}` });
    }
  });
type UserInput = z.infer<typeof userInput>;

/** The product user's email: the primary email, else the work one, else the first, else the userName if an address. */
function primaryEmail(user: Pick<UserInput, "emails" | "userName">): string | null {
  const emails = user.emails ?? [];
  const chosen =
    emails.find((email) => email.primary) ?? emails.find((email) => email.type?.toLowerCase() === "work") ?? emails[0];
  const value = chosen?.value ?? (emailAddress.safeParse(user.userName).success ? user.userName : null);
  return value ? normalizeEmail(value) : null;
}

/** The product user's name: displayName, else the formatted name, else given and family names, else the userName. */
function productName(user: UserInput): string {
  const parts = [user.name?.givenName, user.name?.familyName].filter(Boolean).join(" ");
  return (user.displayName || user.name?.formatted || parts || user.userName).slice(0, 255);
}

const SHAPE: DocumentShape = {
  schema: SCHEMAS.user,
  extensions: [ENTERPRISE],
  attributes: Object.keys(userInput.shape),
  multiValued: ["emails", "phoneNumbers", "addresses", "groups"],
  readOnly: ["id", "meta", "groups"],
};

const include = {
  groups: { include: { group: { select: { id: true, displayName: true } } }, orderBy: { groupId: "asc" } },
} as const satisfies Prisma.ScimUserInclude;
type Row = Prisma.ScimUserGetPayload<{ include: typeof include }>;

function attributesOf(row: { attributes: string | null }): Record<string, unknown> {
  try {
    const parsed: unknown = JSON.parse(row.attributes ?? "{}");
    return parsed && typeof parsed === "object" ? (parsed as Record<string, unknown>) : {};
  } catch {
    return {};
  }
}

/** The User as the directory reads it. */
function resource(row: Row) {
  const attributes = attributesOf(row);
  return {
    schemas: [SCHEMAS.user, ...(attributes[ENTERPRISE] ? [ENTERPRISE] : [])],
    id: row.id,
    ...(row.externalId ? { externalId: row.externalId } : {}),
    ...attributes,
    userName: typeof attributes.userName === "string" ? attributes.userName : row.userName,
    active: row.active,
    groups: row.groups.map(({ group }) => ({
      value: group.id,
      display: group.displayName,
      $ref: scimLocation(`/Groups/${group.id}`),
    })),
    meta: {
      resourceType: "User",
      created: row.createdAt.toISOString(),
      lastModified: row.updatedAt.toISOString(),
      location: scimLocation(`/Users/${row.id}`),
    },
  };
}

async function userOf(caller: ScimCaller, id: string): Promise<Row> {
  // Another organization's User is answered like one that does not exist.
  const row = await prisma.scimUser.findFirst({ where: { id, organizationId: caller.organizationId }, include });
  return row ?? scimFail(404, "User not found");
}

/** Whether `email`'s domain is a verified domain of one of the organization's connections. */
async function onVerifiedDomain(organizationId: string, email: string): Promise<boolean> {
  const domain = email.slice(email.lastIndexOf("@") + 1);
  const count = await prisma.ssoDomain.count({
    where: { domain, verifiedAt: { not: null }, provider: { organizationId } },
  });
  return count > 0;
}

/**
 * The product account's name and email as they are, after refusing (400 mutability) a change
 * of them that the directory does not own. The account is the organization's while its email is on one of the
 * organization's verified domains, and may then move only to another of them. Otherwise it is
 * its owner's: a directory that made an account on another domain, and kept the link after the
 * address's owner claimed it, must not rename it, nor move its email to an address the
 * directory reads and reset its password there; nor may an admin do that to an owner by
 * moving them off the domain.
 */
async function mayRename(
  caller: ScimCaller,
  userId: string,
  next: { email: string; name: string; verified: boolean },
): Promise<{ email: string; name: string }> {
  const current = await prisma.user.findUniqueOrThrow({ where: { id: userId }, select: { email: true, name: true } });
  if (current.email === next.email && current.name === next.name) return current;
  const owned = await onVerifiedDomain(caller.organizationId, current.email);
  if (!owned || (current.email !== next.email && !next.verified)) {
    scimFail(
      400,
      "The user's name and email are not the organization's to change outside its verified domains",
      "mutability",
    );
  }
  return current;
}

/**
 * Writes a User (new when `existing` is null): its product user, its row, its membership, and
 * its sessions' end when it stops being active. Returns the row and what the membership did.
 */
async function save(
  caller: ScimCaller,
  existing: Row | null,
  user: UserInput,
  meta: RequestMeta,
): Promise<{ row: Row; change: MembershipChange; linked: boolean }> {
  const { organizationId } = caller;
  const email = primaryEmail(user)!;
  const name = productName(user);
  const active = user.active ?? true;
  const userName = user.userName.toLowerCase();
  const clash = await prisma.scimUser.findFirst({
    where: {
      organizationId,
      ...(existing ? { id: { not: existing.id } } : {}),
      OR: [{ userName }, ...(user.externalId ? [{ externalId: user.externalId }] : [])],
    },
  });
  if (clash) {
    scimFail(
      409,
      `A User with this ${clash.userName === userName ? "userName" : "externalId"} already exists`,
      "uniqueness",
    );
  }
  const verified = await onVerifiedDomain(organizationId, email);
  const holder = await prisma.user.findUnique({ where: { email }, select: { id: true } });
  if (holder && holder.id !== existing?.userId) {
    if (existing || !verified) {
      await audit({
        userId: null,
        meta,
        category: "scim",
        action: existing ? "scim-update-user" : "scim-create-user",
        status: "failure",
        targetType: "user",
        targetId: holder.id,
        organizationId: caller.organizationId,
        details: { ...scimDetails(caller), reason: existing ? "email-taken" : "email-taken-unverified-domain" },
      });
      scimFail(
        409,
        existing
          ? "Another user already has this email"
          : "A user with this email already exists, and its domain is not a verified domain of the organization",
        "uniqueness",
      );
    }
    const provisioned = await prisma.scimUser.findUnique({
      where: { organizationId_userId: { organizationId, userId: holder.id } },
    });
    if (provisioned) scimFail(409, "The user with this email is another User of the organization", "uniqueness");
  }
  const accountId = existing?.userId ?? holder?.id;
  const account = accountId ? await mayRename(caller, accountId, { email, name, verified }) : null;
  const { active: _active, externalId, schemas: _schemas, ...attributes } = user;
  const data = { userName, externalId: externalId ?? null, active, attributes: JSON.stringify(attributes) };
  try {
    return await prisma.$transaction(async (tx) => {
      let userId = accountId;
      if (userId && account) {
        if (account.email !== email || account.name !== name) {
          await tx.user.update({
            where: { id: userId },
            data: { name, ...(account.email !== email ? { email, emailVerified: verified } : {}) },
          });
          await announceRevocation(tx, userId); // cached copies of the old name and email must go
          if (account.email !== email) await endAccessOutsideSso(tx, userId);
        }
      } else {
        userId = (await tx.user.create({ data: { email, name, emailVerified: verified } })).id;
      }
      const row = existing
        ? await tx.scimUser.update({ where: { id: existing.id }, data, include })
        : await tx.scimUser.create({ data: { ...data, organizationId, userId }, include });
      const change = await syncMembership(tx, organizationId, row);
      if (change?.kind === "removed" || (existing?.active && !active)) await endAccess(tx, userId);
      return { row, change, linked: !existing && Boolean(holder) };
    });
  } catch (error) {
    // Two requests for the same userName or email at once: the second loses here.
    if (isUniqueViolation(error)) scimFail(409, "A User with these values already exists", "uniqueness");
    throw error;
  }
}

/** Users of the caller's organization, oldest first, by `filter`, `startIndex` (1-based) and `count`. */
export async function listUsers(caller: ScimCaller, query: ScimQuery) {
  const filter = typeof query.filter === "string" && query.filter.trim() ? userFilter(query.filter) : {};
  const where = { AND: [{ organizationId: caller.organizationId }, filter] };
  return pagedList(
    query,
    SCHEMAS.user,
    () => prisma.scimUser.count({ where }),
    (page) => prisma.scimUser.findMany({ where, include, ...page }),
    resource,
  );
}

export async function getUser(caller: ScimCaller, id: string, query: ScimQuery) {
  return projected(resource(await userOf(caller, id)), query, SCHEMAS.user);
}

export async function createUser(caller: ScimCaller, body: unknown, meta: RequestMeta) {
  const user = scimParse(userInput, body);
  const { row, change, linked } = await save(caller, null, user, meta);
  await audit({
    userId: null,
    meta,
    category: "scim",
    action: "scim-create-user",
    status: "success",
    targetType: "user",
    targetId: row.userId,
    organizationId: caller.organizationId,
    details: { ...scimDetails(caller), scimUserId: row.id, userName: row.userName, active: row.active, linked },
  });
  await auditRoleChange(caller, meta, row.userId, change);
  return resource(row);
}

/** A save of an existing User, audited by what it did to `active`. */
async function update(caller: ScimCaller, existing: Row, user: UserInput, meta: RequestMeta) {
  const { row, change } = await save(caller, existing, user, meta);
  const action =
    existing.active && !row.active
      ? "scim-deactivate-user"
      : !existing.active && row.active
        ? "scim-reactivate-user"
        : "scim-update-user";
  await audit({
    userId: null,
    meta,
    category: "scim",
    action,
    status: "success",
    targetType: "user",
    targetId: row.userId,
    organizationId: caller.organizationId,
    details: { ...scimDetails(caller), scimUserId: row.id, userName: row.userName },
  });
  await auditRoleChange(caller, meta, row.userId, change);
  return resource(row);
}

export async function replaceUser(caller: ScimCaller, id: string, body: unknown, meta: RequestMeta) {
  const existing = await userOf(caller, id);
  return update(caller, existing, scimParse(userInput, body), meta);
}

export async function patchUser(caller: ScimCaller, id: string, body: unknown, meta: RequestMeta) {
  const { Operations } = scimParse(patchRequest, body);
  const existing = await userOf(caller, id);
  const patched = applyPatch(resource(existing), Operations, SHAPE);
  // An extension's attributes declare their schema (a patch may have added the first one).
  patched.schemas = [SCHEMAS.user, ...(patched[ENTERPRISE] ? [ENTERPRISE] : [])];
  return update(caller, existing, scimParse(userInput, patched), meta);
}

/** Deprovisions a User: no longer a member, sessions ended; the product account stays. */
export async function deleteUser(caller: ScimCaller, id: string, meta: RequestMeta): Promise<void> {
  const existing = await userOf(caller, id);
  await prisma.$transaction(async (tx) => {
    const change = await syncMembership(tx, caller.organizationId, { ...existing, active: false });
    await tx.scimUser.delete({ where: { id: existing.id } });
    if (existing.active || change) await endAccess(tx, existing.userId);
  });
  await audit({
    userId: null,
    meta,
    category: "scim",
    action: "scim-delete-user",
    status: "success",
    targetType: "user",
    targetId: existing.userId,
    organizationId: caller.organizationId,
    details: { ...scimDetails(caller), scimUserId: existing.id, userName: existing.userName },
  });
}
