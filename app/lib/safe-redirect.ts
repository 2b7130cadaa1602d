/**
 * The one redirect validator. `target` is resolved against the site's own origin (the first
 * of `trustedOrigins`, which is BASE_URL) the way a browser would resolve a Location header,
 * and is safe when the result is http(s) on a trusted origin, without credentials.
 *
 * Returns the target normalized (ASCII only, percent-encoded, so it can go into a header as
 * is): a path ("/x?y#z") when it was given as one, the absolute URL when it was given as one;
 * null when unsafe. A path that only normalizes into "//host…" (e.g. "/.//evil.example") is
 * refused: a browser would read it as another host. Anything built from a safe target (a
 * query parameter added, a locale prefix removed) must be checked again.
 */
export function safeRedirect(target: unknown, trustedOrigins: readonly string[]): string | null {
  if (typeof target !== "string" || target.length === 0 || target.length > 2048) return null;
  // Control characters and backslashes are how browsers get tricked into other hosts.
  if (/[\u0000-\u001f\u007f\\]/.test(target)) return null;
  const base = trustedOrigins[0];
  const isPath = target.startsWith("/");
  if (!base || (!isPath && !/^https?:\/\//i.test(target))) return null;
  let url: URL;
  try {
    url = new URL(target, base);
  } catch {
    return null;
  }
  if (url.protocol !== "http:" && url.protocol !== "https:") return null;
  if (url.username || url.password || !trustedOrigins.includes(url.origin)) return null;
  if (!isPath) return url.href;
  const path = url.pathname + url.search + url.hash;
  return path.startsWith("//") ? null : path;
}

/** `target` (already safe) with `params` set in its query, checked again; null when that made it unsafe. */
export function withParams(
  target: string,
  params: Record<string, string>,
  trustedOrigins: readonly string[],
): string | null {
  const base = trustedOrigins[0];
  if (!base) return null;
  const url = new URL(target, base);
  for (const [key, value] of Object.entries(params)) url.searchParams.set(key, value);
  return safeRedirect(target.startsWith("/") ? url.pathname + url.search + url.hash : url.href, trustedOrigins);
}

/** `path` carrying `target` as its `?redirect=` (where to go after that page), when there is one. */
export function withRedirect(path: string, target: string | null | undefined): string {
  return target ? `${path}?${new URLSearchParams({ redirect: target })}` : path;
}

export function isExternalUrl(target: string): boolean {
  return /^[a-z][a-z0-9+.-]*:/i.test(target) || target.startsWith("//");
}
