/**
 * Rendered documents of anonymous visitors, answered again without running React Router.
 *
 * A page opts in with `handle.pageCache = true`, which promises that what its routes render
 * for a visitor without a session follows from the request alone: its URL, its cookies, its
 * Accept-Language and whether it comes from a crawler (the home page redirects browsers by
 * language, not crawlers). Those four are the key, so a cached copy is exactly what a render
 * would give: another language, a theme or a toast cookie is another key, and a session cookie
 * is never kept (a signed-in render is not stored, and a stale cookie's render clears it with
 * Set-Cookie, which is not stored either). Pages whose data lives in the database (an
 * invitation, a reset link) do not opt in: their loaders run on every request.
 *
 * Matching the localized route tree, middleware and loaders cost most of a cached page's time
 * when the cache sat after them, which is why it sits in front, and in front of the fetch
 * Request too (server.ts asks it with the request's head). The nonce is fresh per
 * response (the stored copy's is replaced in the document and its CSP). Bounded: the least
 * recently used entries go. `Cache-Control: no-cache` always renders (the benchmark's
 * uncached runs).
 */
import { randomBytes } from "node:crypto";
import { createContext, type EntryContext, type RouterContextProvider } from "react-router";
import { currentRequest, noteRequest } from "~/server/log.server";
import { isBot, type QuickAnswer, type RequestHead } from "~/server/request-head.server";

const MAX_ENTRIES = 200;

interface Entry {
  /**
   * The document cut where its nonce was, as bytes: a hit joins them around a fresh nonce.
   * Kept as a string, every hit re-encoded the whole document (Response checks a string
   * for lone surrogates, then encodes it as UTF-8): about 8 % of the CPU of a cached page.
   */
  parts: Buffer[];
  nonce: string;
  headers: [string, string][];
  length: number;
  /** The page's route pattern: a hit skips the router, and the access line still names it. */
  route: string | undefined;
}

const entries = new Map<string, Entry>();

/** A render that may be kept: its nonce and, once streamed, its whole document (null if it failed). */
interface Offer {
  nonce: string;
  html: Promise<string | null>;
}

/** A request the cache could have answered but had no copy for: its key, and the render offered to keep. */
interface Miss {
  key: string;
  offer?: Offer;
}

const missContext = createContext<Miss | null>(null);

/**
 * A document's nonce: 16 random bytes, the same length every time (a cached copy keeps its
 * Content-Length). The bytes are drawn from the system's generator 4 KB at a time, as
 * `crypto.randomUUID` does: one call per 256 documents instead of one each. Each is used once.
 */
let randomPool = Buffer.alloc(0);
let randomOffset = 0;
export function newNonce(): string {
  if (randomOffset + 16 > randomPool.length) {
    randomPool = randomBytes(4096);
    randomOffset = 0;
  }
  randomOffset += 16;
  return randomPool.toString("base64", randomOffset - 16, randomOffset);
}

/** The cache key of a request, or null when its answer must not come from the cache. */
function keyOf(request: RequestHead): string | null {
  const headers = request.headers;
  if (request.method !== "GET" || headers.get("Authorization") !== null) return null;
  if (/no-cache|no-store/.test(headers.get("Cache-Control") ?? "")) return null;
  const bot = isBot(headers.get("User-Agent")) ? "bot" : "browser";
  return `${request.url}\n${headers.get("Cookie") ?? ""}\n${headers.get("Accept-Language") ?? ""}\n${bot}`;
}

/**
 * The cached answer to `request`, with a fresh nonce, or null. server.ts asks before it builds
 * the request React Router would take: a hit needs none of it.
 */
export function cachedPage(request: RequestHead): QuickAnswer | null {
  const key = keyOf(request);
  const entry = key === null ? undefined : entries.get(key);
  if (!entry) return null;
  entries.delete(key!); // most recently used goes last
  entries.set(key!, entry);
  noteRequest({ route: entry.route });
  const nonce = newNonce();
  const headers: [string, string][] = entry.headers.map(([name, value]) => [
    name,
    value.replaceAll(entry.nonce, nonce),
  ]);
  headers.push(["Content-Length", String(entry.length)]); // known, so it is compressed in one go
  return { status: 200, headers, body: withNonce(entry, nonce) };
}

/**
 * Notes in `context` that the cache could answer `request` but had no copy (cachedPage came
 * first), with its key, which the rest of the request (mayKeep, keepPage) goes by.
 */
export function noteMiss(request: Request, context: RouterContextProvider): void {
  const key = keyOf(request);
  if (key !== null) context.set(missContext, { key });
}

function withNonce({ parts, length }: Entry, nonce: string): Uint8Array<ArrayBuffer> {
  const body = new Uint8Array(length);
  const bytes = Buffer.from(body.buffer); // the same memory, with Buffer's copy and write
  let at = parts[0]!.copy(bytes, 0);
  for (const part of parts.slice(1)) {
    at += bytes.write(nonce, at, "latin1"); // base64: one byte per character
    at += part.copy(bytes, at);
  }
  return body;
}

/**
 * Whether this render may be kept (entry.server.tsx asks before rendering): a 200 document
 * of pages that opted in, for a visitor without a session, with no toast to show.
 */
export function mayKeep(context: Readonly<RouterContextProvider>, status: number, entry: EntryContext): boolean {
  const { loaderData, actionData, errors, matches } = entry.staticHandlerContext;
  if (!context.get(missContext) || status !== 200 || errors || actionData || entry.isSpaMode) return false;
  const root = loaderData.root as { user?: unknown; toast?: unknown } | undefined;
  if (!root || root.user || root.toast) return false;
  return matches.every(
    (match) =>
      match.route.id === "root" ||
      (entry.routeModules[match.route.id]?.handle as { pageCache?: boolean } | undefined)?.pageCache === true,
  );
}

/** entry.server.tsx hands over a render mayKeep allowed; `keepPage` decides once the response is final. */
export function offerPage(context: Readonly<RouterContextProvider>, offer: Offer): void {
  const miss = context.get(missContext);
  if (miss) miss.offer = offer;
}

/**
 * Stores the document of an offered render once it has streamed, unless the final response
 * (after every middleware) is not a plain 200 or sets a cookie.
 */
export function keepPage(response: Response, context: Readonly<RouterContextProvider>): void {
  const { key, offer } = context.get(missContext) ?? {};
  if (!key || !offer || response.status !== 200 || response.headers.has("Set-Cookie")) return;
  // A hit states its own length; a streamed document has none anyway.
  const headers = [...response.headers].filter(([name]) => name !== "content-length");
  const route = currentRequest()?.route;
  void offer.html.then((html) => {
    if (html === null) return;
    entries.delete(key);
    const parts = html.split(offer.nonce).map((part) => Buffer.from(part));
    entries.set(key, { parts, nonce: offer.nonce, headers, length: Buffer.byteLength(html), route });
    if (entries.size > MAX_ENTRIES) entries.delete(entries.keys().next().value!);
  });
}
