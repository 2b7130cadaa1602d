/**
 * An organization's own audit log, for the members whose role may read it (auditLog: read):
 * the rows that name the organization (audit rows carry it, see audit.server.ts) and nothing
 * else, filtered by person, category, status and days, a page at a time or as a CSV download.
 * A row an admin of the site wrote while impersonating a member shows that it was one, not
 * who: the site's staff are not the organization's to know.
 */
import type { z } from "zod";
import type { OrganizationAuditLogFilter, organizationAuditLogQuery } from "~/lib/reports";
import { auditCsv, auditFilterWhere, auditPage } from "~/server/audit-log-query.server";
import type { AuthSession } from "~/server/auth/session.server";
import { prisma, type Prisma } from "~/server/db.server";
import { requireMembership, requirePermission } from "./organizations.server";

/** The caller's organization once they may read its log (a 403 otherwise; not a member: refused too). */
async function readableLog(auth: AuthSession, organizationId: string) {
  const member = await requireMembership(auth, organizationId);
  requirePermission(member.role, "auditLog", ["read"], "YOU_ARE_NOT_ALLOWED_TO_READ_THE_AUDIT_LOG");
  return member.organizationId;
}

function whereOf(organizationId: string, filter: OrganizationAuditLogFilter): Prisma.AuditLogWhereInput {
  const and: Prisma.AuditLogWhereInput[] = [{ organizationId }, ...auditFilterWhere(filter)];
  if (filter.member) and.push({ userId: filter.member });
  return { AND: and };
}

/**
 * The people the filter offers: the organization's members, and the person filtered on when
 * they are not one (any longer) but acted in this organization. Someone else's id in the
 * link names nobody: an organization learns only about those its own log shows.
 */
async function peopleOf(organizationId: string, filtered: string | undefined) {
  const members = await prisma.member.findMany({
    where: { organizationId },
    select: { user: { select: { id: true, name: true, email: true } } },
    orderBy: [{ createdAt: "asc" }, { id: "asc" }],
  });
  const people = members.map(({ user }) => ({ ...user, member: true }));
  if (filtered && !people.some((person) => person.id === filtered)) {
    const acted = await prisma.auditLog.findFirst({
      where: { organizationId, userId: filtered },
      select: { user: { select: { id: true, name: true, email: true } } },
    });
    if (acted?.user) people.push({ ...acted.user, member: false });
  }
  return people;
}

/**
 * A page of the organization's log (newest first), its categories and the people to filter
 * by, for a member who may read it.
 */
export async function organizationAuditLog(
  auth: AuthSession,
  organizationId: string,
  query: z.infer<typeof organizationAuditLogQuery>,
) {
  const id = await readableLog(auth, organizationId);
  const [log, people] = await Promise.all([
    auditPage(whereOf(id, query), { organizationId: id }, query),
    peopleOf(id, query.member),
  ]);
  return {
    ...log,
    people,
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
