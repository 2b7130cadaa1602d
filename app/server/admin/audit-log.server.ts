/**
 * The audit log for the admin console: filtered pages of every row, and the same filter as a
 * CSV download (app/server/audit-log-query.server.ts reads and streams them). A row written
 * while an admin impersonated a user is the admin's: it shows them (acting as the user), and
 * the user filter finds it under either.
 */
import type { z } from "zod";
import type { AuditLogFilter, auditLogQuery } from "~/server/report-queries.server";
import { auditCsv, auditFilterWhere, auditPage } from "~/server/audit-log-query.server";
import { containing, prisma, type Prisma } from "~/server/db.server";

/** The admins who impersonated someone (few: read through the index) whose email contains `text`. */
async function impersonatorsMatching(text: string): Promise<string[]> {
  const groups = await prisma.auditLog.groupBy({ by: ["impersonatedBy"], where: { impersonatedBy: { not: null } } });
  const ids = groups.flatMap((group) => (group.impersonatedBy ? [group.impersonatedBy] : []));
  if (!ids.length) return [];
  const users = await prisma.user.findMany({
    where: { id: { in: ids }, email: containing(text) },
    select: { id: true },
  });
  return users.map((user) => user.id);
}

async function auditWhere(filter: AuditLogFilter): Promise<Prisma.AuditLogWhereInput> {
  const and = auditFilterWhere(filter);
  if (filter.user) {
    const admins = await impersonatorsMatching(filter.user);
    and.push({ OR: [{ user: { email: containing(filter.user) } }, { impersonatedBy: { in: admins } }] });
  }
  if (filter.q) and.push({ OR: [{ action: containing(filter.q) }, { details: containing(filter.q) }] });
  return { AND: and };
}

export async function auditLogPage(query: z.infer<typeof auditLogQuery>) {
  return auditPage(await auditWhere(query), {}, query);
}

const CSV_COLUMNS = [
  "id",
  "createdAt",
  "category",
  "action",
  "status",
  "userId",
  "userEmail",
  "targetType",
  "targetId",
  "ipAddress",
  "userAgent",
  "details",
  "impersonatedBy",
  "impersonatedByEmail",
] as const;

/** The rows of `filter`, newest first, as CSV (a header line, then one record per row). */
export function auditLogCsv(filter: AuditLogFilter): ReadableStream<Uint8Array> {
  return auditCsv(
    () => auditWhere(filter),
    CSV_COLUMNS,
    (row) => [
      row.id,
      row.createdAt,
      row.category,
      row.action,
      row.status,
      row.userId,
      row.userEmail,
      row.targetType,
      row.targetId,
      row.ipAddress,
      row.userAgent,
      row.details,
      row.impersonatedBy,
      row.impersonatorEmail,
    ],
  );
}
