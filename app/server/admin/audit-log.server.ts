/**
 * The audit log for the admin console: filtered pages of it, and the same filter as a CSV
 * download that streams in batches (the log grows without bound, so it is never read whole).
 * A row written while an admin impersonated a user is the admin's: it shows them (acting as
 * the user), and the user filter finds it under either.
 */
import type { z } from "zod";
import type { AuditLogFilter, auditLogQuery } from "~/lib/reports";
import { csvRow } from "~/server/admin/csv.server";
import { containing, prisma, type Prisma } from "~/server/db.server";

const DAY_MS = 24 * 60 * 60 * 1000;

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
  const and: Prisma.AuditLogWhereInput[] = [];
  if (filter.category) and.push({ category: filter.category });
  if (filter.status) and.push({ status: filter.status });
  if (filter.user) {
    const admins = await impersonatorsMatching(filter.user);
    and.push({ OR: [{ user: { email: containing(filter.user) } }, { impersonatedBy: { in: admins } }] });
  }
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
  impersonatedBy: true,
} satisfies Prisma.AuditLogSelect;

/** The emails of users by id (null for one deleted since). */
async function emailsOf(ids: string[]): Promise<Map<string, string | null>> {
  const emails = new Map<string, string | null>(ids.map((id) => [id, null]));
  if (!ids.length) return emails;
  const users = await prisma.user.findMany({ where: { id: { in: ids } }, select: { id: true, email: true } });
  for (const user of users) emails.set(user.id, user.email);
  return emails;
}

// Newest first; the id breaks ties so that pages and CSV batches never skip or repeat a row.
const newestFirst: Prisma.AuditLogOrderByWithRelationInput[] = [{ createdAt: "desc" }, { id: "desc" }];

export async function auditLogPage(query: z.infer<typeof auditLogQuery>) {
  const where = await auditWhere(query);
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
  const admins = await emailsOf([...new Set(rows.flatMap((row) => (row.impersonatedBy ? [row.impersonatedBy] : [])))]);
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
      impersonatorEmail: row.impersonatedBy ? admins.get(row.impersonatedBy) : null,
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
  "impersonatedBy",
  "impersonatedByEmail",
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
  let where: Prisma.AuditLogWhereInput | undefined;
  const encoder = new TextEncoder();
  const emails = new Map<string, string | null>();
  let last: { createdAt: Date; written: number } | null = null;
  return new ReadableStream<Uint8Array>({
    start(controller) {
      controller.enqueue(encoder.encode(`\uFEFF${csvRow(CSV_COLUMNS)}`));
    },
    async pull(controller) {
      where ??= await auditWhere(filter);
      const rows = await prisma.auditLog.findMany({
        where: last ? { AND: [where, { createdAt: { lte: last.createdAt } }] } : where,
        orderBy: newestFirst,
        skip: last?.written ?? 0,
        take: CSV_BATCH,
        select: { ...select, user: false },
      });
      const actors = [...new Set(rows.flatMap((row) => [row.userId, row.impersonatedBy].filter((id) => id !== null)))];
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
                row.impersonatedBy,
                row.impersonatedBy ? emails.get(row.impersonatedBy) : null,
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
