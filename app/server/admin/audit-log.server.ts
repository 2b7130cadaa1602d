/**
 * The audit log for the admin console: filtered pages of it, and the same filter as a CSV
 * download that streams in batches (the log grows without bound, so it is never read whole).
 */
import type { z } from "zod";
import type { AuditLogFilter, auditLogQuery } from "~/lib/reports";
import { csvRow } from "~/server/admin/csv.server";
import { containing, prisma, type Prisma } from "~/server/db.server";

const DAY_MS = 24 * 60 * 60 * 1000;

function auditWhere(filter: AuditLogFilter): Prisma.AuditLogWhereInput {
  const and: Prisma.AuditLogWhereInput[] = [];
  if (filter.category) and.push({ category: filter.category });
  if (filter.status) and.push({ status: filter.status });
  if (filter.user) and.push({ user: { email: containing(filter.user) } });
  if (filter.from) and.push({ createdAt: { gte: new Date(`${filter.from}T00:00:00.000Z`) } });
  // The last day is included: everything before the next one.
  if (filter.to) and.push({ createdAt: { lt: new Date(new Date(`${filter.to}T00:00:00.000Z`).getTime() + DAY_MS) } });
  if (filter.q) and.push({ OR: [{ action: containing(filter.q) }, { details: containing(filter.q) }] });
  return { AND: and };
}

const select = {
  id: true,
  createdAt: true,
  category: true,
  action: true,
  status: true,
  userId: true,
  user: { select: { email: true } },
  targetType: true,
  targetId: true,
  ipAddress: true,
  userAgent: true,
  details: true,
} satisfies Prisma.AuditLogSelect;

// Newest first; the id breaks ties so that pages and CSV batches never skip or repeat a row.
const newestFirst: Prisma.AuditLogOrderByWithRelationInput[] = [{ createdAt: "desc" }, { id: "desc" }];

export async function auditLogPage(query: z.infer<typeof auditLogQuery>) {
  const where = auditWhere(query);
  const [total, categories] = await Promise.all([
    prisma.auditLog.count({ where }),
    prisma.auditLog.groupBy({ by: ["category"], orderBy: { category: "asc" }, _count: { _all: true } }),
  ]);
  const pages = Math.max(1, Math.ceil(total / query.size));
  const page = Math.min(query.page, pages);
  const rows = await prisma.auditLog.findMany({
    where,
    orderBy: newestFirst,
    skip: (page - 1) * query.size,
    take: query.size,
    select,
  });
  return {
    categories: categories.map((group) => group.category),
    page,
    pages,
    size: query.size,
    total,
    rows: rows.map(({ user, createdAt, ...row }) => ({
      ...row,
      createdAt: createdAt.toISOString(),
      email: user?.email ?? null,
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
  "targetType",
  "targetId",
  "ipAddress",
  "userAgent",
  "details",
] as const;

const CSV_BATCH = 1000;
/** Users whose email the export remembers (actors repeat from row to row). */
const EMAIL_CACHE_MAX = 10_000;

/**
 * The rows of `filter`, newest first, as CSV (a header line, then one record per row), read
 * in batches as the client takes them. A UTF-8 byte order mark comes first: without it
 * spreadsheet programs read the file in a legacy encoding and garble names in Chinese,
 * Japanese or French.
 *
 * Each batch continues where the last ended with `createdAt <= last one's` and skips the
 * rows of that same instant already written (they come first: the order is fixed), which
 * stays on the createdAt index; Prisma's `cursor` compares through a subquery and was ~8x
 * slower at 100,000 rows. Emails are looked up per batch rather than joined for the same reason.
 */
export function auditLogCsv(filter: AuditLogFilter): ReadableStream<Uint8Array> {
  const where = auditWhere(filter);
  const encoder = new TextEncoder();
  const emails = new Map<string, string | null>();
  let last: { createdAt: Date; written: number } | null = null;
  return new ReadableStream<Uint8Array>({
    start(controller) {
      controller.enqueue(encoder.encode(`\uFEFF${csvRow(CSV_COLUMNS)}`));
    },
    async pull(controller) {
      const rows = await prisma.auditLog.findMany({
        where: last ? { AND: [where, { createdAt: { lte: last.createdAt } }] } : where,
        orderBy: newestFirst,
        skip: last?.written ?? 0,
        take: CSV_BATCH,
        select: { ...select, user: false },
      });
      const actors = [...new Set(rows.flatMap((row) => (row.userId ? [row.userId] : [])))];
      if (emails.size + actors.length > EMAIL_CACHE_MAX) emails.clear();
      const unknown = actors.filter((id) => !emails.has(id));
      if (unknown.length > 0) {
        const users = await prisma.user.findMany({ where: { id: { in: unknown } }, select: { id: true, email: true } });
        for (const id of unknown) emails.set(id, null);
        for (const user of users) emails.set(user.id, user.email);
      }
      controller.enqueue(
        encoder.encode(
          rows
            .map((row) =>
              csvRow([
                row.id,
                row.createdAt,
                row.category,
                row.action,
                row.status,
                row.userId,
                row.userId ? emails.get(row.userId) : null,
                row.targetType,
                row.targetId,
                row.ipAddress,
                row.userAgent,
                row.details,
              ]),
            )
            .join(""),
        ),
      );
      const end = rows.at(-1);
      if (end) {
        const sameInstant = rows.filter((row) => row.createdAt.getTime() === end.createdAt.getTime()).length;
        // A batch that is all one instant adds to the rows of it written before.
        const before = last && last.createdAt.getTime() === end.createdAt.getTime() ? last.written : 0;
        last = { createdAt: end.createdAt, written: before + sameInstant };
      }
      if (rows.length < CSV_BATCH) controller.close();
    },
  });
}
