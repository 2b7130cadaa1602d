/**
 * A real SMTP server for integration tests: the app sends through nodemailer to
 * `mailbox.url` (pass it as SMTP_URL), and each message is captured and decoded here, with
 * just enough MIME (multipart, base64, quoted-printable, encoded-word subjects) to read what
 * nodemailer writes.
 */
import { SMTPServer } from "smtp-server";
import { freePort } from "./server";

export interface CapturedMail {
  from: string;
  /** Envelope recipients, lower-cased. */
  to: string[];
  subject: string;
  text: string;
  html: string;
  /** Every http(s) URL of the text part, in order, without duplicates. */
  links: string[];
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
  close(): Promise<void>;
}

// ---- minimal MIME ----

function splitHeaders(raw: string): { headers: Map<string, string>; body: string } {
  const normalized = raw.replace(/\r\n/g, "\n");
  const end = normalized.indexOf("\n\n");
  const head = end < 0 ? normalized : normalized.slice(0, end);
  const body = end < 0 ? "" : normalized.slice(end + 2);
  const headers = new Map<string, string>();
  // Unfold continuation lines, then read "Name: value".
  for (const line of head.replace(/\n[ \t]+/g, " ").split("\n")) {
    const colon = line.indexOf(":");
    if (colon > 0) headers.set(line.slice(0, colon).trim().toLowerCase(), line.slice(colon + 1).trim());
  }
  return { headers, body };
}

function decodeQuotedPrintable(text: string): string {
  const bytes: number[] = [];
  const input = text.replace(/=\n/g, "");
  for (let i = 0; i < input.length; i++) {
    const hex = input.slice(i + 1, i + 3);
    if (input[i] === "=" && /^[0-9A-Fa-f]{2}$/.test(hex)) {
      bytes.push(parseInt(hex, 16));
      i += 2;
    } else {
      bytes.push(...Buffer.from(input[i]!, "utf8"));
    }
  }
  return Buffer.from(bytes).toString("utf8");
}

function decodeBody(body: string, encoding: string | undefined): string {
  switch ((encoding ?? "7bit").toLowerCase()) {
    case "base64":
      return Buffer.from(body.replace(/\s+/g, ""), "base64").toString("utf8");
    case "quoted-printable":
      return decodeQuotedPrintable(body);
    default:
      return body;
  }
}

/** "=?UTF-8?B?...?=" / "=?UTF-8?Q?...?=" words, as nodemailer writes non-ASCII subjects. */
function decodeWords(value: string): string {
  return value
    .replace(/\?=\s+=\?/g, "?==?")
    .replace(/=\?([^?]+)\?([BQbq])\?([^?]*)\?=/g, (_, _charset: string, kind: string, data: string) =>
      kind.toUpperCase() === "B"
        ? Buffer.from(data, "base64").toString("utf8")
        : decodeQuotedPrintable(data.replace(/_/g, " ")),
    );
}

/** Collects the text/plain and text/html parts of a (possibly nested multipart) entity. */
function collectParts(entity: string, out: { text: string; html: string }): void {
  const { headers, body } = splitHeaders(entity);
  const type = headers.get("content-type") ?? "text/plain";
  const boundary = /boundary="?([^";]+)"?/i.exec(type)?.[1];
  if (/^multipart\//i.test(type) && boundary) {
    const parts = body.split(`--${boundary}`).slice(1);
    for (const part of parts) {
      if (part.startsWith("--")) break; // closing delimiter
      collectParts(part.replace(/^\n/, ""), out);
    }
    return;
  }
  const decoded = decodeBody(body, headers.get("content-transfer-encoding"));
  if (/^text\/html/i.test(type)) out.html += decoded;
  else if (/^text\/plain/i.test(type)) out.text += decoded;
}

export function parseMail(raw: string, envelope: { from: string; to: string[] }): CapturedMail {
  const { headers } = splitHeaders(raw);
  const parts = { text: "", html: "" };
  collectParts(raw, parts);
  const links = [...new Set(parts.text.match(/https?:\/\/[^\s"'<>]+/g) ?? [])];
  return {
    from: envelope.from,
    to: envelope.to.map((address) => address.toLowerCase()),
    subject: decodeWords(headers.get("subject") ?? ""),
    text: parts.text,
    html: parts.html,
    links,
    raw,
  };
}

// ---- the server ----

/**
 * `delayMs` holds every message that long before accepting it, as a real mail server over a
 * network does (a few hundred milliseconds), so that tests can see who waits for mail.
 */
export async function startMailbox({ delayMs = 0 }: { delayMs?: number } = {}): Promise<Mailbox> {
  const messages: CapturedMail[] = [];
  const taken = new Set<CapturedMail>();
  const listeners = new Set<() => void>();

  const server = new SMTPServer({
    authOptional: true,
    disabledCommands: ["STARTTLS", "AUTH"],
    logger: false,
    onData(stream, session, callback) {
      const chunks: Buffer[] = [];
      stream.on("data", (chunk: Buffer) => chunks.push(chunk));
      stream.on("end", () => {
        const envelope = {
          from: session.envelope.mailFrom ? session.envelope.mailFrom.address : "",
          to: session.envelope.rcptTo.map((rcpt) => rcpt.address),
        };
        messages.push(parseMail(Buffer.concat(chunks).toString("utf8"), envelope));
        for (const listener of listeners) listener();
        setTimeout(callback, delayMs);
      });
    },
  });
  const port = await freePort();
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(port, "127.0.0.1", () => resolve());
  });

  const to = (address: string) => messages.filter((mail) => mail.to.includes(address.toLowerCase()));

  return {
    url: `smtp://127.0.0.1:${port}`,
    messages,
    to,
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
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}
