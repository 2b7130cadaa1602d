import { useTranslation } from "react-i18next";
import { AppLink } from "~/components/AppLink";
import { Icon } from "~/components/Icon";
import { LocaleSwitcher } from "~/components/LocaleSwitcher";
import { SearchPalette } from "~/components/SearchPalette";
import { ThemeSwitcher } from "~/components/ThemeSwitcher";
import { UserMenu } from "~/components/UserMenu";
import { useLocalize, useRootData } from "~/lib/use-root-data";

export function Brand() {
  const { t } = useTranslation();
  const localize = useLocalize();
  return (
    <AppLink to={localize("/")} className="flex items-center gap-2 font-semibold tracking-tight">
      <Icon name="logo" className="size-6 text-primary-600" />
      <span>{t("brand")}</span>
    </AppLink>
  );
}

export function Navbar() {
  const { t } = useTranslation();
  const localize = useLocalize();
  const user = useRootData()?.user ?? null;
  return (
    <header className="sticky top-0 z-30 border-b border-slate-200 bg-white/80 backdrop-blur dark:border-slate-800 dark:bg-slate-950/80">
      <nav aria-label={t("nav.main")} className="mx-auto flex h-14 max-w-6xl items-center gap-4 px-4">
        <Brand />
        <AppLink
          to={localize("/pricing")}
          className="text-sm text-slate-600 hover:text-slate-900 dark:text-slate-300 dark:hover:text-white"
        >
          {t("nav.pricing")}
        </AppLink>
        <div className="ml-auto flex items-center gap-2">
          <SearchPalette />
          <LocaleSwitcher />
          <ThemeSwitcher />
          {user ? (
            <UserMenu user={user} />
          ) : (
            <>
              <AppLink
                to={localize("/signin")}
                className="rounded-md px-3 py-1.5 text-sm font-medium hover:bg-slate-100 dark:hover:bg-slate-800"
              >
                {t("nav.signIn")}
              </AppLink>
              <AppLink
                to={localize("/signup")}
                className="rounded-md bg-primary-600 px-3 py-1.5 text-sm font-medium text-white hover:bg-primary-700"
              >
                {t("nav.signUp")}
              </AppLink>
            </>
          )}
        </div>
      </nav>
    </header>
  );
}
