/**
 * The production server (build/server.js) over real HTTP: health check, static caching,
 * compression, security headers, the body limit and graceful shutdown. Needs a build
 * (`npm run build`); requests go through node:http so bytes and headers arrive untouched
 * (fetch would decompress bodies behind our back). The database is SQLite, or PostgreSQL when
 * TEST_DATABASE_URL names one (see helpers/database.ts).
 */
import { readdirSync, readFileSync, statSync } from "node:fs";
import http from "node:http";
import { join } from "node:path";
import { brotliDecompressSync, gunzipSync } from "node:zlib";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createTestDatabase, type TestDatabase } from "./helpers/database";
import { ROOT, startServer, type RunningServer } from "./helpers/server";

interface RawResponse {
  status: number;
  headers: http.IncomingHttpHeaders;
  body: Buffer;
}

/** One request; the response body is collected as sent (still compressed). */
function request(
  url: string,
  options: { method?: string; headers?: Record<string, string>; body?: Buffer | string } = {},
): Promise<RawResponse> {
  return new Promise((resolve, reject) => {
    const req = http.request(
      url,
      { method: options.method ?? "GET", headers: options.headers, agent: false },
      (res) => {
        const chunks: Buffer[] = [];
        res.on("data", (chunk: Buffer) => chunks.push(chunk));
        res.on("end", () =>
          resolve({ status: res.statusCode ?? 0, headers: res.headers, body: Buffer.concat(chunks) }),
        );
        res.on("error", reject);
      },
    );
    req.on("error", reject);
    req.end(options.body);
  });
}

/**
 * Sends a body the server should refuse and resolves with the response. The server may close
 * the connection while the body is still being written: write errors after the response
 * arrived are expected and ignored.
 */
function sendOversized(url: string, mode: "content-length" | "chunked", size: number): Promise<RawResponse> {
  return new Promise((resolve, reject) => {
    const headers: Record<string, string> = { "Content-Type": "application/octet-stream" };
    if (mode === "content-length") headers["Content-Length"] = String(size);
    let answered = false;
    const req = http.request(url, { method: "POST", headers, agent: false }, (res) => {
      answered = true;
      const chunks: Buffer[] = [];
      res.on("data", (chunk: Buffer) => chunks.push(chunk));
      res.on("end", () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body: Buffer.concat(chunks) }));
      res.on("error", () =>
        resolve({ status: res.statusCode ?? 0, headers: res.headers, body: Buffer.concat(chunks) }),
      );
    });
    req.on("error", (error) => {
      if (!answered) reject(error);
    });
    if (mode === "content-length") {
      // Only the announcement: the server must answer without waiting for the body.
      req.write(Buffer.alloc(1024));
      return;
    }
    // Chunked: no length up front, so the server has to count while reading.
    const chunk = Buffer.alloc(64 * 1024, 120);
    let sent = 0;
    const pump = () => {
      while (sent < size && !answered && !req.destroyed) {
        sent += chunk.length;
        if (!req.write(chunk)) return void req.once("drain", pump);
      }
      if (!answered && !req.destroyed) req.end();
    };
    pump();
  });
}

function cspOf(response: RawResponse): string {
  return String(response.headers["content-security-policy"] ?? "");
}

function expectSecurityHeaders(response: RawResponse): void {
  expect(response.headers["x-content-type-options"]).toBe("nosniff");
  expect(response.headers["referrer-policy"]).toBe("strict-origin-when-cross-origin");
  expect(response.headers["x-frame-options"]).toBe("DENY");
  expect(cspOf(response)).toMatch(/frame-ancestors 'none'/);
}

/** The largest hashed JavaScript file of the client build. */
function largestAsset(): string {
  const dir = join(ROOT, "build/client/assets");
  const scripts = readdirSync(dir).filter((name) => name.endsWith(".js"));
  scripts.sort((a, b) => statSync(join(dir, b)).size - statSync(join(dir, a)).size);
  if (!scripts[0]) throw new Error("no JavaScript in build/client/assets");
  return scripts[0];
}

