/**
 * The core of /api/auth, driven by the official better-auth client against the built server
 * with a real database (SQLite, or PostgreSQL with TEST_DATABASE_URL) and a real SMTP
 * capture: sign-up, verification, sign-in, sessions (expiry, sliding refresh, rememberMe,
 * cookie cache), origin checks, URL fields, rate limits, audit rows and the framework rules.
 */
import { createHash } from "node:crypto";
import http from "node:http";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { applySetCookies, makeTestClient, type TestClient } from "./helpers/auth-client";
import { startTestApp, type TestApp } from "./helpers/app";
import { createUser, PASSWORD, uniqueEmail } from "./helpers/factories";
import type { Mailbox } from "./helpers/mailbox";
import { startServer, type RunningServer } from "./helpers/server";

const SECRET = "integration-test-secret-auth-core-0123456789";
const UA = "auth-core-test/1.0";
const COOKIE = {
  token: "app.session_token",
  data: "app.session_data",
  dontRemember: "app.dont_remember",
};

let app: TestApp;
let db: TestApp["db"];
let mailbox: Mailbox;
let base: string;
let api: string;
let prisma: typeof import("~/server/db.server").prisma;

const sha256 = (text: string) => createHash("sha256").update(text).digest("hex");

const client = (options: Parameters<typeof makeTestClient>[1] = {}) =>
  makeTestClient(base, { ...options, headers: { "user-agent": UA, ...options.headers } });

async function signedIn(options: { rememberMe?: boolean; name?: string } = {}) {
  const user = await createUser({ name: options.name });
  const c = client();
  const res = await c.client.signIn.email({ email: user.email, password: PASSWORD, rememberMe: options.rememberMe });
  expect(res.error).toBeNull();
  return { user, c, setCookies: c.lastSetCookies() };
}

/** The raw session token of a client's cookie (before the signature). */
function rawToken(c: TestClient): string {
  return decodeURIComponent(c.jar.get(COOKIE.token)!).split(".")[0]!;
}

function cookieLine(lines: string[], name: string): string | undefined {
  return lines.find((line) => line.startsWith(`${name}=`));
}

/** A raw request to the API, e.g. to see statuses and headers the client hides. */
function call(path: string, init: RequestInit & { headers?: Record<string, string> } = {}) {
  return fetch(`${api}${path}`, { redirect: "manual", ...init, headers: { "user-agent": UA, ...init.headers } });
}

/** A JSON POST with exactly the given headers (fetch would add Sec-Fetch-Mode). */
function rawPost(
  url: string,
  body: string,
  headers: Record<string, string>,
): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const req = http.request(
      url,
      { method: "POST", headers: { "content-type": "application/json", ...headers } },
      (res) => {
        let text = "";
        res.on("data", (chunk: Buffer) => (text += chunk.toString()));
        res.on("end", () => resolve({ status: res.statusCode ?? 0, body: text }));
      },
    );
    req.on("error", reject);
    req.end(body);
  });
}

const json = (body: unknown, headers: Record<string, string> = {}) => ({
  method: "POST",
  body: JSON.stringify(body),
  headers: { "content-type": "application/json", origin: base, ...headers },
});

beforeAll(async () => {
  app = await startTestApp({ secret: SECRET });
  ({ db, mailbox, base, prisma } = app);
  api = `${base}/api/auth`;
});

afterAll(async () => {
  await app?.stop();
});

const USER_KEYS = [
  "banExpires",
  "banReason",
  "banned",
  "createdAt",
  "email",
  "emailVerified",
  "id",
  "image",
  "name",
  "role",
  "twoFactorEnabled",
  "updatedAt",
];
// better-auth's session, its plugins' fields, and the product's own `signInMethod` (how the
// session was signed in: an additional field, as better-auth's `session.additionalFields` adds).
const SESSION_KEYS = [
  "activeOrganizationId",
  "activeTeamId",
  "createdAt",
  "expiresAt",
  "id",
  "impersonatedBy",
  "ipAddress",
  "signInMethod",
  "token",
  "updatedAt",
  "userAgent",
  "userId",
];

