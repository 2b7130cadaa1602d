/**
 * RFC 6238 TOTP (HMAC-SHA1, 6 digits, 30 s) written out with node:crypto, so that tests check
 * the server's codes against an implementation of their own rather than the server's library.
 */
import { createHmac } from "node:crypto";

const ALPHABET = "ABCDEFGHIJKLMNOPQRSTUVWXYZ234567";

function base32Decode(input: string): Buffer {
  let bits = 0;
  let value = 0;
  const out: number[] = [];
  for (const char of input.replace(/=+$/, "").toUpperCase()) {
    const index = ALPHABET.indexOf(char);
    if (index < 0) throw new Error(`Not base32: ${char}`);
    value = (value << 5) | index;
    bits += 5;
    if (bits >= 8) {
      out.push((value >>> (bits - 8)) & 0xff);
      bits -= 8;
    }
  }
  return Buffer.from(out);
}

/** The time step of `at` (ms since the epoch). */
export const stepAt = (at = Date.now()) => Math.floor(at / 1000 / 30);

/** The 6-digit code of a base32 `secret` for time step `step`. */
export function totp(secret: string, step = stepAt()): string {
  const counter = Buffer.alloc(8);
  counter.writeBigUInt64BE(BigInt(step));
  const mac = createHmac("sha1", base32Decode(secret)).update(counter).digest();
  const offset = mac[mac.length - 1]! & 0x0f;
  const binary = mac.readUInt32BE(offset) & 0x7fffffff;
  return String(binary % 1_000_000).padStart(6, "0");
}

/** The secret of an otpauth:// URI. */
export const secretOfURI = (uri: string) => new URL(uri).searchParams.get("secret") ?? "";
