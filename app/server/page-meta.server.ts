import type { RouterContextProvider } from "react-router";
import { getInstance } from "~/server/i18n.server";

/** A page's translated title and description, for its `meta` export. */
export function pageMeta(context: Readonly<RouterContextProvider>, key: string) {
  const { t } = getInstance(context);
  return { title: t(`meta.${key}.title`), description: t(`meta.${key}.description`) };
}
