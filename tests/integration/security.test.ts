/**
 * Regression tests for a security review of the account code: each reproduces an attack
 * against the built server (real database, real SMTP capture) and passes only with its fix.
 * Revocation across two instances on PostgreSQL is in revocation-instances.test.ts.
 */
import { createHash } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { applySetCookies, makeTestClient, type TestClient } from "./helpers/auth-client";
import { startTestApp, type TestApp } from "./helpers/app";
import { createUser, PASSWORD, signInInProcess, signInWithPassword, uniqueEmail } from "./helpers/factories";
import { BROWSER_UA } from "./helpers/http";
import type { CapturedMail, Mailbox } from "./helpers/mailbox";

const SECRET = "integration-test-secret-security-0123456789";
const UA = "security-test/1.0";
const DAY_MS = 24 * 3600 * 1000;
/**
 * How far apart the answers for a taken and a free address may be. Both do the same work and
 * queue one email each (a request never waits for the mail server), so only noise remains.
 */
const MAX_GAP_MS = 200;

let app: TestApp;
let mailbox: Mailbox;
let base: string;
let api: string;
let prisma: typeof import("~/server/db.server").prisma;

const sha256 = (text: string) => createHash("sha256").update(text).digest("hex");
const client = () => makeTestClient(base, { headers: { "user-agent": UA } });

/** A device signed in as `email` through the API, holding a cookie cache. */
async function device(email: string, password = PASSWORD) {
  const c = await signInWithPassword(client(), email, password);
  expect(c.jar.has("app.session_data")).toBe(true);
  return c;
}

/** The session as `c` sees it through get-session, cookie cache allowed (what every page does). */
const sessionOf = async (c: TestClient) => (await c.client.getSession()).data;

/** GET an emailed link as a browser (optionally with a client's cookies), without following redirects. */
async function follow(link: string, who?: TestClient) {
  const res = await fetch(link, {
    redirect: "manual",
    headers: { "user-agent": UA, ...(who?.jar.size ? { cookie: who.cookieHeader() } : {}) },
  });
  if (who) applySetCookies(who.jar, res.headers.getSetCookie());
  return res;
}

const linkOf = (mail: CapturedMail, path: string) => {
  const link = mail.links.find((url) => url.startsWith(`${api}${path}`));
  if (!link) throw new Error(`No ${path} link in "${mail.subject}":\n${mail.text}`);
  return link;
};

const json = (body: unknown, headers: Record<string, string> = {}) => ({
  method: "POST",
  redirect: "manual" as const,
  body: JSON.stringify(body),
  headers: { "content-type": "application/json", origin: base, "user-agent": UA, ...headers },
});

const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]!;

async function timed(work: () => Promise<unknown>): Promise<number> {
  const started = performance.now();
  await work();
  return performance.now() - started;
}

beforeAll(async () => {
  app = await startTestApp({ secret: SECRET });
  ({ mailbox, base, prisma } = app);
  api = `${base}/api/auth`;
});

afterAll(async () => {
  await app?.stop();
});

