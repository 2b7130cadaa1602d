/**
 * Structured logs and the error hook (docs/decisions/0030-logs-and-errors.md), against the
 * built server: one JSON access line per request with the route pattern (never the URL) and
 * the request id the response echoes; X-Request-Id taken only from a trusted proxy; LOG_LEVEL;
 * and unexpected errors reported to a stand-in of Sentry's ingest endpoint with the request's
 * id and no secret. SQLite, or PostgreSQL with TEST_DATABASE_URL.
 */
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startTestApp, type TestApp } from "./helpers/app";
import { createUser, PASSWORD, sessionTokenCookie } from "./helpers/factories";
import { BROWSER_UA, get } from "./helpers/http";
import { startServer } from "./helpers/server";

const SECRET = "logs-test-secret-0123456789abcdefghijklmnop";
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

interface Line {
  level: number;
  msg?: string;
  requestId?: string;
  method?: string;
  route?: string | null;
  status?: number;
  durationMs?: number;
  userId?: string | null;
  instance?: string;
  [key: string]: unknown;
}

/** Every line of the output, each of which must be JSON. */
function lines(output: string): Line[] {
  return output
    .split("\n")
    .filter((line) => line.trim() !== "")
    .map((line) => {
      try {
        return JSON.parse(line) as Line;
      } catch {
        throw new Error(`A log line that is not JSON: ${line.slice(0, 300)}`);
      }
    });
}

/** The access line of the request with this id, once written (after the response ends). */
async function accessLine(output: () => string, requestId: string): Promise<Line> {
  for (let i = 0; i < 100; i++) {
    const found = lines(output()).filter((line) => line.msg === "request" && line.requestId === requestId);
    if (found.length > 1) throw new Error(`${found.length} access lines for ${requestId}`);
    if (found.length === 1) return found[0]!;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  throw new Error(`No access line for ${requestId}:\n${output().slice(-2000)}`);
}

/** A stand-in of Sentry's ingest endpoint: the envelopes the SDK posts, as their lines of JSON. */
let sentry: Server;
const envelopes: unknown[][] = [];

let app: TestApp;

beforeAll(async () => {
  sentry = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (chunk: Buffer) => chunks.push(chunk));
    req.on("end", () => {
      const body = Buffer.concat(chunks).toString("utf8");
      envelopes.push(
        body
          .split("\n")
          .filter(Boolean)
          .map((line) => JSON.parse(line) as unknown),
      );
      res.writeHead(200, { "Content-Type": "application/json" }).end("{}");
    });
  });
  await new Promise<void>((resolve) => sentry.listen(0, "127.0.0.1", resolve));
  const dsn = `http://publickey@127.0.0.1:${(sentry.address() as AddressInfo).port}/1`;
  app = await startTestApp({ secret: SECRET, env: { SENTRY_DSN: dsn } });
}, 60_000);

afterAll(async () => {
  await app?.stop();
  await new Promise((resolve) => sentry?.close(resolve));
});