describe("sign-up and email verification", () => {
  it("creates an unverified user without a session and emails a verification link", async () => {
    const email = uniqueEmail("Signup").replace("signup", "SignUp");
    const c = client();
    const res = await c.client.signUp.email({ name: "Ada Lovelace", email, password: PASSWORD });
    expect(res.error).toBeNull();
    expect(res.data?.token).toBeNull();
    expect(Object.keys(res.data!.user).sort()).toEqual(USER_KEYS);
    expect(res.data!.user).toMatchObject({
      name: "Ada Lovelace",
      email: email.toLowerCase(),
      emailVerified: false,
      image: null,
      role: "user",
      banned: false,
    });
    expect(res.data!.user.createdAt).toBeInstanceOf(Date);
    expect(c.lastSetCookies().filter((line) => line.includes("session_token"))).toEqual([]);
    expect(c.jar.size).toBe(0);

    const stored = await prisma.user.findUniqueOrThrow({
      where: { email: email.toLowerCase() },
      include: { accounts: true },
    });
    expect(stored.id).toBe(res.data!.user.id);
    expect(stored.accounts).toHaveLength(1);
    expect(stored.accounts[0]).toMatchObject({ providerId: "credential", accountId: stored.id });
    expect(stored.accounts[0]!.password).toMatch(/^\$2[aby]\$10\$/); // bcrypt, cost 10

    const mail = await mailbox.waitFor(email);
    expect(mail.subject).toBe("Verify your email address");
    expect(mail.text).toContain("Hi Ada Lovelace,");
    expect(mail.html).toContain("Verify email address");
    const link = mail.links.find((l) => l.includes("/api/auth/verify-email"))!;
    expect(link).toMatch(
      new RegExp(`^${api}/verify-email\\?token=[\\w-]+\\.[\\w-]+\\.[\\w-]+&callbackURL=%2Fverify-email$`),
    );

    const audit = await prisma.auditLog.findFirstOrThrow({ where: { userId: stored.id, action: "sign-up" } });
    expect(audit).toMatchObject({ category: "auth", status: "success", ipAddress: "127.0.0.1", userAgent: UA });
  });

  it("answers a duplicate sign-up like a fresh one and changes nothing", async () => {
    const existing = await createUser({ name: "Original" });
    const before = await prisma.account.findFirstOrThrow({ where: { userId: existing.id } });
    const c = client();
    const res = await c.client.signUp.email({
      name: "Impostor",
      email: existing.email.toUpperCase(),
      password: "another password",
    });
    expect(res.error).toBeNull();
    expect(res.data?.token).toBeNull();
    expect(Object.keys(res.data!.user).sort()).toEqual(USER_KEYS);
    expect(res.data!.user).toMatchObject({ email: existing.email, name: "Impostor", emailVerified: false });
    expect(res.data!.user.id).not.toBe(existing.id);
    expect(c.jar.size).toBe(0);

    const after = await prisma.user.findUniqueOrThrow({ where: { id: existing.id }, include: { accounts: true } });
    expect(after.name).toBe("Original");
    expect(after.accounts).toHaveLength(1);
    expect(after.accounts[0]!.password).toBe(before.password);
    expect(await prisma.user.count({ where: { email: existing.email } })).toBe(1);
    const audit = await prisma.auditLog.findFirstOrThrow({ where: { userId: existing.id, action: "sign-up" } });
    expect(audit).toMatchObject({ status: "failure", ipAddress: "127.0.0.1", userAgent: UA });
  });

  it("checks the password length and the email on sign-up", async () => {
    const c = client();
    const short = await c.client.signUp.email({ name: "x", email: uniqueEmail("short"), password: "1234567" });
    expect(short.error).toMatchObject({ status: 400, code: "PASSWORD_TOO_SHORT", message: "Password too short" });
    const long = await c.client.signUp.email({ name: "x", email: uniqueEmail("long"), password: "x".repeat(129) });
    expect(long.error).toMatchObject({ status: 400, code: "PASSWORD_TOO_LONG", message: "Password too long" });
    const ok = await c.client.signUp.email({ name: "", email: uniqueEmail("limits"), password: "x".repeat(128) });
    expect(ok.error).toBeNull();
    const bad = await c.client.signUp.email({ name: "x", email: "not-an-email", password: PASSWORD });
    expect(bad.error).toMatchObject({ status: 400, code: "VALIDATION_ERROR" });
    expect(bad.error!.message).toMatch(/^Invalid body parameters/);
  });

  it("verifies through the emailed link, signs the user in and redirects to the page", async () => {
    const email = uniqueEmail("verify");
    const c = client();
    await c.client.signUp.email({ name: "Grace", email, password: PASSWORD });
    const link = (await mailbox.waitFor(email)).links[0]!;

    const res = await call(link.slice(api.length));
    expect(res.status).toBe(302);
    expect(res.headers.get("location")).toBe("/verify-email");
    const lines = res.headers.getSetCookie();
    const token = cookieLine(lines, COOKIE.token)!;
    expect(token).toMatch(/^app\.session_token=[A-Za-z0-9]{32}\.[A-Za-z0-9%]+; /);
    expect(token).toContain("Max-Age=604800");
    expect(token).toContain("Path=/");
    expect(token).toContain("HttpOnly");
    expect(token).toContain("SameSite=Lax");
    expect(token).not.toContain("Secure");
    // The signature: 44 characters of standard base64 ending in "=".
    const signature = decodeURIComponent(token.split(";")[0]!.split("=").slice(1).join("=")).split(".")[1]!;
    expect(signature).toHaveLength(44);
    expect(signature.endsWith("=")).toBe(true);

    applySetCookies(c.jar, lines);
    const session = await c.client.getSession();
    expect(session.error).toBeNull();
    // better-auth's {session, user}, plus the client session state's active subscriptions
    // (none yet), as a customSession plugin would add them.
    expect(Object.keys(session.data!).sort()).toEqual(["session", "subscriptions", "user"]);
    expect((session.data as unknown as { subscriptions: unknown[] }).subscriptions).toEqual([]);
    expect(Object.keys(session.data!.user).sort()).toEqual(USER_KEYS);
    expect(Object.keys(session.data!.session).sort()).toEqual(SESSION_KEYS);
    expect(session.data!.user).toMatchObject({ email, emailVerified: true, name: "Grace" });
    expect(session.data!.session).toMatchObject({
      userId: session.data!.user.id,
      ipAddress: "127.0.0.1",
      userAgent: UA,
      activeOrganizationId: null,
      impersonatedBy: null,
      signInMethod: "email-verification",
    });
    expect(c.lastResponse()!.headers.get("cache-control")).toBe("no-store");

    // The same link again: the address is verified already, so no second session.
    const again = await call(link.slice(api.length));
    expect(again.status).toBe(302);
    expect(cookieLine(again.headers.getSetCookie(), COOKIE.token)).toBeUndefined();
    expect(await prisma.session.count({ where: { userId: session.data!.user.id } })).toBe(1);
  });

  it("answers verify-email without callbackURL with JSON, and reports bad tokens", async () => {
    const { createEmailVerificationToken } = await import("~/server/auth/tokens.server");
    const user = await createUser({ verified: false });

    const good = await client().client.verifyEmail({
      query: { token: createEmailVerificationToken({ email: user.email }) },
    });
    expect(good.error).toBeNull();
    expect(good.data).toEqual({ status: true, user: null });
    expect((await prisma.user.findUniqueOrThrow({ where: { id: user.id } })).emailVerified).toBe(true);

    const expired = createEmailVerificationToken({ email: user.email }, -10);
    const unknown = createEmailVerificationToken({ email: "nobody@example.com" });
    const forged = createEmailVerificationToken({ email: user.email }).slice(0, -2) + "xx";
    const cases = [
      [expired, "TOKEN_EXPIRED", "token_expired"],
      [unknown, "USER_NOT_FOUND", "user_not_found"],
      [forged, "INVALID_TOKEN", "invalid_token"],
      ["garbage", "INVALID_TOKEN", "invalid_token"],
    ] as const;
    for (const [token, code, param] of cases) {
      const res = await client().client.verifyEmail({ query: { token } });
      expect(res.error, code).toMatchObject({ status: 401, code });
      const redirect = await call(
        `/verify-email?token=${token}&callbackURL=${encodeURIComponent("/fr/verify-email?x=1")}`,
      );
      expect(redirect.status).toBe(302);
      expect(redirect.headers.get("location")).toBe(`/fr/verify-email?x=1&error=${param}`);
    }
  });

  it("sends the email in the caller's language", async () => {
    const email = uniqueEmail("french");
    await client({ headers: { "accept-language": "fr-FR,fr;q=0.9" } }).client.signUp.email({
      name: "Émile",
      email,
      password: PASSWORD,
    });
    const mail = await mailbox.waitFor(email);
    expect(mail.subject).toBe("Vérifiez votre adresse e-mail");
    expect(mail.text).toContain("Bonjour Émile,");
    expect(mail.links[0]).toContain(`callbackURL=${encodeURIComponent("/fr/verify-email")}`);

    const jaEmail = uniqueEmail("japanese");
    await call("/sign-up/email", json({ name: "", email: jaEmail, password: PASSWORD }, { cookie: "lng=ja" }));
    expect((await mailbox.waitFor(jaEmail)).subject).toBe("メールアドレスの確認");
  });
});

