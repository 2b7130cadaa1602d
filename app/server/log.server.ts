/**
 * The server's one logger: JSON lines (pino) carrying the id of the request they belong to,
 * one access line per request, and a short readable line per entry under the development
 * server. docs/decisions/0030-logs-and-errors.md.
 *
 * Requests are told apart by a request-scoped store (AsyncLocalStorage): server.ts opens it
 * for each request, the app fills in what only it knows (the route pattern, the user), and
 * every line written while the request runs carries its id.
 */
import { AsyncLocalStorage } from "node:async_hooks";
import { randomUUID } from "node:crypto";
import { writeSync } from "node:fs";
import { hostname } from "node:os";
import pino, { type DestinationStream, type Logger, type LoggerOptions } from "pino";
import type { MiddlewareFunction } from "react-router";

/** What the logs know about the request in progress. */
export interface RequestFields {
  requestId: string;
  /** The matched route's pattern (never the URL: links carry tokens), once known. */
  route?: string;
  userId?: string;
}

const requestStore = new AsyncLocalStorage<RequestFields>();

export const LOG_LEVELS = ["fatal", "error", "warn", "info", "debug", "trace", "silent"] as const;

/**
 * Fields that may hold a credential, wherever a log call puts them: pino replaces their values
 * before the line is written. Messages are plain words and never interpolate such values.
 */
export const REDACTED_PATHS = [
  ...["cookie", "authorization", "x-api-key", "set-cookie", "proxy-authorization"].flatMap((name) => [
    `headers["${name}"]`,
    `req.headers["${name}"]`,
    `res.headers["${name}"]`,
  ]),
  ...["password", "newPassword", "currentPassword", "token", "secret", "apiKey", "cookie"].flatMap((key) => [
    key,
    `*.${key}`,
  ]),
];

/** A request id a proxy may hand us: bounded, and only characters that are safe in a log or a header. */
const REQUEST_ID = /^[A-Za-z0-9._:@-]{1,128}$/;

/**
 * The id of a new request: the proxy's X-Request-Id when a trusted proxy sits in front
 * (TRUST_PROXY, the rule that also governs X-Forwarded-For) and the value is well-formed,
 * otherwise a fresh one. A client reaching us directly could otherwise pin its requests to
 * another request's id, or write anything into the logs.
 */
export function requestIdFor(header: string | string[] | undefined, trustedProxies: number): string {
  const value = Array.isArray(header) ? header[0] : header;
  return trustedProxies > 0 && value && REQUEST_ID.test(value) ? value : randomUUID();
}

/** Runs `fn` as the request `fields` describes: every line written meanwhile carries its id. */
export function runInRequest<T>(fields: RequestFields, fn: () => T): T {
  return requestStore.run(fields, fn);
}

/** The request in progress, if any. */
export function currentRequest(): RequestFields | undefined {
  return requestStore.getStore();
}

/** Records what the app learnt about the request in progress (its route pattern, its user). */
export function noteRequest(fields: Partial<Omit<RequestFields, "requestId">>): void {
  const store = requestStore.getStore();
  if (store) Object.assign(store, fields);
}

/** Pages: the matched route's pattern (e.g. "/:lang?/invitations/:id"), for the access line. */
export const routePatternMiddleware: MiddlewareFunction<Response> = ({ pattern }, next) => {
  // React Router gives it without the leading slash (":lang?/pricing"); the splat of a 404 is "*".
  noteRequest({ route: pattern.startsWith("/") ? pattern : `/${pattern}` });
  return next();
};

/**
 * The level comes from LOG_LEVEL as the process got it: the logger must work before the
 * environment is validated (it reports that validation's problems), and env.server.ts
 * refuses an unknown level at start.
 */
function levelFromEnvironment(): string {
  const level = process.env.LOG_LEVEL;
  return (LOG_LEVELS as readonly string[]).includes(level ?? "") ? level! : "info";
}

const LEVEL_NAMES: Record<number, string> = {
  10: "TRACE",
  20: "DEBUG",
  30: "INFO",
  40: "WARN",
  50: "ERROR",
  60: "FATAL",
};

/**
 * The development server's output: a line a person reads (time, level, message, the other
 * fields), printed from the same JSON the production logs get, so redaction applies alike.
 */
