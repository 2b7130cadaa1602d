import { describe, expect, it } from "vitest";
import { BACKUP_CODE_ALPHABET, BACKUP_CODE_LENGTH, backupCodeCandidates, newBackupCode } from "./backup-codes.server";

const LOOK_ALIKES = ["0", "O", "o", "1", "I", "l", "i"];

describe("backup codes", () => {
  it("are drawn from capitals and digits without the characters read as each other", () => {
    expect(BACKUP_CODE_ALPHABET).toBe("ABCDEFGHJKMNPQRSTUVWXYZ23456789");
    expect(new Set(BACKUP_CODE_ALPHABET).size).toBe(BACKUP_CODE_ALPHABET.length);
    for (const character of LOOK_ALIKES) expect(BACKUP_CODE_ALPHABET).not.toContain(character);
  });

  it("are shown as two groups of five, every character of the alphabet, none other", () => {
    const seen = new Set<string>();
    for (let i = 0; i < 2000; i++) {
      const { value, shown } = newBackupCode();
      expect(value).toHaveLength(BACKUP_CODE_LENGTH);
      expect(shown).toBe(`${value.slice(0, 5)}-${value.slice(5)}`);
      for (const character of value) seen.add(character);
    }
    expect([...seen].sort().join("")).toBe([...BACKUP_CODE_ALPHABET].sort().join(""));
  });

  it("are compared as typed first (older codes had both cases), then in capitals, without spaces or dashes", () => {
    expect(backupCodeCandidates("ABCDE-FGHJK")).toEqual(["ABCDEFGHJK"]);
    expect(backupCodeCandidates(" abcde fghjk ")).toEqual(["abcdefghjk", "ABCDEFGHJK"]);
    expect(backupCodeCandidates("aB3dE-f9hIl")).toEqual(["aB3dEf9hIl", "AB3DEF9HIL"]);
  });
});