describe("send-verification-email", () => {
  it("answers status true to anyone, and only mails unverified accounts", async () => {
    const unverified = await createUser({ verified: false });
    const anonymous = client();
    const res = await anonymous.client.sendVerificationEmail({ email: unverified.email, callbackURL: "/welcome" });
    expect(res).toMatchObject({ data: { status: true }, error: null });
    const mail = await mailbox.waitFor(unverified.email);
    expect(mail.links[0]).toContain("callbackURL=%2Fwelcome");

    const unknown = await anonymous.client.sendVerificationEmail({ email: "nobody-at-all@example.com" });
    expect(unknown).toMatchObject({ data: { status: true }, error: null });
    const verified = await createUser();
    expect((await anonymous.client.sendVerificationEmail({ email: verified.email })).data).toEqual({ status: true });
    expect(await mailbox.settled("nobody-at-all@example.com")).toHaveLength(0);
    expect(mailbox.to(verified.email)).toHaveLength(0);

    const invalid = await anonymous.client.sendVerificationEmail({ email: "nope" });
    expect(invalid.error).toMatchObject({ status: 400, code: "INVALID_EMAIL" });
  });

  it("refuses another address or an already verified one when signed in", async () => {
    const { c, user } = await signedIn();
    const other = await c.client.sendVerificationEmail({ email: "someone-else@example.com" });
    expect(other.error).toMatchObject({ status: 400, code: "EMAIL_MISMATCH" });
    const own = await c.client.sendVerificationEmail({ email: user.email });
    expect(own.error).toMatchObject({ status: 400, code: "EMAIL_ALREADY_VERIFIED" });
  });
});

