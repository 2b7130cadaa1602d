/**
 * The production HTTP server: `npm start` runs build/server.js, bundled from this file by
 * scripts/build-server.mjs. Plain node:http in front of the React Router bundle, adding
 * what a deployment needs: static files with long-lived caching, compression, security
 * headers, a request body limit, a health check, metrics and graceful shutdown.
 *
 * Node requests are converted to fetch Requests here rather than through
 * @react-router/node's createRequestListener because the body limit, compression and
 * header policy sit exactly at that seam, and because its listener neither respects write
 * backpressure nor catches a response stream that fails halfway (an unhandled rejection
 * would take the whole process down).
 */
import { createReadStream, existsSync, readdirSync, type Stats } from "node:fs";
import { stat } from "node:fs/promises";
import http from "node:http";
import path from "node:path";
import { Readable, Transform } from "node:stream";
import { pipeline } from "node:stream/promises";
import type { ReadableStream as NodeReadableStream } from "node:stream/web";
import { fileURLToPath, pathToFileURL } from "node:url";
import { promisify } from "node:util";
import zlib from "node:zlib";

type App = typeof import("./app/app.server");
type Env = ReturnType<App["loadEnv"]>;
type RequestFields = Parameters<App["runInRequest"]>[0];
type RequestHead = Parameters<App["quickAnswer"]>[0];
type QuickAnswer = NonNullable<Awaited<ReturnType<App["quickAnswer"]>>>;

// build/server.js sits next to build/server/ (SSR bundle) and build/client/ (browser files).
const buildDir = path.dirname(fileURLToPath(import.meta.url));
const clientDir = path.join(buildDir, "client");
const ssrEntry = path.join(buildDir, "server", "index.js");

const SHUTDOWN_TIMEOUT_MS = 10_000;
const HEALTH_TIMEOUT_MS = 5_000;
const MIN_COMPRESS_BYTES = 1024;

let shuttingDown = false;

/** The app's logger and error hook, once the app is loaded (docs/decisions/0030-logs-and-errors.md). */
let logs: Pick<App, "logger" | "reportError"> | undefined;
/** Each response's request, whose id every response echoes in X-Request-Id. */
const requestOf = new WeakMap<http.ServerResponse, RequestFields>();

// ---------------------------------------------------------------------------------------
// Headers
// ---------------------------------------------------------------------------------------

/**
 * Security headers for every response. Documents carry their own CSP with a per-request
 * nonce (app/entry.server.tsx); everything else gets a restrictive one. Framing is refused
 * either way, by CSP for current browsers and X-Frame-Options for old ones.
 */
function applySecurityHeaders(headers: Headers, { hsts }: { hsts: boolean }): void {
  headers.set("X-Content-Type-Options", "nosniff");
  if (!headers.has("Referrer-Policy")) headers.set("Referrer-Policy", "strict-origin-when-cross-origin");
  headers.set("X-Frame-Options", "DENY");
  const csp = headers.get("Content-Security-Policy");
  if (!csp) {
    const isHtml = /^text\/html\b/i.test(headers.get("Content-Type") ?? "");
    headers.set(
      "Content-Security-Policy",
      isHtml ? "frame-ancestors 'none'" : "default-src 'none'; frame-ancestors 'none'",
    );
  } else if (!/frame-ancestors/i.test(csp)) {
    headers.set("Content-Security-Policy", `${csp}; frame-ancestors 'none'`);
  }
  // Only meaningful when the public URL is https (a TLS proxy in front of this server).
  if (hsts) headers.set("Strict-Transport-Security", "max-age=31536000; includeSubDomains");
}

// text/event-stream is left out on purpose: compressors buffer, and events must not wait.
const COMPRESSIBLE =
  /^(text\/(?!event-stream)|application\/(javascript|json|xml|manifest\+json|[\w.-]+\+(json|xml))|image\/svg\+xml)/i;

