import { z } from "zod";

/**
 * zod's messages in the UI language: the locale code with its dash removed names zod's
 * locale ("zh-CN" → zhCN); a language zod lacks falls back to English.
 */
export function zodErrorMap(locale: string): z.core.$ZodErrorMap {
  const locales = z.locales as Record<string, (() => { localeError: z.core.$ZodErrorMap }) | undefined>;
  const factory = locales[locale.replace("-", "")] ?? z.locales.en;
  return factory().localeError;
}
