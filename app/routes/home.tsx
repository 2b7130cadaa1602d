import { useTranslation } from "~/lib/translations";
import { redirect } from "react-router";
import type { Route } from "./+types/home";
import { withTranslations } from "~/lib/translations";
import { AppLink } from "~/components/AppLink";
import { Footer } from "~/components/Footer";
import { Icon, type IconName } from "~/components/Icon";
import { Navbar } from "~/components/Navbar";
import { defaultLocale, localizePath } from "~/i18n/config";
import { seo } from "~/lib/seo";
import { useLocalize, useRootData } from "~/lib/use-root-data";
import { preferredLocale } from "~/server/i18n.server";
import { pageMeta } from "~/server/page-meta.server";
import { isBot } from "~/server/request-head.server";

// A page of plain HTML: it needs no React in the browser (decision 0020). What it shows a
// visitor follows from the request, so the page cache may answer it (page-cache.server.ts).
export const handle = { i18n: ["home"], hydrate: false, pageCache: true };

export async function clientLoader({ request, serverLoader }: Route.ClientLoaderArgs) {
  return withTranslations(request, handle, serverLoader);
}

/**
 * Only the bare root may redirect, once, to the remembered or the browser's language.
 * Crawlers never are, so every language version stays indexable at its own URL.
 */
export async function loader({ request, url, context }: Route.LoaderArgs) {
  if (url.pathname === "/" && !isBot(request.headers.get("user-agent"))) {
    const locale = await preferredLocale(request);
    if (locale !== defaultLocale) throw redirect(localizePath("/", locale) + url.search);
  }
  return { meta: pageMeta(context, "home") };
}

export const meta: Route.MetaFunction = ({ data, location, matches }) =>
  seo({ title: data?.meta.title, description: data?.meta.description, location, matches });

const features: { key: string; icon: IconName }[] = [
  { key: "auth", icon: "lock" },
  { key: "organizations", icon: "users" },
  { key: "billing", icon: "credit-card" },
  { key: "i18n", icon: "globe" },
  { key: "admin", icon: "shield" },
  { key: "fast", icon: "zap" },
];

export default function Home() {
  const { t } = useTranslation("home");
  const { t: tc } = useTranslation();
  const localize = useLocalize();
  // A signed-in visitor is offered their dashboard, not another account.
  const signedIn = Boolean(useRootData()?.user);
  const start = signedIn
    ? { to: localize("/dashboard"), hero: tc("nav.openDashboard"), cta: tc("nav.openDashboard") }
    : { to: localize("/signup"), hero: t("hero.primary"), cta: t("cta.button") };
  return (
    <div className="flex min-h-screen flex-col">
      <Navbar />
      <main className="flex-1">
        <section className="relative overflow-hidden border-b border-slate-200 bg-gradient-to-b from-primary-50 to-white dark:border-slate-800 dark:from-primary-950/40 dark:to-slate-950">
          <div className="mx-auto max-w-4xl px-4 py-24 text-center sm:py-32">
            <p className="mb-4 inline-flex items-center gap-2 rounded-full border border-primary-200 bg-white px-3 py-1 text-xs font-medium text-primary-800 dark:border-primary-800 dark:bg-slate-900 dark:text-primary-300">
              <Icon name="zap" className="size-3.5" /> {t("hero.badge")}
            </p>
            <h1 className="text-4xl font-bold tracking-tight text-balance sm:text-6xl">{t("hero.title")}</h1>
            <p className="mx-auto mt-6 max-w-2xl text-lg text-pretty text-slate-600 dark:text-slate-300">
              {t("hero.subtitle")}
            </p>
            <div className="mt-10 flex flex-wrap items-center justify-center gap-3">
              <AppLink
                to={start.to}
                data-testid="hero-primary"
                className="inline-flex items-center gap-2 rounded-md bg-primary-700 px-5 py-2.5 font-medium text-white shadow-sm hover:bg-primary-800"
              >
                {start.hero} <Icon name="arrow-right" />
              </AppLink>
              <AppLink
                to={localize("/pricing")}
                className="rounded-md border border-slate-300 bg-white px-5 py-2.5 font-medium hover:bg-slate-50 dark:border-slate-700 dark:bg-slate-900 dark:hover:bg-slate-800"
              >
                {t("hero.secondary")}
              </AppLink>
            </div>
          </div>
        </section>
        <section aria-labelledby="features" className="mx-auto max-w-6xl px-4 py-20">
          <h2 id="features" className="text-center text-3xl font-bold tracking-tight">
            {t("features.title")}
          </h2>
          <p className="mx-auto mt-3 max-w-2xl text-center text-slate-600 dark:text-slate-400">
            {t("features.subtitle")}
          </p>
          <ul className="mt-12 grid gap-6 sm:grid-cols-2 lg:grid-cols-3">
            {features.map((feature) => (
              <li key={feature.key} className="rounded-xl border border-slate-200 p-6 dark:border-slate-800">
                <span className="inline-flex size-10 items-center justify-center rounded-lg bg-primary-100 text-primary-700 dark:bg-primary-900/50 dark:text-primary-300">
                  <Icon name={feature.icon} className="size-5" />
                </span>
                <h3 className="mt-4 font-semibold">{t(`features.${feature.key}.title`)}</h3>
                <p className="mt-2 text-sm text-slate-600 dark:text-slate-400">{t(`features.${feature.key}.body`)}</p>
              </li>
            ))}
          </ul>
        </section>
        <section className="border-t border-slate-200 bg-slate-50 dark:border-slate-800 dark:bg-slate-900/50">
          <div className="mx-auto flex max-w-4xl flex-col items-center px-4 py-16 text-center">
            <h2 className="text-2xl font-bold tracking-tight">{t("cta.title")}</h2>
            <p className="mt-3 text-slate-600 dark:text-slate-400">{t("cta.body")}</p>
            <AppLink
              to={start.to}
              className="mt-8 rounded-md bg-primary-700 px-5 py-2.5 font-medium text-white hover:bg-primary-800"
            >
              {start.cta}
            </AppLink>
          </div>
        </section>
      </main>
      <Footer />
    </div>
  );
}