describe("revocation takes effect on the next request, cookie cache or not", () => {
  it("sign-out: replaying every cookie of the signed-out browser gets null", async () => {
    const user = await createUser();
    const browser = await device(user.email);
    const saved = new Map(browser.jar);
    expect((await browser.client.signOut()).error).toBeNull();
    const replay = client();
    for (const [name, value] of saved) replay.jar.set(name, value);
    expect(await sessionOf(replay)).toBeNull();
    // Pages read the session the same way: the profile sends the replayed browser to sign in.
    const page = await fetch(`${base}/profile`, {
      redirect: "manual",
      headers: { cookie: [...saved].map(([k, v]) => `${k}=${v}`).join("; "), "user-agent": BROWSER_UA },
    });
    expect(page.status).toBe(302);
    expect(page.headers.get("location")).toMatch(/^\/signin\?redirect=/);
  });

  it("revoke-session ends the other device at once", async () => {
    const user = await createUser();
    const [a, b] = [await device(user.email), await device(user.email)];
    expect((await sessionOf(b))?.user.id).toBe(user.id);
    const bToken = sha256(decodeURIComponent(b.jar.get("app.session_token")!).split(".")[0]!);
    expect((await a.client.revokeSession({ token: bToken })).error).toBeNull();
    expect(await sessionOf(b)).toBeNull();
    expect((await sessionOf(a))?.user.id).toBe(user.id);
  });

  it("revoke-other-sessions and revoke-sessions end the other devices at once", async () => {
    const user = await createUser();
    const [a, b, c] = [await device(user.email), await device(user.email), await device(user.email)];
    expect((await a.client.revokeOtherSessions()).error).toBeNull();
    expect(await sessionOf(b)).toBeNull();
    expect((await sessionOf(a))?.user.id).toBe(user.id);
    expect(await sessionOf(c)).toBeNull();

    const [d, e] = [await device(user.email), await device(user.email)];
    expect((await d.client.revokeSessions()).error).toBeNull();
    expect(await sessionOf(e)).toBeNull();
  });

  it("a password change with revokeOtherSessions ends the other devices at once", async () => {
    const user = await createUser();
    const [a, b] = [await device(user.email), await device(user.email)];
    const changed = await a.client.changePassword({
      currentPassword: PASSWORD,
      newPassword: "another fine password",
      revokeOtherSessions: true,
    });
    expect(changed.error).toBeNull();
    expect(await sessionOf(b)).toBeNull();
    expect((await sessionOf(a))?.user.id).toBe(user.id);
  });

  it("a password reset ends every device at once", async () => {
    const user = await createUser();
    const b = await device(user.email);
    expect(
      (await client().client.requestPasswordReset({ email: user.email, redirectTo: "/reset-password" })).error,
    ).toBeNull();
    const mail = await mailbox.waitFor(user.email, (m) => m.links.some((l) => l.includes("/reset-password/")));
    const token = new URL(linkOf(mail, "/reset-password/")).pathname.split("/").pop()!;
    expect((await client().client.resetPassword({ token, newPassword: "a reset new password" })).error).toBeNull();
    expect(await sessionOf(b)).toBeNull();
  });

  it("the sessions settings' revoke-other-sessions ends the other device at once", async () => {
    const user = await createUser();
    const [a, b] = [await device(user.email), await device(user.email)];
    const res = await fetch(`${base}/profile/sessions`, {
      method: "POST",
      redirect: "manual",
      body: new URLSearchParams({ intent: "revoke-other-sessions" }),
      headers: {
        "content-type": "application/x-www-form-urlencoded",
        origin: base,
        cookie: a.cookieHeader(),
        "user-agent": BROWSER_UA,
      },
    });
    expect(res.status).toBe(302);
    expect(await sessionOf(b)).toBeNull();
  });
});

describe("finding 1: open redirects", () => {
  it("verify-email refuses a callbackURL that collapses into //host once rebuilt", async () => {
    const res = await fetch(`${api}/verify-email?token=x&callbackURL=${encodeURIComponent("/.//evil.example/x")}`, {
      redirect: "manual",
      headers: { "user-agent": UA },
    });
    expect(res.headers.get("location") ?? "").not.toMatch(/^\/\/|evil/);
    expect(res.status).toBe(403);
    expect(((await res.json()) as { code: string }).code).toBe("INVALID_CALLBACK_URL");
  });

  it("a safe callbackURL still gets the error parameter", async () => {
    const res = await fetch(`${api}/verify-email?token=x&callbackURL=${encodeURIComponent("/fr/verify-email")}`, {
      redirect: "manual",
      headers: { "user-agent": UA },
    });
    expect(res.status).toBe(302);
    expect(res.headers.get("location")).toBe("/fr/verify-email?error=invalid_token");
  });

  it("set-locale never redirects to another host, even after swapping the prefix", async () => {
    const post = (redirectTo: string, headers: Record<string, string> = { origin: base }) =>
      fetch(`${base}/set-locale`, {
        method: "POST",
        redirect: "manual",
        body: new URLSearchParams({ lng: "en", redirectTo }),
        headers: { "content-type": "application/x-www-form-urlencoded", "user-agent": BROWSER_UA, ...headers },
      });
    for (const attack of ["/fr//evil.example", "/ja/.//evil.example/x", "/.//evil.example"]) {
      const res = await post(attack);
      expect(res.status).toBe(302);
      expect(res.headers.get("location")).toBe("/");
    }
    const fine = await post("/fr/pricing?x=1");
    expect(fine.headers.get("location")).toBe("/pricing?x=1");
  });

  it("set-locale refuses a foreign Origin even without cookies", async () => {
    const res = await fetch(`${base}/set-locale`, {
      method: "POST",
      redirect: "manual",
      body: new URLSearchParams({ lng: "fr", redirectTo: "/" }),
      headers: { "content-type": "application/x-www-form-urlencoded", origin: "https://evil.example" },
    });
    expect(res.status).toBe(403);
    expect(res.headers.getSetCookie()).toHaveLength(0);
  });
});

