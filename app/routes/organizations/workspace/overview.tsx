import { Form, useLocation } from "react-router";
import type { Route } from "./+types/overview";
import { AppLink } from "~/components/AppLink";
import { buttonClass, SubmitButton } from "~/components/ui/Button";
import { usePendingIntent } from "~/components/ui/pending";
import { Section } from "~/components/ui/Section";
import { numberFormat } from "~/lib/intl";
import { organizationPath } from "~/lib/organization-forms";
import { seo } from "~/lib/seo";
import { useTranslation, withTranslations } from "~/lib/translations";
import { useLocale, useLocalize } from "~/lib/use-root-data";
import { requireAuthSession } from "~/server/auth/guards.server";
import { organizationPlan } from "~/server/billing/organization-plan.server";
import { organizationCounts, organizationOfPage } from "~/server/organization/pages.server";
import { can } from "~/server/organization/permissions.server";
import { pageMeta } from "~/server/page-meta.server";
import { PlanSummary } from "./plan";

export const handle = { i18n: ["organization", "billing", "pricing"] };

export async function clientLoader({ request, serverLoader }: Route.ClientLoaderArgs) {
  return withTranslations(request, handle, serverLoader);
}

/**
 * The organization at a glance: how many members, open invitations and teams it has, its
 * plan, and links to what the caller's role lets them do next.
 */
export async function loader({ url, params, context }: Route.LoaderArgs) {
  const auth = requireAuthSession(context);
  const { organization, caller } = await organizationOfPage(url, auth, params.slug);
  const [counts, plan] = await Promise.all([organizationCounts(organization.id), organizationPlan(organization.id)]);
  return {
    meta: pageMeta(context, "organizationOverview", { name: organization.name }),
    organization: { id: organization.id, slug: organization.slug },
    active: auth.session.activeOrganizationId === organization.id,
    counts,
    plan,
    may: {
      invite: can(caller, "invitation", ["create"]),
      seeInvitations: can(caller, "invitation", ["create"]) || can(caller, "invitation", ["cancel"]),
      createTeam: can(caller, "team", ["create"]),
      update: can(caller, "organization", ["update"]),
    },
  };
}

export const meta: Route.MetaFunction = ({ data, location, matches }) =>
  seo({ title: data?.meta.title, description: data?.meta.description, location, matches });

export default function Overview({ loaderData }: Route.ComponentProps) {
  const { t } = useTranslation("organization");
  const localize = useLocalize();
  const locale = useLocale();
  const { organization, counts, may } = loaderData;
  const path = (section: Parameters<typeof organizationPath>[1]) =>
    localize(organizationPath(organization.slug, section));
  const format = numberFormat(locale);
  const stats = [
    { id: "members", label: t("overview.members"), value: counts.members, to: path("members") },
    ...(may.seeInvitations
      ? [{ id: "invitations", label: t("overview.invitations"), value: counts.invitations, to: path("invitations") }]
      : []),
    { id: "teams", label: t("overview.teams"), value: counts.teams, to: path("teams") },
  ];
  const links = [
    ...(may.invite ? [{ to: `${path("invitations")}#invite-title`, label: t("overview.invite") }] : []),
    ...(may.createTeam ? [{ to: `${path("teams")}#create-team-title`, label: t("overview.createTeam") }] : []),
    { to: path("members"), label: t("overview.seeMembers") },
    ...(may.update ? [{ to: path("settings"), label: t("overview.editSettings") }] : []),
  ];
  return (
    <div className="flex flex-col gap-8">
      <dl className="grid grid-cols-1 gap-4 sm:grid-cols-3" data-testid="organization-counts">
        {stats.map((stat) => (
          <div
            key={stat.id}
            data-count={stat.id}
            className="rounded-xl border border-slate-200 bg-white p-5 shadow-sm dark:border-slate-800 dark:bg-slate-900/60"
          >
            <dt className="text-sm text-slate-600 dark:text-slate-400">{stat.label}</dt>
            <dd className="mt-1 text-2xl font-semibold tabular-nums">
              <AppLink to={stat.to} className="hover:underline">
                {format.format(stat.value)}
              </AppLink>
            </dd>
          </div>
        ))}
      </dl>
      <Section id="plan" title={t("overview.planTitle")} description={t("overview.planDescription")}>
        <PlanSummary plan={loaderData.plan} />
        <AppLink to={path("billing")} className={buttonClass("secondary", "mt-4 whitespace-nowrap")}>
          {t("overview.seeBilling")}
        </AppLink>
      </Section>
      <Section id="next" title={t("overview.nextTitle")} description={t("overview.nextDescription")}>
        <ul className="flex flex-wrap gap-3" data-testid="quick-links">
          {links.map((link) => (
            <li key={link.to}>
              <AppLink to={link.to} className={buttonClass("secondary", "whitespace-nowrap")}>
                {link.label}
              </AppLink>
            </li>
          ))}
        </ul>
        {loaderData.active ? null : <MakeActive organizationId={organization.id} />}
      </Section>
    </div>
  );
}

/** Makes this the organization the caller works in; the organizations list answers and comes back here. */
function MakeActive({ organizationId }: { organizationId: string }) {
  const { t } = useTranslation("organization");
  const localize = useLocalize();
  const { pathname } = useLocation();
  const pending = usePendingIntent("set-active");
  return (
    <Form method="post" action={localize("/organizations")} className="mt-5 flex flex-wrap items-center gap-3">
      <input type="hidden" name="intent" value="set-active" />
      <input type="hidden" name="organizationId" value={organizationId} />
      <input type="hidden" name="redirectTo" value={pathname} />
      <p className="text-sm text-slate-600 dark:text-slate-400">{t("overview.notActive")}</p>
      <SubmitButton variant="primary" pending={pending} className="whitespace-nowrap">
        {t("overview.makeActive")}
      </SubmitButton>
    </Form>
  );
}
