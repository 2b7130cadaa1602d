/**
 * Backup codes as people read and type them: capital letters and digits without the pairs
 * that are read as each other (0 and O, 1 and I and l), so a code copied from paper or a
 * screen in any font comes back as it was given. Shown as two groups of five (xxxxx-xxxxx).
 */
import { randomInt } from "node:crypto";

export const BACKUP_CODE_ALPHABET = "ABCDEFGHJKMNPQRSTUVWXYZ23456789";
export const BACKUP_CODE_LENGTH = 10;

/** A new code's value (what is stored, as an HMAC) and how it is shown. */
export function newBackupCode(): { value: string; shown: string } {
  let value = "";
  for (let i = 0; i < BACKUP_CODE_LENGTH; i++) value += BACKUP_CODE_ALPHABET[randomInt(BACKUP_CODE_ALPHABET.length)];
  return { value, shown: `${value.slice(0, 5)}-${value.slice(5)}` };
}

/**
 * What a typed code may be stored as, most likely first. Spaces and dashes never count. Codes
 * made before this alphabet were letters of both cases and digits, compared exactly: the code
 * as typed is tried first, so they still work. Today's codes are capitals only, so a code
 * typed in lower case is also tried in capitals.
 */
export function backupCodeCandidates(typed: string): string[] {
  const bare = typed.replace(/[\s-]/g, "");
  const upper = bare.toUpperCase();
  return upper === bare ? [bare] : [bare, upper];
}