describe("finding 2: an address claimed before its owner signs up", () => {
  it("the owner's sign-up and verification leave only the owner's password", async () => {
    const email = uniqueEmail("victim");
    // The attacker signs up first with a password of their choosing.
    expect(
      (await client().client.signUp.email({ name: "Mallory", email, password: "attacker password" })).error,
    ).toBeNull();
    await mailbox.waitFor(email, (m) => m.subject === "Verify your email address");
    // The owner signs up: the same answer as a new account.
    expect((await client().client.signUp.email({ name: "Victim", email, password: PASSWORD })).error).toBeNull();
    await mailbox.waitFor(email, (m) => m.subject === "Verify your email address");
    // ...then asks for the verification email again and follows it.
    expect((await client().client.sendVerificationEmail({ email })).error).toBeNull();
    const mail = await mailbox.waitFor(email, (m) => m.subject === "Verify your email address");
    const victim = client();
    expect((await follow(linkOf(mail, "/verify-email"), victim)).status).toBe(302);
    expect((await sessionOf(victim))?.user.email).toBe(email);

    const attacker = await client().client.signIn.email({ email, password: "attacker password" });
    expect(attacker.error).toMatchObject({ status: 401, code: "INVALID_EMAIL_OR_PASSWORD" });
    expect((await client().client.signIn.email({ email, password: PASSWORD })).error).toBeNull();
  });

  it("a password set after the link was sent does not survive the verification", async () => {
    const email = uniqueEmail("victim2");
    expect((await client().client.signUp.email({ name: "Victim", email, password: PASSWORD })).error).toBeNull();
    const mail = await mailbox.waitFor(email, (m) => m.subject === "Verify your email address");
    // The attacker replaces the unverified account's password before the owner clicks.
    expect(
      (await client().client.signUp.email({ name: "Mallory", email, password: "attacker password" })).error,
    ).toBeNull();
    const victim = client();
    expect((await follow(linkOf(mail, "/verify-email"), victim)).status).toBe(302);
    expect((await sessionOf(victim))?.user.emailVerified).toBe(true);
    const attacker = await client().client.signIn.email({ email, password: "attacker password" });
    expect(attacker.error).toMatchObject({ status: 401, code: "INVALID_EMAIL_OR_PASSWORD" });
  });
});

