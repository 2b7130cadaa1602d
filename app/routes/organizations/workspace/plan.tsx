import { useTranslation } from "~/lib/translations";
import { billingDate } from "~/lib/intl";
import { useLocale } from "~/lib/use-root-data";
import type { OrganizationPlan } from "~/server/billing/organization-plan.server";

/**
 * The organization's plan, its state and the date it renews or ends: on the overview and the
 * billing section. The route that draws it loads the "billing" and "pricing" translations.
 */
export function PlanSummary({ plan }: { plan: OrganizationPlan }) {
  const { t } = useTranslation("billing");
  const { t: tp } = useTranslation("pricing");
  const locale = useLocale();
  const date = (iso: string) => billingDate(locale, new Date(iso));
  return (
    <div data-testid="organization-plan" data-plan={plan.plan} className="flex flex-col gap-2">
      <p className="flex flex-wrap items-center gap-2">
        <span className="text-lg font-semibold">{tp(`plans.${plan.plan}.name`, { defaultValue: plan.plan })}</span>
        {plan.status ? (
          <span
            data-status={plan.status}
            className="rounded-full bg-slate-100 px-2 py-0.5 text-xs font-medium text-slate-700 dark:bg-slate-800 dark:text-slate-300"
          >
            {t(`status.${plan.status}`, { defaultValue: plan.status })}
          </span>
        ) : null}
      </p>
      {plan.trialEnd ? (
        <p className="text-sm text-slate-600 dark:text-slate-400">
          {t("trialEnds")} {date(plan.trialEnd)}
        </p>
      ) : null}
      {plan.renewsOn ? (
        <p className="text-sm text-slate-600 dark:text-slate-400" data-testid="plan-renews">
          {t("renewsOn")} {date(plan.renewsOn)}
        </p>
      ) : null}
      {plan.endsOn ? (
        <p className="text-sm text-slate-600 dark:text-slate-400" data-testid="plan-ends">
          {t("endsOn")} {date(plan.endsOn)}
        </p>
      ) : null}
    </div>
  );
}
