import { pages } from "~/config/navigation";
import { defaultLocale, localizePath, locales } from "~/i18n/config";
import { loadEnv } from "~/server/env.server";

const escapeXml = (value: string) =>
  value.replace(/[<>&'"]/g, (c) => ({ "<": "&lt;", ">": "&gt;", "&": "&amp;", "'": "&apos;", '"': "&quot;" })[c]!);

/** Every public page in every language, each entry naming its alternates (and x-default). */
export function loader() {
  const base = loadEnv().BASE_URL;
  const href = (path: string) => escapeXml(new URL(path, base).toString());
  const urls = pages
    .filter((page) => page.sitemap)
    .flatMap((page) => {
      const alternates = [
        ...locales.map(
          (lng) => `    <xhtml:link rel="alternate" hreflang="${lng}" href="${href(localizePath(page.path, lng))}"/>`,
        ),
        `    <xhtml:link rel="alternate" hreflang="x-default" href="${href(localizePath(page.path, defaultLocale))}"/>`,
      ].join("\n");
      return locales.map(
        (lng) => `  <url>\n    <loc>${href(localizePath(page.path, lng))}</loc>\n${alternates}\n  </url>`,
      );
    });
  const xml = `<?xml version="1.0" encoding="UTF-8"?>
<urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9" xmlns:xhtml="http://www.w3.org/1999/xhtml">
${urls.join("\n")}
</urlset>
`;
  return new Response(xml, {
    headers: { "Content-Type": "application/xml; charset=utf-8", "Cache-Control": "public, max-age=3600" },
  });
}
