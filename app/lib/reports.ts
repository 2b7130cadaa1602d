/**
 * The reports' URL state (the admin's dashboard, subscriptions and audit log, and an
 * organization's own audit log), shared by their loaders and components. Everything a page shows is chosen by its query string, so every view is a
 * plain link. A value that does not parse falls back to the default instead of failing: a
 * hand-edited or outdated link still opens the page.
 */
import { z } from "zod";

/** The dashboard's chart ranges, in days. */
export const RANGES = [7, 30, 90] as const;
const DEFAULT_RANGE = 30;

export const PAGE_SIZES = [20, 50, 100] as const;
const DEFAULT_PAGE_SIZE = 20;

/** Statuses with a tab of their own even when no subscription has them (others get one when present). */
export const STATUS_TABS = ["active", "trialing", "past_due", "canceled"] as const;

export const AUDIT_STATUSES = ["success", "failure"] as const;

/** An empty form field is no filter. */
const blank = (value: unknown) => (value === "" ? undefined : value);
/** A lower-case token such as a status or a category. */
const token = z
  .preprocess(
    blank,
    z
      .string()
      .regex(/^[a-z][a-z0-9_-]{0,31}$/)
      .optional(),
  )
  .catch(undefined);
/** A calendar day, YYYY-MM-DD, that exists. */
const day = z
  .preprocess(
    blank,
    z
      .string()
      .regex(/^\d{4}-\d{2}-\d{2}$/)
      // Zod runs this check even when the pattern failed: a text that is no date at all must not throw.
      .refine((value) => {
        const date = new Date(`${value}T00:00:00Z`);
        return !Number.isNaN(date.getTime()) && date.toISOString().startsWith(value);
      })
      .optional(),
  )
  .catch(undefined);

export const rangeQuery = z.object({
  range: z.coerce
    .number()
    .refine((value) => (RANGES as readonly number[]).includes(value))
    .catch(DEFAULT_RANGE),
});

const pageQuery = z.object({
  page: z.coerce.number().int().min(1).max(1_000_000).catch(1),
  size: z.coerce
    .number()
    .refine((value) => (PAGE_SIZES as readonly number[]).includes(value))
    .catch(DEFAULT_PAGE_SIZE),
});

export const subscriptionsQuery = pageQuery.extend({ status: token });

export const auditLogFilter = z.object({
  category: token,
  status: z.preprocess(blank, z.enum(AUDIT_STATUSES).optional()).catch(undefined),
  /** Part of the acting user's email (stored lower-cased). */
  user: z.preprocess(blank, z.string().trim().toLowerCase().max(256).optional()).catch(undefined),
  /** First and last day (UTC), both included. */
  from: day,
  to: day,
  /** Part of the action or of the details. */
  q: z.preprocess(blank, z.string().trim().max(256).optional()).catch(undefined),
});
export type AuditLogFilter = z.infer<typeof auditLogFilter>;

export const auditLogQuery = pageQuery.extend(auditLogFilter.shape);

/** An organization's audit log: the same filter, with the acting person's name or email instead of the text searches. */
export const organizationAuditLogFilter = z.object({
  /** Part of the acting person's name or email. */
  member: z.preprocess(blank, z.string().trim().max(256).optional()).catch(undefined),
  category: auditLogFilter.shape.category,
  status: auditLogFilter.shape.status,
  from: day,
  to: day,
});
export type OrganizationAuditLogFilter = z.infer<typeof organizationAuditLogFilter>;

export const organizationAuditLogQuery = pageQuery.extend(organizationAuditLogFilter.shape);

/** A filter's applied values as a query string (empty ones left out), e.g. for its CSV export. */
export function filterQuery(filter: Record<string, string | undefined>): string {
  return new URLSearchParams(
    Object.entries(filter).flatMap(([key, value]) => (value ? [[key, value]] : [])),
  ).toString();
}

/** A query string's parameters as zod reads them (the last of a repeated one wins). */
export function searchParamsOf(url: URL): Record<string, string> {
  return Object.fromEntries(url.searchParams);
}

/**
 * A link to the same page with some parameters changed (null removes one), the others kept:
 * a tab keeps the page size, a page link keeps the filters.
 */
export function queryLink(
  location: { pathname: string; search: string },
  changes: Record<string, string | number | null>,
): string {
  const params = new URLSearchParams(location.search);
  for (const [key, value] of Object.entries(changes)) {
    if (value === null) params.delete(key);
    else params.set(key, String(value));
  }
  const query = params.toString();
  return query ? `${location.pathname}?${query}` : location.pathname;
}

/** The data operations of Maintenance > Migrations (app/server/admin/migrations.server.ts). */
export const dataOperations = ["ensure-customers"] as const;
export type DataOperation = (typeof dataOperations)[number];

/** The migrations page's form: run one data operation. */
export const dataOperationForm = z.object({ operation: z.enum(dataOperations) });
