import type { Route } from "./+types/dashboard";
import { AppLink } from "~/components/AppLink";
import { Icon } from "~/components/Icon";
import { RoleBadge } from "~/components/RoleBadge";
import { buttonClass } from "~/components/ui/Button";
import { LocalTime } from "~/components/ui/LocalTime";
import { billingDate } from "~/lib/intl";
import { seo } from "~/lib/seo";
import { useTranslation, withTranslations } from "~/lib/translations";
import { deviceName } from "~/lib/user-agent";
import { useLocale, useLocalize } from "~/lib/use-root-data";
import { requireAuthSession } from "~/server/auth/guards.server";
import { dashboardOf } from "~/server/dashboard.server";
import { pageMeta } from "~/server/page-meta.server";

export const handle = { i18n: ["dashboard", "organization", "billing", "reports"] };

export async function clientLoader({ request, serverLoader }: Route.ClientLoaderArgs) {
  return withTranslations(request, handle, serverLoader);
}

export async function loader({ context }: Route.LoaderArgs) {
  return { meta: pageMeta(context, "dashboard"), ...(await dashboardOf(requireAuthSession(context))) };
}

export const meta: Route.MetaFunction = ({ data, location, matches }) =>
  seo({ title: data?.meta.title, description: data?.meta.description, location, matches });

type LoaderData = Route.ComponentProps["loaderData"];

/** The signed-in home: where sign-in, verification and the second step land. */
export default function Dashboard({ loaderData }: Route.ComponentProps) {
  const { t } = useTranslation("dashboard");
  return (
    <div className="flex flex-col gap-6">
      <header>
        <h1 className="text-2xl font-semibold tracking-tight">{t("title", { name: loaderData.name })}</h1>
        <p className="mt-1 text-sm text-slate-600 dark:text-slate-400">{t("subtitle")}</p>
      </header>
      <OrganizationCard organization={loaderData.organization} />
      <div className="grid gap-6 lg:grid-cols-2">
        <NextSteps steps={loaderData.steps} organization={loaderData.organization?.name ?? ""} />
        <Activity activity={loaderData.activity} />
      </div>
    </div>
  );
}

const card = "rounded-xl border border-slate-200 bg-white p-5 shadow-sm dark:border-slate-800 dark:bg-slate-900/60";

function OrganizationCard({ organization }: { organization: LoaderData["organization"] }) {
  const { t } = useTranslation("dashboard");
  const localize = useLocalize();
  if (!organization) {
    return (
      <section aria-labelledby="organization-title" data-testid="dashboard-organization" className={card}>
        <h2 id="organization-title" className="font-semibold">
          {t("organization.noneTitle")}
        </h2>
        <p className="mt-1 text-sm text-slate-600 dark:text-slate-400">{t("organization.noneBody")}</p>
        <div className="mt-4 flex flex-wrap gap-2">
          <AppLink to={localize("/organizations/new")} className={buttonClass("primary")}>
            {t("organization.create")}
          </AppLink>
          <AppLink to={localize("/organizations")} className={buttonClass("secondary")}>
            {t("organization.all")}
          </AppLink>
        </div>
      </section>
    );
  }
  const base = `/organizations/${organization.slug}`;
  return (
    <section aria-labelledby="organization-title" data-testid="dashboard-organization" className={card}>
      <div className="flex flex-wrap items-center gap-3">
        {organization.logo ? (
          <img src={organization.logo} alt="" className="size-10 rounded-lg object-cover" />
        ) : (
          <span
            aria-hidden
            className="flex size-10 items-center justify-center rounded-lg bg-primary-100 font-semibold text-primary-800 dark:bg-primary-950 dark:text-primary-200"
          >
            {organization.name.slice(0, 1).toUpperCase()}
          </span>
        )}
        <div className="min-w-0 flex-1">
          <p className="text-xs font-medium text-slate-500 uppercase dark:text-slate-400">{t("organization.title")}</p>
          <h2 id="organization-title" className="truncate text-lg font-semibold">
            {organization.name}
          </h2>
        </div>
        <RoleBadge role={organization.role} />
        <AppLink to={localize(base)} className={buttonClass("secondary", "whitespace-nowrap")}>
          {t("organization.open")}
        </AppLink>
      </div>
      <dl className="mt-5 grid grid-cols-2 gap-3 sm:grid-cols-4">
        <Figure label={t("organization.members")} to={localize(`${base}/members`)} testId="figure-members">
          {organization.members}
        </Figure>
        <Figure label={t("organization.plan")} to={localize(`${base}/billing`)} testId="figure-plan">
          <PlanState subscription={organization.subscription} />
        </Figure>
        <Figure label={t("organization.invitations")} to={localize(`${base}/invitations`)} testId="figure-invitations">
          {organization.pendingInvitations}
        </Figure>
        <Figure label={t("organization.teams")} to={localize(`${base}/teams`)} testId="figure-teams">
          {organization.teams}
        </Figure>
      </dl>
    </section>
  );
}

/** A figure of the organization; its label links to the section (the whole card is the target). */
function Figure({
  label,
  to,
  testId,
  children,
}: {
  label: string;
  to: string;
  testId: string;
  children: React.ReactNode;
}) {
  return (
    <div className="relative rounded-lg border border-slate-200 p-3 hover:border-primary-300 hover:bg-slate-50 dark:border-slate-800 dark:hover:bg-slate-800/60">
      <dt className="text-xs text-slate-600 dark:text-slate-400">
        <AppLink to={to} data-testid={testId} className="after:absolute after:inset-0">
          {label}
        </AppLink>
      </dt>
      <dd className="mt-1 text-lg font-semibold">{children}</dd>
    </div>
  );
}

