import i18next from "i18next";
import { splitLocale } from "~/i18n/config";

/**
 * What a route with translations does as its `clientLoader`: the namespaces it declares in
 * `handle.i18n` (remix-i18next's convention) load in the target page's language while its
 * data does, and the language switches if the URL's differs. A client-side navigation then
 * commits with every string in place, instead of suspending after the URL has changed.
 * (On hydration the server's data is used and nothing runs: entry.client.tsx loaded them.)
 */
export async function withTranslations<T>(
  request: Request,
  handle: { i18n: readonly string[] },
  serverLoader: () => Promise<T>,
): Promise<T> {
  const { locale } = splitLocale(new URL(request.url).pathname);
  const namespaces = [...handle.i18n];
  const [data] = await Promise.all([serverLoader(), load(locale, namespaces)]);
  if (i18next.language !== locale) await i18next.changeLanguage(locale);
  return data;
}

function load(locale: string, namespaces: string[]): Promise<void> {
  // Later language changes load these too (i18next loads the namespaces in options.ns).
  const known = new Set([...((i18next.options.ns as string[] | undefined) ?? []), ...namespaces]);
  i18next.options.ns = [...known];
  return new Promise((resolve, reject) => {
    i18next.services.backendConnector.load([locale], namespaces, (error: unknown) =>
      error ? reject(error instanceof Error ? error : new Error(String(error))) : resolve(),
    );
  });
}
