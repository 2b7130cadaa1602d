import { useTranslation } from "~/lib/translations";
import type { Route } from "./+types/pricing";
import { numberFormat } from "~/lib/intl";
import { withTranslations } from "~/lib/translations";
import { AppLink } from "~/components/AppLink";
import { Footer } from "~/components/Footer";
import { Icon } from "~/components/Icon";
import { Navbar } from "~/components/Navbar";
import { plans, type BillingInterval, type Plan } from "~/config/plans";
import { seo } from "~/lib/seo";
import { useLocale, useLocalize } from "~/lib/use-root-data";
import { getAuthSession } from "~/server/auth/guards.server";
import { paymentsState } from "~/server/billing/billing.server";
import { billingAccounts } from "~/server/billing/pages.server";
import { pageMeta } from "~/server/page-meta.server";

// A page of plain HTML: it needs no React in the browser (decision 0020). What it shows a
// visitor follows from the request, so the page cache may answer it (page-cache.server.ts).
export const handle = { i18n: ["pricing"], hydrate: false, pageCache: true };

export async function clientLoader({ request, serverLoader }: Route.ClientLoaderArgs) {
  return withTranslations(request, handle, serverLoader);
}

export async function loader({ url, context }: Route.LoaderArgs) {
  // The interval lives in the query, so the toggle is a plain link that works without JS.
  const interval: BillingInterval = url.searchParams.get("interval") === "yearly" ? "yearly" : "monthly";
  const auth = getAuthSession(context);
  let current: { plan: string; for: string | null; name: string | null; canManage: boolean } | null = null;
  if (auth) {
    // Signed in: the plan of the account shown (the user's own, or ?for= an organization).
    const accounts = await billingAccounts(auth);
    const account = accounts.find((candidate) => candidate.referenceId === url.searchParams.get("for")) ?? accounts[0]!;
    current = {
      plan: account.subscription?.plan ?? "free",
      for: account.name ? account.referenceId : null,
      name: account.name,
      canManage: account.canManage,
    };
  }
  // PAYMENT_PROVIDER=none: the plans are shown, without a way to buy them.
  const onSale = paymentsState().mode !== "off";
  return { interval, current, onSale, meta: pageMeta(context, "pricing") };
}

export const meta: Route.MetaFunction = ({ data, location, matches }) =>
  seo({ title: data?.meta.title, description: data?.meta.description, location, matches });

export default function Pricing({ loaderData }: Route.ComponentProps) {
  const { t } = useTranslation("pricing");
  const locale = useLocale();
  const { interval, current, onSale } = loaderData;
  const forQuery = current?.for ? `&for=${current.for}` : "";
  const money = numberFormat(locale, { style: "currency", currency: "USD", maximumFractionDigits: 0 });
  const toggle =
    "rounded-full px-4 py-1.5 text-sm font-medium aria-[current=true]:bg-white aria-[current=true]:shadow-sm dark:aria-[current=true]:bg-slate-700";
  return (
    <div className="flex min-h-screen flex-col">
      <Navbar />
      <main className="mx-auto w-full max-w-6xl flex-1 px-4 py-20">
        <div className="text-center">
          <h1 className="text-4xl font-bold tracking-tight sm:text-5xl">{t("title")}</h1>
          {current?.name ? (
            <p className="mt-3 text-sm font-medium text-primary-700 dark:text-primary-400">
              {t("forOrganization", { name: current.name })}
            </p>
          ) : null}
          <p className="mx-auto mt-4 max-w-2xl text-lg text-slate-600 dark:text-slate-300">{t("subtitle")}</p>
          {onSale ? null : (
            <p
              data-testid="not-on-sale"
              className="mx-auto mt-4 w-fit max-w-full rounded-lg bg-amber-50 px-4 py-1.5 text-sm font-medium text-amber-900 dark:bg-amber-950/40 dark:text-amber-100"
            >
              {t("notOnSale")}
            </p>
          )}
          <nav
            aria-label={t("interval.label")}
            className="mt-8 inline-flex rounded-full bg-slate-100 p-1 dark:bg-slate-800"
          >
            <AppLink
              to={`?interval=monthly${forQuery}`}
              preventScrollReset
              aria-current={interval === "monthly"}
              className={toggle}
            >
              {t("interval.monthly")}
            </AppLink>
            <AppLink
              to={`?interval=yearly${forQuery}`}
              preventScrollReset
              aria-current={interval === "yearly"}
              className={toggle}
            >
              {t("interval.yearly")}{" "}
              <span className="text-primary-700 dark:text-primary-400">{t("interval.save")}</span>
            </AppLink>
          </nav>
        </div>
        {/* Side by side, the cards share their rows (a subgrid: name, description, price, action,
            features), so a description that wraps longer in one language or card keeps every
            price and button on one line across the row. */}
        <ul className="mt-14 grid gap-6 lg:grid-cols-3">
          {plans.map((plan) => (
            <li
              key={plan.id}
              data-plan={plan.id}
              data-current={current?.plan === plan.id || undefined}
              className={`relative flex flex-col rounded-2xl border p-6 sm:p-8 lg:row-span-5 lg:grid lg:grid-rows-subgrid lg:gap-y-0 ${plan.highlighted ? "border-primary-500 shadow-lg ring-1 ring-primary-500" : "border-slate-200 dark:border-slate-800"}`}
            >
              {plan.highlighted ? (
                <span className="absolute -top-3 left-8 rounded-full bg-primary-700 px-3 py-0.5 text-xs font-semibold text-white">
                  {t("popular")}
                </span>
              ) : null}
              <h2 className="text-lg font-semibold">{t(`plans.${plan.id}.name`)}</h2>
              <p className="mt-2 text-sm text-slate-600 dark:text-slate-400">{t(`plans.${plan.id}.description`)}</p>
              <p className="mt-6 flex items-baseline gap-1">
                <span className="text-4xl font-bold tracking-tight">{money.format(plan[interval])}</span>
                <span className="text-sm text-slate-600 dark:text-slate-400">
                  {t(interval === "monthly" ? "perMonth" : "perYear")}
                </span>
              </p>
              <PlanAction plan={plan} interval={interval} current={current} onSale={onSale} />
              <ul className="mt-8 space-y-3 text-sm">
                {plan.features.map((feature) => (
                  <li key={feature} className="flex gap-2">
                    <Icon name="check" className="mt-0.5 size-4 shrink-0 text-primary-600" />
                    {t(`features.${feature}`)}
                  </li>
                ))}
              </ul>
            </li>
          ))}
        </ul>
        <section aria-labelledby="faq" className="mx-auto mt-24 max-w-3xl">
          <h2 id="faq" className="text-center text-2xl font-bold tracking-tight">
            {t("faq.title")}
          </h2>
          <dl className="mt-8 divide-y divide-slate-200 dark:divide-slate-800">
            {(["cancel", "trial", "seats", "payment"] as const).map((q) => (
              <div key={q} className="py-5">
                <dt className="font-medium">{t(`faq.${q}.q`)}</dt>
                <dd className="mt-2 text-sm text-slate-600 dark:text-slate-400">{t(`faq.${q}.a`)}</dd>
              </div>
            ))}
          </dl>
        </section>
      </main>
      <Footer />
    </div>
  );
}

