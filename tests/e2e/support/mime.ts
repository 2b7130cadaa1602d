/**
 * Just enough MIME to read the app's own emails in tests: headers (with encoded words),
 * multipart bodies, and quoted-printable / base64 parts in UTF-8. The raw message is read
 * as latin1 so every byte survives until a part is decoded.
 */
export interface ParsedMail {
  to: string[];
  subject: string;
  text: string;
  html: string;
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

export function parseMail(raw: Buffer): ParsedMail {
  const latin1 = raw.toString("latin1");
  const { headers } = splitHead(latin1);
  const out = { text: "", html: "" };
  collectParts(latin1, out);
  const to = (headers.get("to") ?? "")
    .split(",")
    .map((address) => (/<([^>]+)>/.exec(address)?.[1] ?? address).trim().toLowerCase())
    .filter(Boolean);
  return { to, subject: utf8(decodeWords(headers.get("subject") ?? "")), ...out };
}
