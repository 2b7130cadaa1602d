import { useLocation } from "react-router";
import type { Route } from "./+types/audit-log";
import { AppLink } from "~/components/AppLink";
import { AuditLogView, FilterField, filterControl, mutedText } from "~/components/reports/AuditLog";
import { organizationPath } from "~/lib/organization-paths";
import { queryLink, searchParamsOf } from "~/lib/reports";
import { organizationAuditLogFilter, organizationAuditLogQuery } from "~/server/report-queries.server";
import { seo } from "~/lib/seo";
import { useTranslation, withTranslations } from "~/lib/translations";
import { useLocalize } from "~/lib/use-root-data";
import { requireAuthSession } from "~/server/auth/guards.server";
import { notFound } from "~/server/i18n.server";
import { organizationAuditLog } from "~/server/organization/audit-log.server";
import { organizationOfPage } from "~/server/organization/pages.server";
import { can } from "~/server/organization/permissions.server";
import { pageMeta } from "~/server/page-meta.server";

export const handle = { i18n: ["organization", "reports"] };

export async function clientLoader({ request, serverLoader }: Route.ClientLoaderArgs) {
  return withTranslations(request, handle, serverLoader);
}

/**
 * The organization's events, newest first, under the filter of the query string, for the
 * roles that may read them (the others have no such tab, and find nothing here).
 */
export async function loader({ url, params, context }: Route.LoaderArgs) {
  const auth = requireAuthSession(context);
  const { organization, caller } = await organizationOfPage(url, auth, params.slug);
  if (!can(caller, "auditLog", ["read"])) notFound(url.pathname);
  const query = searchParamsOf(url);
  return {
    meta: pageMeta(context, "organizationAuditLog", { name: organization.name }),
    name: organization.name,
    slug: organization.slug,
    filter: organizationAuditLogFilter.parse(query),
    log: await organizationAuditLog(auth, organization.id, organizationAuditLogQuery.parse(query)),
  };
}

export const meta: Route.MetaFunction = ({ data, location, matches }) =>
  seo({ title: data?.meta.title, description: data?.meta.description, location, matches });

type LoaderData = Route.ComponentProps["loaderData"];
type Row = LoaderData["log"]["rows"][number];

export default function OrganizationAuditLog({ loaderData }: Route.ComponentProps) {
  const { t } = useTranslation("organization");
  const localize = useLocalize();
  return (
    <section aria-labelledby="audit-log-title" data-section="audit-log" className="flex flex-col gap-6">
      <AuditLogView
        heading={
          <>
            <h2 id="audit-log-title" className="text-lg font-semibold">
              {t("auditLog.title")}
            </h2>
            <p className="mt-1 text-sm text-slate-600 dark:text-slate-400">
              {t("auditLog.description", { name: loaderData.name })}
            </p>
          </>
        }
        csv={localize(`${organizationPath(loaderData.slug, "audit-log")}.csv`)}
        filter={loaderData.filter}
        log={loaderData.log}
        fields={<MemberField filter={loaderData.filter} />}
        who={(row) => <Actor row={row} />}
      />
    </section>
  );
}

/** One person's events, by part of their name or email (a former member's too). */
function MemberField({ filter }: { filter: LoaderData["filter"] }) {
  const { t } = useTranslation("organization");
  return (
    <FilterField name="member" label={t("auditLog.member")} width="col-span-2">
      <input
        id="filter-member"
        name="member"
        type="search"
        defaultValue={filter.member ?? ""}
        className={filterControl}
        placeholder={t("auditLog.memberPlaceholder")}
      />
    </FilterField>
  );
}

/**
 * Who did it: a person (a link to their events only, by their email), marked when a site
 * administrator acted as them; else what acted without a person (the directory, the payment
 * provider, someone signing in) or an account deleted since.
 */
function Actor({ row }: { row: Row }) {
  const { t } = useTranslation("organization");
  const location = useLocation();
  if (!row.userId) {
    const what =
      row.category === "scim"
        ? "directory"
        : row.category === "payment"
          ? "paymentProvider"
          : row.category === "sso" && row.action === "sign-in"
            ? "signingIn"
            : "deletedAccount";
    return <span className={mutedText}>{t(`auditLog.actor.${what}`)}</span>;
  }
  return (
    <>
      <AppLink
        to={queryLink(location, { member: row.email ?? row.userId, page: null })}
        className="text-primary-700 hover:underline dark:text-primary-300"
        data-actor={row.userId}
      >
        {row.name || row.email || row.userId}
      </AppLink>
      {row.email && row.name ? <span className={`block ${mutedText}`}>{row.email}</span> : null}
      {row.byAdministrator ? (
        <span className={`block ${mutedText}`} data-by-administrator>
          {t("auditLog.byAdministrator")}
        </span>
      ) : null}
    </>
  );
}
