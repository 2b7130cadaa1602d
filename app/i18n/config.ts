/** Locale facts shared by server and client. The URL prefix decides the page language. */
export const locales = ["en", "zh-CN", "ja", "fr"] as const;
export type Locale = (typeof locales)[number];
export const defaultLocale: Locale = "en";
export const namespaces = [
  "common",
  "home",
  "pricing",
  "auth",
  "organization",
  "billing",
  "admin",
  "reports",
  "dashboard",
  "scim",
  "sso",
  "apiKeys",
] as const;

/** Native names, shown in the locale switcher in their own language. */
export const localeNames: Record<Locale, string> = {
  en: "English",
  "zh-CN": "简体中文",
  ja: "日本語",
  fr: "Français",
};

export const LOCALE_COOKIE = "lng";

export function isLocale(value: unknown): value is Locale {
  return typeof value === "string" && (locales as readonly string[]).includes(value);
}

/** Splits "/fr/pricing" into { locale: "fr", path: "/pricing" }; unprefixed paths are English. */
export function splitLocale(pathname: string): { locale: Locale; path: string } {
  const [, first = "", ...rest] = pathname.split("/");
  if (isLocale(first) && first !== defaultLocale) {
    return { locale: first, path: "/" + rest.join("/") };
  }
  return { locale: defaultLocale, path: pathname || "/" };
}

/** Builds the URL path of `path` (unprefixed form) in `locale`. */
export function localizePath(path: string, locale: Locale): string {
  const clean = path.startsWith("/") ? path : `/${path}`;
  if (locale === defaultLocale) return clean;
  return clean === "/" ? `/${locale}` : `/${locale}${clean}`;
}