/**
 * A plan's call to action. Guests: sign up (free) or sign in and come back to the checkout.
 * Signed in: the current plan is marked, other paid plans go to the checkout for the account
 * shown, and managing (or leaving for Free) happens on the billing page. An organization's
 * plain members are told who can change its plan.
 */
function PlanAction({
  plan,
  interval,
  current,
  onSale,
}: {
  plan: Plan;
  interval: BillingInterval;
  current: { plan: string; for: string | null; canManage: boolean } | null;
  onSale: boolean;
}) {
  const { t } = useTranslation("pricing");
  const localize = useLocalize();
  const base = "mt-8 rounded-md px-4 py-2.5 text-center text-sm font-medium whitespace-nowrap";
  const style = `${base} ${plan.highlighted ? "bg-primary-700 text-white hover:bg-primary-800" : "border border-slate-300 hover:bg-slate-50 dark:border-slate-700 dark:hover:bg-slate-800"}`;
  const checkout = `/checkout?plan=${plan.id}&interval=${interval}${current?.for ? `&for=${current.for}` : ""}`;
  // Not on sale: a paid plan shows that in the button's place (so the cards keep their rows).
  if (!onSale && plan.monthly > 0 && current?.plan !== plan.id) {
    return (
      <p
        className={`${base} border border-dashed border-slate-300 text-slate-600 dark:border-slate-700 dark:text-slate-400`}
      >
        {t("cta.soon")}
      </p>
    );
  }
  if (!current) {
    const to =
      plan.monthly === 0 ? localize("/signup") : localize(`/signin?redirect=${encodeURIComponent(localize(checkout))}`);
    return (
      <AppLink to={to} className={style}>
        {t(plan.monthly === 0 ? "cta.free" : "cta.paid")}
      </AppLink>
    );
  }
  if (current.plan === plan.id) {
    return (
      <p
        className={`${base} border border-primary-500 text-primary-700 dark:text-primary-300`}
        data-testid="current-plan"
      >
        {t("cta.current")}
      </p>
    );
  }
  if (!current.canManage) return <p className={`${base} text-slate-600 dark:text-slate-400`}>{t("cta.askAdmin")}</p>;
  if (plan.monthly === 0) {
    return (
      <AppLink to={localize("/billing")} className={style}>
        {t("cta.manage")}
      </AppLink>
    );
  }
  return (
    <AppLink to={localize(checkout)} className={style}>
      {t(current.plan === "free" ? "cta.paid" : "cta.switch")}
    </AppLink>
  );
}
