/**
 * Finding 4 of the security review: behind a trusted proxy (TRUST_PROXY=on, one hop), the
 * client address is the X-Forwarded-For entry the proxy appended, never one the client wrote
 * itself. Forged entries must neither dodge rate limits nor land in session and audit rows;
 * IPv6 clients are limited per /64; the two password-reset request paths and the page share
 * one bucket.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startTestApp, type TestApp } from "./helpers/app";
import { createUser, PASSWORD, uniqueEmail } from "./helpers/factories";
import { BROWSER_UA } from "./helpers/http";

const SECRET = "integration-test-secret-security-proxy-0123";

let app: TestApp;
let server: TestApp["server"];
let prisma: typeof import("~/server/db.server").prisma;

let counter = 0;
/** A different forged "client address" per call, as an attacker rotating it would send. */
const forged = () => `198.51.100.${++counter % 250}`;

/** A JSON POST to /api/auth as it arrives from the proxy: `xff` is the X-Forwarded-For it passes on. */
function apiPost(path: string, body: unknown, xff: string) {
  return fetch(`${server.url}/api/auth${path}`, {
    method: "POST",
    redirect: "manual",
    body: JSON.stringify(body),
    headers: { "Content-Type": "application/json", Origin: server.url, "X-Forwarded-For": xff },
  });
}

beforeAll(async () => {
  app = await startTestApp({ secret: SECRET, env: { TRUST_PROXY: "on", RATE_LIMIT: "on" } });
  ({ server, prisma } = app);
});

afterAll(async () => {
  await app?.stop();
});

describe("client address behind one trusted proxy", () => {
  it("answers the 4th sign-in within 10 s with 429 although the leftmost X-Forwarded-For rotates", async () => {
    const user = await createUser();
    const appended = "203.0.113.7";
    const statuses: number[] = [];
    for (let i = 0; i < 4; i++) {
      const res = await apiPost(
        "/sign-in/email",
        { email: user.email, password: PASSWORD },
        `${forged()}, ${appended}`,
      );
      statuses.push(res.status);
    }
    expect(statuses).toEqual([200, 200, 200, 429]);
  });

  it("records the address the proxy appended in session and audit rows, not the forged one", async () => {
    const user = await createUser();
    const fake = "192.0.2.66";
    // Two X-Forwarded-For headers: the chain runs across both, so the last entry of the last one counts.
    const res = await fetch(`${server.url}/api/auth/sign-in/email`, {
      method: "POST",
      body: JSON.stringify({ email: user.email, password: PASSWORD }),
      headers: [
        ["Content-Type", "application/json"],
        ["Origin", server.url],
        ["User-Agent", BROWSER_UA],
        ["X-Forwarded-For", `${fake}, 10.9.9.9`],
        ["X-Forwarded-For", "203.0.113.8"],
      ],
    });
    expect(res.status).toBe(200);
    const sessions = await prisma.session.findMany({ where: { userId: user.id }, select: { ipAddress: true } });
    expect(sessions).toEqual([{ ipAddress: "203.0.113.8" }]);
    // A refused attempt is audited with the same address.
    const wrong = await apiPost(
      "/sign-in/email",
      { email: user.email, password: "wrong-password" },
      `${fake}, 203.0.113.8`,
    );
    expect(wrong.status).toBe(401);
    const audits = await prisma.auditLog.findMany({
      where: { userId: user.id, action: "sign-in" },
      select: { ipAddress: true, status: true },
      orderBy: { createdAt: "asc" },
    });
    expect(audits).toEqual([
      { ipAddress: "203.0.113.8", status: "success" },
      { ipAddress: "203.0.113.8", status: "failure" },
    ]);
  });

  it("falls back to the socket peer when the appended entry is not an IP address", async () => {
    const user = await createUser();
    const res = await apiPost("/sign-in/email", { email: user.email, password: PASSWORD }, "203.0.113.9, not-an-ip");
    expect(res.status).toBe(200);
    const sessions = await prisma.session.findMany({ where: { userId: user.id }, select: { ipAddress: true } });
    expect(sessions).toEqual([{ ipAddress: "127.0.0.1" }]);
  });

  it("limits IPv6 clients per /64 and keeps the full address in the session row", async () => {
    const user = await createUser();
    const statuses: number[] = [];
    for (let i = 1; i <= 4; i++) {
      // Each attempt from another address of the same /64, as a client that owns the prefix could.
      const res = await apiPost("/sign-in/email", { email: user.email, password: PASSWORD }, `2001:db8:7:7::${i}`);
      statuses.push(res.status);
    }
    expect(statuses).toEqual([200, 200, 200, 429]);
    const sessions = await prisma.session.findMany({
      where: { userId: user.id },
      select: { ipAddress: true },
      orderBy: { createdAt: "asc" },
    });
    expect(sessions.map((s) => s.ipAddress).sort()).toEqual(["2001:db8:7:7::1", "2001:db8:7:7::2", "2001:db8:7:7::3"]);

    // Another /64 has its own count.
    const other = await apiPost("/sign-in/email", { email: user.email, password: PASSWORD }, "2001:db8:7:8::1");
    expect(other.status).toBe(200);
  });
});

describe("password-reset requests", () => {
  it("share one bucket across /request-password-reset, /forget-password and the page", async () => {
    // One honest client address, so that only the buckets are under test here.
    const xff = () => "203.0.113.20";
    const body = { email: uniqueEmail("reset"), redirectTo: "/reset-password" };
    const page = () =>
      fetch(`${server.url}/forgot-password`, {
        method: "POST",
        redirect: "manual",
        body: new URLSearchParams({ intent: "forgot-password", email: body.email }),
        headers: {
          "Content-Type": "application/x-www-form-urlencoded",
          "User-Agent": BROWSER_UA,
          Origin: server.url,
          "X-Forwarded-For": xff(),
        },
      });

    const allowed = [
      (await apiPost("/request-password-reset", body, xff())).status,
      (await apiPost("/forget-password", body, xff())).status,
      (await page()).status,
    ];
    expect(allowed).toEqual([200, 200, 302]);

    // The window's 3 requests are used up, whichever way the next one comes.
    const refused = [
      (await apiPost("/forget-password", body, xff())).status,
      (await apiPost("/request-password-reset", body, xff())).status,
      (await page()).status,
    ];
    expect(refused).toEqual([429, 429, 429]);
  });
});