function isCompressible(headers: Headers): boolean {
  return COMPRESSIBLE.test(headers.get("Content-Type") ?? "");
}

/** The best encoding the client accepts ("br" over "gzip"), or null. */
function acceptedEncoding(acceptEncoding: string | undefined): "br" | "gzip" | null {
  const quality = new Map<string, number>();
  for (const part of (acceptEncoding ?? "").split(",")) {
    const [name = "", ...params] = part.trim().toLowerCase().split(";");
    const q = params.map((p) => p.trim()).find((p) => p.startsWith("q="));
    quality.set(name, q ? Number(q.slice(2)) || 0 : 1);
  }
  const accepts = (name: string) => (quality.get(name) ?? quality.get("*") ?? 0) > 0;
  if (accepts("br")) return "br";
  if (accepts("gzip")) return "gzip";
  return null;
}

function appendVary(headers: Headers, value: string): void {
  const vary = headers.get("Vary");
  if (!vary) headers.set("Vary", value);
  else if (
    !vary
      .toLowerCase()
      .split(/\s*,\s*/)
      .includes(value.toLowerCase())
  )
    headers.set("Vary", `${vary}, ${value}`);
}

/**
 * Decides on-the-fly compression for a response and marks the headers accordingly.
 * Responses of unknown length (streamed documents and data) are always compressed: their
 * size is unknown until the end, and waiting for it would defeat streaming.
 */
function chooseCompression(req: http.IncomingMessage, status: number, headers: Headers): "br" | "gzip" | null {
  if (req.method === "HEAD" || status < 200 || status === 204 || status === 304) return null;
  if (headers.has("Content-Encoding") || /\bno-transform\b/i.test(headers.get("Cache-Control") ?? "")) return null;
  if (!isCompressible(headers)) return null;
  const length = headers.get("Content-Length");
  if (length !== null && Number(length) < MIN_COMPRESS_BYTES) return null;
  appendVary(headers, "Accept-Encoding"); // the body depends on Accept-Encoding from here on
  const encoding = acceptedEncoding(req.headers["accept-encoding"]);
  if (encoding) {
    headers.set("Content-Encoding", encoding);
    headers.delete("Content-Length");
  }
  return encoding;
}

/** Brotli quality 5: a good ratio at gzip-like speed (the default, 11, is far too slow per request). */
const BROTLI_PARAMS = { [zlib.constants.BROTLI_PARAM_QUALITY]: 5 };

/**
 * `flushEachChunk` makes every chunk leave the compressor at once (a sync flush), so a
 * streamed React document still reaches the browser piece by piece; a body of known length
 * is compressed in one go for a better ratio. Streamed bodies reach it through `coalesce()`.
 */
function createCompressor(encoding: "br" | "gzip", flushEachChunk: boolean) {
  const { constants } = zlib;
  return encoding === "br"
    ? zlib.createBrotliCompress({
        flush: flushEachChunk ? constants.BROTLI_OPERATION_FLUSH : constants.BROTLI_OPERATION_PROCESS,
        params: BROTLI_PARAMS,
      })
    : zlib.createGzip({ flush: flushEachChunk ? constants.Z_SYNC_FLUSH : constants.Z_NO_FLUSH });
}

/**
 * Joins the chunks a stream writes in one burst into one. React writes a document in
 * hundreds of ~2 KB chunks, and each is a call into the compressor (and with a sync flush, a
 * flush): a 100-row table cost ~20 ms of brotli that way, against ~1 ms in one go. Chunks
 * written before the event loop moves on leave together, so a document still streams
 * wherever React waits for data.
 */
function coalesce(): Transform {
  let pending: Buffer[] = [];
  let scheduled: NodeJS.Immediate | null = null;
  const release = (stream: Transform) => {
    scheduled = null;
    if (pending.length > 0) stream.push(pending.length === 1 ? pending[0] : Buffer.concat(pending));
    pending = [];
  };
  return new Transform({
    transform(chunk: Buffer, _encoding, callback) {
      pending.push(chunk);
      scheduled ??= setImmediate(release, this);
      callback();
    },
    flush(callback) {
      if (scheduled) clearImmediate(scheduled);
      release(this);
      callback();
    },
    destroy(error, callback) {
      if (scheduled) clearImmediate(scheduled);
      pending = [];
      callback(error);
    },
  });
}