describe("finding 3: enumeration by id shape and timing", () => {
  /** The creation time a cuid (version 1) carries in its characters 1-8. */
  const cuidTime = (id: string) => parseInt(id.slice(1, 9), 36);

  it("a taken address gets an id made like a real one, creation time included", async () => {
    const user = await createUser();
    const before = Date.now();
    const res = await client().client.signUp.email({ name: "Someone", email: user.email, password: PASSWORD });
    expect(res.error).toBeNull();
    const fresh = await client().client.signUp.email({ name: "New", email: uniqueEmail("new"), password: PASSWORD });
    const [synthetic, real] = [res.data!.user.id, fresh.data!.user.id];
    expect(synthetic).toMatch(/^c[0-9a-z]{24}$/);
    expect(real).toMatch(/^c[0-9a-z]{24}$/);
    for (const id of [synthetic, real]) {
      expect(cuidTime(id)).toBeGreaterThanOrEqual(before - 1000);
      expect(cuidTime(id)).toBeLessThanOrEqual(Date.now() + 1000);
    }
  });

  it("sign-up takes as long for a taken address as for a new one, and the owner is told", async () => {
    const owner = await createUser();
    const fresh: number[] = [];
    const taken: number[] = [];
    for (let i = 0; i < 3; i++) {
      fresh.push(
        await timed(() =>
          fetch(`${api}/sign-up/email`, json({ name: "N", email: uniqueEmail("t"), password: PASSWORD })),
        ),
      );
      taken.push(
        await timed(() => fetch(`${api}/sign-up/email`, json({ name: "N", email: owner.email, password: PASSWORD }))),
      );
    }
    expect(Math.abs(median(fresh) - median(taken))).toBeLessThan(MAX_GAP_MS);
    const notice = await mailbox.waitFor(owner.email);
    expect(notice.subject).toBe("Someone tried to sign up with your email address");
    expect(notice.text).not.toContain("token=");
  });

  it("change-email takes as long for a taken address as for a free one, and the owner is told", async () => {
    const other = await createUser();
    const user = await createUser();
    const me = await device(user.email);
    const change = (newEmail: string) =>
      fetch(`${api}/change-email`, json({ newEmail }, { cookie: me.cookieHeader() }));
    const free: number[] = [];
    const taken: number[] = [];
    for (let i = 0; i < 3; i++) {
      free.push(await timed(() => change(uniqueEmail("free"))));
      taken.push(await timed(() => change(other.email)));
    }
    expect(Math.abs(median(free) - median(taken))).toBeLessThan(MAX_GAP_MS);
    const notice = await mailbox.waitFor(other.email);
    expect(notice.subject).toBe("Someone tried to use your email address");
  });
});

describe("finding 5: a rememberMe-off session stays short", () => {
  it("leaving out the dont_remember cookie does not make it slide", async () => {
    const user = await createUser();
    const c = client();
    expect(
      (await c.client.signIn.email({ email: user.email, password: PASSWORD, rememberMe: false })).error,
    ).toBeNull();
    const token = c.jar.get("app.session_token")!;
    const row = await prisma.session.findFirstOrThrow({ where: { userId: user.id } });
    expect(row.expiresAt.getTime() - row.createdAt.getTime()).toBe(DAY_MS);
    // Only the session cookie: no dont_remember, no cache, so the server reads the row.
    const res = await fetch(`${api}/get-session`, {
      headers: { cookie: `app.session_token=${token}`, "user-agent": UA },
    });
    expect(((await res.json()) as { user: { id: string } }).user.id).toBe(user.id);
    const after = await prisma.session.findUniqueOrThrow({ where: { id: row.id } });
    expect(after.expiresAt.getTime()).toBe(row.expiresAt.getTime());
    expect(res.headers.getSetCookie().some((line) => /^app\.session_token=.*Max-Age=/.test(line))).toBe(false);
  });
});

