/**
 * The one SMTP capture of the test suites: a real SMTP server (smtp-server) that the app
 * sends to through nodemailer, and just enough MIME to read the app's own emails: headers
 * (with encoded words), multipart bodies, and quoted-printable / base64 parts in UTF-8. The
 * integration tests keep the messages in memory (integration/helpers/mailbox.ts); the browser
 * tests' global setup writes them as files the test workers read (e2e/support/global-setup.ts).
 */
import { SMTPServer } from "smtp-server";

export interface ParsedMail {
  /** Envelope recipients (the To header when there are none), lower-cased. */
  to: string[];
  from: string;
  subject: string;
  text: string;
  html: string;
  /** Every http(s) URL of the text part, in order, without duplicates. */
  links: string[];
}

function splitHead(raw: string): { headers: Map<string, string>; body: string } {
  const match = /\r?\n\r?\n/.exec(raw);
  const head = match ? raw.slice(0, match.index) : raw;
  const body = match ? raw.slice(match.index + match[0].length) : "";
  const headers = new Map<string, string>();
  for (const line of head.replace(/\r?\n[ \t]+/g, " ").split(/\r?\n/)) {
    const colon = line.indexOf(":");
    if (colon > 0) headers.set(line.slice(0, colon).trim().toLowerCase(), line.slice(colon + 1).trim());
  }
  return { headers, body };
}

const utf8 = (latin1: string) => Buffer.from(latin1, "latin1").toString("utf8");

function decodeQuotedPrintable(text: string): string {
  const soft = text.replace(/=\r?\n/g, "");
  return utf8(soft.replace(/=([0-9A-F]{2})/gi, (_, hex: string) => String.fromCharCode(parseInt(hex, 16))));
}

function decodeBody(body: string, encoding: string | undefined): string {
  switch (encoding?.toLowerCase()) {
    case "base64":
      return Buffer.from(body.replace(/\s+/g, ""), "base64").toString("utf8");
    case "quoted-printable":
      return decodeQuotedPrintable(body);
    default:
      return utf8(body);
  }
}

/** "=?UTF-8?Q?...?=" / "=?UTF-8?B?...?=" words in a header. */
function decodeWords(value: string): string {
  return value
    .replace(/\?=\s+=\?/g, "?==?")
    .replace(/=\?([^?]+)\?([QB])\?([^?]*)\?=/gi, (_, _charset: string, kind: string, text: string) =>
      kind.toUpperCase() === "B"
        ? Buffer.from(text, "base64").toString("utf8")
        : decodeQuotedPrintable(text.replace(/_/g, " ")),
    );
}

function collectParts(raw: string, out: { text: string; html: string }) {
  const { headers, body } = splitHead(raw);
  const type = headers.get("content-type") ?? "text/plain";
  const boundary = /boundary="?([^";]+)"?/i.exec(type)?.[1];
  if (/^multipart\//i.test(type) && boundary) {
    const sections = body.split(`--${boundary}`);
    for (const section of sections.slice(1)) {
      if (section.startsWith("--")) break;
      collectParts(section.replace(/^\r?\n/, ""), out);
    }
    return;
  }
  const decoded = decodeBody(body, headers.get("content-transfer-encoding"));
  if (/^text\/html/i.test(type)) out.html ||= decoded;
  else if (/^text\/plain/i.test(type)) out.text ||= decoded;
}

/** The raw message as the server received it, with its SMTP envelope. */
export function parseMail(raw: Buffer, envelope: { from: string; to: string[] }): ParsedMail {
  const latin1 = raw.toString("latin1");
  const { headers } = splitHead(latin1);
  const out = { text: "", html: "" };
  collectParts(latin1, out);
  const headerTo = (headers.get("to") ?? "")
    .split(",")
    .map((address) => (/<([^>]+)>/.exec(address)?.[1] ?? address).trim().toLowerCase())
    .filter(Boolean);
  return {
    to: envelope.to.length ? envelope.to.map((address) => address.toLowerCase()) : headerTo,
    from: envelope.from,
    subject: decodeWords(utf8(headers.get("subject") ?? "")),
    ...out,
    links: [...new Set(out.text.match(/https?:\/\/[^\s"'<>]+/g) ?? [])],
  };
}

export interface SmtpCapture {
  /** smtp://127.0.0.1:<port>: the SMTP_URL to start the app with. */
  url: string;
  close(): Promise<void>;
}

/** Listens on `port` (0: any free one) and hands every message to `onMail`. */
export async function startSmtpCapture(options: {
  port?: number;
  onMail(mail: ParsedMail, raw: Buffer): void;
  /** Recipients refused with 550, as a server refuses a mailbox that does not exist. */
  refuses?: (recipient: string) => boolean;
}): Promise<SmtpCapture> {
  const server = new SMTPServer({
    authOptional: true,
    disabledCommands: ["STARTTLS", "AUTH"],
    logger: false,
    onRcptTo(address, _session, callback) {
      if (!options.refuses?.(address.address)) return callback();
      callback(Object.assign(new Error("5.1.1 No such mailbox"), { responseCode: 550 }));
    },
    onData(stream, session, callback) {
      const chunks: Buffer[] = [];
      stream.on("data", (chunk: Buffer) => chunks.push(chunk));
      stream.on("end", () => {
        const raw = Buffer.concat(chunks);
        const envelope = {
          from: session.envelope.mailFrom ? session.envelope.mailFrom.address : "",
          to: session.envelope.rcptTo.map((rcpt) => rcpt.address),
        };
        options.onMail(parseMail(raw, envelope), raw);
        callback();
      });
    },
  });
  const port = await new Promise<number>((resolve, reject) => {
    server.once("error", reject);
    server.listen(options.port ?? 0, "127.0.0.1", () => {
      const address = server.server.address();
      resolve(typeof address === "object" && address ? address.port : 0);
    });
  });
  return {
    url: `smtp://127.0.0.1:${port}`,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}
