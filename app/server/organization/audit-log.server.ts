/**
 * An organization's own audit log, for the members whose role may read it (auditLog: read):
 * the rows that name the organization (audit rows carry it, see audit.server.ts) and nothing
 * else, filtered by person, category, status and days, a page at a time or as a CSV download.
 * The person is found by part of their name or email, as the team dialog finds members: an
 * organization may have far more members than a list of them could hold (decision 0011).
 * A row an admin of the site wrote while impersonating a member shows that it was one, not
 * who: the site's staff are not the organization's to know.
 */
import type { z } from "zod";
import type { OrganizationAuditLogFilter, organizationAuditLogQuery } from "~/server/report-queries.server";
import { auditCsv, auditFilterWhere, auditPage } from "~/server/audit-log-query.server";
import type { AuthSession } from "~/server/auth/session.server";
import { containing, type Prisma } from "~/server/db.server";
import { requireMembership, requirePermission } from "./organizations.server";

/** The caller's organization once they may read its log (a 403 otherwise; not a member: refused too). */
async function readableLog(auth: AuthSession, organizationId: string) {
  const member = await requireMembership(auth, organizationId);
  requirePermission(member, "auditLog", ["read"], "YOU_ARE_NOT_ALLOWED_TO_READ_THE_AUDIT_LOG");
  return member.organizationId;
}

function whereOf(organizationId: string, filter: OrganizationAuditLogFilter): Prisma.AuditLogWhereInput {
  const and: Prisma.AuditLogWhereInput[] = [{ organizationId }, ...auditFilterWhere(filter)];
  // Only the organization's rows are searched: a name or email tells nothing it does not show.
  if (filter.member) {
    and.push({ user: { OR: [{ name: containing(filter.member) }, { email: containing(filter.member) }] } });
  }
  return { AND: and };
}

/** A page of the organization's log (newest first) and its categories, for a member who may read it. */
export async function organizationAuditLog(
  auth: AuthSession,
  organizationId: string,
  query: z.infer<typeof organizationAuditLogQuery>,
) {
  const id = await readableLog(auth, organizationId);
  const log = await auditPage(whereOf(id, query), { organizationId: id }, query);
  return {
    ...log,
    rows: log.rows.map(({ impersonatedBy, impersonatorEmail: _, ...row }) => ({
      ...row,
      byAdministrator: impersonatedBy !== null,
    })),
  };
}

const CSV_COLUMNS = [
  "id",
  "createdAt",
  "category",
  "action",
  "status",
  "userId",
  "userEmail",
  "byAdministrator",
  "targetType",
  "targetId",
  "ipAddress",
  "userAgent",
  "details",
] as const;

/**
 * The organization's rows under `filter`, newest first, as CSV (streamed; see auditCsv), for
 * a member who may read the log: refused before the stream starts.
 */
export async function organizationAuditLogCsv(
  auth: AuthSession,
  organizationId: string,
  filter: OrganizationAuditLogFilter,
): Promise<ReadableStream<Uint8Array>> {
  const id = await readableLog(auth, organizationId);
  return auditCsv(
    () => Promise.resolve(whereOf(id, filter)),
    CSV_COLUMNS,
    (row) => [
      row.id,
      row.createdAt,
      row.category,
      row.action,
      row.status,
      row.userId,
      row.userEmail,
      row.impersonatedBy !== null,
      row.targetType,
      row.targetId,
      row.ipAddress,
      row.userAgent,
      row.details,
    ],
  );
}
