import { mkdirSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { SMTPServer } from "smtp-server";
import { parseMail } from "./mime";

/**
 * An SMTP capture for the e2e web server (SMTP_URL points here, see playwright.config.ts):
 * every message is parsed and written as JSON into E2E_MAIL_DIR, where tests read it
 * (support/mail.ts). Returns the teardown that stops it.
 */
export default async function globalSetup() {
  const dir = process.env.E2E_MAIL_DIR!;
  const port = Number(process.env.E2E_SMTP_PORT);
  rmSync(dir, { recursive: true, force: true });
  mkdirSync(dir, { recursive: true });
  let count = 0;
  const server = new SMTPServer({
    authOptional: true,
    disabledCommands: ["STARTTLS", "AUTH"],
    logger: false,
    onData(stream, session, callback) {
      const chunks: Buffer[] = [];
      stream.on("data", (chunk: Buffer) => chunks.push(chunk));
      stream.on("end", () => {
        const mail = parseMail(Buffer.concat(chunks));
        const recipients = session.envelope.rcptTo.map((r) => r.address.toLowerCase());
        const file = join(dir, `${Date.now()}-${String(++count).padStart(5, "0")}.json`);
        writeFileSync(file, JSON.stringify({ ...mail, to: recipients.length ? recipients : mail.to }));
        callback();
      });
    },
  });
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(port, "127.0.0.1", () => resolve());
  });
  return async () => {
    await new Promise<void>((resolve) => server.close(() => resolve()));
  };
}
