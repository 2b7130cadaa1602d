import { createHmac, timingSafeEqual } from "node:crypto";

/** Parses a Cookie header into name → raw (still URL-encoded) value; the first of a name wins. */
export function parseCookies(header: string | null): Map<string, string> {
  const jar = new Map<string, string>();
  for (const part of header?.split(";") ?? []) {
    const eq = part.indexOf("=");
    if (eq < 1) continue;
    const name = part.slice(0, eq).trim();
    if (!jar.has(name)) jar.set(name, part.slice(eq + 1).trim());
  }
  return jar;
}

/** base64(HMAC-SHA256(secret, value)): always 44 characters with "=" padding. */
export function sign(value: string, secret: string): string {
  return createHmac("sha256", secret).update(value).digest("base64");
}

/** Turns "value.signature" back into value when the signature is genuine, else null. */
export function unsign(signed: string, secret: string): string | null {
  const dot = signed.lastIndexOf(".");
  if (dot < 1) return null;
  const value = signed.slice(0, dot);
  const given = Buffer.from(signed.slice(dot + 1));
  if (given.length !== 44) return null;
  const expected = Buffer.from(sign(value, secret));
  return timingSafeEqual(given, expected) ? value : null;
}

export interface CookieOptions {
  maxAge?: number;
  secure: boolean;
  httpOnly?: boolean;
}

export function serializeCookie(name: string, value: string, options: CookieOptions): string {
  const parts = [`${name}=${value}`, "Path=/", "SameSite=Lax"];
  if (options.maxAge !== undefined) parts.push(`Max-Age=${options.maxAge}`);
  if (options.httpOnly !== false) parts.push("HttpOnly");
  if (options.secure) parts.push("Secure");
  return parts.join("; ");
}
