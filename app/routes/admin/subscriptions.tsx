import { useLocation } from "react-router";
import type { Route } from "./+types/subscriptions";
import { AppLink } from "~/components/AppLink";
import { StatusBadge, useStatusLabel } from "~/components/reports/SubscriptionStatus";
import { choiceClass, Pagination } from "~/components/ui/Pagination";
import { StackedLabel, StackedTable, stackedCell, stackedRow } from "~/components/reports/StackedTable";
import { billingDate, numberFormat } from "~/lib/intl";
import { PAGE_SIZES, queryLink, searchParamsOf } from "~/lib/reports";
import { subscriptionsQuery } from "~/server/report-queries.server";
import { seo } from "~/lib/seo";
import { useTranslation, withTranslations } from "~/lib/translations";
import { useLocale } from "~/lib/use-root-data";
import { subscriptionReport } from "~/server/admin/subscriptions.server";
import { requireAdminUser } from "~/server/admin/pages.server";
import { pageMeta } from "~/server/page-meta.server";

export const handle = { i18n: ["reports"] };

export async function clientLoader({ request, serverLoader }: Route.ClientLoaderArgs) {
  return withTranslations(request, handle, serverLoader);
}

export async function loader({ url, context }: Route.LoaderArgs) {
  requireAdminUser(context);
  const query = subscriptionsQuery.parse(searchParamsOf(url));
  return { meta: pageMeta(context, "adminSubscriptions"), report: await subscriptionReport(query) };
}

export const meta: Route.MetaFunction = ({ data, location, matches }) =>
  seo({ title: data?.meta.title, description: data?.meta.description, location, matches });

type Row = Route.ComponentProps["loaderData"]["report"]["rows"][number];

export default function Subscriptions({ loaderData }: Route.ComponentProps) {
  const { t } = useTranslation("reports");
  const location = useLocation();
  const number = numberFormat(useLocale());
  const statusLabel = useStatusLabel();
  const { report } = loaderData;
  return (
    <div className="flex flex-col gap-6">
      <div>
        <h1 className="text-2xl font-bold tracking-tight">{loaderData.meta.title}</h1>
        <p className="mt-1 text-sm text-slate-600 dark:text-slate-400">{loaderData.meta.description}</p>
      </div>
      <nav aria-label={t("subscriptions.tabs")} className="border-b border-slate-200 pb-2 dark:border-slate-800">
        <ul className="flex flex-wrap gap-1 text-sm">
          {report.tabs.map((tab) => (
            <li key={tab.status ?? "all"}>
              <AppLink
                to={queryLink(location, { status: tab.status, page: null })}
                aria-current={tab.status === report.status ? "page" : undefined}
                className={`${choiceClass} inline-flex items-center gap-1.5`}
                data-tab={tab.status ?? "all"}
              >
                {tab.status ? statusLabel(tab.status) : t("subscriptions.all")}
                <span
                  className="rounded-full bg-slate-100 px-1.5 text-xs text-slate-600 dark:bg-slate-800 dark:text-slate-300"
                  data-count={tab.count}
                >
                  {number.format(tab.count)}
                </span>
              </AppLink>
            </li>
          ))}
        </ul>
      </nav>
      <StackedTable
        data-testid="subscription-list"
        empty={report.rows.length ? null : t("subscriptions.empty")}
        head={(
          ["plan", "owner", "status", "provider", "periodStart", "periodEnd", "seats", "cancellation"] as const
        ).map((column) => (
          <th key={column} scope="col" className="px-4 py-2 font-medium whitespace-nowrap">
            {t(`subscriptions.columns.${column}`)}
          </th>
        ))}
      >
        {report.rows.map((row) => (
          <SubscriptionRow key={row.id} row={row} />
        ))}
      </StackedTable>
      <Pagination
        page={report.page}
        pages={report.pages}
        href={(page) => queryLink(location, { page })}
        rows={{
          size: report.size,
          total: report.total,
          sizes: PAGE_SIZES,
          sizeHref: (size) => queryLink(location, { size, page: null }),
        }}
      />
    </div>
  );
}

