/**
 * Faults: the database going away while requests run (PostgreSQL, through a TCP proxy the
 * test cuts), the mail server being down, SIGTERM under load, and the same thing asked many
 * times at once (duplicate sign-ups, one invitation accepted twice). All against the built
 * server. The database outage needs a network between app and database, so it runs on
 * PostgreSQL only (TEST_DATABASE_URL); an embedded SQLite file has none to lose. Everything
 * else runs on both. Concurrent webhook deliveries are in helpers/billing.ts ("applies a
 * webhook once"), two instances in instances.test.ts.
 */
import { readFileSync } from "node:fs";
import http from "node:http";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { applySetCookies, makeTestClient, type TestClient } from "./helpers/auth-client";
import { createTestDatabase, type TestDatabase } from "./helpers/database";
import {
  createOrganization,
  createUser,
  PASSWORD,
  signInInProcess,
  signInWithPassword,
  unique,
  uniqueEmail,
} from "./helpers/factories";
import { BROWSER_UA, get, post } from "./helpers/http";
import { startMailbox, type CapturedMail, type Mailbox } from "./helpers/mailbox";
import { startServer, type RunningServer } from "./helpers/server";
import { startTcpProxy, type TcpProxy } from "./helpers/tcp-proxy";

const onPostgres = /^postgres(ql)?:/.test(process.env.TEST_DATABASE_URL ?? "");
const SECRET = "integration-test-secret-faults-0123456789abcdef";

/** A string of a locale's file (`path` dotted, e.g. "error.unavailableTitle"), as a server-rendered page has it. */
function localized(lng: string, file: "auth" | "common", path: string): string {
  const json: unknown = JSON.parse(readFileSync(new URL(`../../locales/${lng}/${file}.json`, import.meta.url), "utf8"));
  const text = path.split(".").reduce((node, key) => (node as Record<string, unknown>)[key], json) as string;
  return text.replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;").replace(/'/g, "&#x27;");
}

