import { expect } from "@playwright/test";
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import type { ParsedMail } from "../../support/smtp-capture";

export interface CapturedMail extends ParsedMail {
  file: string;
}

/** Every captured message to `to`, oldest first. */
export function mailsTo(to: string): CapturedMail[] {
  const dir = process.env.E2E_MAIL_DIR!;
  return readdirSync(dir)
    .filter((file) => file.endsWith(".json"))
    .sort()
    .map((file) => ({ ...(JSON.parse(readFileSync(join(dir, file), "utf8")) as ParsedMail), file }))
    .filter((mail) => mail.to.includes(to.toLowerCase()));
}

/**
 * Waits for a new message to `to` (one more than `seen`) and returns the link in it whose
 * path contains `path` (e.g. "/api/auth/verify-email").
 */
export async function waitForLink(to: string, path: string, seen = 0): Promise<{ url: string; mail: CapturedMail }> {
  let found: { url: string; mail: CapturedMail } | undefined;
  await expect
    .poll(
      () => {
        const mails = mailsTo(to).slice(seen);
        for (const mail of mails.reverse()) {
          const url = mail.text.match(/https?:\/\/[^\s<>"')]+/g)?.find((link) => link.includes(path));
          if (url) {
            found = { url, mail };
            return true;
          }
        }
        return false;
      },
      { message: `an email to ${to} with a ${path} link`, timeout: 15_000 },
    )
    .toBe(true);
  return found!;
}
