import { useTranslation } from "~/lib/translations";
import { Form, useLocation } from "react-router";
import { Icon } from "~/components/Icon";
import { localeNames, locales, splitLocale } from "~/i18n/config";
import { useLocale } from "~/lib/use-root-data";

/**
 * A form, so it works without JavaScript: the server remembers the choice in a cookie and
 * redirects to the same page and query in the chosen language.
 */
export function LocaleSwitcher() {
  const { t } = useTranslation();
  const current = useLocale();
  const location = useLocation();
  const here = splitLocale(location.pathname).path + location.search + location.hash;
  return (
    <details className="group relative" data-menu>
      <summary
        aria-label={t("locale.label")}
        title={t("locale.label")}
        className="flex cursor-pointer items-center gap-1 rounded-md px-2 py-1.5 text-sm text-slate-700 hover:bg-slate-100 dark:text-slate-300 dark:hover:bg-slate-800"
      >
        <Icon name="languages" />
        <span className="hidden sm:inline">{localeNames[current]}</span>
        <Icon name="chevron-down" className="size-3" />
      </summary>
      <Form
        method="post"
        action="/set-locale"
        className="absolute right-0 z-40 mt-1 w-40 rounded-md border border-slate-200 bg-white p-1 shadow-lg dark:border-slate-700 dark:bg-slate-900"
      >
        <input type="hidden" name="redirectTo" value={here} />
        {locales.map((lng) => (
          <button
            key={lng}
            type="submit"
            name="lng"
            value={lng}
            lang={lng}
            aria-current={lng === current ? "true" : undefined}
            className="menu-item justify-between"
          >
            {localeNames[lng]}
            {lng === current ? <Icon name="check" className="size-3.5 text-primary-600" /> : null}
          </button>
        ))}
      </Form>
    </details>
  );
}