function PlanState({ subscription }: { subscription: NonNullable<LoaderData["organization"]>["subscription"] }) {
  const { t } = useTranslation("dashboard");
  const { t: tb } = useTranslation("billing");
  const { t: tc } = useTranslation();
  const locale = useLocale();
  if (!subscription) return <>{t("plan.free")}</>;
  const end = subscription.periodEnd ? billingDate(locale, new Date(subscription.periodEnd)) : null;
  return (
    <span className="flex flex-col">
      <span>{tc(`plans.${subscription.plan}`, { defaultValue: subscription.plan })}</span>
      <span className="text-xs font-normal text-slate-600 dark:text-slate-400">
        {tb(`status.${subscription.status}`, { defaultValue: subscription.status })}
        {end
          ? ` · ${t(subscription.cancelAtPeriodEnd ? "organization.ends" : "organization.renews", { date: end })}`
          : ""}
      </span>
    </span>
  );
}

function NextSteps({ steps, organization }: { steps: LoaderData["steps"]; organization: string }) {
  const { t } = useTranslation("dashboard");
  const localize = useLocalize();
  const done = steps.filter((step) => step.done).length;
  return (
    <section aria-labelledby="steps-title" data-testid="next-steps" className={card}>
      <div className="flex items-baseline justify-between gap-3">
        <h2 id="steps-title" className="font-semibold">
          {t("steps.title")}
        </h2>
        <span className="text-xs text-slate-600 dark:text-slate-400">
          {t("steps.progress", { done, total: steps.length })}
        </span>
      </div>
      {done === steps.length ? (
        <p className="mt-3 text-sm text-slate-600 dark:text-slate-400">{t("steps.allDone")}</p>
      ) : null}
      <ol className="mt-3 flex flex-col divide-y divide-slate-100 dark:divide-slate-800">
        {steps.map((step) => (
          <li key={step.step} data-step={step.step} data-done={step.done || undefined} className="flex gap-3 py-3">
            <span
              aria-hidden
              className={`mt-0.5 flex size-5 shrink-0 items-center justify-center rounded-full border ${
                step.done
                  ? "border-emerald-600 bg-emerald-600 text-white"
                  : "border-slate-300 text-transparent dark:border-slate-600"
              }`}
            >
              <Icon name="check" className="size-3" />
            </span>
            <div className="min-w-0 flex-1">
              <p
                className={`text-sm font-medium ${step.done ? "text-slate-500 line-through dark:text-slate-400" : ""}`}
              >
                {t(`steps.${step.step}.title`)}
              </p>
              {step.done ? (
                <p className="sr-only">{t("steps.done")}</p>
              ) : (
                <p className="mt-0.5 text-sm text-slate-600 dark:text-slate-400">
                  {t(`steps.${step.step}.body`, { organization })}
                </p>
              )}
            </div>
            {step.done ? null : (
              <AppLink
                to={localize(step.href)}
                className={buttonClass("secondary", "shrink-0 self-center whitespace-nowrap")}
              >
                {t("steps.go")}
              </AppLink>
            )}
          </li>
        ))}
      </ol>
    </section>
  );
}

function Activity({ activity }: { activity: LoaderData["activity"] }) {
  const { t } = useTranslation("dashboard");
  const { t: tc } = useTranslation();
  const { t: ta } = useTranslation("reports");
  const locale = useLocale();
  const localize = useLocalize();
  return (
    <section aria-labelledby="activity-title" data-testid="recent-activity" className={card}>
      <div className="flex items-baseline justify-between gap-3">
        <div>
          <h2 id="activity-title" className="font-semibold">
            {t("activity.title")}
          </h2>
          <p className="mt-0.5 text-sm text-slate-600 dark:text-slate-400">{t("activity.subtitle")}</p>
        </div>
        <AppLink
          to={localize("/profile/sessions")}
          className="shrink-0 text-sm font-medium whitespace-nowrap text-primary-700 hover:underline dark:text-primary-400"
        >
          {t("activity.sessions")}
        </AppLink>
      </div>
      {activity.length === 0 ? (
        <p className="mt-3 text-sm text-slate-600 dark:text-slate-400">{t("activity.empty")}</p>
      ) : (
        <ol className="mt-3 flex flex-col divide-y divide-slate-100 dark:divide-slate-800">
          {activity.map((row) => (
            <li key={row.id} className="flex flex-col gap-0.5 py-2.5 text-sm">
              <span className="flex flex-wrap items-center gap-2 font-medium">
                {auditActionLabel(ta, row)}
                {row.status === "failure" ? (
                  <span className="rounded-full bg-red-100 px-2 py-0.5 text-xs text-red-800 dark:bg-red-950 dark:text-red-200">
                    {t("activity.failed")}
                  </span>
                ) : null}
              </span>
              <span className="text-xs text-slate-600 dark:text-slate-400">
                <LocalTime iso={row.createdAt} locale={locale} /> · {deviceName(row.userAgent, tc)}
                {row.ipAddress ? ` · ${row.ipAddress}` : ""}
              </span>
            </li>
          ))}
        </ol>
      )}
    </section>
  );
}

/** An audit row's action in words, as the admin console's audit log names it. */
function auditActionLabel(t: (key: string, options?: Record<string, string>) => string, row: { action: string }) {
  return t(`auditLog.actions.${row.action}`, { defaultValue: row.action });
}
