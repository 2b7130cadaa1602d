// The JavaScript a page makes the browser load: its script tags, module preloads and the
// entry's dynamic import, as served, gzipped. Shared by the benchmark and the budget test.
import { gzipSync } from "node:zlib";

export async function pageJavaScript(base, path, headers = {}) {
  const html = await (await fetch(new URL(path, base), { headers })).text();
  const urls = new Set(
    [...html.matchAll(/<(?:script[^>]*\ssrc|link[^>]*rel="modulepreload"[^>]*\shref)="([^"]+\.js)"/g)].map((m) => m[1]),
  );
  for (const m of html.matchAll(/import\s*\(?\s*"([^"]+\.js)"/g)) urls.add(m[1]);
  let gzipBytes = 0;
  for (const url of urls)
    gzipBytes += gzipSync(Buffer.from(await (await fetch(new URL(url, base))).arrayBuffer())).length;
  return { urls: [...urls], gzipBytes };
}
