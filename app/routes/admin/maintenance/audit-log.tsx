import type { ReactNode } from "react";
import { Form, useLocation } from "react-router";
import type { Route } from "./+types/audit-log";
import { AppLink } from "~/components/AppLink";
import { buttonClass } from "~/components/ui/Button";
import { inputClass } from "~/components/ui/Input";
import { LocalTime } from "~/components/ui/LocalTime";
import { Pagination } from "~/components/ui/Pagination";
import { Table } from "~/components/ui/Table";
import { AUDIT_STATUSES, auditLogFilter, auditLogQuery, PAGE_SIZES, queryLink, searchParamsOf } from "~/lib/reports";
import { seo } from "~/lib/seo";
import { useTranslation, withTranslations } from "~/lib/translations";
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
          className={buttonClass("secondary")}
          data-testid="export-csv"
        >
          {t("auditLog.export")}
        </a>
      </div>
      <Filters filter={filter} categories={log.categories} key={location.search} />
      <Table
        framed
        className="text-xs"
        data-testid="audit-list"
        empty={log.rows.length ? null : t("auditLog.empty")}
        head={(
          ["time", "user", "category", "action", "status", "target", "ipAddress", "userAgent", "details"] as const
        ).map((column) => (
          <th key={column} scope="col" className="px-3 py-2 font-medium whitespace-nowrap">
            {t(`auditLog.columns.${column}`)}
          </th>
        ))}
      >
        {log.rows.map((row) => (
          <AuditRow key={row.id} row={row} />
        ))}
      </Table>
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
  const field = (name: string, label: string, control: ReactNode) => (
    <div className="flex flex-col gap-1">
      <label htmlFor={`filter-${name}`} className="text-xs font-medium text-slate-600 dark:text-slate-400">
        {label}
      </label>
      {control}
    </div>
  );
  // A category in the link that no row has (yet) stays selectable, so the form shows the filter applied.
  const categoryOptions =
    filter.category && !categories.includes(filter.category) ? [...categories, filter.category] : categories;
  return (
    <Form
      method="get"
      className="grid gap-3 rounded-xl border border-slate-200 p-4 sm:grid-cols-2 lg:grid-cols-6 dark:border-slate-800"
      role="search"
      aria-label={t("auditLog.filters")}
    >
      {/* The page size survives a new filter; the page does not. */}
      {size ? <input type="hidden" name="size" value={size} /> : null}
      {field(
        "category",
        t("auditLog.category"),
        <select id="filter-category" name="category" defaultValue={filter.category ?? ""} className={inputClass}>
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
        <select id="filter-status" name="status" defaultValue={filter.status ?? ""} className={inputClass}>
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
          className={inputClass}
          placeholder={t("auditLog.userPlaceholder")}
        />,
      )}
      {field(
        "from",
        t("auditLog.from"),
        <input id="filter-from" name="from" type="date" defaultValue={filter.from ?? ""} className={inputClass} />,
      )}
      {field(
        "to",
        t("auditLog.to"),
        <input id="filter-to" name="to" type="date" defaultValue={filter.to ?? ""} className={inputClass} />,
      )}
      {field(
        "q",
        t("auditLog.text"),
        <input
          id="filter-q"
          name="q"
          type="search"
          defaultValue={filter.q ?? ""}
          className={inputClass}
          placeholder={t("auditLog.textPlaceholder")}
        />,
      )}
      <div className="flex items-center gap-3 sm:col-span-2 lg:col-span-6">
        <button type="submit" className={buttonClass("primary")}>
          {t("auditLog.apply")}
        </button>
        <AppLink to={location.pathname} className={buttonClass("ghost")}>
          {t("auditLog.clear")}
        </AppLink>
        <p className="text-xs text-slate-600 dark:text-slate-400">{t("auditLog.utc")}</p>
      </div>
    </Form>
  );
}

function AuditRow({ row }: { row: LoaderData["log"]["rows"][number] }) {
  const { t } = useTranslation("reports");
  const locale = useLocale();
  return (
    <tr data-audit={row.id} data-action={row.action} className="align-top">
      <td className="px-3 py-2 whitespace-nowrap">
        <LocalTime iso={row.createdAt} locale={locale} />
      </td>
      <td className="px-3 py-2">
        {row.impersonatedBy ? (
          // The admin's doing while impersonating: shown as theirs, acting as the user.
          <>
            <span data-impersonated-by={row.impersonatedBy}>{row.impersonatorEmail ?? row.impersonatedBy}</span>{" "}
            <span className="text-slate-600 dark:text-slate-400">
              {t("auditLog.actingAs", { user: row.email ?? row.userId ?? "—" })}
            </span>
          </>
        ) : (
          (row.email ?? row.userId ?? "—")
        )}
      </td>
      <td className="px-3 py-2">{t(`auditLog.categories.${row.category}`, { defaultValue: row.category })}</td>
      <td className="px-3 py-2 font-mono">{row.action}</td>
      <td className="px-3 py-2">
        <span
          className={
            row.status === "success"
              ? "text-primary-700 dark:text-primary-300"
              : "font-medium text-red-700 dark:text-red-400"
          }
          data-status={row.status}
        >
          {t(`auditLog.statuses.${row.status}`, { defaultValue: row.status })}
        </span>
      </td>
      <td className="px-3 py-2 font-mono break-all">
        {row.targetType ? `${row.targetType}:${row.targetId ?? ""}` : "—"}
      </td>
      <td className="px-3 py-2 font-mono whitespace-nowrap">{row.ipAddress ?? "—"}</td>
      <td className="max-w-48 px-3 py-2 break-words">{row.userAgent ?? "—"}</td>
      <td className="max-w-md px-3 py-2 font-mono break-all">{row.details ?? "—"}</td>
    </tr>
  );
}
