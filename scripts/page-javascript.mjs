// The JavaScript a page makes the browser load: its script tags, module preloads and the
// entry's dynamic import, as served, gzipped; and the page's status, and whether it was
// reached through a redirect (then the JavaScript is that of where it led). Shared by the
// benchmark and the budget test.
import { gzipSync } from "node:zlib";

export async function pageJavaScript(base, path, headers = {}) {
  const page = await fetch(new URL(path, base), { headers });
  const html = await page.text();
  const urls = new Set(
    [...html.matchAll(/<(?:script[^>]*\ssrc|link[^>]*rel="modulepreload"[^>]*\shref)="([^"]+\.js)"/g)].map((m) => m[1]),
  );
  for (const m of html.matchAll(/import\s*\(?\s*"([^"]+\.js)"/g)) urls.add(m[1]);
  let gzipBytes = 0;
  for (const url of urls)
    gzipBytes += gzipSync(Buffer.from(await (await fetch(new URL(url, base))).arrayBuffer())).length;
  return { status: page.status, redirected: page.redirected, urls: [...urls], gzipBytes };
}
