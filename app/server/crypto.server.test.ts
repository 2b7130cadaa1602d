import { createDecipheriv, hkdfSync } from "node:crypto";
import { describe, expect, it } from "vitest";
import { decryptSecret, encryptSecret } from "./crypto.server";

const SECRET = "unit-test-secret-0123456789abcdefghijkl";
const TOKEN = "ya29.a0AfH6SMB-access-token_ünïcödé";

/** The value with one byte of its decoded form flipped. */
function flip(value: string, index: number): string {
  const bytes = Buffer.from(value.slice(3), "base64url");
  bytes[index] = bytes[index]! ^ 1;
  return `v1.${bytes.toString("base64url")}`;
}

describe("encryptSecret / decryptSecret", () => {
  it("round-trips, including empty and non-ASCII text", () => {
    for (const text of [TOKEN, "", "x".repeat(5000)]) {
      expect(decryptSecret(SECRET, encryptSecret(SECRET, text))).toBe(text);
    }
  });

  it("passes null and undefined through as null", () => {
    expect(encryptSecret(SECRET, null)).toBeNull();
    expect(encryptSecret(SECRET, undefined)).toBeNull();
    expect(decryptSecret(SECRET, null)).toBeNull();
    expect(decryptSecret(SECRET, undefined)).toBeNull();
  });

  it("writes v1. and base64url of a 12-byte IV, the ciphertext and a 16-byte tag", () => {
    const value = encryptSecret(SECRET, TOKEN);
    expect(value).toMatch(/^v1\.[A-Za-z0-9_-]+$/);
    const bytes = Buffer.from(value.slice(3), "base64url");
    expect(bytes.length).toBe(12 + Buffer.byteLength(TOKEN) + 16);
  });

  it("is AES-256-GCM under an HKDF-SHA256 key with a fixed info string", () => {
    const bytes = Buffer.from(encryptSecret(SECRET, TOKEN).slice(3), "base64url");
    const key = Buffer.from(hkdfSync("sha256", SECRET, "", "stored-secret-encryption/aes-256-gcm/v1", 32));
    const decipher = createDecipheriv("aes-256-gcm", key, bytes.subarray(0, 12));
    decipher.setAuthTag(bytes.subarray(-16));
    expect(Buffer.concat([decipher.update(bytes.subarray(12, -16)), decipher.final()]).toString()).toBe(TOKEN);
  });

  it("differs every time and never shows the plaintext", () => {
    const values = Array.from({ length: 20 }, () => encryptSecret(SECRET, TOKEN));
    expect(new Set(values).size).toBe(values.length);
    const ivs = values.map((value) => Buffer.from(value.slice(3), "base64url").subarray(0, 12).toString("hex"));
    expect(new Set(ivs).size).toBe(values.length);
    for (const value of values) {
      expect(value).not.toContain("access-token");
      expect(value).not.toContain(Buffer.from(TOKEN).toString("base64url").slice(0, 12));
    }
  });

  it("throws when any part was altered", () => {
    const value = encryptSecret(SECRET, TOKEN);
    const length = Buffer.from(value.slice(3), "base64url").length;
    // A byte of the IV, of the ciphertext and of the tag.
    for (const index of [0, 12, length - 1]) expect(() => decryptSecret(SECRET, flip(value, index))).toThrow();
    expect(() => decryptSecret(SECRET, value.slice(0, -2))).toThrow();
    expect(() => decryptSecret(SECRET, `${value}!`)).toThrow();
    expect(() => decryptSecret(SECRET, `v2.${value.slice(3)}`)).toThrow();
    expect(() => decryptSecret(SECRET, TOKEN)).toThrow();
    expect(() => decryptSecret(SECRET, "v1.")).toThrow();
  });

  it("throws for another secret", () => {
    expect(() => decryptSecret(`${SECRET}-other`, encryptSecret(SECRET, TOKEN))).toThrow();
  });
});
