/**
 * The one redirect validator. A target is safe when it is a relative path on this site
 * ("/x", not "//evil" or "/\evil") or an absolute URL on a trusted origin.
 * Returns the target when safe, otherwise null.
 */
export function safeRedirect(target: unknown, trustedOrigins: readonly string[]): string | null {
  if (typeof target !== "string" || target.length === 0 || target.length > 2048) return null;
  // Control characters and backslashes are how browsers get tricked into other hosts.
  if (/[\u0000-\u001f\\]/.test(target)) return null;
  if (target.startsWith("/")) return target.startsWith("//") ? null : target;
  try {
    const url = new URL(target);
    if (url.protocol !== "http:" && url.protocol !== "https:") return null;
    return trustedOrigins.includes(url.origin) ? url.toString() : null;
  } catch {
    return null;
  }
}

export function isExternalUrl(target: string): boolean {
  return /^[a-z][a-z0-9+.-]*:/i.test(target) || target.startsWith("//");
}
