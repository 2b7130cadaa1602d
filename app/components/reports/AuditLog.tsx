import type { ReactNode } from "react";
import { Form, useLocation } from "react-router";
import { AppLink } from "~/components/AppLink";
import { StackedTable, stackedCell, stackedRow } from "~/components/reports/StackedTable";
import { buttonClass } from "~/components/ui/Button";
import { inputClass } from "~/components/ui/Input";
import { LocalTime } from "~/components/ui/LocalTime";
import { Pagination } from "~/components/ui/Pagination";
import { AUDIT_STATUSES, filterQuery, PAGE_SIZES, queryLink } from "~/lib/reports";
import { useTranslation } from "~/lib/translations";
import { deviceName } from "~/lib/user-agent";
import { useLocale } from "~/lib/use-root-data";

/**
 * The audit log's page, shared by the admin console's log and an organization's own. Each
 * view adds its own fields to the filter and draws the "who" cell; the words are the reports
 * namespace's (`auditLog.*`), which both load.
 */

/**
 * A log page: its heading, the CSV export of the filter applied now (not the page or its
 * size), the filter form, the rows and the pager.
 */
export function AuditLogView<Row extends AuditRowData>({
  heading,
  csv,
  filter,
  log,
  fields,
  who,
}: {
  heading: ReactNode;
  /** The export's address, localized, without a query. */
  csv: string;
  filter: Record<string, string | undefined>;
  log: { rows: Row[]; categories: string[]; page: number; pages: number; size: number; total: number };
  fields: ReactNode;
  who: (row: Row) => ReactNode;
}) {
  const { t } = useTranslation("reports");
  const location = useLocation();
  const exportQuery = filterQuery(filter);
  return (
    <>
      <div className="flex flex-wrap items-end justify-between gap-4">
        <div>{heading}</div>
        {/* A download, not a page: a document request, never a client-side navigation. */}
        <a
          href={`${csv}${exportQuery ? `?${exportQuery}` : ""}`}
          download
          className={buttonClass("secondary", "shrink-0 whitespace-nowrap")}
          data-testid="export-csv"
        >
          {t("auditLog.export")}
        </a>
      </div>
      <AuditFilters filter={filter} categories={log.categories} key={location.search} fields={fields} />
      <AuditList rows={log.rows} who={who} />
      <Pagination
        page={log.page}
        pages={log.pages}
        href={(page) => queryLink(location, { page })}
        rows={{
          size: log.size,
          total: log.total,
          sizes: PAGE_SIZES,
          sizeHref: (size) => queryLink(location, { size, page: null }),
        }}
      />
    </>
  );
}

/** A control of the filter form. Every control is one height, so the row aligns their bottoms. */
export const filterControl = `${inputClass} h-9 py-0`;

/** A labelled field of the filter form (`width`: its grid columns). */
export function FilterField({
  name,
  label,
  width = "",
  children,
}: {
  name: string;
  label: string;
  width?: string;
  children: ReactNode;
}) {
  return (
    <div className={`flex min-w-0 flex-col gap-1 ${width}`}>
      <label htmlFor={`filter-${name}`} className="truncate text-xs font-medium text-slate-600 dark:text-slate-400">
        {label}
      </label>
      {children}
    </div>
  );
}

/**
 * The filter as a GET form (it works without JavaScript): category, status, the view's own
 * `fields`, then the first and last day.
 */
export function AuditFilters({
  filter,
  categories,
  fields,
}: {
  filter: { category?: string; status?: string; from?: string; to?: string };
  categories: string[];
  fields: ReactNode;
}) {
  const { t } = useTranslation("reports");
  const location = useLocation();
  const size = new URLSearchParams(location.search).get("size");
  // A category in the link that no row has (yet) stays selectable, so the form shows the filter applied.
  const categoryOptions =
    filter.category && !categories.includes(filter.category) ? [...categories, filter.category] : categories;
  return (
    <Form
      method="get"
      className="grid grid-cols-2 items-end gap-3 rounded-xl border border-slate-200 p-4 md:grid-cols-4 dark:border-slate-800"
      role="search"
      aria-label={t("auditLog.filters")}
    >
      {/* The page size survives a new filter; the page does not. */}
      {size ? <input type="hidden" name="size" value={size} /> : null}
      <FilterField name="category" label={t("auditLog.category")}>
        <select id="filter-category" name="category" defaultValue={filter.category ?? ""} className={filterControl}>
          <option value="">{t("auditLog.any")}</option>
          {categoryOptions.map((category) => (
            <option key={category} value={category}>
              {t(`auditLog.categories.${category}`, { defaultValue: category })}
            </option>
          ))}
        </select>
      </FilterField>
      <FilterField name="status" label={t("auditLog.status")}>
        <select id="filter-status" name="status" defaultValue={filter.status ?? ""} className={filterControl}>
          <option value="">{t("auditLog.any")}</option>
          {AUDIT_STATUSES.map((status) => (
            <option key={status} value={status}>
              {t(`auditLog.statuses.${status}`)}
            </option>
          ))}
        </select>
      </FilterField>
      {fields}
      <FilterField name="from" label={t("auditLog.from")}>
        <input id="filter-from" name="from" type="date" defaultValue={filter.from ?? ""} className={filterControl} />
      </FilterField>
      <FilterField name="to" label={t("auditLog.to")}>
        <input id="filter-to" name="to" type="date" defaultValue={filter.to ?? ""} className={filterControl} />
      </FilterField>
      <div className="col-span-2 flex flex-wrap items-center gap-x-2 gap-y-1">
        <button type="submit" className={buttonClass("primary", "h-9 shrink-0 whitespace-nowrap")}>
          {t("auditLog.apply")}
        </button>
        <AppLink to={location.pathname} className={buttonClass("ghost", "h-9 shrink-0 whitespace-nowrap")}>
          {t("auditLog.clear")}
        </AppLink>
        <p className="text-xs text-slate-600 dark:text-slate-400">{t("auditLog.utc")}</p>
      </div>
    </Form>
  );
}

