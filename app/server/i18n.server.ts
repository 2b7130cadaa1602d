import { createInstance, type i18n, type Resource } from "i18next";
import { initReactI18next } from "react-i18next";
import { LanguageDetector } from "remix-i18next/server";
import { createContext, data, type MiddlewareFunction, type RouterContextProvider } from "react-router";
import { defaultLocale, isLocale, LOCALE_COOKIE, locales, namespaces, splitLocale, type Locale } from "~/i18n/config";
import { parseCookies } from "~/server/auth/cookies.server";

// All translations are bundled into the server at build time. The browser never gets them
// from here: it loads each namespace a page declares (`handle.i18n`) as its own hashed,
// immutable file (app/lib/i18n.client.ts).
const files = import.meta.glob<{ default: Record<string, unknown> }>("../../locales/*/*.json", {
  eager: true,
});

const resources: Resource = Object.fromEntries(
  locales.map((lng) => [
    lng,
    Object.fromEntries(namespaces.map((ns) => [ns, files[`../../locales/${lng}/${ns}.json`]?.default ?? {}])),
  ]),
);

/**
 * One ready i18next instance per locale, made once for the process and shared by every
 * request and every server render in that language (they only read it: nothing may call
 * `changeLanguage` on them). Cloning or creating an instance per request was most of the
 * cost of a small request and, through listeners a clone leaves on the store it shares,
 * memory that grew with every request.
 */
const instances = new Map<Locale, i18n>(
  locales.map((lng) => {
    const instance = createInstance({
      lng,
      resources: { [lng]: resources[lng]!, [defaultLocale]: resources[defaultLocale]! },
      ns: [...namespaces],
      defaultNS: "common",
      fallbackLng: defaultLocale,
      supportedLngs: [...locales],
      interpolation: { escapeValue: false },
      initAsync: false,
      showSupportNotice: false,
      react: { useSuspense: false },
    });
    void instance.use(initReactI18next).init();
    return [lng, instance];
  }),
);

/** The shared instance of `locale`. */
export function i18nFor(locale: Locale): i18n {
  return instances.get(locale) ?? instances.get(defaultLocale)!;
}

const localeContext = createContext<Locale>(defaultLocale);

/**
 * The page language comes from the URL prefix alone. Pages sit under an optional `:lang`
 * segment (app/routes.ts): one that is not a prefix of ours ("/en", "/xx") is a page that
 * does not exist.
 */
export const i18nextMiddleware: MiddlewareFunction<Response> = ({ url: { pathname }, params, context }) => {
  if (params.lang !== undefined && (!isLocale(params.lang) || params.lang === defaultLocale)) notFound(pathname);
  context.set(localeContext, splitLocale(pathname).locale);
};

/** A language tag such as "de" or "pt-BR" that this product does not speak. */
function isUnsupportedLocalePrefix(segment: string): boolean {
  if (!/^[a-z]{2}(-[A-Za-z]{2,4})?$/.test(segment) || isLocale(segment)) return false;
  const names = new Intl.DisplayNames(["en"], { type: "language", fallback: "none" });
  return names.of(segment.split("-")[0]!) !== undefined;
}

/**
 * Throws the 404 of a path nothing answers. One under an unsupported language prefix fails
 * the locale validation: the fatal "Page Not Found: {path}"; anything else is "Page not
 * found: {path}".
 */
export function notFound(pathname: string): never {
  const first = pathname.split("/")[1] ?? "";
  const fatal = isUnsupportedLocalePrefix(first);
  const message = fatal ? `Page Not Found: ${pathname}` : `Page not found: ${pathname}`;
  // The path lets the error page say the same in the page's language.
  throw data({ message, path: pathname, fatal }, { status: 404 });
}

export function getLocale(context: Readonly<RouterContextProvider>): Locale {
  return context.get(localeContext);
}

/** The i18next instance of the request's language. */
export function getInstance(context: Readonly<RouterContextProvider>): i18n {
  return i18nFor(getLocale(context));
}

/**
 * The language a visitor prefers where the URL names none (the bare `/`, the API): the
 * remembered choice (the plain `lng` cookie the locale switcher sets), then Accept-Language's
 * first choice, else English. remix-i18next's detector, told our locales.
 */
const languageDetector = new LanguageDetector({
  supportedLanguages: [...locales],
  fallbackLanguage: defaultLocale,
  order: ["custom", "header"],
  async findLocale(request) {
    const remembered = parseCookies(request.headers.get("Cookie")).get(LOCALE_COOKIE);
    return isLocale(remembered) ? remembered : null;
  },
});

export async function preferredLocale(request: Request): Promise<Locale> {
  const detected = await languageDetector.detect(request);
  return isLocale(detected) ? detected : defaultLocale;
}