describe("sign-in", () => {
  it("signs in with better-auth's shape, a session cookie and an audit row", async () => {
    const user = await createUser();
    const c = client();
    const res = await c.client.signIn.email({ email: user.email.toUpperCase(), password: PASSWORD });
    expect(res.error).toBeNull();
    expect(Object.keys(res.data!).sort()).toEqual(["redirect", "token", "user"]);
    expect(res.data!.redirect).toBe(false);
    expect(Object.keys(res.data!.user).sort()).toEqual(USER_KEYS);
    expect(res.data!.user.id).toBe(user.id);

    // Only a hash of the cookie's token is stored; the API's `token` is that hash.
    const raw = rawToken(c);
    const row = await prisma.session.findFirstOrThrow({ where: { userId: user.id } });
    expect(row.token).not.toBe(raw);
    expect(row.token).toBe(sha256(raw));
    expect(res.data!.token).toBe(row.token);
    expect(row.expiresAt.getTime() - Date.now()).toBeGreaterThan(7 * 86400_000 - 60_000);

    const audit = await prisma.auditLog.findFirstOrThrow({
      where: { userId: user.id, action: "sign-in", status: "success" },
    });
    expect(audit).toMatchObject({ category: "auth", ipAddress: "127.0.0.1", userAgent: UA, targetId: row.id });
  });

  it("answers 401 INVALID_EMAIL_OR_PASSWORD alike for unknown users, wrong passwords and password-less accounts", async () => {
    const user = await createUser();
    const social = await createUser({ password: null });
    const c = client();
    const cases = [
      { email: uniqueEmail("ghost"), password: PASSWORD, reason: "USER_NOT_FOUND" },
      { email: user.email, password: "wrong password", reason: "INVALID_PASSWORD" },
      { email: social.email, password: PASSWORD, reason: "CREDENTIAL_ACCOUNT_NOT_FOUND" },
    ];
    for (const { email, password, reason } of cases) {
      const res = await c.client.signIn.email({ email, password });
      expect(res.error, reason).toMatchObject({
        status: 401,
        code: "INVALID_EMAIL_OR_PASSWORD",
        message: "Invalid email or password",
      });
      const audit = await prisma.auditLog.findFirst({
        where: { action: "sign-in", status: "failure", details: { contains: reason } },
        orderBy: { createdAt: "desc" },
      });
      expect(audit, reason).toMatchObject({ category: "auth", ipAddress: "127.0.0.1", userAgent: UA });
      expect(JSON.parse(audit!.details!)).toMatchObject({ reason, email });
    }
    expect(c.jar.size).toBe(0);
  });

  it("answers 403 EMAIL_NOT_VERIFIED for an unverified account and re-sends the verification", async () => {
    const user = await createUser({ verified: false });
    const res = await client().client.signIn.email({ email: user.email, password: PASSWORD, callbackURL: "/after" });
    expect(res.error).toMatchObject({ status: 403, code: "EMAIL_NOT_VERIFIED", message: "Email not verified" });
    const mail = await mailbox.waitFor(user.email);
    expect(mail.links[0]).toContain("callbackURL=%2Fafter");
    expect(await prisma.session.count({ where: { userId: user.id } })).toBe(0);
    // A wrong password on an unverified account says nothing about verification.
    const wrong = await client().client.signIn.email({ email: user.email, password: "wrong password" });
    expect(wrong.error).toMatchObject({ status: 401, code: "INVALID_EMAIL_OR_PASSWORD" });
  });

  it("validates the body: INVALID_EMAIL and VALIDATION_ERROR", async () => {
    const c = client();
    const invalid = await c.client.signIn.email({ email: "not-an-email", password: PASSWORD });
    expect(invalid.error).toMatchObject({ status: 400, code: "INVALID_EMAIL" });
    const missing = await call("/sign-in/email", json({ email: "a@example.com" }));
    expect(missing.status).toBe(400);
    const body = (await missing.json()) as { code: string; message: string };
    expect(body.code).toBe("VALIDATION_ERROR");
    expect(body.message).toMatch(/^Invalid body parameters/);
    expect(body.message).toContain("password");
  });

  it("with callbackURL answers redirect true, the url and a Location header", async () => {
    const user = await createUser();
    const c = client();
    const res = await c.client.signIn.email({ email: user.email, password: PASSWORD, callbackURL: "/dashboard?tab=1" });
    expect(res.error).toBeNull();
    expect(res.data).toMatchObject({ redirect: true, url: "/dashboard?tab=1" });
    expect(c.lastResponse()!.status).toBe(200);
    expect(c.lastResponse()!.headers.get("location")).toBe("/dashboard?tab=1");
  });

  it("accepts a form-encoded body (sign-in and sign-up)", async () => {
    const user = await createUser();
    const res = await call("/sign-in/email", {
      method: "POST",
      body: new URLSearchParams({ email: user.email, password: PASSWORD, rememberMe: "false" }),
      headers: { "content-type": "application/x-www-form-urlencoded", origin: base },
    });
    expect(res.status).toBe(200);
    expect(((await res.json()) as { user: { id: string } }).user.id).toBe(user.id);
    expect(cookieLine(res.headers.getSetCookie(), COOKIE.dontRemember)).toBeDefined();

    const email = uniqueEmail("form");
    const signUp = await call("/sign-up/email", {
      method: "POST",
      body: new URLSearchParams({ name: "Form", email, password: PASSWORD }),
      headers: { "content-type": "application/x-www-form-urlencoded", origin: base },
    });
    expect(signUp.status).toBe(200);
    await mailbox.waitFor(email);
  });
});

describe("sign-out", () => {
  it("ends the session and expires the cookies, with or without a session", async () => {
    const { c, user } = await signedIn();
    const res = await c.client.signOut();
    expect(res).toMatchObject({ data: { success: true }, error: null });
    const lines = c.lastSetCookies();
    for (const name of Object.values(COOKIE)) expect(cookieLine(lines, name)).toMatch(/Max-Age=0/);
    expect(await prisma.session.count({ where: { userId: user.id } })).toBe(0);
    expect((await c.client.getSession()).data).toBeNull();
    expect((await client().client.signOut()).data).toEqual({ success: true });
  });
});

