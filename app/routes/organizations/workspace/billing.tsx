import type { Route } from "./+types/billing";
import { AppLink } from "~/components/AppLink";
import { buttonClass } from "~/components/ui/Button";
import { Section } from "~/components/ui/Section";
import { seo } from "~/lib/seo";
import { useTranslation, withTranslations } from "~/lib/translations";
import { useLocalize } from "~/lib/use-root-data";
import { requireAuthSession } from "~/server/auth/guards.server";
import { organizationPlan } from "~/server/billing/organization-plan.server";
import { organizationOfPage } from "~/server/organization/pages.server";
import { can } from "~/server/organization/permissions.server";
import { pageMeta } from "~/server/page-meta.server";
import { PlanSummary } from "./plan";

export const handle = { i18n: ["organization", "billing", "pricing"] };

export async function clientLoader({ request, serverLoader }: Route.ClientLoaderArgs) {
  return withTranslations(request, handle, serverLoader);
}

/**
 * The organization's plan as every member may see it; choosing a plan (the pricing page) and
 * managing it (the billing page) are for the roles with `billing: manage`.
 */
export async function loader({ url, params, context }: Route.LoaderArgs) {
  const auth = requireAuthSession(context);
  const { organization, caller } = await organizationOfPage(url, auth, params.slug);
  return {
    meta: pageMeta(context, "organizationBilling", { name: organization.name }),
    organizationId: organization.id,
    plan: await organizationPlan(organization.id),
    mayManage: can(caller, "billing", ["manage"]),
  };
}

export const meta: Route.MetaFunction = ({ data, location, matches }) =>
  seo({ title: data?.meta.title, description: data?.meta.description, location, matches });

export default function OrganizationBilling({ loaderData }: Route.ComponentProps) {
  const { t } = useTranslation("organization");
  const localize = useLocalize();
  return (
    <Section id="billing" title={t("billing.title")} description={t("billing.description")}>
      <PlanSummary plan={loaderData.plan} />
      {loaderData.mayManage ? (
        <div className="mt-5 flex flex-wrap gap-3">
          <AppLink
            to={localize(`/pricing?for=${loaderData.organizationId}`)}
            className={buttonClass("primary", "whitespace-nowrap")}
          >
            {t("billing.choosePlan")}
          </AppLink>
          <AppLink to={localize("/billing")} className={buttonClass("secondary", "whitespace-nowrap")}>
            {t("billing.manage")}
          </AppLink>
        </div>
      ) : (
        <p className="mt-4 text-sm text-slate-600 dark:text-slate-400">{t("billing.onlyAdmins")}</p>
      )}
    </Section>
  );
}