// ---------------------------------------------------------------------------------------
// Static files from build/client
// ---------------------------------------------------------------------------------------

const MIME_TYPES: Record<string, string> = {
  ".js": "text/javascript; charset=utf-8",
  ".mjs": "text/javascript; charset=utf-8",
  ".css": "text/css; charset=utf-8",
  ".html": "text/html; charset=utf-8",
  ".json": "application/json; charset=utf-8",
  ".map": "application/json; charset=utf-8",
  ".webmanifest": "application/manifest+json; charset=utf-8",
  ".txt": "text/plain; charset=utf-8",
  ".xml": "application/xml; charset=utf-8",
  ".svg": "image/svg+xml",
  ".png": "image/png",
  ".jpg": "image/jpeg",
  ".jpeg": "image/jpeg",
  ".gif": "image/gif",
  ".webp": "image/webp",
  ".avif": "image/avif",
  ".ico": "image/x-icon",
  ".woff": "font/woff",
  ".woff2": "font/woff2",
  ".ttf": "font/ttf",
  ".otf": "font/otf",
  ".wasm": "application/wasm",
  ".pdf": "application/pdf",
};

/** /assets/ names carry a content hash, so they never change; other public files might. */
function cacheControlFor(pathname: string): string {
  if (pathname.startsWith("/assets/")) return "public, max-age=31536000, immutable";
  if (pathname === "/builds/latest.json") return "no-cache";
  return "public, max-age=3600";
}

/**
 * The build's files, listed once at start: the app answers most requests, and a set lookup
 * spares each of them a failed stat() on the way.
 */
const staticFiles = new Set(
  existsSync(clientDir)
    ? readdirSync(clientDir, { recursive: true, withFileTypes: true })
        .filter((entry) => entry.isFile())
        .map(
          (entry) => "/" + path.relative(clientDir, path.join(entry.parentPath, entry.name)).split(path.sep).join("/"),
        )
    : [],
);

async function statFile(file: string): Promise<Stats | null> {
  try {
    const stats = await stat(file);
    return stats.isFile() ? stats : null;
  } catch {
    return null;
  }
}

/**
 * A file of build/client for a GET/HEAD, or null to let the app answer. Paths are decoded,
 * normalized and must stay inside build/client; dotfiles are never served. Precompressed
 * siblings (x.js.br, x.js.gz, written by the build for /assets/) are used when accepted.
 */
async function serveStatic(pathname: string, req: http.IncomingMessage): Promise<Response | null> {
  let decoded: string;
  try {
    decoded = decodeURIComponent(pathname);
  } catch {
    return null;
  }
  if (decoded.endsWith("/") || decoded.includes("\0")) return null;
  if (decoded.split("/").some((segment) => segment.startsWith(".") && segment !== ".well-known")) return null;
  const file = path.join(clientDir, decoded);
  if (!file.startsWith(clientDir + path.sep)) return null;

  const stats = staticFiles.has(decoded) ? await statFile(file) : null;
  if (!stats) {
    // A missing hashed asset is a stale client after a deploy: a plain 404 is cheaper than a page.
    if (pathname.startsWith("/assets/")) return smallResponse(404, "Not Found");
    return null;
  }

  const headers = new Headers({
    "Content-Type": MIME_TYPES[path.extname(file).toLowerCase()] ?? "application/octet-stream",
    "Cache-Control": cacheControlFor(pathname),
    "Last-Modified": stats.mtime.toUTCString(),
    ETag: `W/"${stats.size.toString(16)}-${Math.floor(stats.mtimeMs).toString(16)}"`,
  });
  if (isCompressible(headers)) appendVary(headers, "Accept-Encoding");

  const etag = headers.get("ETag") ?? "";
  if ((req.headers["if-none-match"] ?? "").split(/\s*,\s*/).includes(etag)) {
    headers.delete("Content-Type");
    return new Response(null, { status: 304, headers });
  }

  let servedFile = file;
  let size = stats.size;
  const encoding = isCompressible(headers) ? acceptedEncoding(req.headers["accept-encoding"]) : null;
  if (encoding) {
    const variant = `${file}.${encoding === "br" ? "br" : "gz"}`;
    const variantStats = await statFile(variant);
    if (variantStats) {
      servedFile = variant;
      size = variantStats.size;
      headers.set("Content-Encoding", encoding);
    }
  }
  headers.set("Content-Length", String(size));
  if (req.method === "HEAD") return new Response(null, { headers });
  const body = Readable.toWeb(createReadStream(servedFile)) as unknown as ReadableStream<Uint8Array>;
  return new Response(body, { headers });
}