const readable: DestinationStream = {
  write(line: string) {
    const { time, level, msg, err, instance: _instance, ...rest } = JSON.parse(line);
    const fields = Object.entries(rest)
      .map(([key, value]) => `${key}=${typeof value === "string" ? value : JSON.stringify(value)}`)
      .join(" ");
    const clock = new Date(time as number).toISOString().slice(11, 23);
    const stack = err ? `\n${(err as { stack?: string }).stack ?? JSON.stringify(err)}` : "";
    process.stdout.write(`${clock} ${LEVEL_NAMES[level as number] ?? level} ${msg ?? ""} ${fields}${stack}\n`);
  },
};

/** Which process wrote a line, for an operator running several instances. */
const INSTANCE = `${hostname()}:${process.pid}`;

function options(): LoggerOptions {
  return {
    level: levelFromEnvironment(),
    base: { instance: INSTANCE },
    messageKey: "msg",
    errorKey: "err",
    redact: { paths: REDACTED_PATHS, censor: "[redacted]" },
    mixin() {
      const request = requestStore.getStore();
      return request ? { requestId: request.requestId } : {};
    },
  };
}

let output: DestinationStream | undefined;
/** Standard output, written asynchronously: a request never waits for the terminal or the pipe. */
const standardOutput = () => (output ??= import.meta.env.DEV ? readable : pino.destination({ dest: 1, sync: false }));

/** The logger with this app's configuration; `destination` replaces standard output (tests). */
export function createLogger(destination?: DestinationStream): Logger {
  return pino(options(), destination ?? standardOutput());
}

let root: Logger | undefined;

/** The logger, made on first use (not at import: importing a module never writes anything). */
export function logger(): Logger {
  return (root ??= createLogger());
}

export interface AccessEntry {
  method: string;
  status: number;
  durationMs: number;
  /** The client went away before the response was complete. */
  aborted: boolean;
}

const INFO = 30;
let accessOn: boolean | undefined;
const ACCESS_LINE_START = `{"level":${INFO},"time":`;
const INSTANCE_JSON = JSON.stringify(INSTANCE);
/** Characters a JSON string may hold as they are: ids, methods and route patterns are made of them. */
const PLAIN = /^[\w .:@/?*+$~-]*$/;
const jsonText = (value: string | undefined) =>
  value === undefined ? "null" : PLAIN.test(value) ? `"${value}"` : JSON.stringify(value);

/**
 * Access lines leave in batches: gathered up to ACCESS_BATCH_BYTES and for at most
 * ACCESS_FLUSH_MS after the first of them. One write per line was most of what the access log
 * cost a cached page (a write per request, each a trip through libuv's pool); other lines are
 * few and leave at once. Whatever is gathered is written synchronously when the process exits.
 */
const ACCESS_BATCH_BYTES = 16 * 1024;
const ACCESS_FLUSH_MS = 100;
let accessLines = "";
let accessTimer: NodeJS.Timeout | undefined;

function flushAccessLines(): void {
  clearTimeout(accessTimer);
  accessTimer = undefined;
  if (accessLines === "") return;
  standardOutput().write(accessLines);
  accessLines = "";
}

// Registered before the output exists, so before pino's own flush at exit: these lines go first.
process.once("exit", () => {
  if (accessLines === "" || import.meta.env.DEV) return;
  writeSync(1, accessLines);
  accessLines = "";
});

/**
 * The one access line of a finished request. Written after the request's own scope has closed,
 * so its fields are passed. The line is the JSON pino would write for it, put together here:
 * its fields are fixed and hold no credential (a route pattern, never a URL), and pino's
 * general path (its serializers, the redaction paths, the mixin) cost several times the rest
 * of a cached page's logging (the logs' budget: decision 0030).
 */
export function logAccess(fields: RequestFields, entry: AccessEntry): void {
  accessOn ??= (pino.levels.values[levelFromEnvironment()] ?? Infinity) <= INFO;
  if (!accessOn) return;
  accessLines +=
    `${ACCESS_LINE_START}${Date.now()},"instance":${INSTANCE_JSON},"requestId":${jsonText(fields.requestId)},` +
    `"method":${jsonText(entry.method)},"route":${jsonText(fields.route)},"status":${entry.status},` +
    `"durationMs":${Math.round(entry.durationMs * 10) / 10},"userId":${jsonText(fields.userId)},` +
    `${entry.aborted ? '"aborted":true,' : ""}"msg":"request"}\n`;
  if (accessLines.length >= ACCESS_BATCH_BYTES) flushAccessLines();
  else accessTimer ??= setTimeout(flushAccessLines, ACCESS_FLUSH_MS).unref();
}
