import type { MetaDescriptor } from "react-router";
import { defaultLocale, localizePath, locales, splitLocale } from "~/i18n/config";

interface RootMetaData {
  baseUrl: string;
  brand: string;
}

/**
 * Title, description, canonical link and hreflang alternates (with x-default) for a page.
 * `matches` gives the root loader's base URL; `location` the page's own path.
 */
export function seo(args: {
  title: string | undefined;
  description?: string;
  location: { pathname: string };
  matches: readonly ({ id: string; data?: unknown } | undefined)[];
}): MetaDescriptor[] {
  const root = args.matches.find((m) => m?.id === "root")?.data as RootMetaData | undefined;
  const brand = root?.brand ?? "";
  const tags: MetaDescriptor[] = [{ title: args.title ? `${args.title} · ${brand}` : brand }];
  if (args.description) tags.push({ name: "description", content: args.description });
  if (!root) return tags;
  const { path } = splitLocale(args.location.pathname);
  const absolute = (p: string) => new URL(p, root.baseUrl).toString();
  tags.push({ tagName: "link", rel: "canonical", href: absolute(args.location.pathname) });
  for (const locale of locales) {
    tags.push({ tagName: "link", rel: "alternate", hrefLang: locale, href: absolute(localizePath(path, locale)) });
  }
  tags.push({
    tagName: "link",
    rel: "alternate",
    hrefLang: "x-default",
    href: absolute(localizePath(path, defaultLocale)),
  });
  return tags;
}
