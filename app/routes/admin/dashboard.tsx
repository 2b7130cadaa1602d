import { useLocation } from "react-router";
import type { Route } from "./+types/dashboard";
import { AppLink } from "~/components/AppLink";
import { BarChart } from "~/components/reports/BarChart";
import { statusFill, useStatusLabel } from "~/components/reports/SubscriptionStatus";
import { choiceClass } from "~/components/ui/Pagination";
import { currency } from "~/config/plans";
import { dateFormat, numberFormat } from "~/lib/intl";
import { queryLink, RANGES, searchParamsOf } from "~/lib/reports";
import { rangeQuery } from "~/server/report-queries.server";
import { seo } from "~/lib/seo";
import { useTranslation, withTranslations } from "~/lib/translations";
import { useLocale } from "~/lib/use-root-data";
import { dashboard } from "~/server/admin/dashboard.server";
import { requireAdminUser } from "~/server/admin/pages.server";
import { pageMeta } from "~/server/page-meta.server";

export const handle = { i18n: ["reports"] };

export async function clientLoader({ request, serverLoader }: Route.ClientLoaderArgs) {
  return withTranslations(request, handle, serverLoader);
}

export async function loader({ url, context }: Route.LoaderArgs) {
  requireAdminUser(context);
  const { range } = rangeQuery.parse(searchParamsOf(url));
  return { meta: pageMeta(context, "adminDashboard"), dashboard: await dashboard(range) };
}

export const meta: Route.MetaFunction = ({ data, location, matches }) =>
  seo({ title: data?.meta.title, description: data?.meta.description, location, matches });

type Stats = Route.ComponentProps["loaderData"]["dashboard"]["stats"];

