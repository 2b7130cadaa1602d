/** A desktop browser's user agent: crawlers are treated differently, so tests say who they are. */
export const BROWSER_UA =
  "Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/130.0 Safari/537.36";
export const CRAWLER_UA = "Mozilla/5.0 (compatible; Googlebot/2.1; +http://www.google.com/bot.html)";

/** GET without following redirects, as a browser would send it. */
export function get(url: string, headers: Record<string, string> = {}) {
  return fetch(url, { redirect: "manual", headers: { "User-Agent": BROWSER_UA, ...headers } });
}

export function post(url: string, body: Record<string, string>, headers: Record<string, string> = {}) {
  return fetch(url, {
    method: "POST",
    redirect: "manual",
    body: new URLSearchParams(body),
    headers: { "User-Agent": BROWSER_UA, "Content-Type": "application/x-www-form-urlencoded", ...headers },
  });
}

export const attr = (html: string, pattern: RegExp) => html.match(pattern)?.[1];