describe("finding 6: reset links end with a reset, a password change or an email change", () => {
  async function resetLink(email: string) {
    expect((await client().client.requestPasswordReset({ email, redirectTo: "/reset-password" })).error).toBeNull();
    const mail = await mailbox.waitFor(email, (m) => m.links.some((l) => l.includes("/reset-password/")));
    return new URL(linkOf(mail, "/reset-password/")).pathname.split("/").pop()!;
  }
  const reset = (token: string, newPassword = "yet another password") =>
    client().client.resetPassword({ token, newPassword });

  it("after a reset with one link, a second unused link is dead", async () => {
    const user = await createUser();
    const [first, second] = [await resetLink(user.email), await resetLink(user.email)];
    expect((await reset(first)).error).toBeNull();
    expect((await reset(second, "the attacker's password")).error).toMatchObject({
      status: 400,
      code: "INVALID_TOKEN",
    });
  });

  it("a password change ends outstanding links", async () => {
    const user = await createUser();
    const link = await resetLink(user.email);
    const me = await device(user.email);
    expect(
      (await me.client.changePassword({ currentPassword: PASSWORD, newPassword: "changed password" })).error,
    ).toBeNull();
    expect((await reset(link)).error).toMatchObject({ status: 400, code: "INVALID_TOKEN" });
  });

  it("an email change ends outstanding links", async () => {
    const user = await createUser({ email: uniqueEmail("unverified"), name: "U", verified: false });
    const link = await resetLink(user.email);
    const me = await signInInProcess(client(), user.id, { userAgent: UA });
    expect((await me.client.changeEmail({ newEmail: uniqueEmail("moved") })).error).toBeNull();
    expect((await reset(link)).error).toMatchObject({ status: 400, code: "INVALID_TOKEN" });
  });
});

describe("finding 8: set password needs a fresh session", () => {
  it("the security settings refuse an old session and add no password", async () => {
    const user = await createUser({ password: null });
    const { createSession } = await import("~/server/auth/session.server");
    const created = await createSession(user.id, { userAgent: BROWSER_UA });
    await prisma.session.update({
      where: { id: created.session.id },
      data: { createdAt: new Date(Date.now() - 2 * DAY_MS) },
    });
    const cookie = created.setCookies
      .map((line) => line.split(";")[0]!)
      .filter((pair) => !pair.startsWith("app.session_data=") && !pair.endsWith("="))
      .join("; ");
    const res = await fetch(`${base}/fr/profile/security`, {
      method: "POST",
      redirect: "manual",
      body: new URLSearchParams({
        intent: "set-password",
        newPassword: "stolen session pw",
        confirmPassword: "stolen session pw",
      }),
      headers: { "content-type": "application/x-www-form-urlencoded", origin: base, cookie, "user-agent": BROWSER_UA },
    });
    expect(res.status).toBe(403);
    expect(await res.text()).toContain("Par sécurité, reconnectez-vous avant de faire cela.");
    expect(await prisma.account.count({ where: { userId: user.id } })).toBe(0);
  });
});

describe("finding 9: bad input gets a 4xx, never a 500", () => {
  it("a callbackURL with non-Latin-1 characters is encoded, not a 500", async () => {
    const user = await createUser();
    const res = await fetch(
      `${api}/sign-in/email`,
      json({ email: user.email, password: PASSWORD, callbackURL: "/\u3002evil.com" }),
    );
    expect(res.status).toBe(200);
    expect(res.headers.get("location")).toBe("/%E3%80%82evil.com");
    expect(((await res.json()) as { url: string }).url).toBe("/%E3%80%82evil.com");
  });

  it("pages and resource routes refuse bodies that are not forms", async () => {
    const user = await createUser();
    const me = await device(user.email);
    const send = (path: string, body: string, type: string) =>
      fetch(`${base}${path}`, {
        method: "POST",
        redirect: "manual",
        body,
        headers: { "content-type": type, origin: base, cookie: me.cookieHeader(), "user-agent": BROWSER_UA },
      });
    for (const path of ["/profile/security", "/ja/profile/security", "/signout", "/set-locale"]) {
      expect((await send(path, '{"intent":"set-password"}', "application/json")).status).toBe(415);
      expect((await send(path, "<intent>x</intent>", "application/xml")).status).toBe(415);
      expect((await send(path, "--x\r\nbroken", "multipart/form-data; boundary=x")).status).toBe(400);
    }
    const page = await send("/ja/profile/security", "{", "application/json");
    expect(page.headers.get("content-type")).toMatch(/text\/html/);
    expect(await page.text()).toContain("フォームを読み取れませんでした");
    // The session is untouched by all of that.
    expect((await sessionOf(me))?.user.id).toBe(user.id);
  });
});
