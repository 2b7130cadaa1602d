import type { z } from "zod";
import { en, fr, ja, zhCN } from "zod/v4/locales";
import { isLocale, type Locale } from "~/i18n/config";

/**
 * zod's messages of the app's languages only, named here one by one: reading them off
 * `z.locales` by a computed name would bring all of zod's 40-odd locales into the browser
 * (some 35 KB gzip on every page with a form).
 */
const LOCALES: Record<Locale, () => { localeError: z.core.$ZodErrorMap }> = { en, fr, ja, "zh-CN": zhCN };

/** zod's messages in the UI language; a language the app lacks falls back to English. */
export function zodErrorMap(locale: string): z.core.$ZodErrorMap {
  return (isLocale(locale) ? LOCALES[locale] : en)().localeError;
}
