/**
 * Every credential a test file used (passwords the factories set, cookie values the test
 * clients hold, tokens from the mails they read, the servers' own secrets): each server's
 * output is scanned for all of them when it stops (helpers/server.ts), so no log line of the
 * whole integration suite may carry one (docs/decisions/0030-logs-and-errors.md).
 */

/**
 * Shorter values are not scanned: a locale cookie ("fr") or a six-digit code would match
 * ports, durations and ids by chance. Every token, session and password the suite uses is longer.
 */
const MIN_LENGTH = 12;

/** Value → what it is, for the failure message. */
const secrets = new Map<string, string>();

/** Adds a value the server's output must never contain; `label` says what it is. */
export function noteSecret(label: string, value: string | null | undefined): void {
  if (!value || value.length < MIN_LENGTH) return;
  secrets.set(value, label);
  // A cookie value arrives URL-encoded and signed ("token.signature"): its parts are secrets too.
  let decoded = value;
  try {
    decoded = decodeURIComponent(value);
  } catch {
    // not URL-encoded
  }
  if (decoded !== value && decoded.length >= MIN_LENGTH) secrets.set(decoded, label);
  const [token] = decoded.split(".");
  if (token && token !== decoded && token.length >= MIN_LENGTH) secrets.set(token, `${label} (its token)`);
}

/** The tokens in a mail's links: token-like query values, and path segments that look like one. */
export function noteMailSecrets(links: string[]): void {
  for (const link of links) {
    let url: URL;
    try {
      url = new URL(link);
    } catch {
      continue;
    }
    for (const [name, value] of url.searchParams) {
      if (/token|code|key|secret/i.test(name)) noteSecret(`mail link ${name}`, value);
    }
    for (const segment of url.pathname.split("/")) if (/\d/.test(segment)) noteSecret("mail link path", segment);
  }
}

/** Throws, naming each secret found, when `output` contains any noted so far. */
export function assertNoSecrets(output: string, whose: string): void {
  const found = [...secrets].filter(([value]) => output.includes(value));
  if (found.length === 0) return;
  const lines = found.map(([value, label]) => {
    const line = output.split("\n").find((l) => l.includes(value)) ?? "";
    return `  ${label}: ${line.slice(0, 300)}`;
  });
  throw new Error(`SECRETS IN THE SERVER LOG of ${whose} (${found.length}):\n${lines.join("\n")}`);
}
