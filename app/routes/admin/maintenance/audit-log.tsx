import type { ReactNode } from "react";
import { Form, useLocation } from "react-router";
import type { Route } from "./+types/audit-log";
import { AppLink } from "~/components/AppLink";
import { StackedTable, stackedCell, stackedRow } from "~/components/reports/StackedTable";
import { buttonClass } from "~/components/ui/Button";
import { inputClass } from "~/components/ui/Input";
import { LocalTime } from "~/components/ui/LocalTime";
import { Pagination } from "~/components/ui/Pagination";
import { AUDIT_STATUSES, auditLogFilter, auditLogQuery, PAGE_SIZES, queryLink, searchParamsOf } from "~/lib/reports";
import { seo } from "~/lib/seo";
import { useTranslation, withTranslations } from "~/lib/translations";
import { deviceName } from "~/lib/user-agent";
import { useLocale, useLocalize } from "~/lib/use-root-data";
import { auditLogPage } from "~/server/admin/audit-log.server";
import { requireAdminUser } from "~/server/admin/pages.server";
import { pageMeta } from "~/server/page-meta.server";

export const handle = { i18n: ["reports"] };

export async function clientLoader({ request, serverLoader }: Route.ClientLoaderArgs) {
  return withTranslations(request, handle, serverLoader);
}

export async function loader({ url, context }: Route.LoaderArgs) {
  requireAdminUser(context);
  const params = searchParamsOf(url);
  return {
    meta: pageMeta(context, "adminAuditLog"),
    filter: auditLogFilter.parse(params),
    log: await auditLogPage(auditLogQuery.parse(params)),
  };
}

export const meta: Route.MetaFunction = ({ data, location, matches }) =>
  seo({ title: data?.meta.title, description: data?.meta.description, location, matches });

type LoaderData = Route.ComponentProps["loaderData"];

export default function AuditLog({ loaderData }: Route.ComponentProps) {
  const { t } = useTranslation("reports");
  const { log, filter } = loaderData;
  const location = useLocation();
  const localize = useLocalize();
  // The export takes the filter as it is applied now (not the page or its size).
  const exportQuery = new URLSearchParams(
    Object.entries(filter).flatMap(([key, value]) => (value ? [[key, String(value)]] : [])),
  ).toString();
  return (
    <div className="flex flex-col gap-6">
      <div className="flex flex-wrap items-end justify-between gap-4">
        <div>
          <h1 className="text-2xl font-bold tracking-tight">{loaderData.meta.title}</h1>
          <p className="mt-1 text-sm text-slate-600 dark:text-slate-400">{loaderData.meta.description}</p>
        </div>
        {/* A download, not a page: a document request, never a client-side navigation. */}
        <a
          href={`${localize("/admin/maintenance/audit-log.csv")}${exportQuery ? `?${exportQuery}` : ""}`}
          download
          className={buttonClass("secondary", "shrink-0 whitespace-nowrap")}
          data-testid="export-csv"
        >
          {t("auditLog.export")}
        </a>
      </div>
      <Filters filter={filter} categories={log.categories} key={location.search} />
      <AuditList rows={log.rows} />
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
    </div>
  );
}

