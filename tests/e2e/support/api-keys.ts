import { readFileSync } from "node:fs";

type Strings = { [key: string]: string | Strings };

/** A string of the API key pages in `locale`, its placeholders filled. */
export function keysText(locale: string, key: string, values: Record<string, string> = {}): string {
  const file = JSON.parse(
    readFileSync(new URL(`../../../locales/${locale}/apiKeys.json`, import.meta.url), "utf8"),
  ) as Strings;
  const text = key.split(".").reduce<string | Strings | undefined>((node, part) => (node as Strings)?.[part], file);
  if (typeof text !== "string") throw new Error(`no translation ${locale}:apiKeys:${key}`);
  return text.replace(/{{\s*(\w+)\s*}}/g, (whole, name: string) => values[name] ?? whole);
}