export default function Dashboard({ loaderData }: Route.ComponentProps) {
  const { t } = useTranslation("reports");
  const locale = useLocale();
  const location = useLocation();
  const statusLabel = useStatusLabel();
  const { stats, range, signUps, subscriptions } = loaderData.dashboard;
  const number = numberFormat(locale);
  const percent = numberFormat(locale, { style: "percent", maximumFractionDigits: 1 });
  const money = numberFormat(locale, { style: "currency", currency, maximumFractionDigits: 2 });
  const longDay = dateFormat(locale, { dateStyle: "medium", timeZone: "UTC" });

  // A hint's `stat` names the figure it shows, read like the cards' own (data-stat).
  const cards: { key: keyof Stats; value: string; hint?: { text: string; stat?: keyof Stats } }[] = [
    { key: "users", value: number.format(stats.users) },
    { key: "newUsers7", value: number.format(stats.newUsers7) },
    { key: "newUsers30", value: number.format(stats.newUsers30) },
    {
      key: "verifiedShare",
      value: percent.format(stats.verifiedShare),
      hint: {
        text: t("dashboard.verifiedOf", {
          verified: number.format(stats.verifiedUsers),
          users: number.format(stats.users),
        }),
        stat: "verifiedUsers",
      },
    },
    { key: "activeSessions", value: number.format(stats.activeSessions) },
    { key: "organizations", value: number.format(stats.organizations) },
    { key: "activeSubscriptions", value: number.format(stats.activeSubscriptions) },
    { key: "trialingSubscriptions", value: number.format(stats.trialingSubscriptions) },
    {
      key: "monthlyRevenue",
      value: money.format(stats.monthlyRevenue),
      hint: { text: t("dashboard.monthlyRevenueHint") },
    },
    { key: "trialRevenue", value: money.format(stats.trialRevenue), hint: { text: t("dashboard.trialRevenueHint") } },
  ];

  const signUpTotal = signUps.reduce((sum, day) => sum + day.count, 0);
  const busiest = signUps.reduce((best, day) => (day.count > best.count ? day : best), signUps[0]!);
  const subscriptionTotals = subscriptions.statuses.map((status) =>
    subscriptions.days.reduce((sum, day) => sum + (day.counts[status] ?? 0), 0),
  );

  return (
    <div className="flex flex-col gap-8">
      <div className="flex flex-wrap items-end justify-between gap-4">
        <div>
          <h1 className="text-2xl font-bold tracking-tight">{loaderData.meta.title}</h1>
          <p className="mt-1 text-sm text-slate-600 dark:text-slate-400">{loaderData.meta.description}</p>
        </div>
        <nav aria-label={t("dashboard.range")} className="flex items-center gap-1 text-sm">
          <span className="mr-1 text-slate-600 dark:text-slate-400">{t("dashboard.range")}</span>
          {RANGES.map((option) => (
            <AppLink
              key={option}
              to={queryLink(location, { range: option })}
              aria-current={option === range ? "true" : undefined}
              className={choiceClass}
              preventScrollReset
            >
              {t("dashboard.days", { days: option })}
            </AppLink>
          ))}
        </nav>
      </div>

      {/* Two figures a row on a phone. */}
      <dl className="grid grid-cols-2 gap-3 sm:gap-4 lg:grid-cols-3 xl:grid-cols-5">
        {cards.map((card) => (
          <div key={card.key} className="min-w-0 rounded-xl border border-slate-200 p-3 sm:p-5 dark:border-slate-800">
            <dt className="text-xs text-slate-600 sm:text-sm dark:text-slate-400">
              {t(`dashboard.stats.${card.key}`)}
            </dt>
            <dd
              className="mt-2 text-xl font-semibold [overflow-wrap:anywhere] sm:text-2xl"
              data-stat={card.key}
              data-value={stats[card.key]}
            >
              {card.value}
            </dd>
            {card.hint ? (
              <dd
                className="mt-1 text-xs text-slate-600 dark:text-slate-400"
                data-stat={card.hint.stat}
                data-value={card.hint.stat && stats[card.hint.stat]}
              >
                {card.hint.text}
              </dd>
            ) : null}
          </div>
        ))}
      </dl>

      <div className="grid gap-6 xl:grid-cols-2">
        <BarChart
          testId="sign-ups"
          title={t("dashboard.signUpsTitle", { days: range })}
          summary={
            signUpTotal
              ? t("dashboard.signUpsSummary", {
                  total: number.format(signUpTotal),
                  days: range,
                  day: longDay.format(new Date(`${busiest.day}T00:00:00Z`)),
                  most: number.format(busiest.count),
                })
              : t("dashboard.signUpsNone", { days: range })
          }
          dayHeader={t("dashboard.day")}
          empty={{ title: t("dashboard.nothingYet"), text: t("dashboard.signUpsNone", { days: range }) }}
          days={signUps.map((day) => day.day)}
          series={[{ key: "signUps", label: t("dashboard.signUps"), fill: "fill-primary-500" }]}
          values={signUps.map((day) => [day.count])}
        />
        <BarChart
          testId="subscriptions"
          title={t("dashboard.subscriptionsTitle", { days: range })}
          summary={
            subscriptions.statuses.length
              ? t("dashboard.subscriptionsSummary", {
                  days: range,
                  list: new Intl.ListFormat(locale, { type: "unit" }).format(
                    subscriptions.statuses.map(
                      (status, i) => `${statusLabel(status)} ${number.format(subscriptionTotals[i]!)}`,
                    ),
                  ),
                })
              : t("dashboard.subscriptionsNone", { days: range })
          }
          dayHeader={t("dashboard.day")}
          empty={{ title: t("dashboard.nothingYet"), text: t("dashboard.subscriptionsNone", { days: range }) }}
          days={subscriptions.days.map((day) => day.day)}
          series={subscriptions.statuses.map((status) => ({
            key: status,
            label: statusLabel(status),
            fill: statusFill(status),
          }))}
          values={subscriptions.days.map((day) => subscriptions.statuses.map((status) => day.counts[status] ?? 0))}
        />
      </div>
    </div>
  );
}
