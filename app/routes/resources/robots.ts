import { loadEnv } from "~/server/env.server";

export function loader() {
  const body = [
    "User-agent: *",
    "Allow: /",
    "Disallow: /admin",
    "Disallow: /profile",
    "Disallow: /organizations",
    "Disallow: /api",
    "",
    `Sitemap: ${new URL("/sitemap.xml", loadEnv().BASE_URL).toString()}`,
    "",
  ].join("\n");
  return new Response(body, {
    headers: { "Content-Type": "text/plain; charset=utf-8", "Cache-Control": "public, max-age=3600" },
  });
}