describe("get-session", () => {
  it("answers the JSON literal null when signed out or with a forged cookie", async () => {
    const res = await call("/get-session");
    expect(res.status).toBe(200);
    expect(res.headers.get("cache-control")).toBe("no-store");
    expect(await res.text()).toBe("null");
    const forged = await call("/get-session", { headers: { cookie: `${COOKIE.token}=abc.def` } });
    expect(await forged.text()).toBe("null");
    expect((await client().client.getSession()).data).toBeNull();
  });

  it("answers POST with 405 METHOD_NOT_ALLOWED_DEFER_SESSION_REQUIRED", async () => {
    const res = await call("/get-session", json({}));
    expect(res.status).toBe(405);
    expect(((await res.json()) as { code: string }).code).toBe("METHOD_NOT_ALLOWED_DEFER_SESSION_REQUIRED");
  });

  it("deletes an expired session and reads it as null", async () => {
    const { c, user } = await signedIn();
    await prisma.session.updateMany({ where: { userId: user.id }, data: { expiresAt: new Date(Date.now() - 1000) } });
    c.jar.delete(COOKIE.data); // as if the 60-second cookie cache had run out
    const res = await c.client.getSession();
    expect(res.data).toBeNull();
    expect(await prisma.session.count({ where: { userId: user.id } })).toBe(0);
    expect(cookieLine(c.lastSetCookies(), COOKIE.token)).toMatch(/Max-Age=0/);
  });

  it("slides the expiry once updateAge has passed and re-sets the cookie; disableRefresh prevents it", async () => {
    const { c, user } = await signedIn();
    // Created two days ago, so its expiry is five days away: a refresh is due.
    const day = 86400_000;
    const aged = { createdAt: new Date(Date.now() - 2 * day), expiresAt: new Date(Date.now() + 5 * day) };
    await prisma.session.updateMany({ where: { userId: user.id }, data: aged });
    c.jar.delete(COOKIE.data);

    const kept = await c.client.getSession({ query: { disableRefresh: true } });
    expect(kept.data!.session.expiresAt.getTime()).toBe(aged.expiresAt.getTime());
    expect(cookieLine(c.lastSetCookies(), COOKIE.token)).toBeUndefined();

    c.jar.delete(COOKIE.data);
    const refreshed = await c.client.getSession();
    expect(refreshed.data!.session.expiresAt.getTime()).toBeGreaterThan(Date.now() + 7 * day - 60_000);
    expect(cookieLine(c.lastSetCookies(), COOKIE.token)).toContain("Max-Age=604800");
    const row = await prisma.session.findFirstOrThrow({ where: { userId: user.id } });
    expect(row.expiresAt.getTime()).toBe(refreshed.data!.session.expiresAt.getTime());

    // Just refreshed: the next read does not extend it again.
    c.jar.delete(COOKIE.data);
    await c.client.getSession();
    expect(cookieLine(c.lastSetCookies(), COOKIE.token)).toBeUndefined();
  });

  it("with rememberMe false: a browser-session cookie, dont_remember, one day, no refresh", async () => {
    const { c, user, setCookies } = await signedIn({ rememberMe: false });
    const token = cookieLine(setCookies, COOKIE.token)!;
    expect(token).not.toMatch(/Max-Age/i);
    expect(cookieLine(setCookies, COOKIE.dontRemember)).toMatch(
      /^app\.dont_remember=true\.[^;]+; Path=\/; SameSite=Lax; HttpOnly$/,
    );
    const row = await prisma.session.findFirstOrThrow({ where: { userId: user.id } });
    const day = 86400_000;
    expect(Math.abs(row.expiresAt.getTime() - (Date.now() + day))).toBeLessThan(60_000);

    // Half a day old, which would be due for a refresh in a 7-day session: not refreshed.
    await prisma.session.updateMany({
      where: { userId: user.id },
      data: { createdAt: new Date(Date.now() - day / 2), expiresAt: new Date(Date.now() + day / 2) },
    });
    c.jar.delete(COOKIE.data);
    const res = await c.client.getSession();
    expect(res.data!.session.expiresAt.getTime()).toBeLessThan(Date.now() + day);
    expect(cookieLine(c.lastSetCookies(), COOKIE.token)).toBeUndefined();

    // Signing in again with rememberMe on clears dont_remember.
    await c.client.signIn.email({ email: user.email, password: PASSWORD });
    expect(cookieLine(c.lastSetCookies(), COOKIE.dontRemember)).toMatch(/Max-Age=0/);
    expect(c.jar.has(COOKIE.dontRemember)).toBe(false);
  });

  it("serves the session from the signed cookie cache without reading the database", async () => {
    // On PostgreSQL a new instance trusts no cache until its revocation listener has been up
    // for a cookie lifetime (docs/decisions/0008): wait for that first.
    for (let deadline = Date.now() + 90_000; ;) {
      const probe = await signedIn();
      await prisma.session.deleteMany({ where: { userId: probe.user.id } });
      if ((await probe.c.client.getSession()).data) break;
      if (Date.now() > deadline) throw new Error("the server never trusted its cookie cache");
      await new Promise((resolve) => setTimeout(resolve, 2000));
    }
    const { c, user, setCookies } = await signedIn();
    const cache = cookieLine(setCookies, COOKIE.data)!;
    expect(cache).toContain("Max-Age=60");
    expect(cache).toContain("HttpOnly");
    expect(cache.split(";")[0]!.length).toBeLessThanOrEqual(4093);

    // With the row gone only the cache can answer.
    await prisma.session.deleteMany({ where: { userId: user.id } });
    const cached = await c.client.getSession();
    expect(cached.data?.user.id).toBe(user.id);
    expect(cached.data?.session.expiresAt).toBeInstanceOf(Date);

    // A tampered cache is ignored (and the database says there is no session).
    const saved = new Map(c.jar);
    c.jar.set(COOKIE.data, `x${saved.get(COOKIE.data)}`);
    expect((await c.client.getSession()).data).toBeNull();
    expect(c.jar.size).toBe(0); // the dead session's cookies are cleared
    for (const [name, value] of saved) c.jar.set(name, value);
    expect((await c.client.getSession()).data?.user.id).toBe(user.id);

    const fresh = await c.client.getSession({ query: { disableCookieCache: true } });
    expect(fresh.data).toBeNull();
    expect(c.jar.has(COOKIE.data)).toBe(false);
    expect(c.jar.has(COOKIE.token)).toBe(false);
  }, 120_000);

  it("answers get-session from the cookie cache in front of the dispatcher, with exactly the dispatcher's answer", async () => {
    const { c, user } = await signedIn();
    const headers = { cookie: c.cookieHeader(), "accept-encoding": "identity" };
    const quick = await call("/get-session", { headers });
    // Any query takes the dispatcher's whole way; disableRefresh=false changes nothing.
    const whole = await call("/get-session?disableRefresh=false", { headers });
    expect(quick.status).toBe(200);
    expect(whole.status).toBe(200);
    const text = await quick.text();
    expect(text).toBe(await whole.text());
    expect((JSON.parse(text) as { user: { id: string } }).user.id).toBe(user.id);
    for (const name of [
      "content-type",
      "cache-control",
      "content-security-policy",
      "x-content-type-options",
      "x-frame-options",
      "referrer-policy",
    ]) {
      expect(quick.headers.get(name), name).toBe(whole.headers.get(name));
    }
    expect(quick.headers.get("x-request-id")).toMatch(/^[0-9a-f-]{36}$/);
    expect(quick.headers.get("set-cookie")).toBeNull();
    // Made whole, the quick answer states its length; the dispatcher's is streamed.
    expect(quick.headers.get("content-length")).toBe(String(Buffer.byteLength(text)));
    expect(whole.headers.get("content-length")).toBeNull();
  });

  it("sets no cookie cache when it would exceed 4093 characters", async () => {
    const { c, user, setCookies } = await signedIn({ name: "N".repeat(3500) });
    expect(cookieLine(setCookies, COOKIE.token)).toBeDefined();
    expect(cookieLine(setCookies, COOKIE.data) ?? "app.session_data=; Max-Age=0").toMatch(
      /^app\.session_data=;.*Max-Age=0/,
    );
    expect(c.jar.has(COOKIE.data)).toBe(false);
    const res = await c.client.getSession();
    expect(res.data?.user.id).toBe(user.id);
    expect(c.jar.has(COOKIE.data)).toBe(false);
  });

  it("accepts repeated query keys", async () => {
    const { c } = await signedIn();
    const res = await call("/get-session?disableCookieCache=true&disableCookieCache=false&disableRefresh=1", {
      headers: { cookie: c.cookieHeader() },
    });
    expect(res.status).toBe(200);
    expect(((await res.json()) as { user: unknown }).user).toBeTruthy();
  });
});