/** Polls `condition` until it holds, for state that has no event to await (a server coming back). */
async function eventually(condition: () => Promise<boolean>, timeoutMs: number, what: string): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await condition().catch(() => false))) {
    if (Date.now() > deadline) throw new Error(`Timed out after ${timeoutMs} ms waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 250));
  }
}

const alive = (server: RunningServer) => {
  try {
    process.kill(server.pid, 0);
    return true;
  } catch {
    return false;
  }
};

// ---------------------------------------------------------------------------------------
// One server for the rest: its mail goes through a proxy to the mailbox
// ---------------------------------------------------------------------------------------

describe("the mail server, shutdown and concurrency", () => {
  let db: TestDatabase;
  let mailbox: Mailbox;
  let smtp: TcpProxy;
  let server: RunningServer;
  let base: string;
  let prisma: typeof import("~/server/db.server").prisma;

  beforeAll(async () => {
    db = await createTestDatabase();
    mailbox = await startMailbox();
    smtp = await startTcpProxy({ host: "127.0.0.1", port: Number(new URL(mailbox.url).port) });
    const env = {
      DATABASE_URL: db.url,
      AUTH_SECRET: SECRET,
      SMTP_URL: `smtp://${smtp.host}`,
      // Mail the proxy refuses is tried again every second, and found half a second after.
      MAIL_RETRY_DELAY_SECONDS: "1",
      MAIL_RETRY_BACKOFF: "off",
      MAIL_RETRY_LIMIT: "60",
      JOB_POLL_INTERVAL_MS: "500",
    };
    server = await startServer(env);
    base = server.url;
    Object.assign(process.env, { ...env, BASE_URL: base });
    ({ prisma } = await import("~/server/db.server"));
  });

  afterAll(async () => {
    const { closeDatabase } = await import("~/server/db.server");
    await closeDatabase();
    await server?.stop();
    await smtp?.close();
    await mailbox?.close();
    await db?.drop();
  });

  /** A browser with a session made in-process (works for unverified users too). */
  const sessionOf = (userId: string) => signInInProcess(makeTestClient(base), userId, { userAgent: "vitest" });

  const signUp = (email: string, extra: Record<string, string> = {}) =>
    fetch(`${base}/api/auth/sign-up/email`, {
      method: "POST",
      headers: { "Content-Type": "application/json", Origin: base, ...extra },
      body: JSON.stringify({ email, password: PASSWORD, name: "Newcomer" }),
    });

  describe("SMTP down", () => {
    /** The Date header of a captured message. */
    const dateOf = (mail: CapturedMail) => Date.parse(/^Date: (.+)$/im.exec(mail.raw)![1]!);

    it("sign-up, reset, verification, change-email and invitations answer as usual; their mail comes once it is back", async () => {
      const [apiSignUp, pageSignUp, moved, invitee, pageInvitee] = ["signup", "signup", "moved", "inv", "inv"].map(
        uniqueEmail,
      ) as [string, string, string, string, string];
      const verified = await createUser();
      const unverified = await createUser({ verified: false });
      const onVerified = await sessionOf(verified.id);
      const owner = await createUser();
      const organization = await createOrganization({ members: [{ userId: owner.id, role: "owner" }] });
      const onOwner = await sessionOf(owner.id);
      const c = makeTestClient(base);
      const received = mailbox.messages.length;
      const retries = () => (server.stdout().match(/email failed, trying again later/g) ?? []).length;
      const retriedBefore = retries();
      await smtp.cut();
      let invitationId: string;
      try {
        expect((await signUp(apiSignUp)).status).toBe(200);
        const form = await post(
          `${base}/fr/signup`,
          { intent: "sign-up", name: "Zoé", email: pageSignUp, newPassword: PASSWORD, confirmPassword: PASSWORD },
          { Origin: base },
        );
        expect(form.status).toBe(302);
        expect(form.headers.get("location")).toBe("/fr/signup?sent=1");
        expect(
          (await c.client.requestPasswordReset({ email: verified.email, redirectTo: "/reset-password" })).error,
        ).toBeNull();
        const page = await post(`${base}/ja/forgot-password`, { email: verified.email }, { Origin: base });
        expect(page.headers.get("location")).toBe("/ja/forgot-password?sent=1");
        expect((await c.client.sendVerificationEmail({ email: unverified.email })).error).toBeNull();
        expect((await onVerified.client.changeEmail({ newEmail: moved })).error).toBeNull();
        const invited = await onOwner.client.organization.inviteMember({
          email: invitee,
          role: "member",
          organizationId: organization.id,
        });
        expect(invited.error).toBeNull();
        invitationId = invited.data!.id;
        const invitePage = await post(
          `${base}/ja/organizations/${organization.slug}/invitations`,
          { intent: "invite-member", email: pageInvitee, role: "member" },
          { Origin: base, Cookie: onOwner.cookieHeader() },
        );
        expect(invitePage.status).toBe(302);
        // The workers try, fail and try again while it is down; nothing arrives meanwhile.
        await eventually(async () => retries() - retriedBefore >= 16, 15_000, "every email to have been tried twice");
        expect(mailbox.messages.length).toBe(received);
      } finally {
        await smtp.restore();
      }

      for (const address of [apiSignUp, pageSignUp]) {
        expect(
          (await mailbox.waitFor(address)).links.some((link) => link.includes("/api/auth/verify-email?token=")),
        ).toBe(true);
      }
      // Three for the verified user, in whatever order the queue drains.
      const isReset = (mail: CapturedMail) => mail.links.some((link) => link.includes("/reset-password/"));
      await mailbox.waitFor(verified.email, isReset);
      await mailbox.waitFor(verified.email, isReset);
      // The change is confirmed from the current address.
      await mailbox.waitFor(verified.email, (mail) => mail.subject === "Confirm your new email address");
      await mailbox.waitFor(unverified.email);
      expect((await mailbox.waitFor(invitee)).text).toContain(`/invitations/${invitationId!}`);
      await mailbox.waitFor(pageInvitee);
      // Each once (a second delivery would come within a retry, 1.5 s), and the accounts and
      // invitations are the ones the requests made.
      await new Promise((resolve) => setTimeout(resolve, 1_500));
      expect(mailbox.messages.length).toBe(received + 8);
      expect(await prisma.user.count({ where: { email: { in: [apiSignUp, pageSignUp] } } })).toBe(2);
      expect(await prisma.invitation.count({ where: { organizationId: organization.id, status: "pending" } })).toBe(2);
    });

    it("a two-factor code: the page says it is on its way, a resend works, the newest code signs in once it is back", async () => {
      const user = await createUser();
      const setUp = await signInWithPassword(makeTestClient(base), user.email);
      expect((await setUp.client.twoFactor.enable({ password: PASSWORD, method: "otp" })).error).toBeNull();
      const browser = makeTestClient(base);
      expect((await browser.client.signIn.email({ email: user.email, password: PASSWORD })).data).toMatchObject({
        twoFactorRedirect: true,
      });
      await smtp.cut();
      try {
        const sent = await post(
          `${base}/fr/signin/two-factor`,
          { intent: "send-otp" },
          { Origin: base, Cookie: browser.cookieHeader() },
        );
        expect(sent.status).toBe(302);
        expect(sent.headers.get("location")).toBe("/fr/signin/two-factor?method=otp");
        applySetCookies(browser.jar, sent.headers.getSetCookie());
        const page = await (
          await get(`${base}/fr/signin/two-factor?method=otp`, { Cookie: browser.cookieHeader() })
        ).text();
        expect(page).toContain(localized("fr", "auth", "twoFactor.signIn.codeSent"));
        expect(page).toContain(localized("fr", "auth", "twoFactor.signIn.codeSentBody"));
        // Resent a little later (a Date header counts whole seconds): the first code is replaced.
        await new Promise((resolve) => setTimeout(resolve, 1100));
        expect((await browser.client.twoFactor.sendOtp()).error).toBeNull();
      } finally {
        await smtp.restore();
      }
      const mails = [await mailbox.waitFor(user.email), await mailbox.waitFor(user.email)];
      // Whatever order they arrive in, the newer one says so, and its code is the one that works.
      const [older, newer] = mails.sort((a, b) => dateOf(a) - dateOf(b)) as [CapturedMail, CapturedMail];
      const codeOf = (mail: CapturedMail) => /^(\d{6})$/m.exec(mail.text)![1]!;
      expect((await browser.client.twoFactor.verifyOtp({ code: codeOf(older) })).error).toMatchObject({
        code: "INVALID_CODE",
      });
      expect((await browser.client.twoFactor.verifyOtp({ code: codeOf(newer) })).error).toBeNull();
      expect(browser.jar.has("app.session_token")).toBe(true);
    });
  });

  describe("the same thing many times at once", () => {
    it("10 concurrent sign-ups of one email create one user; every answer is the ordinary one", async () => {
      const email = uniqueEmail("twin");
      const answers = await Promise.all(Array.from({ length: 10 }, () => signUp(email)));
      expect(answers.map((r) => r.status)).toEqual(Array(10).fill(200));
      const bodies = (await Promise.all(answers.map((r) => r.json()))) as { user: Record<string, unknown> }[];
      // Same shape and fields for the one that created the account and the nine others.
      const shapes = new Set(bodies.map(({ user }) => JSON.stringify(Object.keys(user).sort())));
      expect(shapes.size).toBe(1);
      expect(bodies.every(({ user }) => user.email === email && user.emailVerified === false)).toBe(true);
      expect(await prisma.user.count({ where: { email } })).toBe(1);
      const [user] = await prisma.user.findMany({ where: { email }, select: { id: true } });
      expect(await prisma.account.count({ where: { userId: user!.id } })).toBe(1);
      expect(server.stdout()).not.toMatch(/sign-up\/email failed/);
    });

    it("10 concurrent acceptances of one invitation make one member; the others get a clean 4xx", async () => {
      const owner = await createUser();
      const organization = await createOrganization({ members: [{ userId: owner.id, role: "owner" }] });
      const recipient = await createUser();
      const invitation = await prisma.invitation.create({
        data: {
          id: unique("inv"),
          organizationId: organization.id,
          email: recipient.email,
          role: "member",
          inviterId: owner.id,
          expiresAt: new Date(Date.now() + 3_600_000),
        },
      });
      // The same person in two browsers (or a double click), ten times at once.
      const browsers = await Promise.all(Array.from({ length: 10 }, () => sessionOf(recipient.id)));
      const answers = await Promise.all(
        browsers.map((b) => b.client.organization.acceptInvitation({ invitationId: invitation.id })),
      );
      const winners = answers.filter((answer) => answer.error === null);
      expect(winners).toHaveLength(1);
      for (const { error } of answers.filter((answer) => answer.error !== null)) {
        expect(error!.status).toBeGreaterThanOrEqual(400);
        expect(error!.status).toBeLessThan(500);
        expect(["INVITATION_NOT_FOUND", "USER_IS_ALREADY_A_MEMBER_OF_THIS_ORGANIZATION"]).toContain(error!.code);
      }
      expect(await prisma.member.count({ where: { organizationId: organization.id, userId: recipient.id } })).toBe(1);
      expect((await prisma.invitation.findUniqueOrThrow({ where: { id: invitation.id } })).status).toBe("accepted");
      expect(await prisma.auditLog.count({ where: { action: "accept-invitation", targetId: invitation.id } })).toBe(1);
    });
  });

  describe("SIGTERM under load", () => {
    /** A request whose headers are sent and whose body is held back until `finish()`. */
    function heldRequest(url: string, path: string, type: string, body: string) {
      let settle!: (answer: { status: number; location: string | null; text: string }) => void;
      const answer = new Promise<{ status: number; location: string | null; text: string }>(
        (resolve) => (settle = resolve),
      );
      let finish = () => {};
      const connected = new Promise<void>((resolve, reject) => {
        const req = http.request(
          url + path,
          {
            method: "POST",
            agent: false,
            headers: {
              "Content-Type": type,
              "Content-Length": String(Buffer.byteLength(body)),
              Origin: url,
              "User-Agent": BROWSER_UA,
            },
          },
          (res) => {
            let text = "";
            res.on("data", (chunk: Buffer) => (text += chunk.toString()));
            res.on("end", () => settle({ status: res.statusCode ?? 0, location: res.headers.location ?? null, text }));
          },
        );
        req.on("error", (error) => {
          settle({ status: -1, location: null, text: String(error) });
          reject(error);
        });
        // Headers and the first bytes of the body are on their way once this write is flushed.
        req.write(body.slice(0, 5), () => resolve());
        finish = () => req.end(body.slice(5));
      });
      return { connected, answer, finish: () => finish() };
    }

    it("finishes ~50 in-flight page and API requests with their normal answers, refuses new ones, exits 0", async () => {
      const drained = await startServer({ DATABASE_URL: db.url, AUTH_SECRET: SECRET, SMTP_URL: mailbox.url });
      const json = "application/json";
      const form = "application/x-www-form-urlencoded";
      const nobody = (i: number) => `nobody-${i}-${Date.now()}@example.com`;
      const kinds = [
        // API: a password reset for an unknown address (200), a sign-out without a session (200).
        ...Array.from({ length: 15 }, (_, i) => ({
          request: heldRequest(
            drained.url,
            "/api/auth/request-password-reset",
            json,
            JSON.stringify({ email: nobody(i), redirectTo: "/reset-password" }),
          ),
          expected: 200,
        })),
        ...Array.from({ length: 10 }, () => ({
          request: heldRequest(drained.url, "/api/auth/sign-out", json, "{}"),
          expected: 200,
        })),
        // Pages: the forgot-password form (302 to its "sent" page), a sign-up form whose
        // passwords differ (400, the form again with its errors).
        ...Array.from({ length: 15 }, (_, i) => ({
          request: heldRequest(
            drained.url,
            "/fr/forgot-password",
            form,
            new URLSearchParams({ email: nobody(i) }).toString(),
          ),
          expected: 302,
        })),
        ...Array.from({ length: 10 }, (_, i) => ({
          request: heldRequest(
            drained.url,
            "/ja/signup",
            form,
            new URLSearchParams({
              intent: "sign-up",
              name: "Late",
              email: nobody(i),
              newPassword: "long-enough-1",
              confirmPassword: "long-enough-2",
            }).toString(),
          ),
          expected: 400,
        })),
      ];
      await Promise.all(kinds.map(({ request }) => request.connected));
      // A round trip on a connection made after them: by its answer, the server has taken in
      // every request above (accepted in order, read their headers) and is waiting for bodies.
      // (A new connection on purpose: fetch would reuse the keep-alive one of startServer's poll.)
      const barrier = await new Promise<number>((resolve, reject) => {
        http
          .get(`${drained.url}/healthz`, { agent: false }, (res) => {
            res.resume();
            res.on("end", () => resolve(res.statusCode ?? 0));
          })
          .on("error", reject);
      });
      expect(barrier).toBe(200);

      const signalled = Date.now();
      process.kill(drained.pid, "SIGTERM");
      await eventually(async () => drained.stdout().includes("SIGTERM received"), 5_000, "the signal to be handled");
      // No new connections from now on.
      await expect(fetch(`${drained.url}/healthz`)).rejects.toThrow();

      for (const { request } of kinds) request.finish();
      const answers = await Promise.all(kinds.map(({ request }) => request.answer));
      expect(answers.map((answer) => `${answer.status} ${answer.status < 0 ? answer.text : ""}`)).toEqual(
        kinds.map(({ expected }) => `${expected} `),
      );
      expect(JSON.parse(answers[0]!.text)).toMatchObject({ status: true });
      expect(answers[30]!.location).toBe("/fr/forgot-password?sent=1");
      expect(answers[49]!.text).toContain('<html lang="ja"');

      const { code, stdout } = await drained.exited;
      expect(code).toBe(0);
      expect(Date.now() - signalled).toBeLessThan(10_000); // server.ts's SHUTDOWN_TIMEOUT_MS
      expect(stdout).toContain("Server stopped");
      expect(stdout).not.toContain("still running after");
    }, 60_000);
  });
});

