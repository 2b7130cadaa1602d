/**
 * Rendered HTML of anonymous pages, reused while what the render depends on stays the same.
 *
 * A document is a function of its URL, the loaders' data, the status and the CSP nonce. So
 * the key is the URL plus the loaders' data (which hold the locale and the absence of a
 * user and of a toast); the loaders and middleware still run on every request, so redirects,
 * guards and headers stay exact, and only React's render is skipped. The nonce is fresh per
 * response: the cached copy's is replaced. Bounded: the least recently used entries go.
 * A request with `Cache-Control: no-cache` is always rendered (the benchmark's uncached runs).
 */
import type { EntryContext } from "react-router";

const MAX_ENTRIES = 200;
const entries = new Map<string, { html: string; nonce: string }>();

/** The cache key of this render, or null when it must not be cached. */
export function pageCacheKey(request: Request, status: number, headers: Headers, context: EntryContext): string | null {
  const { loaderData, actionData, errors } = context.staticHandlerContext;
  if (request.method !== "GET" || status !== 200 || errors || actionData || context.isSpaMode) return null;
  if (headers.has("Set-Cookie") || /no-cache|no-store/.test(request.headers.get("Cache-Control") ?? "")) return null;
  const root = loaderData.root as { user?: unknown; toast?: unknown } | undefined;
  if (!root || root.user || root.toast) return null;
  return `${request.url}\n${JSON.stringify(loaderData)}`;
}

/** The cached document for `key` with `nonce` in place of the one it was rendered with. */
export function cachedPage(key: string, nonce: string): string | null {
  const entry = entries.get(key);
  if (!entry) return null;
  entries.delete(key); // most recently used goes last
  entries.set(key, entry);
  return entry.html.replaceAll(entry.nonce, nonce);
}

export function storePage(key: string, html: string, nonce: string): void {
  entries.delete(key);
  entries.set(key, { html, nonce });
  if (entries.size > MAX_ENTRIES) entries.delete(entries.keys().next().value!);
}