// ---------------------------------------------------------------------------------------
// Request <-> Response
// ---------------------------------------------------------------------------------------

function firstValue(header: string | string[] | undefined): string | undefined {
  const value = Array.isArray(header) ? header[0] : header;
  return value?.split(",")[0]?.trim() || undefined;
}

const VALID_HOST = /^([a-z0-9.-]+|\[[0-9a-f:.]+\])(:\d{1,5})?$/i;

/**
 * The URL the app sees. The host comes from the Host header (X-Forwarded-Host behind a
 * trusted proxy). The scheme matters because React Router compares it with the Origin of
 * form posts: it is X-Forwarded-Proto behind a trusted proxy, otherwise BASE_URL's scheme
 * for BASE_URL's host (a TLS proxy in front of us) and http for anything else.
 */
function requestUrl(req: http.IncomingMessage, env: Env): URL | null {
  const base = new URL(env.BASE_URL);
  const host = (env.TRUST_PROXY > 0 && firstValue(req.headers["x-forwarded-host"])) || req.headers.host || base.host;
  let proto = env.TRUST_PROXY > 0 ? firstValue(req.headers["x-forwarded-proto"]) : undefined;
  if (proto !== "http" && proto !== "https") proto = host === base.host ? base.protocol.slice(0, -1) : "http";
  if (!VALID_HOST.test(host) || !req.url?.startsWith("/")) return null;
  try {
    // Concatenated, not resolved: "//evil.example/x" must stay a path on our host.
    return new URL(`${proto}://${host}${req.url}`);
  } catch {
    return null;
  }
}

function toHeaders(rawHeaders: string[]): Headers {
  const headers = new Headers();
  for (let i = 0; i + 1 < rawHeaders.length; i += 2) {
    try {
      headers.append(rawHeaders[i]!, rawHeaders[i + 1]!);
    } catch {
      // A value fetch's Headers rejects (Node's parser is more lenient): drop that header.
    }
  }
  return headers;
}

/**
 * A GET request's head for app.quickAnswer, read from node's parsed headers (repeated ones
 * joined as a fetch Request joins them), without building the Request.
 */
function headOf(req: http.IncomingMessage, url: URL): RequestHead {
  return {
    method: "GET",
    url: url.href,
    headers: {
      get(name) {
        const value = req.headers[name.toLowerCase()];
        return value === undefined ? null : Array.isArray(value) ? value.join(", ") : value;
      },
    },
  };
}

const TOO_LARGE = Symbol("too large");

/**
 * Reads the whole request body, up to `limit` bytes. Bodies are small (forms, JSON,
 * webhooks), and having them complete before the app runs means an oversized body is a 413
 * whether or not the route reads it, chunked or not. Resolves null if the client goes away.
 */
