import { mkdirSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { startSmtpCapture } from "../../support/smtp-capture";

/**
 * The shared SMTP capture for the e2e web server (SMTP_URL points here, see
 * playwright.config.ts): every message is written as JSON into E2E_MAIL_DIR, where the test
 * workers read it (support/mail.ts). Returns the teardown that stops it.
 */
export default async function globalSetup() {
  const dir = process.env.E2E_MAIL_DIR!;
  rmSync(dir, { recursive: true, force: true });
  mkdirSync(dir, { recursive: true });
  let count = 0;
  const capture = await startSmtpCapture({
    port: Number(process.env.E2E_SMTP_PORT),
    onMail(mail) {
      writeFileSync(join(dir, `${Date.now()}-${String(++count).padStart(5, "0")}.json`), JSON.stringify(mail));
    },
  });
  return capture.close;
}
