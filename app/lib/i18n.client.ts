import i18next, { type BackendModule, type ResourceKey } from "i18next";
import { initReactI18next } from "react-i18next";
import { getInitialNamespaces } from "remix-i18next/client";
import { defaultLocale, isLocale, locales } from "~/i18n/config";

/**
 * Every namespace of every language is its own lazily loaded, hashed (so immutable and
 * cacheable) file of the build; email strings never reach the browser. A page loads only
 * the namespaces its routes declare in `handle.i18n`.
 */
const files = import.meta.glob<{ default: ResourceKey }>(["../../locales/*/*.json", "!../../locales/*/email.json"]);

const backend: BackendModule = {
  type: "backend",
  init() {},
  read(language, namespace, callback) {
    const load = files[`../../locales/${language}/${namespace}.json`];
    if (!load) return callback(null, {});
    load().then(
      (file) => callback(null, file.default),
      (error: Error) => callback(error, null),
    );
  },
};

/**
 * The browser's i18next instance, ready with the namespaces of the page being hydrated (so
 * the first render matches the server's). Later navigations load what their routes need
 * before they commit (`withTranslations`); should a component still ask for a namespace that
 * is not there, `useTranslation` suspends until the file has arrived.
 */
export async function initI18n() {
  const lang = document.documentElement.lang;
  await i18next
    .use(initReactI18next)
    .use(backend)
    .init({
      lng: isLocale(lang) ? lang : defaultLocale,
      supportedLngs: [...locales],
      // Every key exists in every language (a test checks), so no fallback files are fetched.
      fallbackLng: false,
      load: "currentOnly",
      ns: getInitialNamespaces(),
      defaultNS: "common",
      interpolation: { escapeValue: false },
      showSupportNotice: false,
      react: { useSuspense: true },
    });
  return i18next;
}