describe("request safety", () => {
  it("refuses cookie-carrying POSTs without a trusted Origin or Referer", async () => {
    const { c } = await signedIn();
    const post = (headers: Record<string, string>) =>
      call("/sign-out", { method: "POST", headers: { cookie: c.cookieHeader(), ...headers } });

    const missing = await post({});
    expect(missing.status).toBe(403);
    expect(await missing.json()).toEqual({ code: "MISSING_OR_NULL_ORIGIN", message: "Missing or null Origin" });
    expect(((await (await post({ origin: "null" })).json()) as { code: string }).code).toBe("MISSING_OR_NULL_ORIGIN");
    const foreign = await post({ origin: "https://evil.example" });
    expect(foreign.status).toBe(403);
    expect(await foreign.json()).toEqual({ code: "INVALID_ORIGIN", message: "Invalid origin" });
    const foreignReferer = await post({ referer: "https://evil.example/page" });
    expect(((await foreignReferer.json()) as { code: string }).code).toBe("INVALID_ORIGIN");

    // The client without an Origin header: the same refusal.
    const bare = makeTestClient(base, { origin: null });
    for (const [k, v] of c.jar) bare.jar.set(k, v);
    expect((await bare.client.signOut()).error).toMatchObject({ status: 403, code: "MISSING_OR_NULL_ORIGIN" });

    // A trusted Referer stands in for a missing Origin.
    const viaReferer = await post({ referer: `${base}/profile` });
    expect(viaReferer.status).toBe(200);
  });

  it("applies to page form posts as well", async () => {
    const { c } = await signedIn();
    const form = (headers: Record<string, string>) =>
      fetch(`${base}/signout`, {
        method: "POST",
        redirect: "manual",
        body: new URLSearchParams({ locale: "en" }),
        headers: { "content-type": "application/x-www-form-urlencoded", cookie: c.cookieHeader(), ...headers },
      });
    expect((await form({})).status).toBe(403);
    const foreign = await form({ origin: "https://evil.example" });
    expect(foreign.status).toBe(403);
    expect((await form({ origin: base })).status).toBe(302);
  });

  it("checks sign-in and sign-up from browser-like requests even without cookies", async () => {
    const user = await createUser();
    // Node's fetch sends Sec-Fetch-Mode, like a browser: without Origin that is refused.
    const bare = makeTestClient(base, { origin: null });
    const res = await bare.client.signIn.email({ email: user.email, password: PASSWORD });
    expect(res.error).toMatchObject({ status: 403, code: "MISSING_OR_NULL_ORIGIN" });
    const signUp = await bare.client.signUp.email({ name: "x", email: uniqueEmail("bare"), password: PASSWORD });
    expect(signUp.error).toMatchObject({ status: 403, code: "MISSING_OR_NULL_ORIGIN" });

    // Node's fetch always sends Sec-Fetch-Mode: cors, so these go out through node:http.
    const body = JSON.stringify({ email: user.email, password: PASSWORD });
    const signIn = (headers: Record<string, string>) => rawPost(`${api}/sign-in/email`, body, headers);
    const crossSite = await signIn({
      origin: "https://evil.example",
      "sec-fetch-site": "cross-site",
      "sec-fetch-mode": "navigate",
    });
    expect(crossSite.status).toBe(403);
    expect(JSON.parse(crossSite.body).code).toBe("CROSS_SITE_NAVIGATION_LOGIN_BLOCKED");
    const foreign = await signIn({ origin: "https://evil.example", "sec-fetch-mode": "cors" });
    expect(JSON.parse(foreign.body).code).toBe("INVALID_ORIGIN");
    expect((await signIn({ "sec-fetch-site": "same-origin" })).status).toBe(403);
    // A server-to-server call (no cookies, no Sec-Fetch headers) is not a CSRF vector.
    expect((await signIn({})).status).toBe(200);
  });

  it("validates every URL field against the trusted origins", async () => {
    const user = await createUser();
    const c = client();
    const evil = "https://evil.example/phish";
    expect(
      (await c.client.signIn.email({ email: user.email, password: PASSWORD, callbackURL: evil })).error,
    ).toMatchObject({ status: 403, code: "INVALID_CALLBACK_URL", message: "Invalid callbackURL" });
    expect(
      (
        await c.client.signUp.email({
          name: "x",
          email: uniqueEmail("cb"),
          password: PASSWORD,
          callbackURL: "//evil.example",
        })
      ).error,
    ).toMatchObject({ status: 403, code: "INVALID_CALLBACK_URL" });
    expect((await c.client.sendVerificationEmail({ email: user.email, callbackURL: evil })).error).toMatchObject({
      status: 403,
      code: "INVALID_CALLBACK_URL",
    });
    const verify = await call(`/verify-email?token=x&callbackURL=${encodeURIComponent(evil)}`);
    expect(verify.status).toBe(403);
    expect(((await verify.json()) as { code: string }).code).toBe("INVALID_CALLBACK_URL");

    const fields = [
      ["redirectTo", "INVALID_REDIRECT_URL", "Invalid redirectURL"],
      ["errorCallbackURL", "INVALID_ERROR_CALLBACK_URL", "Invalid errorCallbackURL"],
      ["newUserCallbackURL", "INVALID_NEW_USER_CALLBACK_URL", "Invalid newUserCallbackURL"],
    ] as const;
    for (const [field, code, message] of fields) {
      const res = await call("/sign-in/email", json({ email: user.email, password: PASSWORD, [field]: evil }));
      expect(res.status, field).toBe(403);
      expect(await res.json()).toEqual({ code, message });
    }

    // Relative paths and the app's own origin are fine.
    for (const ok of ["/profile?tab=sessions", `${base}/profile`]) {
      const res = await c.client.signIn.email({ email: user.email, password: PASSWORD, callbackURL: ok });
      expect(res.error, ok).toBeNull();
    }
  });
});