describe("production server", () => {
  let db: TestDatabase;
  let server: RunningServer;

  beforeAll(async () => {
    db = await createTestDatabase();
    server = await startServer({ DATABASE_URL: db.url });
  });

  afterAll(async () => {
    await server?.stop();
    await db?.drop();
  });

  it("answers /healthz when the database is reachable", async () => {
    const response = await request(`${server.url}/healthz`, { headers: { "Accept-Encoding": "br, gzip" } });
    expect(response.status).toBe(200);
    expect(JSON.parse(response.body.toString())).toEqual({ status: "ok" });
    expect(response.headers["cache-control"]).toBe("no-store");
    expectSecurityHeaders(response);
    // Small bodies are not worth compressing.
    expect(response.headers["content-encoding"]).toBeUndefined();
  });

  it("compiles Prisma's query compiler from its file, not from a module the heap would keep", async () => {
    // The query behind /healthz runs through the compiler.
    expect((await request(`${server.url}/healthz`)).status).toBe(200);
    const dir = join(ROOT, "build/server/assets");
    for (const name of readdirSync(dir).filter((file) => file.endsWith(".js")))
      expect(readFileSync(join(dir, name), "utf8")).not.toMatch(/import\("[^"]*\.wasm-base64\.mjs"\)/);
  });

  it("prints where it listens", () => {
    expect(server.stdout()).toContain(`Listening on ${server.url}`);
  });

  it("streams documents compressed with brotli or gzip", async () => {
    const br = await request(`${server.url}/`, { headers: { "Accept-Encoding": "gzip, deflate, br" } });
    expect(br.status).toBe(200);
    expect(br.headers["content-encoding"]).toBe("br");
    expect(br.headers.vary).toMatch(/accept-encoding/i);
    expect(br.headers["content-length"]).toBeUndefined();
    const html = brotliDecompressSync(br.body).toString();
    expect(html).toMatch(/^<!DOCTYPE html>/i);
    expect(html.length).toBeGreaterThan(1024);

    const gzip = await request(`${server.url}/`, { headers: { "Accept-Encoding": "gzip" } });
    expect(gzip.headers["content-encoding"]).toBe("gzip");
    expect(gunzipSync(gzip.body).toString()).toMatch(/^<!DOCTYPE html>/i);

    const plain = await request(`${server.url}/`);
    expect(plain.headers["content-encoding"]).toBeUndefined();
    expect(plain.headers.vary).toMatch(/accept-encoding/i);
    expect(plain.body.toString()).toMatch(/^<!DOCTYPE html>/i);
  });

  it("answers a kept page in front of the router: whole, with its length, compressed in one go", async () => {
    const nonceOf = (response: RawResponse) => cspOf(response).match(/'nonce-([^']+)'/)![1]!;
    const rendered = await request(`${server.url}/pricing`, { headers: { "Accept-Encoding": "br" } });
    expect(rendered.headers["content-length"]).toBeUndefined(); // the first render streams
    for (const [encoding, decode] of [
      ["br", brotliDecompressSync],
      ["gzip", gunzipSync],
    ] as const) {
      const kept = await request(`${server.url}/pricing`, { headers: { "Accept-Encoding": encoding } });
      expect(kept.status).toBe(200);
      expect(kept.headers["content-encoding"]).toBe(encoding);
      expect(kept.headers["content-length"]).toBe(String(kept.body.length));
      expect(kept.headers.vary).toMatch(/accept-encoding/i);
      expect(kept.headers["x-request-id"]).toMatch(/^[0-9a-f-]{36}$/);
      expectSecurityHeaders(kept);
      const html = decode(kept.body).toString();
      expect(nonceOf(kept)).not.toBe(nonceOf(rendered));
      expect(html.replaceAll(nonceOf(kept), "N")).toBe(
        brotliDecompressSync(rendered.body).toString().replaceAll(nonceOf(rendered), "N"),
      );
    }
    const plain = await request(`${server.url}/pricing`);
    expect(plain.headers["content-encoding"]).toBeUndefined();
    expect(plain.headers["content-length"]).toBe(String(plain.body.length));
  });

  it("gives documents the app's nonce CSP plus the server's headers", async () => {
    const response = await request(`${server.url}/`);
    expectSecurityHeaders(response);
    expect(cspOf(response)).toMatch(/script-src [^;]*'nonce-/);
    // Plain http BASE_URL: no HSTS.
    expect(response.headers["strict-transport-security"]).toBeUndefined();
  });

  it("serves hashed assets immutable for a year, compressed, with ETag and HEAD", async () => {
    const asset = `${server.url}/assets/${largestAsset()}`;
    const plain = await request(asset);
    expect(plain.status).toBe(200);
    expect(plain.headers["cache-control"]).toBe("public, max-age=31536000, immutable");
    expect(plain.headers["content-type"]).toBe("text/javascript; charset=utf-8");
    expect(plain.headers["content-encoding"]).toBeUndefined();
    expect(Number(plain.headers["content-length"])).toBe(plain.body.length);
    expectSecurityHeaders(plain);

    for (const [encoding, decode] of [
      ["br", brotliDecompressSync],
      ["gzip", gunzipSync],
    ] as const) {
      const compressed = await request(asset, { headers: { "Accept-Encoding": encoding } });
      expect(compressed.headers["content-encoding"]).toBe(encoding);
      expect(compressed.headers.vary).toMatch(/accept-encoding/i);
      expect(compressed.body.length).toBeLessThan(plain.body.length);
      expect(decode(compressed.body).equals(plain.body)).toBe(true);
    }

    const etag = String(plain.headers.etag);
    const notModified = await request(asset, { headers: { "If-None-Match": etag } });
    expect(notModified.status).toBe(304);
    expect(notModified.body.length).toBe(0);

    const head = await request(asset, { method: "HEAD" });
    expect(head.status).toBe(200);
    expect(head.headers["content-length"]).toBe(plain.headers["content-length"]);
    expect(head.body.length).toBe(0);

    const missing = await request(`${server.url}/assets/does-not-exist-0000.js`);
    expect(missing.status).toBe(404);
  });

  it("serves the build manifest uncached", async () => {
    const response = await request(`${server.url}/builds/latest.json`);
    expect(response.status).toBe(200);
    expect(response.headers["cache-control"]).toBe("no-cache");
    const manifest = JSON.parse(response.body.toString()) as { id: string; time: string };
    expect(manifest.id).toEqual(expect.any(String));
    expect(Number.isNaN(Date.parse(manifest.time))).toBe(false);
  });

  it("never serves files outside build/client", async () => {
    for (const path of [
      "/..%2fserver.js",
      "/assets/..%2f..%2fserver.js",
      "/%2e%2e/%2e%2e/package.json",
      "/..%5c..%5cpackage.json",
    ]) {
      const response = await request(`${server.url}${path}`);
      expect(response.body.toString()).not.toMatch(/"dependencies"|createServer/);
    }
  });

  it("refuses an announced oversized body with 413 at once", async () => {
    const response = await sendOversized(`${server.url}/`, "content-length", 2 * 1024 * 1024);
    expect(response.status).toBe(413);
    expectSecurityHeaders(response);
  });

  it("refuses a chunked body once it exceeds the limit", async () => {
    const response = await sendOversized(`${server.url}/`, "chunked", 3 * 1024 * 1024);
    expect(response.status).toBe(413);
  });

  it("passes a body within the limit on to the app", async () => {
    const response = await request(`${server.url}/`, {
      method: "POST",
      headers: { "Content-Type": "application/x-www-form-urlencoded" },
      body: `data=${"x".repeat(500 * 1024)}`,
    });
    expect(response.status).not.toBe(413);
    expect(response.status).toBeLessThan(500);
  });
});

describe("production server behind https", () => {
  it("adds HSTS when BASE_URL is https", async () => {
    const server = await startServer({ BASE_URL: "https://app.example.com" });
    try {
      const response = await request(`${server.url}/healthz`);
      expect(response.status).toBe(200);
      expect(response.headers["strict-transport-security"]).toBe("max-age=31536000; includeSubDomains");
    } finally {
      await server.stop();
    }
  });
});

describe("graceful shutdown", () => {
  let db: TestDatabase;
  beforeAll(async () => {
    db = await createTestDatabase();
  });
  afterAll(async () => {
    await db?.drop();
  });

  it("finishes an in-flight request after SIGTERM, refuses new connections, then exits 0", async () => {
    // The database is closed on the way out: with PostgreSQL, that is a connection pool.
    const server = await startServer({ DATABASE_URL: db.url });
    // Warm keep-alive connections: idle ones must not hold the shutdown up.
    expect((await fetch(`${server.url}/healthz`)).status).toBe(200);

    // A request that is in flight: headers sent, half of its body still to come.
    const body = "data=" + "x".repeat(995);
    let settle!: (response: { status: number; text: string }) => void;
    const answered = new Promise<{ status: number; text: string }>((resolve) => (settle = resolve));
    const slow = http.request(
      `${server.url}/`,
      {
        method: "POST",
        agent: false,
        headers: { "Content-Type": "application/x-www-form-urlencoded", "Content-Length": String(body.length) },
      },
      (res) => {
        let text = "";
        res.on("data", (chunk: Buffer) => (text += chunk.toString()));
        res.on("end", () => settle({ status: res.statusCode ?? 0, text }));
      },
    );
    slow.on("error", (error) => settle({ status: -1, text: String(error) }));
    slow.write(body.slice(0, 500));
    await new Promise((resolve) => setTimeout(resolve, 300));

    process.kill(server.pid, "SIGTERM");
    await new Promise((resolve) => setTimeout(resolve, 500));

    // Still running for the in-flight request, but no longer accepting connections.
    let exitedEarly = false;
    void server.exited.then(() => (exitedEarly = true));
    await new Promise((resolve) => setImmediate(resolve));
    expect(exitedEarly).toBe(false);
    await expect(request(`${server.url}/healthz`)).rejects.toThrow();

    slow.end(body.slice(500));
    const response = await answered;
    expect(response.status).toBeGreaterThanOrEqual(200);
    expect(response.status).toBeLessThan(500);

    const startedWaiting = Date.now();
    const { code, stdout } = await server.exited;
    // Idle keep-alive connections (the fetch above) were closed, not waited out.
    expect(Date.now() - startedWaiting).toBeLessThan(3000);
    expect(code).toBe(0);
    expect(stdout).toContain("SIGTERM received");
    expect(stdout).toContain("Server stopped");
  });
});
