/**
 * Reading the audit log, for the two views of it: the admin console's (every row) and an
 * organization's own (its rows only). Each view builds its own `where`; this module holds
 * what they share: the filter's common parts, the page of rows with the actors' emails, and
 * the CSV export that streams in batches (the log grows without bound, so it is never read
 * whole). It checks no caller: the views do, before they call it.
 */
import { csvRow, type CsvValue } from "~/server/csv.server";
import { prisma, type Prisma } from "~/server/db.server";

const DAY_MS = 24 * 60 * 60 * 1000;

/** The filter both views offer; the days are UTC days, both included. */
export interface AuditFilterBase {
  category?: string;
  status?: string;
  from?: string;
  to?: string;
}

/** The conditions of the common filter, to AND with a view's own. */
export function auditFilterWhere(filter: AuditFilterBase): Prisma.AuditLogWhereInput[] {
  const and: Prisma.AuditLogWhereInput[] = [];
  if (filter.category) and.push({ category: filter.category });
  if (filter.status) and.push({ status: filter.status });
  if (filter.from) and.push({ createdAt: { gte: new Date(`${filter.from}T00:00:00.000Z`) } });
  // The last day is included: everything before the next one.
  if (filter.to) and.push({ createdAt: { lt: new Date(new Date(`${filter.to}T00:00:00.000Z`).getTime() + DAY_MS) } });
  return and;
}

const select = {
  id: true,
  createdAt: true,
  category: true,
  action: true,
  status: true,
  userId: true,
  user: { select: { email: true, name: true } },
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

/**
 * Page `page` (of `size` rows) of the rows `where` selects, newest first; a page past the
 * last shows the last. `scope` is the view's whole log (no filter): its categories are the
 * filter's choices. A row's actor comes with their email and name; a row written while an
 * admin impersonated them, with the admin's email.
 */
export async function auditPage(
  where: Prisma.AuditLogWhereInput,
  scope: Prisma.AuditLogWhereInput,
  query: { page: number; size: number },
) {
  const [total, categories] = await Promise.all([
    prisma.auditLog.count({ where }),
    prisma.auditLog.groupBy({ by: ["category"], where: scope, orderBy: { category: "asc" }, _count: { _all: true } }),
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
      name: user?.name ?? null,
      impersonatorEmail: row.impersonatedBy ? (admins.get(row.impersonatedBy) ?? null) : null,
    })),
  };
}

/** A row as the CSV export reads it, and the emails of its actor and impersonator (null when deleted). */
export type AuditCsvRow = Omit<Prisma.AuditLogGetPayload<{ select: typeof select }>, "user"> & {
  userEmail: string | null;
  impersonatorEmail: string | null;
};

const CSV_BATCH = 1000;
/** Users whose email the export remembers (actors repeat from row to row). */
const EMAIL_CACHE_MAX = 10_000;

/**
 * The rows `where` selects (resolved when the first batch is read), newest first, as CSV: a
 * header line of `columns`, then `record(row)` for each row, read in batches as the client
 * takes them. A UTF-8 byte order mark comes first: without it spreadsheet programs read the
 * file in a legacy encoding and garble names in Chinese, Japanese or French. Every field goes
 * through csvRow, which keeps a value that looks like a formula from running.
 *
 * Each batch continues where the last ended with `createdAt <= last one's` and skips the
 * rows of that same instant already written (they come first: the order is fixed), which
 * stays on the createdAt index; Prisma's `cursor` compares through a subquery and was ~8x
 * slower at 100,000 rows. Emails are looked up per batch rather than joined for the same reason.
 */
export function auditCsv(
  where: () => Promise<Prisma.AuditLogWhereInput>,
  columns: readonly string[],
  record: (row: AuditCsvRow) => readonly CsvValue[],
): ReadableStream<Uint8Array> {
  let filter: Prisma.AuditLogWhereInput | undefined;
  const encoder = new TextEncoder();
  const emails = new Map<string, string | null>();
  let last: { createdAt: Date; written: number } | null = null;
  return new ReadableStream<Uint8Array>({
    start(controller) {
      controller.enqueue(encoder.encode(`\uFEFF${csvRow(columns)}`));
    },
    async pull(controller) {
      filter ??= await where();
      const rows = await prisma.auditLog.findMany({
        where: last ? { AND: [filter, { createdAt: { lte: last.createdAt } }] } : filter,
        orderBy: newestFirst,
        skip: last?.written ?? 0,
        take: CSV_BATCH,
        select: { ...select, user: false },
      });
      const actors = [...new Set(rows.flatMap((row) => [row.userId, row.impersonatedBy].filter((id) => id !== null)))];
      if (emails.size + actors.length > EMAIL_CACHE_MAX) emails.clear();
      const unknown = actors.filter((id) => !emails.has(id));
      if (unknown.length > 0) {
        for (const [id, email] of await emailsOf(unknown)) emails.set(id, email);
      }
      const emailOf = (id: string | null) => (id ? (emails.get(id) ?? null) : null);
      controller.enqueue(
        encoder.encode(
          rows
            .map((row) =>
              csvRow(
                record({ ...row, userEmail: emailOf(row.userId), impersonatorEmail: emailOf(row.impersonatedBy) }),
              ),
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