describe("the API framework", () => {
  it("answers 415 for a POST body that is neither JSON nor (where allowed) a form", async () => {
    const res = await call("/send-verification-email", {
      method: "POST",
      body: "email=a@example.com",
      headers: { "content-type": "application/x-www-form-urlencoded", origin: base },
    });
    expect(res.status).toBe(415);
    expect(((await res.json()) as { code: string }).code).toBe("UNSUPPORTED_MEDIA_TYPE");
    const text = await call("/sign-in/email", {
      method: "POST",
      body: "hello",
      headers: { "content-type": "text/plain", origin: base },
    });
    expect(text.status).toBe(415);
  });

  it("answers 400 BAD_REQUEST for malformed JSON", async () => {
    const res = await call("/sign-in/email", {
      method: "POST",
      body: "{nope",
      headers: { "content-type": "application/json", origin: base },
    });
    expect(res.status).toBe(400);
    expect(await res.json()).toEqual({ code: "BAD_REQUEST", message: "Invalid JSON in request body" });
  });

  it("answers 404 with an empty body for unknown paths and wrong methods", async () => {
    for (const [method, path] of [
      ["GET", "/sign-in/email"],
      ["GET", "/no-such-endpoint"],
      ["POST", "/ok"],
    ] as const) {
      const res = await call(path, method === "POST" ? json({}) : {});
      expect(res.status, `${method} ${path}`).toBe(404);
      expect(await res.text()).toBe("");
    }
  });

  it("answers validation failures of the query with 'Invalid query parameters'", async () => {
    const res = await call("/verify-email");
    expect(res.status).toBe(400);
    const body = (await res.json()) as { code: string; message: string };
    expect(body.code).toBe("VALIDATION_ERROR");
    expect(body.message).toMatch(/^Invalid query parameters/);
  });

  it("has /ok and the plain /error page", async () => {
    expect((await (await call("/ok")).json()) as unknown).toEqual({ ok: true });
    const res = await call("/error?error=state_not_found");
    expect(res.status).toBe(200);
    expect(res.headers.get("content-type")).toMatch(/^text\/html/);
    const html = await res.text();
    expect(html).toContain("<title>Authentication Error</title>");
    expect(html).toContain("state_not_found");
    expect(html).toMatch(/<a href="\/">Return to Application<\/a>/);
    const hostile = await (await call(`/error?error=${encodeURIComponent("<script>x</script>")}`)).text();
    expect(hostile).not.toContain("<script>x");
  });
});