describe("one JSON access line per request", () => {
  it("for a page: method, route pattern, status, duration, instance and the id the response echoes", async () => {
    const res = await get(`${app.base}/fr/pricing`);
    expect(res.status).toBe(200);
    await res.text();
    const id = res.headers.get("x-request-id")!;
    expect(id).toMatch(UUID);
    const line = await accessLine(app.server.stdout, id);
    expect(line).toMatchObject({ level: 30, method: "GET", route: "/:lang?/pricing", status: 200, userId: null });
    expect(line.durationMs).toBeGreaterThan(0);
    expect(line.instance).toMatch(/:\d+$/);
    expect(typeof line.time).toBe("number");
  });

  it("names the signed-in user, and a cached page its route too", async () => {
    const user = await createUser();
    const res = await get(`${app.base}/dashboard`, { cookie: await sessionTokenCookie(user.id) });
    await res.text();
    const line = await accessLine(app.server.stdout, res.headers.get("x-request-id")!);
    expect(line).toMatchObject({ route: "/:lang?/dashboard", status: 200, userId: user.id });

    // The home page is kept by the page cache for visitors: the second answer skips the router.
    const ids: string[] = [];
    for (let i = 0; i < 2; i++) {
      const home = await get(`${app.base}/`);
      await home.text();
      ids.push(home.headers.get("x-request-id")!);
    }
    for (const id of ids) expect((await accessLine(app.server.stdout, id)).route).toBe("/:lang?");
  });

  it("for pages whose URL carries a token: the pattern, and the token nowhere in the output", async () => {
    const token = "NeverLoggedInvitationId0123456789";
    const invitation = await get(`${app.base}/ja/invitations/${token}`);
    await invitation.text();
    const line = await accessLine(app.server.stdout, invitation.headers.get("x-request-id")!);
    expect(line.route).toBe("/:lang?/invitations/:id");

    const reset = await get(`${app.base}/reset-password?token=${token}`);
    await reset.text();
    expect((await accessLine(app.server.stdout, reset.headers.get("x-request-id")!)).route).toBe(
      "/:lang?/reset-password",
    );
    const missing = await get(`${app.base}/no-such-page/${token}`);
    await missing.text();
    expect(await accessLine(app.server.stdout, missing.headers.get("x-request-id")!)).toMatchObject({
      route: "/*",
      status: 404,
    });
    expect(app.server.stdout()).not.toContain(token);
  });

  it("for an API call: the endpoint's pattern and the user", async () => {
    const user = await createUser();
    const res = await fetch(`${app.base}/api/auth/get-session`, {
      headers: { cookie: await sessionTokenCookie(user.id), "user-agent": BROWSER_UA },
    });
    expect(res.status).toBe(200);
    await res.text();
    const line = await accessLine(app.server.stdout, res.headers.get("x-request-id")!);
    expect(line).toMatchObject({ method: "GET", route: "/api/auth/get-session", status: 200, userId: user.id });

    const token = "ApiPathTokenNeverLogged987654321";
    const reset = await get(`${app.base}/api/auth/reset-password/${token}?callbackURL=/reset-password`);
    await reset.text();
    const resetLine = await accessLine(app.server.stdout, reset.headers.get("x-request-id")!);
    expect(resetLine.route).toBe("/api/auth/reset-password/:token");
    expect(app.server.stdout()).not.toContain(token);
  });

  it("for a static file: the assets' pattern", async () => {
    const html = await (await get(`${app.base}/`)).text();
    const asset = /\/assets\/[\w.-]+\.(js|css)/.exec(html)![0];
    const res = await get(`${app.base}${asset}`);
    expect(res.status).toBe(200);
    await res.arrayBuffer();
    const line = await accessLine(app.server.stdout, res.headers.get("x-request-id")!);
    expect(line).toMatchObject({ method: "GET", route: "/assets/*", status: 200 });
  });

  it("writes every line as JSON, the app's own lines with the request's id", async () => {
    const email = `logs-${Date.now()}@example.com`;
    const res = await fetch(`${app.base}/api/auth/sign-up/email`, {
      method: "POST",
      body: JSON.stringify({ email, password: PASSWORD, name: "Logs" }),
      headers: { "Content-Type": "application/json", Origin: app.base },
    });
    expect(res.status).toBe(200);
    await app.mailbox.waitFor(email);
    const id = res.headers.get("x-request-id")!;
    await accessLine(app.server.stdout, id);
    // A worker sent the verification email that request queued: its line carries the request's id
    // (written once the mail server's answer is in, a moment after the mailbox has the message).
    let sent: Line | undefined;
    for (let i = 0; i < 100 && !sent; i++) {
      sent = lines(app.server.stdout()).find((line) => line.msg === "Email sent" && line.requestId === id);
      if (!sent) await new Promise((resolve) => setTimeout(resolve, 50));
    }
    expect(sent).toMatchObject({ template: "verify-email" });
  });
});

describe("access lines in batches", () => {
  it("keeps every line whole and once across batches, and writes the last batch when the server stops", async () => {
    const server = await startServer({});
    const ids: string[] = [];
    let stopped: { stdout: string } | undefined;
    try {
      // About 270 bytes a line: 160 requests fill several 16 KB batches and leave part of one.
      for (let burst = 0; burst < 16; burst++) {
        const answers = await Promise.all(Array.from({ length: 10 }, () => get(`${server.url}/pricing`)));
        for (const res of answers) {
          await res.text();
          ids.push(res.headers.get("x-request-id")!);
        }
      }
      stopped = await server.stop(); // at once: the last batch leaves on its timer or at exit
    } finally {
      if (!stopped) await server.stop();
    }
    // Every line is JSON (lines() says which is not); the start-up's health checks have lines too.
    const access = lines(stopped.stdout).filter((line) => line.msg === "request" && ids.includes(line.requestId!));
    expect(access.map((line) => line.requestId).sort()).toEqual([...ids].sort());
    expect(access.every((line) => line.route === "/:lang?/pricing" && line.status === 200)).toBe(true);
  });
});

