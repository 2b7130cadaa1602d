import { useTranslation } from "~/lib/translations";
import type { Route } from "./+types/dashboard";
import { seo } from "~/lib/seo";
import { numberFormat } from "~/lib/intl";
import { useLocale } from "~/lib/use-root-data";
import { prisma } from "~/server/db.server";
import { pageMeta } from "~/server/page-meta.server";

export async function loader({ context }: Route.LoaderArgs) {
  const since = new Date(Date.now() - 7 * 24 * 60 * 60 * 1000);
  const [users, newUsers, activeSessions, organizations] = await Promise.all([
    prisma.user.count(),
    prisma.user.count({ where: { createdAt: { gte: since } } }),
    prisma.session.count({ where: { expiresAt: { gt: new Date() } } }),
    prisma.organization.count(),
  ]);
  return { meta: pageMeta(context, "adminDashboard"), stats: { users, newUsers, activeSessions, organizations } };
}

export const meta: Route.MetaFunction = ({ data, location, matches }) =>
  seo({ title: data?.meta.title, description: data?.meta.description, location, matches });

export default function Dashboard({ loaderData }: Route.ComponentProps) {
  const { t } = useTranslation();
  const number = numberFormat(useLocale());
  const cards = ["users", "newUsers", "activeSessions", "organizations"] as const;
  return (
    <div>
      <h1 className="text-2xl font-bold tracking-tight">{t("meta.adminDashboard.title")}</h1>
      <dl className="mt-6 grid gap-4 sm:grid-cols-2 xl:grid-cols-4">
        {cards.map((key) => (
          <div key={key} className="rounded-xl border border-slate-200 p-5 dark:border-slate-800">
            <dt className="text-sm text-slate-500">{t(`admin.stats.${key}`)}</dt>
            <dd className="mt-2 text-3xl font-semibold" data-stat={key}>
              {number.format(loaderData.stats[key])}
            </dd>
          </div>
        ))}
      </dl>
    </div>
  );
}
