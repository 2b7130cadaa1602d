import { useTranslation } from "~/lib/translations";
import { AppLink } from "~/components/AppLink";
import { useLocalize, useRootData } from "~/lib/use-root-data";

export function Footer() {
  const { t } = useTranslation();
  const localize = useLocalize();
  // Signed in, the account links would only lead back to the dashboard.
  const signedIn = Boolean(useRootData()?.user);
  const link = "text-sm text-slate-600 hover:text-slate-900 dark:text-slate-400 dark:hover:text-white";
  return (
    <footer className="border-t border-slate-200 dark:border-slate-800">
      <div className="mx-auto flex max-w-6xl flex-col gap-4 px-4 py-8 sm:flex-row sm:items-center sm:justify-between">
        <nav aria-label={t("footer.label")} className="flex flex-wrap gap-x-6 gap-y-2">
          <AppLink to={localize("/")} className={link}>
            {t("pages.home")}
          </AppLink>
          <AppLink to={localize("/pricing")} className={link}>
            {t("pages.pricing")}
          </AppLink>
          {signedIn ? (
            <AppLink to={localize("/dashboard")} className={link}>
              {t("pages.dashboard")}
            </AppLink>
          ) : (
            <>
              <AppLink to={localize("/signin")} className={link}>
                {t("pages.signin")}
              </AppLink>
              <AppLink to={localize("/signup")} className={link}>
                {t("pages.signup")}
              </AppLink>
            </>
          )}
          <a href="/sitemap.xml" className={link}>
            {t("footer.sitemap")}
          </a>
        </nav>
        <p className="text-sm text-slate-600 dark:text-slate-400">
          {t("footer.copyright", { year: new Date().getFullYear() })}
        </p>
      </div>
    </footer>
  );
}
