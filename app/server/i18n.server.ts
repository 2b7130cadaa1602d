import { createInstance, type i18n, type Resource, type ResourceLanguage } from "i18next";
import { createContext, type MiddlewareFunction, type RouterContextProvider } from "react-router";
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

/**
 * One i18next instance for the process, holding every language. Creating an instance per
 * request (as remix-i18next's middleware does) copies all resources each time and was the
 * largest cost of a small API request; a request only needs a view of this one in its
 * language, and most never ask for it.
 */
const shared = createInstance({
  resources,
  ns: [...namespaces],
  defaultNS: "common",
  fallbackLng: defaultLocale,
  supportedLngs: [...locales],
  interpolation: { escapeValue: false },
  initAsync: false,
  showSupportNotice: false,
});
void shared.init();

const localeContext = createContext<Locale>(defaultLocale);
const views = new WeakMap<object, i18n>();

/** The page language comes from the URL prefix alone. */
export const i18nextMiddleware: MiddlewareFunction<Response> = ({ request, context }) => {
  context.set(localeContext, splitLocale(new URL(request.url).pathname).locale);
};

export function getLocale(context: Readonly<RouterContextProvider>): Locale {
  return context.get(localeContext);
}

/** An i18next view in the request's language (made on first use, sharing the resources). */
export function getInstance(context: Readonly<RouterContextProvider>): i18n {
  let view = views.get(context);
  if (!view) {
    view = shared.cloneInstance({ lng: getLocale(context), initAsync: false });
    views.set(context, view);
  }
  return view;
}