const cell = `${stackedCell} md:px-4 md:py-3`;
const mutedOnPhone = "max-md:text-slate-600 max-md:dark:text-slate-400";

function SubscriptionRow({ row }: { row: Row }) {
  const { t } = useTranslation("reports");
  const { t: common } = useTranslation();
  const locale = useLocale();
  const date = (value: Date | string | null) => (value ? billingDate(locale, new Date(value)) : "—");
  const { owner } = row;
  const interval = row.billingInterval === "year" || row.billingInterval === "month" ? row.billingInterval : null;
  // What happens at the period's end: it renews, it ends (cancellation pending), or it is over.
  const ended = row.status === "canceled" || row.status === "incomplete_expired";
  const cancellation = ended
    ? t("subscriptions.ended", { date: date(row.cancelAt ?? row.periodEnd) })
    : row.cancelAtPeriodEnd
      ? t("subscriptions.endsOn", { date: date(row.cancelAt ?? row.periodEnd) })
      : t("subscriptions.renews");
  return (
    <tr data-subscription={row.id} data-status={row.status} className={stackedRow}>
      <td className={`${cell} order-1 md:whitespace-nowrap`}>
        <span className="font-medium" data-plan={row.plan}>
          {common(`plans.${row.plan}`, { defaultValue: row.plan })}
        </span>
        {interval ? (
          <span className="ml-1 text-xs text-slate-600 dark:text-slate-400">
            {t(`subscriptions.interval.${interval}`)}
          </span>
        ) : null}
      </td>
      <td className={`${cell} order-3 col-span-2 max-md:[overflow-wrap:anywhere]`} data-owner={owner.kind}>
        {owner.kind === "user" ? (
          <>
            <span className="font-medium">{owner.name}</span>
            <span className="block text-xs text-slate-600 dark:text-slate-400">{owner.email}</span>
          </>
        ) : owner.kind === "organization" ? (
          <>
            <span className="font-medium">{owner.name}</span>
            <span className="block text-xs text-slate-600 dark:text-slate-400">
              {t("subscriptions.organization", { slug: owner.slug })}
            </span>
          </>
        ) : (
          <span className="text-slate-600 dark:text-slate-400">
            {t("subscriptions.deletedOwner", { id: owner.id })}
          </span>
        )}
      </td>
      <td className={`${cell} order-2 text-right md:text-left`}>
        <StatusBadge status={row.status} />
        {row.status === "trialing" && row.trialEnd ? (
          <span className="mt-1 block text-xs text-slate-600 dark:text-slate-400">
            {t("subscriptions.trialEnds", { date: date(row.trialEnd) })}
          </span>
        ) : null}
      </td>
      <td className={`${cell} order-6 ${mutedOnPhone}`}>
        {t(`providers.${row.provider}`, { defaultValue: row.provider })}
      </td>
      <td className={`${cell} order-4 whitespace-nowrap ${mutedOnPhone}`}>
        <StackedLabel>{t("subscriptions.columns.periodStart")}</StackedLabel>
        {date(row.periodStart)}
      </td>
      <td className={`${cell} order-5 text-right whitespace-nowrap md:text-left ${mutedOnPhone}`}>
        <StackedLabel>{t("subscriptions.columns.periodEnd")}</StackedLabel>
        {date(row.periodEnd)}
      </td>
      <td className={`${cell} order-7 text-right tabular-nums md:text-left ${mutedOnPhone}`}>
        <StackedLabel>{t("subscriptions.columns.seats")}</StackedLabel>
        {row.seats ?? "—"}
      </td>
      <td className={`${cell} order-8 col-span-2`} data-cancel-at-period-end={row.cancelAtPeriodEnd}>
        {cancellation}
      </td>
    </tr>
  );
}
