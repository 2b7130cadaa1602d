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
  const templates = new Map<string, Template | null>();
  return ((key: string, options?: Record<string, unknown>) => {
    if (options) {
      let template = templates.get(key);
      if (template === undefined) {
        template = templateOf(i18n, lng, ns, key);
        templates.set(key, template);
      }
      return (template && fill(template, options)) ?? i18n.t(key, { ...options, lng, ns });
    }
    let text = plain.get(key);
    if (text === undefined) {
      text = i18n.t(key, { lng, ns });
      plain.set(key, text);
    }
    return text;
  }) as TFunction;
}

/**
 * A text whose only markup is `{{name}}` placeholders, split at them: texts at even places,
 * placeholder names at odd ones. A row of a list calls `t` with values for each of its labels,
 * and i18next resolves the key and copies the options anew on every such call, which was a
 * tenth of a members page's memory churn; a template is filled in a single join.
 */
type Template = { parts: string[]; names: ReadonlySet<string> };

/** Option names that change how i18next picks or treats a text: a text using one stays with i18next. */
const I18NEXT_OPTIONS = new Set([
  "count",
  "context",
  "ordinal",
  "defaultValue",
  "lng",
  "lngs",
  "ns",
  "keyPrefix",
  "replace",
  "returnObjects",
  "returnDetails",
  "joinArrays",
  "postProcess",
  "interpolation",
  "fallbackLng",
  "skipInterpolation",
  "nsSeparator",
  "keySeparator",
]);

/**
 * The template of `key` in `lng` itself, or null where i18next's own rules are needed: a key
 * naming its namespace, a text missing in this language (the fallback's), a nested `$t(…)`, a
 * formatted or unescaped placeholder (`{{date, datetime}}`, `{{- name}}`) or a reserved name.
 */
function templateOf(i18n: I18n, lng: string, ns: string | undefined, key: string): Template | null {
  if (key.includes(":")) return null;
  const text: unknown = i18n.getResource(lng, ns ?? String(i18n.options.defaultNS), key);
  if (typeof text !== "string" || text.includes("$t(")) return null;
  const parts = text.split(/\{\{(.+?)\}\}/);
  for (let i = 1; i < parts.length; i += 2) {
    const name = parts[i]!.trim();
    if (!/^\w+$/.test(name) || I18NEXT_OPTIONS.has(name)) return null;
    parts[i] = name;
  }
  return { parts, names: new Set(parts.filter((_, i) => i % 2 === 1)) };
}

/**
 * `template` with `values`, or null when i18next must do it: a placeholder without a string
 * or number value, or a value the text has no placeholder for (a count, a context…).
 */
function fill({ parts, names }: Template, values: Record<string, unknown>): string | null {
  for (const name in values) if (!names.has(name)) return null;
  let text = parts[0]!;
  for (let i = 1; i < parts.length; i += 2) {
    const value = values[parts[i]!];
    if (typeof value !== "string" && typeof value !== "number") return null;
    text += String(value) + parts[i + 1]!;
  }
  return text;
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
