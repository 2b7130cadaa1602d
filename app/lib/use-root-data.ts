import { useLocation, useRouteLoaderData } from "react-router";
import { localizePath, splitLocale, type Locale } from "~/i18n/config";
import type { loader } from "~/root";

/** Root loader data; absent only while rendering an error that broke the root loader. */
export function useRootData() {
  return useRouteLoaderData<typeof loader>("root");
}

export function useLocale(): Locale {
  const data = useRootData();
  const location = useLocation();
  return data?.locale ?? splitLocale(location.pathname).locale;
}

/** Returns a function that turns an unprefixed path into the current locale's path. */
export function useLocalize() {
  const locale = useLocale();
  return (path: string) => localizePath(path, locale);
}
