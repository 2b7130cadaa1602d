import { createInstance, type i18n, type ResourceLanguage } from "i18next";
import { initReactI18next } from "react-i18next";
import { defaultLocale, namespaces, type Locale } from "~/i18n/config";

/** Builds a ready i18next instance synchronously from the resources the root loader sent. */
export function createI18n(locale: Locale, resources: ResourceLanguage | undefined): i18n {
  const instance = createInstance({
    lng: locale,
    fallbackLng: defaultLocale,
    resources: resources ? { [locale]: resources } : {},
    ns: [...namespaces],
    defaultNS: "common",
    interpolation: { escapeValue: false },
    showSupportNotice: false,
    initAsync: false,
    react: { useSuspense: false },
  });
  void instance.use(initReactI18next).init();
  return instance;
}