describe("X-Request-Id from a proxy", () => {
  it("is ignored without a trusted proxy: a client cannot choose its request's id", async () => {
    const res = await get(`${app.base}/healthz`, { "x-request-id": "chosen-by-the-client" });
    expect(res.headers.get("x-request-id")).toMatch(UUID);
    const line = await accessLine(app.server.stdout, res.headers.get("x-request-id")!);
    expect(line.route).toBe("/healthz");
    expect(app.server.stdout()).not.toContain("chosen-by-the-client");
  });

  it("is kept behind a trusted proxy when well-formed, and replaced when not", async () => {
    const proxied = await startServer({ DATABASE_URL: app.db.url, AUTH_SECRET: SECRET, TRUST_PROXY: "1" });
    try {
      const res = await get(`${proxied.url}/healthz`, { "x-request-id": "lb-7f3a.42:1" });
      expect(res.headers.get("x-request-id")).toBe("lb-7f3a.42:1");
      expect((await accessLine(proxied.stdout, "lb-7f3a.42:1")).status).toBe(200);

      for (const bad of ["has spaces in it", "x".repeat(129), 'quote"and{json}']) {
        const refused = await get(`${proxied.url}/healthz`, { "x-request-id": bad });
        expect(refused.headers.get("x-request-id")).toMatch(UUID);
      }
      expect(proxied.stdout()).not.toContain("has spaces");
    } finally {
      await proxied.stop();
    }
  });
});

describe("LOG_LEVEL", () => {
  it("warn drops the access lines; an unknown level stops the start with a message", async () => {
    const quiet = await startServer({ LOG_LEVEL: "warn" });
    try {
      const res = await get(`${quiet.url}/pricing`);
      await res.text();
      await new Promise((resolve) => setTimeout(resolve, 300));
      expect(lines(quiet.stdout()).filter((line) => line.msg === "request")).toEqual([]);
      expect(lines(quiet.stdout()).every((line) => line.level >= 40)).toBe(true);
    } finally {
      await quiet.stop();
    }
    await expect(startServer({ LOG_LEVEL: "loud" })).rejects.toThrow(/LOG_LEVEL.*must be one of/);
  });
});

describe("the error hook", () => {
  it("reports an unexpected error with the request's id, route and user, and no secret", async () => {
    const user = await createUser();
    const cookie = await sessionTokenCookie(user.id);
    // A table gone missing: an error no code path expects, in the API and in a page.
    await app.prisma.$executeRawUnsafe(`ALTER TABLE passkey RENAME TO passkey_gone`);
    let apiId: string;
    let pageId: string;
    try {
      const api = await fetch(`${app.base}/api/auth/passkey/list-user-passkeys`, { headers: { cookie } });
      expect(api.status).toBe(500);
      apiId = api.headers.get("x-request-id")!;
      const page = await get(`${app.base}/profile/security`, { cookie });
      expect(page.status).toBe(500);
      await page.text();
      pageId = page.headers.get("x-request-id")!;
    } finally {
      await app.prisma.$executeRawUnsafe(`ALTER TABLE passkey_gone RENAME TO passkey`);
    }

    const events = async () => {
      for (let i = 0; i < 100; i++) {
        const found = envelopes
          .flat()
          .filter((item): item is { tags: Record<string, string>; user?: { id: string } } =>
            Boolean((item as { tags?: unknown }).tags),
          );
        if (found.length >= 2) return found;
        await new Promise((resolve) => setTimeout(resolve, 50));
      }
      throw new Error(`Fewer than two events reached the stand-in: ${JSON.stringify(envelopes).slice(0, 1000)}`);
    };
    const reported = await events();
    // Only these two: refusals and the 404 page of the tests above are not errors.
    expect(reported.map((event) => event.tags.request_id).sort()).toEqual([apiId, pageId].sort());
    expect(reported.find((event) => event.tags.request_id === apiId)).toMatchObject({
      tags: { route: "/api/auth/passkey/list-user-passkeys" },
      user: { id: user.id },
    });
    expect(reported.find((event) => event.tags.request_id === pageId)).toMatchObject({
      tags: { route: "/:lang?/profile/security" },
      user: { id: user.id },
    });
    const sent = JSON.stringify(envelopes);
    expect(sent).not.toContain(cookie.split("=")[1]!);
    expect(sent).not.toMatch(/cookie|"request"/i);

    // The log has each error once, with the same request id.
    const errors = lines(app.server.stdout()).filter((line) => line.level === 50);
    expect(errors.filter((line) => line.requestId === apiId)).toHaveLength(1);
    expect(errors.filter((line) => line.requestId === pageId)).toHaveLength(1);
  });
});
