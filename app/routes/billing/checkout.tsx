import { getFormProps } from "@conform-to/react";
import { Form, redirect, useActionData } from "react-router";
import type { Route } from "./+types/checkout";
import { AppLink } from "~/components/AppLink";
import { SubmitButton } from "~/components/ui/Button";
import { FormErrors } from "~/components/ui/FormErrors";
import { usePendingIntent } from "~/components/ui/pending";
import { plans } from "~/config/plans";
import { localizePath } from "~/i18n/config";
import { checkoutSchema } from "~/lib/billing-forms";
import { numberFormat } from "~/lib/intl";
import { seo } from "~/lib/seo";
import { useTranslation, withTranslations } from "~/lib/translations";
import { useLocale, useLocalize } from "~/lib/use-root-data";
import { isAdmin } from "~/server/admin/permissions.server";
import { requireAuthSession, localizedRedirect } from "~/server/auth/guards.server";
import { referenceOf, upgrade } from "~/server/billing/billing.server";
import { billingAccounts, paymentsNotice, planOfQuery } from "~/server/billing/pages.server";
import { pageAction } from "~/server/page-action.server";
import { pageMeta } from "~/server/page-meta.server";
import { PaymentsNotice } from "./PaymentsNotice";
import { usePageForm } from "~/components/ui/section-form";

export const handle = { i18n: ["auth", "billing", "pricing"] };

export async function clientLoader({ request, serverLoader }: Route.ClientLoaderArgs) {
  return withTranslations(request, handle, serverLoader);
}

/**
 * The step between the pricing page and the provider's checkout: the plan and its price,
 * and who pays for it (the user, or an organization they manage). A guest is sent to sign
 * in first and comes back here (the menu layout's guard).
 */
export async function loader({ url, context }: Route.LoaderArgs) {
  const auth = requireAuthSession(context);
  const chosen = planOfQuery(url);
  if (!chosen) throw localizedRedirect(url, "/pricing");
  const accounts = (await billingAccounts(auth)).filter((account) => account.canManage);
  // Asked for by the pricing page (?for=); else the Team plan goes to an organization first.
  const asked = accounts.find((account) => account.referenceId === url.searchParams.get("for"));
  const preferred =
    asked ??
    (chosen.plan === "team" ? accounts.find((account) => account.customerType === "organization") : undefined) ??
    accounts[0]!;
  // Said before the click when the plan cannot be bought here (the action refuses it too).
  const notice = paymentsNotice({ isAdmin: isAdmin(auth.user) }, chosen);
  const canCheckout = !notice || (notice.mode === "unconfigured" && notice.canCheckout);
  return {
    meta: pageMeta(context, "checkout"),
    ...chosen,
    accounts,
    preferred: preferred.referenceId,
    notice,
    canCheckout,
  };
}

export const meta: Route.MetaFunction = ({ data, location, matches }) =>
  seo({ title: data?.meta.title, description: data?.meta.description, location, matches });

/** Off to the provider's checkout (or its portal, to change an existing plan). */
export const action = pageAction({
  auth: "required",
  intents: (intent) => ({
    checkout: intent({
      schema: checkoutSchema,
      rateLimit: "/subscription/upgrade",
      async run({ args: { url }, auth, meta, locale, value: { plan, interval, referenceId } }) {
        const checkout = await upgrade(
          auth,
          {
            ...referenceOf(auth, referenceId),
            plan,
            annual: interval === "yearly",
            locale,
            successUrl: localizePath(`/billing/success?reference=${encodeURIComponent(referenceId)}`, locale),
            cancelUrl: url.pathname + url.search,
            returnUrl: localizePath("/billing", locale),
            disableRedirect: false,
          },
          meta,
        );
        return redirect(checkout.url);
      },
    }),
  }),
});

export default function Checkout({ loaderData }: Route.ComponentProps) {
  const { t } = useTranslation("billing");
  const { t: tp } = useTranslation("pricing");
  const locale = useLocale();
  const localize = useLocalize();
  const actionData = useActionData<typeof action>();
  const [form] = usePageForm(null, { lastResult: actionData?.result });
  const pending = usePendingIntent("checkout");
  const { plan: planId, interval, accounts, preferred, notice, canCheckout } = loaderData;
  const plan = plans.find((candidate) => candidate.id === planId)!;
  const money = numberFormat(locale, { style: "currency", currency: "USD", maximumFractionDigits: 0 });
  return (
    <div className="flex max-w-2xl flex-col gap-6">
      <div>
        <h1 className="text-2xl font-bold tracking-tight">
          {t("checkout.title", { plan: tp(`plans.${planId}.name`) })}
        </h1>
        <p className="mt-1 text-sm text-slate-600 dark:text-slate-400">{tp(`plans.${planId}.description`)}</p>
      </div>
      <p className="flex items-baseline gap-1">
        <span className="text-3xl font-bold" data-testid="checkout-price">
          {money.format(plan[interval])}
        </span>
        <span className="text-sm text-slate-600 dark:text-slate-400">
          {tp(interval === "monthly" ? "perMonth" : "perYear")}
        </span>
        <AppLink
          to={localize(`/checkout?plan=${planId}&interval=${interval === "monthly" ? "yearly" : "monthly"}`)}
          className="ml-auto text-sm font-medium text-primary-700 hover:underline dark:text-primary-400"
        >
          {interval === "monthly" ? t("checkout.switchYearly") : t("checkout.switchMonthly")}
        </AppLink>
      </p>
      <PaymentsNotice notice={notice} />
      {canCheckout ? <p className="text-sm text-slate-600 dark:text-slate-400">{t("checkout.trial")}</p> : null}
      <Form method="post" {...getFormProps(form)} className="flex flex-col gap-4">
        <input type="hidden" name="intent" value="checkout" />
        <input type="hidden" name="plan" value={planId} />
        <input type="hidden" name="interval" value={interval} />
        <fieldset className="flex flex-col gap-2">
          <legend className="mb-2 text-sm font-medium">{t("checkout.payer")}</legend>
          {accounts.map((account) => (
            <label
              key={account.referenceId}
              className="flex cursor-pointer items-center gap-3 rounded-lg border border-slate-200 px-4 py-3 has-checked:border-primary-500 has-checked:ring-1 has-checked:ring-primary-500 dark:border-slate-700"
            >
              <input
                type="radio"
                name="referenceId"
                value={account.referenceId}
                defaultChecked={account.referenceId === preferred}
                className="accent-primary-600"
              />
              <span className="flex-1">
                <span className="block text-sm font-medium">{account.name ?? t("personal")}</span>
                <span className="block text-xs text-slate-600 dark:text-slate-400">
                  {t("checkout.currentPlan", { plan: tp(`plans.${account.subscription?.plan ?? "free"}.name`) })}
                </span>
              </span>
            </label>
          ))}
        </fieldset>
        <FormErrors id={form.errorId} errors={form.errors} />
        {canCheckout ? (
          <SubmitButton pending={pending} pendingLabel={t("checkout.pending")}>
            {t("checkout.submit")}
          </SubmitButton>
        ) : null}
        <AppLink
          to={localize("/pricing")}
          className="text-center text-sm text-slate-600 hover:underline dark:text-slate-400"
        >
          {t("checkout.back")}
        </AppLink>
      </Form>
    </div>
  );
}