function readBody(req: http.IncomingMessage, limit: number): Promise<Buffer<ArrayBuffer> | typeof TOO_LARGE | null> {
  return new Promise((resolve) => {
    const chunks: Buffer[] = [];
    let size = 0;
    const onData = (chunk: Buffer) => {
      size += chunk.length;
      if (size > limit) {
        req.off("data", onData); // the rest is discarded, see tooLarge()
        resolve(TOO_LARGE);
        return;
      }
      chunks.push(chunk);
    };
    req.on("data", onData);
    req.on("end", () => resolve(Buffer.concat(chunks, size)));
    req.on("error", () => resolve(null));
    req.on("close", () => resolve(null)); // no effect when "end" came first
  });
}

/** A small response of the server's own. Content-Length lets compression skip it. */
function smallResponse(status: number, body: string, contentType = "text/plain; charset=utf-8"): Response {
  const headers = {
    "Content-Type": contentType,
    "Content-Length": String(Buffer.byteLength(body)),
    "Cache-Control": "no-store",
  };
  return new Response(body, { status, headers });
}

function isClientGone(error: unknown): boolean {
  const code = (error as { code?: string } | null)?.code;
  return code === "ERR_STREAM_PREMATURE_CLOSE" || code === "ECONNRESET" || code === "EPIPE" || code === "ABORT_ERR";
}

/**
 * A response's final headers, as node's raw list: its own, the security headers and the
 * request id; and how its body is to be compressed. Every response is given them here.
 */
function finalHeaders(
  req: http.IncomingMessage,
  res: http.ServerResponse,
  status: number,
  own: HeadersInit,
  env: Env,
): { rawHeaders: string[]; encoding: "br" | "gzip" | null; streamed: boolean } {
  const headers = new Headers(own); // a Response's own headers may be immutable
  applySecurityHeaders(headers, { hsts: env.secureCookies });
  const request = requestOf.get(res);
  if (request) headers.set("X-Request-Id", request.requestId);
  const streamed = !headers.has("Content-Length");
  const encoding = chooseCompression(req, status, headers);
  // While shutting down, every response closes its connection so the server can drain.
  if (shuttingDown) res.shouldKeepAlive = false;
  const rawHeaders: string[] = [];
  for (const [name, value] of headers) rawHeaders.push(name, value); // Set-Cookie stays one per line
  return { rawHeaders, encoding, streamed };
}

/** Writes a fetch Response to the node response, with security headers and compression. */
async function send(req: http.IncomingMessage, res: http.ServerResponse, response: Response, env: Env): Promise<void> {
  const { rawHeaders, encoding, streamed } = finalHeaders(req, res, response.status, response.headers, env);
  res.writeHead(response.status, rawHeaders);

  if (!response.body || req.method === "HEAD") {
    res.end();
    await response.body?.cancel().catch(() => {});
    return;
  }
  try {
    if (encoding) {
      const body = Readable.fromWeb(response.body as unknown as NodeReadableStream<Uint8Array>);
      if (streamed) await pipeline(body, coalesce(), createCompressor(encoding, true), res);
      else await pipeline(body, createCompressor(encoding, false), res);
    } else {
      await writeBody(response.body, res);
    }
  } catch (error) {
    // Everything has been destroyed; a vanished client is normal, anything else is a bug.
    if (!isClientGone(error)) logs?.reportError(error, "Error while sending a response");
  }
}

/**
 * Copies a response body to the socket, honouring backpressure. For the uncompressed case
 * this replaces `pipeline(Readable.fromWeb(body), res)`, whose stream adapters and the
 * AbortController it aborts on every finish (building a DOMException) were a tenth of the
 * cost of a small API answer.
 */
async function writeBody(body: ReadableStream<Uint8Array>, res: http.ServerResponse): Promise<void> {
  const reader = body.getReader();
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      if (res.destroyed) throw Object.assign(new Error("client gone"), { code: "ERR_STREAM_PREMATURE_CLOSE" });
      if (!res.write(value)) {
        await new Promise<void>((resolve) => {
          const go = () => {
            res.off("drain", go);
            res.off("close", go);
            resolve();
          };
          res.on("drain", go);
          res.on("close", go);
        });
      }
    }
    res.end();
  } catch (error) {
    await reader.cancel(error).catch(() => {});
    res.destroy();
    throw error;
  }
}

