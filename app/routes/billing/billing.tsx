import { Form, redirect, useNavigation } from "react-router";
import type { Route } from "./+types/billing";
import { AppLink } from "~/components/AppLink";
import { buttonClass, SubmitButton } from "~/components/ui/Button";
import { Section } from "~/components/ui/Section";
import { localizePath } from "~/i18n/config";
import { manageSubscriptionSchema } from "~/lib/billing-forms";
import { billingDate } from "~/lib/intl";
import { seo } from "~/lib/seo";
import { useTranslation, withTranslations } from "~/lib/translations";
import { useLocale, useLocalize } from "~/lib/use-root-data";
import { isAdmin } from "~/server/admin/permissions.server";
import { requireAuthSession } from "~/server/auth/guards.server";
import { billingPortal, cancelSubscription, referenceOf, restoreSubscription } from "~/server/billing/billing.server";
import { billingAccounts, billingT, paymentsNotice, type BillingAccount } from "~/server/billing/pages.server";
import { pageAction } from "~/server/page-action.server";
import { pageMeta } from "~/server/page-meta.server";
import { redirectWithToast } from "~/server/toast.server";
import { PaymentsNotice } from "./PaymentsNotice";

export const handle = { i18n: ["billing", "pricing"] };

export async function clientLoader({ request, serverLoader }: Route.ClientLoaderArgs) {
  return withTranslations(request, handle, serverLoader);
}

export async function loader({ context }: Route.LoaderArgs) {
  const auth = requireAuthSession(context);
  return {
    meta: pageMeta(context, "billing"),
    accounts: await billingAccounts(auth),
    notice: paymentsNotice({ isAdmin: isAdmin(auth.user) }),
  };
}

export const meta: Route.MetaFunction = ({ data, location, matches }) =>
  seo({ title: data?.meta.title, description: data?.meta.description, location, matches });

/** Cancel at period end, restore, or off to the provider's portal; back here with a toast. */
export const action = pageAction({
  auth: "required",
  intents: (intent) => ({
    cancel: intent({
      schema: manageSubscriptionSchema,
      rateLimit: "/subscription/cancel",
      refusal: "toast",
      async run({ args: { context }, auth, meta, locale, value: { referenceId } }) {
        const { row } = await cancelSubscription(auth, referenceOf(auth, referenceId), meta);
        const date = row.periodEnd ? billingDate(locale, row.periodEnd) : "";
        return redirectWithToast(localizePath("/billing", locale), {
          type: "success",
          title: billingT(context)("toast.canceled", { date }),
        });
      },
    }),
    restore: intent({
      schema: manageSubscriptionSchema,
      rateLimit: "/subscription/restore",
      refusal: "toast",
      async run({ args: { context }, auth, meta, locale, value: { referenceId } }) {
        await restoreSubscription(auth, referenceOf(auth, referenceId), meta);
        return redirectWithToast(localizePath("/billing", locale), {
          type: "success",
          title: billingT(context)("toast.restored"),
        });
      },
    }),
    portal: intent({
      schema: manageSubscriptionSchema,
      rateLimit: "/subscription/billing-portal",
      refusal: "toast",
      async run({ auth, locale, value: { referenceId } }) {
        const returnUrl = localizePath("/billing", locale);
        return redirect(await billingPortal(auth, { ...referenceOf(auth, referenceId), returnUrl }));
      },
    }),
  }),
});

export default function Billing({ loaderData }: Route.ComponentProps) {
  const { t } = useTranslation("billing");
  // A server that sells nothing offers no buttons that would ask a provider.
  const selling = loaderData.notice?.mode !== "off";
  return (
    <div className="flex flex-col gap-6">
      <div>
        <h1 className="text-2xl font-bold tracking-tight">{t("title")}</h1>
        <p className="mt-1 text-sm text-slate-600 dark:text-slate-400">{t("subtitle")}</p>
      </div>
      <PaymentsNotice notice={loaderData.notice} />
      {loaderData.accounts.map((account) => (
        <AccountCard key={account.referenceId} account={account} selling={selling} />
      ))}
    </div>
  );
}

