/**
 * The reports' URL state (the admin's dashboard, subscriptions and audit log, and an
 * organization's own audit log), shared by their loaders and components. Everything a page
 * shows is chosen by its query string, so every view is a plain link. The loaders read it
 * with the schemas of server/report-queries.server.ts; this module stays free of zod, which
 * the pages' own JavaScript does not need.
 */

/** The dashboard's chart ranges, in days. */
export const RANGES = [7, 30, 90] as const;
export const DEFAULT_RANGE = 30;

export const PAGE_SIZES = [20, 50, 100] as const;
export const DEFAULT_PAGE_SIZE = 20;

/** Statuses with a tab of their own even when no subscription has them (others get one when present). */
export const STATUS_TABS = ["active", "trialing", "past_due", "canceled"] as const;

export const AUDIT_STATUSES = ["success", "failure"] as const;

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
