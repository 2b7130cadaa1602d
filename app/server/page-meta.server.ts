import type { RouterContextProvider } from "react-router";
import { getInstance } from "~/server/i18n.server";

/** A page's translated title and description, for its `meta` export (`values` fill their placeholders). */
export function pageMeta(context: Readonly<RouterContextProvider>, key: string, values?: Record<string, string>) {
  const { t } = getInstance(context);
  return { title: t(`meta.${key}.title`, values), description: t(`meta.${key}.description`, values) };
}

/**
 * An account settings section's title ("Security · Settings") and description, each in the
 * page's language: the section's tab name, then the area's.
 */
export function settingsMeta(context: Readonly<RouterContextProvider>, section: string) {
  const { t } = getInstance(context);
  return {
    title: t("meta.settings.sectionTitle", { section: t(`settings.${section}`) }),
    description: t(`meta.settings.${section}`),
  };
}