const brotli = promisify(zlib.brotliCompress);
const gzip = promisify(zlib.gzip);

/**
 * Writes an answer made in front of the router (app.quickAnswer) under the same header policy
 * as send(). Its body is whole, so it goes with its length, compressed in one go off the
 * event loop (libuv's pool) with send()'s settings.
 */
async function sendQuick(req: http.IncomingMessage, res: http.ServerResponse, answer: QuickAnswer, env: Env) {
  let body: Uint8Array = typeof answer.body === "string" ? Buffer.from(answer.body) : answer.body;
  const own = answer.headers.filter(([name]) => name.toLowerCase() !== "content-length");
  own.push(["Content-Length", String(body.length)]);
  const { rawHeaders, encoding } = finalHeaders(req, res, answer.status, own, env);
  if (encoding) {
    body = encoding === "br" ? await brotli(body, { params: BROTLI_PARAMS }) : await gzip(body);
    rawHeaders.push("Content-Length", String(body.length));
  }
  res.writeHead(answer.status, rawHeaders).end(body);
}

// ---------------------------------------------------------------------------------------
// Routing
// ---------------------------------------------------------------------------------------

async function health(app: App): Promise<Response> {
  const json = (status: number, body: object) => smallResponse(status, JSON.stringify(body), "application/json");
  if (shuttingDown) return json(503, { status: "shutting-down" }); // load balancers: stop sending here
  let timer: NodeJS.Timeout | undefined;
  try {
    await Promise.race([
      app.checkDatabase(),
      new Promise((_, reject) => {
        timer = setTimeout(() => reject(new Error(`no answer within ${HEALTH_TIMEOUT_MS} ms`)), HEALTH_TIMEOUT_MS);
      }),
    ]);
    return json(200, { status: "ok" });
  } catch (error) {
    app.logger().error({ err: error }, "Health check failed");
    return json(503, { status: "error" });
  } finally {
    clearTimeout(timer);
  }
}

/**
 * /metrics in Prometheus's text format (docs/decisions/0033-metrics.md). With METRICS_TOKEN
 * set, only for a caller presenting it as a bearer token; where it is served at all is
 * decided by the caller (the public listener with a token, or the internal one).
 */
async function metrics(app: App, env: Env, req: http.IncomingMessage): Promise<Response> {
  if (env.METRICS_TOKEN && !app.bearerMatches(req.headers.authorization, env.METRICS_TOKEN)) {
    const response = smallResponse(401, "Unauthorized");
    response.headers.set("WWW-Authenticate", 'Bearer realm="metrics"');
    return response;
  }
  const { contentType, body } = await app.metricsText();
  return smallResponse(200, body, contentType);
}

/** The internal metrics listener (METRICS_PORT): /metrics and nothing else. */
function metricsListener(app: App, env: Env): http.RequestListener {
  return (req, res) => {
    const path = req.url?.split("?")[0];
    const answer = path === "/metrics" ? metrics(app, env, req) : Promise.resolve(smallResponse(404, "Not Found"));
    answer
      .then((response) => send(req, res, response, env))
      .catch((error: unknown) => {
        app.reportError(error, "Unhandled error while serving metrics");
        if (!res.headersSent)
          send(req, res, smallResponse(500, "Internal Server Error"), env).catch(() => res.destroy());
        else res.destroy();
      });
  };
}