function AccountCard({ account, selling }: { account: BillingAccount; selling: boolean }) {
  const { t } = useTranslation("billing");
  const { t: tp } = useTranslation("pricing");
  const locale = useLocale();
  const localize = useLocalize();
  const navigation = useNavigation();
  const pending = (intent: string) =>
    navigation.state !== "idle" &&
    navigation.formData?.get("intent") === intent &&
    navigation.formData.get("referenceId") === account.referenceId;
  const subscription = account.subscription;
  const date = (iso: Date | string | null) => (iso ? billingDate(locale, new Date(iso)) : "");
  const hidden = (
    <>
      <input type="hidden" name="referenceId" value={account.referenceId} />
    </>
  );
  return (
    <Section
      id={`billing-${account.referenceId}`}
      title={account.name ?? t("personal")}
      description={account.name ? t("organizationAccount") : t("personalAccount")}
    >
      <div className="flex flex-wrap items-center gap-3" data-testid="subscription">
        <span className="text-lg font-semibold">{tp(`plans.${subscription?.plan ?? "free"}.name`)}</span>
        {subscription ? <StatusBadge status={subscription.status} /> : null}
        {subscription?.billingInterval ? (
          <span className="text-sm text-slate-600 dark:text-slate-400">
            {t(`interval.${subscription.billingInterval}`)}
          </span>
        ) : null}
      </div>
      {subscription ? (
        <dl className="mt-4 grid gap-2 text-sm sm:grid-cols-2">
          {subscription.status === "trialing" && subscription.trialEnd ? (
            <div>
              <dt className="text-slate-600 dark:text-slate-400">{t("trialEnds")}</dt>
              <dd>{date(subscription.trialEnd)}</dd>
            </div>
          ) : null}
          <div>
            <dt className="text-slate-600 dark:text-slate-400">
              {subscription.cancelAtPeriodEnd ? t("endsOn") : t("renewsOn")}
            </dt>
            <dd data-testid="period-end">{date(subscription.cancelAt ?? subscription.periodEnd)}</dd>
          </div>
          {subscription.seats && subscription.plan === "team" ? (
            <div>
              <dt className="text-slate-600 dark:text-slate-400">{t("seats")}</dt>
              <dd>{subscription.seats}</dd>
            </div>
          ) : null}
        </dl>
      ) : (
        <p className="mt-2 text-sm text-slate-600 dark:text-slate-400">
          {t(selling ? "freeDescription" : "freeDescriptionOff")}
        </p>
      )}
      {subscription?.cancelAtPeriodEnd ? (
        <p className="mt-4 rounded-md bg-amber-50 px-3 py-2 text-sm text-amber-900 dark:bg-amber-950/40 dark:text-amber-200">
          {t("pendingCancellation", { date: date(subscription.cancelAt ?? subscription.periodEnd) })}
        </p>
      ) : null}
      {!selling ? null : account.canManage ? (
        <div className="mt-5 flex flex-wrap gap-3">
          {subscription ? (
            <>
              <Form method="post">
                {hidden}
                <SubmitButton name="intent" value="portal" variant="secondary" pending={pending("portal")}>
                  {t("manage")}
                </SubmitButton>
              </Form>
              <Form method="post">
                {hidden}
                {subscription.cancelAtPeriodEnd ? (
                  <SubmitButton name="intent" value="restore" pending={pending("restore")}>
                    {t("restore")}
                  </SubmitButton>
                ) : (
                  <SubmitButton name="intent" value="cancel" variant="dangerOutline" pending={pending("cancel")}>
                    {t("cancel")}
                  </SubmitButton>
                )}
              </Form>
            </>
          ) : null}
          <AppLink
            to={localize(account.name ? `/pricing?for=${account.referenceId}` : "/pricing")}
            className={buttonClass(subscription ? "ghost" : "primary")}
          >
            {subscription ? t("changePlan") : t("upgrade")}
          </AppLink>
        </div>
      ) : (
        <p className="mt-4 text-sm text-slate-600 dark:text-slate-400">{t("onlyAdmins")}</p>
      )}
    </Section>
  );
}

function StatusBadge({ status }: { status: string }) {
  const { t } = useTranslation("billing");
  const tone =
    status === "active"
      ? "bg-primary-100 text-primary-800 dark:bg-primary-950 dark:text-primary-200"
      : "bg-sky-100 text-sky-800 dark:bg-sky-950 dark:text-sky-200";
  return (
    <span data-status={status} className={`rounded-full px-2 py-0.5 text-xs font-medium ${tone}`}>
      {t(`status.${status}`, { defaultValue: status })}
    </span>
  );
}