describe("audit", () => {
  it("keeps an event about a user who no longer exists, with the id in its details", async () => {
    const { audit } = await import("~/server/audit.server");
    await audit({
      userId: "deleted-user-id",
      category: "auth",
      action: "delete-user",
      status: "success",
      details: { via: "test" },
      meta: { ipAddress: "10.0.0.1", userAgent: UA },
    });
    const row = await prisma.auditLog.findFirstOrThrow({ where: { action: "delete-user", ipAddress: "10.0.0.1" } });
    expect(row.userId).toBeNull();
    expect(JSON.parse(row.details!)).toEqual({ via: "test", userId: "deleted-user-id" });
  });
});

describe("secure cookies", () => {
  it("uses __Secure- names and the Secure flag when BASE_URL is https", async () => {
    const origin = "https://app.example.test";
    const secure = await startServer({ DATABASE_URL: db.url, AUTH_SECRET: SECRET, BASE_URL: origin });
    try {
      const res = await fetch(`${secure.url}/api/auth/sign-in/email`, {
        method: "POST",
        body: JSON.stringify({ email: "admin@example.com", password: "demo-admin-1234" }),
        headers: { "content-type": "application/json", origin },
      });
      expect(res.status).toBe(200);
      const lines = res.headers.getSetCookie();
      expect(cookieLine(lines, "__Secure-app.session_token")).toMatch(/; Secure$|; Secure;/);
      expect(cookieLine(lines, "__Secure-app.session_data")).toContain("Secure");
      expect(lines.some((line) => line.startsWith("app."))).toBe(false);
    } finally {
      await secure.stop();
    }
  });
});

describe("rate limits (counted in the database, shared by instances)", () => {
  let a: RunningServer;
  let b: RunningServer;

  beforeAll(async () => {
    const env = { DATABASE_URL: db.url, AUTH_SECRET: SECRET, RATE_LIMIT: "on" };
    [a, b] = await Promise.all([startServer(env), startServer(env)]);
  });
  afterAll(async () => {
    await Promise.all([a?.stop(), b?.stop()]);
  });

  const signIn = (s: RunningServer) =>
    fetch(`${s.url}/api/auth/sign-in/email`, {
      method: "POST",
      body: JSON.stringify({ email: "nobody@example.com", password: PASSWORD }),
      headers: { "content-type": "application/json", origin: s.url },
    });

  it("allows 3 sign-ins per 10 s per client, across instances, then 429 with X-Retry-After", async () => {
    await prisma.rateLimit.deleteMany({});
    expect((await signIn(a)).status).toBe(401);
    expect((await signIn(b)).status).toBe(401);
    expect((await signIn(a)).status).toBe(401);
    const limited = await signIn(b);
    expect(limited.status).toBe(429);
    expect(await limited.json()).toEqual({ message: "Too many requests. Please try again later." });
    const retryAfter = Number(limited.headers.get("x-retry-after"));
    expect(retryAfter).toBeGreaterThanOrEqual(1);
    expect(retryAfter).toBeLessThanOrEqual(10);

    // Once the window is over, counting starts again.
    await prisma.rateLimit.updateMany({ data: { windowStart: new Date(Date.now() - 11_000) } });
    expect((await signIn(a)).status).toBe(401);
  });

  it("allows 100 requests per 10 s by default", async () => {
    await prisma.rateLimit.deleteMany({});
    const statuses = await Promise.all(
      Array.from({ length: 100 }, (_, i) => fetch(`${(i % 2 ? a : b).url}/api/auth/ok`).then((r) => r.status)),
    );
    expect(statuses.every((status) => status === 200)).toBe(true);
    const limited = await fetch(`${a.url}/api/auth/ok`);
    expect(limited.status).toBe(429);
    expect(Number(limited.headers.get("x-retry-after"))).toBeLessThanOrEqual(10);
  });

  it("counts get-session answered from the cookie cache as any call: 100 per 10 s, then 429", async () => {
    const { c } = await signedIn();
    const cookie = c.cookieHeader();
    expect(cookie).toContain(COOKIE.data);
    await prisma.rateLimit.deleteMany({});
    const answers = await Promise.all(
      Array.from({ length: 100 }, (_, i) =>
        fetch(`${(i % 2 ? a : b).url}/api/auth/get-session`, { headers: { cookie } }).then((r) => r.json()),
      ),
    );
    expect(answers.every((answer) => (answer as { user?: unknown } | null)?.user)).toBe(true);
    const limited = await fetch(`${a.url}/api/auth/get-session`, { headers: { cookie } });
    expect(limited.status).toBe(429);
    expect(await limited.json()).toEqual({ message: "Too many requests. Please try again later." });
    expect(Number(limited.headers.get("x-retry-after"))).toBeLessThanOrEqual(10);
  });

  it("allows 3 verification-email requests per 60 s", async () => {
    await prisma.rateLimit.deleteMany({});
    const send = (s: RunningServer) =>
      fetch(`${s.url}/api/auth/send-verification-email`, {
        method: "POST",
        body: JSON.stringify({ email: "nobody@example.com" }),
        headers: { "content-type": "application/json" },
      });
    const statuses = await Promise.all([send(a), send(b), send(a)].map((p) => p.then((r) => r.status)));
    expect(statuses).toEqual([200, 200, 200]);
    const limited = await send(b);
    expect(limited.status).toBe(429);
    expect(Number(limited.headers.get("x-retry-after"))).toBeGreaterThan(50);
    expect(Number(limited.headers.get("x-retry-after"))).toBeLessThanOrEqual(60);
  });
});
