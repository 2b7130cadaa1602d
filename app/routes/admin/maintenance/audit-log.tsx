import type { Route } from "./+types/audit-log";
import { AuditLogView, FilterField, filterControl, mutedText } from "~/components/reports/AuditLog";
import { searchParamsOf } from "~/lib/reports";
import { auditLogFilter, auditLogQuery } from "~/server/report-queries.server";
import { seo } from "~/lib/seo";
import { useTranslation, withTranslations } from "~/lib/translations";
import { useLocalize } from "~/lib/use-root-data";
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
  const localize = useLocalize();
  return (
    <div className="flex flex-col gap-6">
      <AuditLogView
        heading={
          <>
            <h1 className="text-2xl font-bold tracking-tight">{loaderData.meta.title}</h1>
            <p className="mt-1 text-sm text-slate-600 dark:text-slate-400">{loaderData.meta.description}</p>
          </>
        }
        csv={localize("/admin/maintenance/audit-log.csv")}
        filter={loaderData.filter}
        log={loaderData.log}
        fields={<TextFields filter={loaderData.filter} />}
        who={(row) => <Actor row={row} />}
      />
    </div>
  );
}

/** The admin's own filters: part of the user's email, and text in the action or the details. */
function TextFields({ filter }: { filter: LoaderData["filter"] }) {
  const { t } = useTranslation("reports");
  return (
    <>
      <FilterField name="user" label={t("auditLog.user")} width="col-span-2 md:col-span-1">
        <input
          id="filter-user"
          name="user"
          type="search"
          defaultValue={filter.user ?? ""}
          className={filterControl}
          placeholder={t("auditLog.userPlaceholder")}
        />
      </FilterField>
      <FilterField name="q" label={t("auditLog.text")} width="col-span-2 md:col-span-1">
        <input
          id="filter-q"
          name="q"
          type="search"
          defaultValue={filter.q ?? ""}
          className={filterControl}
          placeholder={t("auditLog.textPlaceholder")}
        />
      </FilterField>
    </>
  );
}

/** The row's user; while an admin impersonated them, the admin, acting as the user. */
function Actor({ row }: { row: LoaderData["log"]["rows"][number] }) {
  const { t } = useTranslation("reports");
  if (!row.impersonatedBy) return <>{row.email ?? row.userId ?? "—"}</>;
  return (
    <>
      <span data-impersonated-by={row.impersonatedBy}>{row.impersonatorEmail ?? row.impersonatedBy}</span>{" "}
      <span className={mutedText}>{t("auditLog.actingAs", { user: row.email ?? row.userId ?? "—" })}</span>
    </>
  );
}
