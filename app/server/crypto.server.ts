/**
 * Encryption of secrets kept in the database (OAuth tokens, two-factor secrets), so a leaked
 * copy of the database does not hand them out.
 *
 * AES-256-GCM with a key derived from AUTH_SECRET by HKDF-SHA256, and a random 96-bit IV per
 * value. A value is `v1.` followed by base64url(iv | ciphertext | tag): the prefix leaves room
 * for another scheme or key later without guessing what a stored value is.
 */
import { createCipheriv, createDecipheriv, hkdfSync, randomBytes } from "node:crypto";

const PREFIX = "v1.";
// Binds the derived key to this use: other keys derived from AUTH_SECRET differ from it.
const KEY_INFO = "stored-secret-encryption/aes-256-gcm/v1";
const IV_BYTES = 12;
const TAG_BYTES = 16;

const deriveKey = (secret: string) => Buffer.from(hkdfSync("sha256", secret, "", KEY_INFO, 32));

/** The encrypted form of `plaintext`, different on every call; null for null or undefined. */
export function encryptSecret(secret: string, plaintext: string): string;
export function encryptSecret(secret: string, plaintext: string | null | undefined): string | null;
export function encryptSecret(secret: string, plaintext: string | null | undefined): string | null {
  if (plaintext == null) return null;
  const iv = randomBytes(IV_BYTES);
  const cipher = createCipheriv("aes-256-gcm", deriveKey(secret), iv, { authTagLength: TAG_BYTES });
  const ciphertext = Buffer.concat([cipher.update(plaintext, "utf8"), cipher.final()]);
  return PREFIX + Buffer.concat([iv, ciphertext, cipher.getAuthTag()]).toString("base64url");
}

/** The plaintext of a value from `encryptSecret`; throws when it was altered or the secret differs. */
export function decryptSecret(secret: string, value: string): string;
export function decryptSecret(secret: string, value: string | null | undefined): string | null;
export function decryptSecret(secret: string, value: string | null | undefined): string | null {
  if (value == null) return null;
  const encoded = value.slice(PREFIX.length);
  const bytes = Buffer.from(encoded, "base64url");
  // Node's decoder skips characters it does not know, so an altered string could decode alike.
  if (!value.startsWith(PREFIX) || bytes.length < IV_BYTES + TAG_BYTES || bytes.toString("base64url") !== encoded) {
    throw new Error("Not a value encrypted by encryptSecret");
  }
  const decipher = createDecipheriv("aes-256-gcm", deriveKey(secret), bytes.subarray(0, IV_BYTES), {
    authTagLength: TAG_BYTES,
  });
  decipher.setAuthTag(bytes.subarray(bytes.length - TAG_BYTES));
  return Buffer.concat([
    decipher.update(bytes.subarray(IV_BYTES, bytes.length - TAG_BYTES)),
    decipher.final(),
  ]).toString("utf8");
}
