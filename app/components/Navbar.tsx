import { useId } from "react";
import { Form } from "react-router";
import { useTranslation } from "~/lib/translations";
import { AppLink } from "~/components/AppLink";
import { Icon } from "~/components/Icon";
import { LocaleSwitcher } from "~/components/LocaleSwitcher";
import { SearchPalette } from "~/components/SearchPalette";
import { ThemeSwitcher } from "~/components/ThemeSwitcher";
import { UserMenu } from "~/components/UserMenu";
import { useLocale, useLocalize, useRootData } from "~/lib/use-root-data";

/** The product's name and mark; inside the app it leads to the dashboard, elsewhere home. */
export function Brand({ to = "/" }: { to?: string }) {
  const { t } = useTranslation();
  const localize = useLocalize();
  return (
    <AppLink to={localize(to)} className="flex items-center gap-2 font-semibold tracking-tight">
      <Icon name="logo" className="size-6 text-primary-600" />
      <span>{t("brand")}</span>
    </AppLink>
  );
}

/**
 * Below the small breakpoint the links, switchers and account actions fold into a panel that
 * a menu button opens. The button is the label of a checkbox, so it works without JavaScript;
 * from the small breakpoint up the panel's box disappears (`contents`) and its items sit in
 * the bar.
 */
export function Navbar() {
  const { t } = useTranslation();
  const localize = useLocalize();
  const user = useRootData()?.user ?? null;
  const menuId = useId();
  return (
    <header className="sticky top-0 z-30 border-b border-slate-200 bg-white/80 backdrop-blur dark:border-slate-800 dark:bg-slate-950/80">
      {user?.impersonated ? <ImpersonationBanner name={user.name} /> : null}
      <nav aria-label={t("nav.main")} className="relative mx-auto flex h-14 max-w-6xl items-center gap-4 px-4">
        <Brand />
        <div className="ml-auto flex items-center gap-2 sm:order-2">
          <SearchPalette />
          <label
            htmlFor={menuId}
            title={t("nav.menu")}
            className="menu-button flex cursor-pointer items-center rounded-md p-2 text-slate-700 hover:bg-slate-100 sm:hidden dark:text-slate-300 dark:hover:bg-slate-800"
          >
            <Icon name="menu" />
          </label>
        </div>
        <input id={menuId} type="checkbox" aria-label={t("nav.menu")} className="menu-toggle peer sr-only sm:hidden" />
        <div
          data-testid="nav-menu"
          className="absolute inset-x-0 top-14 hidden flex-col gap-3 border-b border-slate-200 bg-white p-4 shadow-lg peer-checked:flex sm:contents dark:border-slate-800 dark:bg-slate-950"
        >
          <AppLink
            to={localize("/pricing")}
            className="text-sm text-slate-600 hover:text-slate-900 sm:order-1 dark:text-slate-300 dark:hover:text-white"
          >
            {t("nav.pricing")}
          </AppLink>
          <div className="flex flex-wrap items-center gap-2 sm:order-3">
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
                  className="rounded-md bg-primary-700 px-3 py-1.5 text-sm font-medium text-white hover:bg-primary-800"
                >
                  {t("nav.signUp")}
                </AppLink>
              </>
            )}
          </div>
        </div>
      </nav>
    </header>
  );
}

/** While an admin acts as a user: whose account this is, and the way back (a plain form). */
export function ImpersonationBanner({ name }: { name: string }) {
  const { t } = useTranslation();
  const locale = useLocale();
  return (
    <div
      role="status"
      data-testid="impersonation-banner"
      className="flex flex-wrap items-center justify-center gap-3 bg-amber-100 px-4 py-2 text-sm text-amber-950 dark:bg-amber-900 dark:text-amber-50"
    >
      <span>{t("impersonation.banner", { name })}</span>
      <Form method="post" action="/stop-impersonating" reloadDocument>
        <input type="hidden" name="locale" value={locale} />
        <button
          type="submit"
          className="rounded-md bg-amber-950 px-3 py-1 font-medium text-amber-50 hover:bg-amber-800"
        >
          {t("impersonation.stop")}
        </button>
      </Form>
    </div>
  );
}
