import { useEffect } from "react";
import { useRevalidator } from "react-router";
import type { Route } from "./+types/success";
import { AppLink } from "~/components/AppLink";
import { buttonClass, Spinner } from "~/components/ui/Button";
import { billingDate } from "~/lib/intl";
import { seo } from "~/lib/seo";
import { useTranslation, withTranslations } from "~/lib/translations";
import { useLocale, useLocalize } from "~/lib/use-root-data";
import { requireAuthSession } from "~/server/auth/guards.server";
import { billingAccounts } from "~/server/billing/pages.server";
import { notFound } from "~/server/i18n.server";
import { pageMeta } from "~/server/page-meta.server";

export const handle = { i18n: ["billing", "pricing"] };

export async function clientLoader({ request, serverLoader }: Route.ClientLoaderArgs) {
  return withTranslations(request, handle, serverLoader);
}

/** How often the page looks again while the provider's webhook has not arrived yet. */
const POLL_SECONDS = 2;

/**
 * Where the provider's checkout returns to. The subscription is what its webhook recorded,
 * never what the return URL claims: until the webhook has arrived the page says so and looks
 * again (a meta refresh without JavaScript, a revalidation with it).
 */
export async function loader({ url, context }: Route.LoaderArgs) {
  const account = (await billingAccounts(requireAuthSession(context))).find(
    (candidate) => candidate.referenceId === url.searchParams.get("reference") && candidate.canManage,
  );
  if (!account) notFound(url.pathname);
  return { meta: pageMeta(context, "checkoutSuccess"), name: account.name, subscription: account.subscription };
}

export const meta: Route.MetaFunction = ({ data, location, matches }) =>
  seo({ title: data?.meta.title, description: data?.meta.description, location, matches });

export default function CheckoutSuccess({ loaderData }: Route.ComponentProps) {
  const { t } = useTranslation("billing");
  const { t: tp } = useTranslation("pricing");
  const locale = useLocale();
  const localize = useLocalize();
  const { subscription, name } = loaderData;
  const revalidator = useRevalidator();
  const waiting = !subscription;
  useEffect(() => {
    if (!waiting) return;
    const timer = setInterval(() => {
      if (revalidator.state === "idle") void revalidator.revalidate();
    }, POLL_SECONDS * 1000);
    return () => clearInterval(timer);
  }, [waiting, revalidator]);

  if (waiting) {
    return (
      <div className="mx-auto flex max-w-xl flex-col items-center gap-4 py-10 text-center" aria-live="polite">
        <noscript>
          <meta httpEquiv="refresh" content={String(POLL_SECONDS)} />
        </noscript>
        <Spinner className="size-8 text-primary-600" />
        <h1 className="text-2xl font-bold tracking-tight">{t("success.waitingTitle")}</h1>
        <p className="text-sm text-slate-600 dark:text-slate-400">{t("success.waitingBody")}</p>
        <AppLink
          to={localize("/billing")}
          className="text-sm font-medium text-primary-700 hover:underline dark:text-primary-400"
        >
          {t("success.toBilling")}
        </AppLink>
      </div>
    );
  }
  const plan = tp(`plans.${subscription.plan}.name`);
  return (
    <div className="mx-auto flex max-w-xl flex-col items-center gap-4 py-10 text-center" data-testid="checkout-success">
      <h1 className="text-2xl font-bold tracking-tight">
        {name ? t("success.titleOrganization", { plan, name }) : t("success.title", { plan })}
      </h1>
      <p className="text-sm text-slate-600 dark:text-slate-400">
        {subscription.status === "trialing" && subscription.trialEnd
          ? t("success.trial", { date: billingDate(locale, new Date(subscription.trialEnd)) })
          : t("success.active")}
      </p>
      <AppLink to={localize("/billing")} className={buttonClass()}>
        {t("success.toBilling")}
      </AppLink>
    </div>
  );
}
