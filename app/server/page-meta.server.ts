import type { RouterContextProvider } from "react-router";
import { getInstance } from "~/server/i18n.server";

/** A page's translated title and description, for its `meta` export (`values` fill their placeholders). */
export function pageMeta(context: Readonly<RouterContextProvider>, key: string, values?: Record<string, string>) {
  const { t } = getInstance(context);
  return { title: t(`meta.${key}.title`, values), description: t(`meta.${key}.description`, values) };
}
