import type { Resource, ResourceLanguage } from "i18next";
import { createI18nextMiddleware } from "remix-i18next/middleware";
import { defaultLocale, locales, namespaces, splitLocale, type Locale } from "~/i18n/config";

// All translations are bundled into the server at build time; a page receives only its own
// language's resources through the root loader.
const files = import.meta.glob<{ default: Record<string, unknown> }>("../../locales/*/*.json", {
  eager: true,
});

export const resources: Resource = Object.fromEntries(
  locales.map((lng) => [
    lng,
    Object.fromEntries(namespaces.map((ns) => [ns, files[`../../locales/${lng}/${ns}.json`]?.default ?? {}])),
  ]),
);

export function resourcesFor(locale: Locale): ResourceLanguage {
  return resources[locale] ?? {};
}

/** The page language comes from the URL prefix alone. */
export const [i18nextMiddleware, getLocale, getInstance] = createI18nextMiddleware({
  detection: {
    supportedLanguages: [...locales],
    fallbackLanguage: defaultLocale,
    order: ["custom"],
    findLocale: async (request) => splitLocale(new URL(request.url).pathname).locale,
  },
  i18next: {
    resources,
    ns: [...namespaces],
    defaultNS: "common",
    fallbackLng: defaultLocale,
    interpolation: { escapeValue: false },
    showSupportNotice: false,
  },
});