async function respond(app: App, env: Env, req: http.IncomingMessage, res: http.ServerResponse): Promise<void> {
  const url = requestUrl(req, env);
  if (!url) return send(req, res, smallResponse(400, "Bad Request"), env);
  const method = req.method ?? "GET";

  const declaredLength = Number(req.headers["content-length"] ?? 0);
  let body: Buffer<ArrayBuffer> | undefined;
  if (declaredLength > env.BODY_LIMIT) return tooLarge(req, res, env);
  if (method !== "GET" && method !== "HEAD") {
    const read = await readBody(req, env.BODY_LIMIT);
    if (read === null) return; // client disconnected mid-body
    if (read === TOO_LARGE) return tooLarge(req, res, env);
    body = read;
  }

  if (url.pathname === "/healthz") {
    app.noteRequest({ route: "/healthz" });
    return send(req, res, await health(app), env);
  }
  // On the public listener only with a token and no internal listener; otherwise an unknown page.
  if (url.pathname === "/metrics" && env.METRICS_TOKEN && !env.METRICS_PORT) {
    app.noteRequest({ route: "/metrics" });
    return send(req, res, await metrics(app, env, req), env);
  }
  if (method === "GET" || method === "HEAD") {
    const file = await serveStatic(url.pathname, req);
    if (file) {
      // Hashed assets are one pattern; the build's other files have fixed names.
      app.noteRequest({ route: url.pathname.startsWith("/assets/") ? "/assets/*" : url.pathname });
      return send(req, res, file, env);
    }
  }

  // The X-Forwarded-For entry our proxies wrote, never one the client did (app/server/client-address.server.ts).
  const address = app.clientAddress(req.headersDistinct["x-forwarded-for"], req.socket.remoteAddress, env.TRUST_PROXY);
  if (method === "GET") {
    const quick = await app.quickAnswer(headOf(req, url), { address });
    if (quick) return sendQuick(req, res, quick, env);
  }

  // Lets loaders stop work (and React stop rendering) when the client goes away.
  const controller = new AbortController();
  // Only a client that left before the answer was complete aborts the request; aborting every
  // finished request would build an AbortError (a DOMException) per request for nothing.
  res.once("close", () => {
    if (!res.writableFinished) controller.abort();
  });
  const request = new Request(url, { method, headers: toHeaders(req.rawHeaders), body, signal: controller.signal });
  const response = await app.handleRequest(request, { address });
  return send(req, res, response, env);
}

const LINGER_MS = 2_000;

/**
 * 413 at once, without waiting for the rest of the body. Then a lingering close, as nginx
 * does: a socket closed while data is still arriving is reset, and a client busy sending
 * would lose the 413 before reading it. So Node must not close the connection right after
 * the response (it would, for a client that sent `Connection: close`); instead the rest of
 * the body is read and discarded, or the connection is closed forcibly after LINGER_MS.
 * Once the body has ended the connection is as good as after any request, and the 413 said
 * keep-alive: closing it then would fail the next request a client had already sent on it
 * ("other side closed"). It is only closed when the client asked for that.
 */
function tooLarge(req: http.IncomingMessage, res: http.ServerResponse, env: Env): Promise<void> {
  req.resume(); // flowing with no "data" listener: discard
  if (!req.complete) {
    res.shouldKeepAlive = true;
    const socket = req.socket;
    const timer = setTimeout(() => socket.destroy(), LINGER_MS);
    const clientCloses = /\bclose\b/i.test(String(req.headers.connection ?? ""));
    req.once("end", () => {
      clearTimeout(timer);
      if (clientCloses) socket.end();
    });
    socket.once("close", () => clearTimeout(timer));
  }
  return send(req, res, smallResponse(413, "Payload Too Large"), env);
}

/**
 * Opens the request's log scope (its id, from a trusted proxy or new) and, with traces on, its
 * server span around `handle`, and writes its access line once the response is done or the
 * client has gone.
 */
function withRequestLog(app: App, env: Env, handle: http.RequestListener): http.RequestListener {
  return (req, res) => {
    const started = performance.now();
    const fields: RequestFields = { requestId: app.requestIdFor(req.headers["x-request-id"], env.TRUST_PROXY) };
    requestOf.set(res, fields);
    res.once("close", () => {
      const durationMs = performance.now() - started;
      const entry = { method: req.method ?? "GET", status: res.statusCode, durationMs, aborted: !res.writableFinished };
      app.logAccess(fields, entry);
      app.observeRequest(fields, entry);
    });
    app.runInRequest(fields, () => app.traceRequest(fields, req, res, () => handle(req, res)));
  };
}