// ---------------------------------------------------------------------------------------
// The database stops while requests run (PostgreSQL)
// ---------------------------------------------------------------------------------------

// Last on purpose: the suite above points this process's Prisma client (the one in-process
// sessions use) at its database before anything imports it; this one uses a client of its own.
describe.skipIf(!onPostgres)("the database goes away and comes back (PostgreSQL)", () => {
  let db: TestDatabase;
  let proxy: TcpProxy;
  let server: RunningServer;
  let direct: import("~/server/db.server").Database;
  let email: string;
  let user: TestClient;

  const cookie = () => user.cookieHeader();
  const page = (path: string) => get(server.url + path, { Cookie: cookie() });
  const api = (path: string) => fetch(server.url + path, { headers: { Cookie: cookie(), Origin: server.url } });
  const signIn = (address: string) =>
    fetch(`${server.url}/api/auth/sign-in/email`, {
      method: "POST",
      headers: { "Content-Type": "application/json", Origin: server.url },
      body: JSON.stringify({ email: address, password: PASSWORD }),
    });

  beforeAll(async () => {
    db = await createTestDatabase();
    const target = new URL(db.url);
    proxy = await startTcpProxy({ host: target.hostname, port: Number(target.port || 5432) });
    const throughProxy = new URL(db.url);
    throughProxy.host = proxy.host;
    server = await startServer({ DATABASE_URL: throughProxy.toString(), AUTH_SECRET: SECRET });
    const { createDatabase } = await import("~/server/db.server");
    direct = createDatabase(db.url);
    ({ email } = await createUser({ db: direct, email: uniqueEmail("outage"), name: "Outage" }));
    user = await signInWithPassword(makeTestClient(server.url), email);
  });

  afterAll(async () => {
    await direct?.$disconnect();
    await server?.stop();
    await proxy?.close();
    await db?.drop();
  });

  it("answers 503 (page, API, health) while it is gone, stays up, and recovers by itself", async () => {
    expect((await page("/fr/profile")).status).toBe(200);
    expect((await api("/api/auth/list-sessions")).status).toBe(200);

    // Requests in flight: their queries are on the wire when the database goes.
    proxy.hold();
    const inFlight = [
      ...Array.from({ length: 5 }, () => page("/fr/profile")),
      ...Array.from({ length: 5 }, () => api("/api/auth/list-sessions")),
    ];
    await eventually(async () => proxy.heldBytes() > 0, 10_000, "a query to be on its way");
    const cutAt = Date.now();
    await proxy.cut();
    const answered = await Promise.all(inFlight);
    expect(Date.now() - cutAt).toBeLessThan(10_000);
    expect(answered.map((r) => r.status)).toEqual(Array(10).fill(503));
    const inFlightPage = await answered[0]!.text();
    expect(inFlightPage).toContain('data-testid="error-status">503');
    expect(await answered[9]!.json()).toMatchObject({ code: "SERVICE_UNAVAILABLE", message: expect.any(String) });

    // While it is gone: the app's own 503 page in the page's language, fast.
    for (const lng of ["fr", "ja"]) {
      const started = Date.now();
      const res = await page(`/${lng}/profile`);
      expect(Date.now() - started).toBeLessThan(8_000);
      expect(res.status).toBe(503);
      expect(res.headers.get("Retry-After")).toBe("5");
      const html = await res.text();
      expect(html).toContain(`<html lang="${lng}"`);
      expect(html).toContain(`<title>503 - ${localized(lng, "common", "error.unavailableTitle")}</title>`);
      expect(html).toContain(localized(lng, "common", "error.unavailableDescription"));
      expect(html).not.toMatch(/prisma|ECONNREFUSED|Can&#x27;t reach|terminated/i);
    }
    // A client-side navigation's data request: the root boundary gets the same 503 to render.
    const navigation = await page("/fr/profile.data");
    expect(navigation.status).toBe(503);
    expect(await navigation.text()).toMatch(/"ErrorResponse",[^\]]*\]?.*503/);
    // A form post too (the action's query fails): the same page, not a 500.
    const form = await post(
      `${server.url}/fr/signin`,
      { intent: "sign-in", email, password: PASSWORD },
      { Origin: server.url },
    );
    expect(form.status).toBe(503);
    expect(await form.text()).toContain(localized("fr", "common", "error.unavailableTitle"));
    // The API: 503 with a code and a message, for calls with and without a session.
    const denied = await signIn(email);
    expect(denied.status).toBe(503);
    expect(denied.headers.get("Retry-After")).toBe("5");
    expect(await denied.json()).toEqual({
      code: "SERVICE_UNAVAILABLE",
      message: "The service is temporarily unavailable. Please try again in a moment.",
    });
    const sessions = await api("/api/auth/list-sessions");
    expect(sessions.status).toBe(503);
    expect(await sessions.json()).toMatchObject({ code: "SERVICE_UNAVAILABLE" });
    // The health check says so, for a load balancer to take the instance out.
    const health = await fetch(`${server.url}/healthz`);
    expect(health.status).toBe(503);
    expect(await health.json()).toEqual({ status: "error" });
    expect(alive(server)).toBe(true);

    // Back: no restart, the pool reconnects on the next request.
    await proxy.restore();
    await eventually(
      async () => (await fetch(`${server.url}/healthz`)).status === 200,
      30_000,
      "the health check to pass again",
    );
    expect((await page("/fr/profile")).status).toBe(200);
    expect((await api("/api/auth/list-sessions")).status).toBe(200);
    const again = await signIn(email);
    expect(again.status).toBe(200);
    expect(((await again.json()) as { user: { email: string } }).user.email).toBe(email);
    expect(alive(server)).toBe(true);
    expect(server.stdout()).toContain("database unavailable");
    expect(server.stdout()).not.toMatch(/unhandled|uncaught/i);
  }, 90_000);
});
