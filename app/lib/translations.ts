import i18next, { type i18n as I18n, type TFunction } from "i18next";
import { useContext, useSyncExternalStore } from "react";
import { I18nContext } from "react-i18next";
import { splitLocale } from "~/i18n/config";

type PerInstance = { subscribe: (onChange: () => void) => () => void; fixed: Map<string, TFunction> };
const perInstance = new WeakMap<I18n, PerInstance>();

/**
 * The one translation hook of the app. react-i18next's own copies the whole i18next
 * instance (every own property descriptor) for each component on each server render, and
 * i18next's fixed `t` copies all its options on each call: together a quarter of a page's
 * render cost. Here the `t` of an instance, language and namespace is made once, and a
 * string without options is looked up once. Components still re-render when the language
 * changes, as with react-i18next (its "languageChanged" event), and `t` changes identity
 * with the language.
 */
export function useTranslation(ns?: string): { t: TFunction; i18n: I18n } {
  const { i18n } = useContext(I18nContext);
  let entry = perInstance.get(i18n);
  if (!entry) {
    const fixed = new Map<string, TFunction>();
    entry = {
      subscribe(onChange) {
        i18n.on("languageChanged", onChange);
        return () => i18n.off("languageChanged", onChange);
      },
      fixed,
    };
    // In the browser, namespaces arrive later: a looked-up string may then read otherwise.
    i18n.on("loaded", () => fixed.clear());
    perInstance.set(i18n, entry);
  }
  const language = useSyncExternalStore(
    entry.subscribe,
    () => i18n.language,
    () => i18n.language,
  );
  const key = `${language}\n${ns ?? ""}`;
  let t = entry.fixed.get(key);
  if (!t) {
    t = fixedT(i18n, language, ns);
    entry.fixed.set(key, t);
  }
  return { t, i18n };
}

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

function fixedT(i18n: I18n, lng: string, ns: string | undefined): TFunction {
  const plain = new Map<string, string>();
  return ((key: string, options?: object) => {
    if (options) return i18n.t(key, { ...options, lng, ns });
    let text = plain.get(key);
    if (text === undefined) {
      text = i18n.t(key, { lng, ns });
      plain.set(key, text);
    }
    return text;
  }) as TFunction;
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