function Filters({ filter, categories }: { filter: LoaderData["filter"]; categories: string[] }) {
  const { t } = useTranslation("reports");
  const location = useLocation();
  const size = new URLSearchParams(location.search).get("size");
  // Every control is one height and the row aligns their bottoms: one baseline, buttons included.
  const field = (name: string, label: string, control: ReactNode, width = "") => (
    <div className={`flex min-w-0 flex-col gap-1 ${width}`}>
      <label htmlFor={`filter-${name}`} className="truncate text-xs font-medium text-slate-600 dark:text-slate-400">
        {label}
      </label>
      {control}
    </div>
  );
  // A category in the link that no row has (yet) stays selectable, so the form shows the filter applied.
  const control = `${inputClass} h-9 py-0`;
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
      {field(
        "category",
        t("auditLog.category"),
        <select id="filter-category" name="category" defaultValue={filter.category ?? ""} className={control}>
          <option value="">{t("auditLog.any")}</option>
          {categoryOptions.map((category) => (
            <option key={category} value={category}>
              {t(`auditLog.categories.${category}`, { defaultValue: category })}
            </option>
          ))}
        </select>,
      )}
      {field(
        "status",
        t("auditLog.status"),
        <select id="filter-status" name="status" defaultValue={filter.status ?? ""} className={control}>
          <option value="">{t("auditLog.any")}</option>
          {AUDIT_STATUSES.map((status) => (
            <option key={status} value={status}>
              {t(`auditLog.statuses.${status}`)}
            </option>
          ))}
        </select>,
      )}
      {field(
        "user",
        t("auditLog.user"),
        <input
          id="filter-user"
          name="user"
          type="search"
          defaultValue={filter.user ?? ""}
          className={control}
          placeholder={t("auditLog.userPlaceholder")}
        />,
        "col-span-2 md:col-span-1",
      )}
      {field(
        "q",
        t("auditLog.text"),
        <input
          id="filter-q"
          name="q"
          type="search"
          defaultValue={filter.q ?? ""}
          className={control}
          placeholder={t("auditLog.textPlaceholder")}
        />,
        "col-span-2 md:col-span-1",
      )}
      {field(
        "from",
        t("auditLog.from"),
        <input id="filter-from" name="from" type="date" defaultValue={filter.from ?? ""} className={control} />,
      )}
      {field(
        "to",
        t("auditLog.to"),
        <input id="filter-to" name="to" type="date" defaultValue={filter.to ?? ""} className={control} />,
      )}
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

const COLUMNS = ["time", "user", "category", "action", "status", "ipAddress", "device", "details"] as const;

type Row = LoaderData["log"]["rows"][number];

/**
 * The log as a table on a wide screen and as cards on a phone. The long parts of a row, its
 * raw details and the full user agent, are folded into a <details> of their own: unfolded,
 * twenty rows were a few thousand pixels tall.
 */
function AuditList({ rows }: { rows: Row[] }) {
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
        <AuditRow key={row.id} row={row} />
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
const muted = "text-slate-600 dark:text-slate-400";

function AuditRow({ row }: { row: Row }) {
  const { t } = useTranslation("reports");
  const locale = useLocale();
  const device = useDevice()(row.userAgent);
  const target = row.targetType ? `${row.targetType}:${row.targetId ?? ""}` : null;
  // Empty cells say "—" in the table; a card leaves them out.
  const optional = (value: unknown) => (value ? "" : "hidden");
  return (
    <tr data-audit={row.id} data-action={row.action} className={`${stackedRow} align-top`}>
      <td className={`${cell} order-5 text-right whitespace-nowrap md:text-left ${muted} md:text-inherit`}>
        <LocalTime iso={row.createdAt} locale={locale} />
      </td>
      <td className={`${cell} order-3 col-span-2 [overflow-wrap:anywhere] md:[overflow-wrap:normal] md:break-all`}>
        {row.impersonatedBy ? (
          // The admin's doing while impersonating: shown as theirs, acting as the user.
          <>
            <span data-impersonated-by={row.impersonatedBy}>{row.impersonatorEmail ?? row.impersonatedBy}</span>{" "}
            <span className={muted}>{t("auditLog.actingAs", { user: row.email ?? row.userId ?? "—" })}</span>
          </>
        ) : (
          (row.email ?? row.userId ?? "—")
        )}
      </td>
      <td className={`${cell} order-4 ${muted} md:text-inherit`} data-category={row.category}>
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
        className={`${cell} order-7 font-mono break-all md:break-normal md:whitespace-nowrap ${optional(row.ipAddress)} ${muted}`}
      >
        {row.ipAddress ?? "—"}
      </td>
      <td className={`${cell} order-8 text-right md:text-left ${optional(device)} ${muted}`}>
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
              <dt className={muted}>{t("auditLog.columns.action")}</dt>
              <dd className="font-mono">{row.action}</dd>
            </div>
            {target ? (
              <div>
                <dt className={muted}>{t("auditLog.columns.target")}</dt>
                <dd className="font-mono break-all">{target}</dd>
              </div>
            ) : null}
            {row.userAgent ? (
              <div>
                <dt className={muted}>{t("auditLog.columns.userAgent")}</dt>
                <dd className="font-mono break-all" data-user-agent>
                  {row.userAgent}
                </dd>
              </div>
            ) : null}
            <div>
              <dt className={muted}>{t("auditLog.rawDetails")}</dt>
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
