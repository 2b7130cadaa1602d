/**
 * The integration tests' mailbox: the shared SMTP capture (tests/support/smtp-capture.ts)
 * with the messages kept in memory. The app sends through nodemailer to `mailbox.url`
 * (pass it as SMTP_URL). A request only queues its email and a worker sends it a moment
 * later: wait for mail (`waitFor`), and let mail settle before saying none came (`settled`).
 */
import { startSmtpCapture, type ParsedMail } from "../../support/smtp-capture";
import { noteMailSecrets } from "./secrets";

export interface CapturedMail extends ParsedMail {
  raw: string;
}

export interface Mailbox {
  /** smtp://127.0.0.1:<port>: the SMTP_URL to start the app with. */
  url: string;
  /** Every message received so far, oldest first. */
  messages: CapturedMail[];
  /**
   * Resolves with the next message to `to` (matching `predicate`, if given) that no earlier
   * `waitFor` returned, waiting up to `timeoutMs` for it to arrive. Taking each message once
   * lets a test wait for "the second verification email" by simply waiting twice.
   */
  waitFor(to: string, predicate?: (mail: CapturedMail) => boolean, timeoutMs?: number): Promise<CapturedMail>;
  /** Messages to `to` received so far. */
  to(to: string): CapturedMail[];
  /**
   * Messages to `to` once mail still on its way has had `ms` to arrive: for asserting that
   * no (further) message came, which reading `to` right after a response cannot show.
   */
  settled(to: string, ms?: number): Promise<CapturedMail[]>;
  close(): Promise<void>;
}

/**
 * Listens on `port` (0: any free one), e.g. again where a closed mailbox was; refuses the
 * recipients `refuses` names with 550.
 */
export async function startMailbox({
  port = 0,
  refuses,
}: { port?: number; refuses?: (recipient: string) => boolean } = {}): Promise<Mailbox> {
  const messages: CapturedMail[] = [];
  const taken = new Set<CapturedMail>();
  const listeners = new Set<() => void>();
  const capture = await startSmtpCapture({
    port,
    refuses,
    onMail(mail, raw) {
      messages.push({ ...mail, raw: raw.toString("utf8") });
      noteMailSecrets(mail.links);
      for (const listener of listeners) listener();
    },
  });

  const to = (address: string) => messages.filter((mail) => mail.to.includes(address.toLowerCase()));

  return {
    url: capture.url,
    messages,
    to,
    async settled(address, ms = 300) {
      await new Promise((resolve) => setTimeout(resolve, ms));
      return to(address);
    },
    waitFor(address, predicate = () => true, timeoutMs = 10_000) {
      const find = () => to(address).find((mail) => !taken.has(mail) && predicate(mail));
      return new Promise((resolve, reject) => {
        const done = (mail: CapturedMail) => {
          clearTimeout(timer);
          listeners.delete(check);
          taken.add(mail);
          resolve(mail);
        };
        const check = () => {
          const mail = find();
          if (mail) done(mail);
        };
        const timer = setTimeout(() => {
          listeners.delete(check);
          const seen = messages.map((mail) => `${mail.to.join(",")}: ${mail.subject}`).join("\n  ");
          reject(new Error(`No mail to ${address} within ${timeoutMs} ms. Received:\n  ${seen || "(none)"}`));
        }, timeoutMs);
        listeners.add(check);
        check();
      });
    },
    close: capture.close,
  };
}