function createListener(app: App, env: Env): http.RequestListener {
  return (req, res) => {
    respond(app, env, req, res).catch((error: unknown) => {
      app.reportError(error, "Unhandled error while handling a request");
      if (!res.headersSent) {
        send(req, res, smallResponse(500, "Internal Server Error"), env).catch(() => res.destroy());
      } else {
        res.destroy();
      }
    });
  };
}

// ---------------------------------------------------------------------------------------
// Start and stop
// ---------------------------------------------------------------------------------------

async function main(): Promise<void> {
  // A local .env (see .env.example) fills in what the real environment leaves unset.
  if (existsSync(".env")) process.loadEnvFile(".env");
  const app = (await import(pathToFileURL(ssrEntry).href)) as App;
  logs = app;
  const env = app.loadEnv(); // prints the problems and exits when the environment is invalid
  await app.startup();
  const log = app.logger();

  const listener = createListener(app, env);
  const server = http.createServer(withRequestLog(app, env, listener));
  // "Expect: 100-continue": refuse an announced oversized body before the client sends it.
  server.on(
    "checkContinue",
    withRequestLog(app, env, (req, res) => {
      if (Number(req.headers["content-length"] ?? 0) > env.BODY_LIMIT) return void tooLarge(req, res, env);
      res.writeContinue();
      listener(req, res);
    }),
  );
  server.on("error", (error) => {
    log.fatal({ err: error }, "Server error");
    process.exit(1);
  });
  const internal = env.METRICS_PORT ? http.createServer(metricsListener(app, env)) : null;
  internal?.on("error", (error) => {
    log.fatal({ err: error }, "Metrics listener error");
    process.exit(1);
  });

  const stop = (signal: string) => {
    if (shuttingDown) {
      log.warn(`${signal} again: exiting at once`);
      process.exit(1);
    }
    shuttingDown = true;
    log.info(`${signal} received: no new connections, finishing in-flight requests`);
    // Keep-alive connections that go idle while draining are closed as soon as they do.
    const idleSweep = setInterval(() => server.closeIdleConnections(), 200);
    const force = setTimeout(() => {
      log.warn(`Requests still running after ${SHUTDOWN_TIMEOUT_MS / 1000} s: closing their connections`);
      server.closeAllConnections();
    }, SHUTDOWN_TIMEOUT_MS);
    internal?.close();
    server.close(async () => {
      clearInterval(idleSweep);
      clearTimeout(force);
      try {
        await app.closeDatabase();
      } catch (error) {
        log.error({ err: error }, "Closing the database failed");
      }
      await app.flushErrorReports();
      await app.stopTracing();
      log.info("Server stopped");
      process.exit(0);
    });
    server.closeIdleConnections();
  };
  process.on("SIGTERM", () => stop("SIGTERM"));
  process.on("SIGINT", () => stop("SIGINT"));

  server.listen(env.PORT, env.HOST, () => {
    log.info(`Listening on ${env.BASE_URL} (bound to ${env.HOST}:${env.PORT})`);
  });
  internal?.listen(env.METRICS_PORT, env.METRICS_HOST, () => {
    log.info(`Metrics on http://${env.METRICS_HOST}:${env.METRICS_PORT}/metrics`);
  });
}

main().catch((error: unknown) => {
  if (logs) logs.logger().fatal({ err: error }, "Failed to start");
  // The app itself could not be loaded: the same JSON shape, written by hand.
  else
    process.stderr.write(
      `${JSON.stringify({ level: 60, time: Date.now(), msg: "Failed to start", err: String(error) })}\n`,
    );
  process.exit(1);
});