/** What a row of either view shows besides its actor. */
export interface AuditRowData {
  id: string;
  createdAt: string;
  category: string;
  action: string;
  status: string;
  targetType: string | null;
  targetId: string | null;
  ipAddress: string | null;
  userAgent: string | null;
  details: string | null;
}

const COLUMNS = ["time", "user", "category", "action", "status", "ipAddress", "device", "details"] as const;

/**
 * The log as a table on a wide screen and as cards on a phone. The long parts of a row, its
 * raw details and the full user agent, are folded into a <details> of their own: unfolded,
 * twenty rows were a few thousand pixels tall. `who` draws a row's actor.
 */
export function AuditList<Row extends AuditRowData>({ rows, who }: { rows: Row[]; who: (row: Row) => ReactNode }) {
  const { t } = useTranslation("reports");
  return (
    <StackedTable
      className="text-xs"
      data-testid="audit-list"
      empty={rows.length ? null : t("auditLog.empty")}
      head={COLUMNS.map((column) => (
        <th key={column} scope="col" className="px-3 py-2 font-medium whitespace-nowrap">
          {t(`auditLog.columns.${column}`)}
        </th>
      ))}
    >
      {rows.map((row) => (
        <AuditRow key={row.id} row={row} who={who(row)} />
      ))}
    </StackedTable>
  );
}

/** "Chrome on Linux", as the session list names a device; the full string is in the row's details. */
function useDevice() {
  const { t } = useTranslation();
  return (userAgent: string | null) => (userAgent ? deviceName(userAgent, t) : null);
}

const cell = `${stackedCell} md:px-3 md:py-2`;
export const mutedText = "text-slate-600 dark:text-slate-400";

function AuditRow({ row, who }: { row: AuditRowData; who: ReactNode }) {
  const { t } = useTranslation("reports");
  const locale = useLocale();
  const device = useDevice()(row.userAgent);
  const target = row.targetType ? `${row.targetType}:${row.targetId ?? ""}` : null;
  // Empty cells say "—" in the table; a card leaves them out.
  const optional = (value: unknown) => (value ? "" : "hidden");
  return (
    <tr data-audit={row.id} data-action={row.action} className={`${stackedRow} align-top`}>
      <td className={`${cell} order-5 text-right whitespace-nowrap md:text-left ${mutedText} md:text-inherit`}>
        <LocalTime iso={row.createdAt} locale={locale} />
      </td>
      <td className={`${cell} order-3 col-span-2 [overflow-wrap:anywhere] md:[overflow-wrap:normal] md:break-all`}>
        {who}
      </td>
      <td className={`${cell} order-4 ${mutedText} md:text-inherit`} data-category={row.category}>
        {t(`auditLog.categories.${row.category}`, { defaultValue: row.category })}
      </td>
      <td className={`${cell} order-1 text-sm font-medium md:text-xs`} title={row.action}>
        {t(`auditLog.actions.${row.action}`, { defaultValue: row.action })}
      </td>
      <td className={`${cell} order-2 text-right md:text-left`}>
        <span
          className={`whitespace-nowrap ${
            row.status === "success"
              ? "text-primary-700 dark:text-primary-300"
              : "font-medium text-red-700 dark:text-red-400"
          }`}
          data-status={row.status}
        >
          {t(`auditLog.statuses.${row.status}`, { defaultValue: row.status })}
        </span>
      </td>
      <td
        className={`${cell} order-7 font-mono break-all md:break-normal md:whitespace-nowrap ${optional(row.ipAddress)} ${mutedText}`}
      >
        {row.ipAddress ?? "—"}
      </td>
      <td className={`${cell} order-8 text-right md:text-left ${optional(device)} ${mutedText}`}>
        <span data-device title={row.userAgent ?? undefined}>
          {device ?? "—"}
        </span>
      </td>
      <td className={`${cell} order-9 col-span-2`}>
        {/* On a phone the card grows; in the table the details open over the rows below,
            so that an open row does not squeeze every column. */}
        <details className="md:relative" data-details>
          <summary className="cursor-pointer text-primary-700 whitespace-nowrap hover:underline dark:text-primary-300">
            {t("auditLog.more")}
          </summary>
          <dl className="mt-2 flex flex-col gap-2 md:absolute md:right-0 md:z-20 md:w-96 md:rounded-lg md:border md:border-slate-200 md:bg-white md:p-3 md:shadow-lg dark:md:border-slate-700 dark:md:bg-slate-900">
            <div>
              <dt className={mutedText}>{t("auditLog.columns.action")}</dt>
              <dd className="font-mono">{row.action}</dd>
            </div>
            {target ? (
              <div>
                <dt className={mutedText}>{t("auditLog.columns.target")}</dt>
                <dd className="font-mono break-all">{target}</dd>
              </div>
            ) : null}
            {row.userAgent ? (
              <div>
                <dt className={mutedText}>{t("auditLog.columns.userAgent")}</dt>
                <dd className="font-mono break-all" data-user-agent>
                  {row.userAgent}
                </dd>
              </div>
            ) : null}
            <div>
              <dt className={mutedText}>{t("auditLog.rawDetails")}</dt>
              <dd className="font-mono break-all whitespace-pre-wrap" data-raw-details>
                {row.details ?? t("auditLog.noDetails")}
              </dd>
            </div>
          </dl>
        </details>
      </td>
    </tr>
  );
}
