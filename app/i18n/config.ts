/** Locale facts shared by server and client. The URL prefix decides the page language. */
export const locales = ["en", "zh-CN", "ja", "fr"] as const;
export type Locale = (typeof locales)[number];
export const defaultLocale: Locale = "en";
export const namespaces = [
  "common",
  "home",
  "pricing",
  "validation",
  "auth",
  "organization",
  "billing",
  "admin",
  "reports",
] as const;
export type Namespace = (typeof namespaces)[number];

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

/** Picks the best supported locale from an Accept-Language header, or null. */
export function matchAcceptLanguage(header: string | null): Locale | null {
  if (!header) return null;
  const ranked = header
    .split(",")
    .map((part) => {
      const [tag = "", ...params] = part.trim().split(";");
      const q = params.find((p) => p.trim().startsWith("q="));
      return { tag: tag.trim().toLowerCase(), q: q ? Number(q.trim().slice(2)) : 1 };
    })
    .filter((entry) => entry.tag && entry.q > 0)
    .sort((a, b) => b.q - a.q);
  for (const { tag } of ranked) {
    const exact = locales.find((l) => l.toLowerCase() === tag);
    if (exact) return exact;
    // "zh", "zh-Hans", "zh-SG" read as Simplified Chinese; "fr-CA" as French, and so on.
    const base = tag.split("-")[0];
    const byBase = locales.find((l) => l.toLowerCase().split("-")[0] === base);
    if (byBase) return byBase;
  }
  return null;
}
