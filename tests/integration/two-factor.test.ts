/**
 * Two-factor authentication over /api/auth, driven by the official better-auth client with
 * `twoFactorClient()` against the built server and a real SMTP capture: enable (password
 * required, on only after a first code) → sign-in answers `twoFactorRedirect` with no session
 * → TOTP, backup codes, emailed codes, trusted browsers, limits and lockout → disable. TOTP
 * codes are computed by the test's own RFC 6238 code (tests/support/totp.ts). Runs on SQLite,
 * or on PostgreSQL with TEST_DATABASE_URL.
 */
import { createHmac } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { secretOfURI, stepAt, totp } from "../support/totp";
import { makeTestClient, type TestClient } from "./helpers/auth-client";
import { startTestApp, type TestApp } from "./helpers/app";
import { createUser, PASSWORD, signInWithPassword, unique, uniqueEmail } from "./helpers/factories";

const SECRET = "two-factor-test-secret-0123456789abcdef";
const PENDING_COOKIE = "app.two_factor";
const TRUST_COOKIE = "app.trust_device";
const SESSION_COOKIE = "app.session_token";

let app: TestApp;
let base: string;

beforeAll(async () => {
  app = await startTestApp({ secret: SECRET });
  base = app.base;
}, 60_000);

afterAll(async () => {
  await app?.stop();
});

const client = () => makeTestClient(base, { headers: { "user-agent": "TwoFactorTest/1.0" } });

/** A verified user with a password, made in-process, and a client signed in as them. */
async function newUser(name: string) {
  const { id, email } = await createUser({ email: uniqueEmail(name), name });
  return { who: await signInWithPassword(client(), email), email, id };
}

/** Enables TOTP for a signed-in client; returns the secret and the backup codes. */
async function enableTotp(who: TestClient) {
  const enabled = await who.client.twoFactor.enable({ password: PASSWORD });
  expect(enabled.error).toBeNull();
  const secret = secretOfURI((enabled.data as TotpSetup).totpURI);
  const code = totp(secret);
  const verified = await who.client.twoFactor.verifyTotp({ code });
  expect(verified.error).toBeNull();
  return { secret, backupCodes: (enabled.data as TotpSetup).backupCodes, code };
}

/** Signs in by password and expects the second step. */
async function pendingSignIn(email: string, who = client()) {
  const res = await who.client.signIn.email({ email, password: PASSWORD });
  expect(res.error).toBeNull();
  expect(res.data).toMatchObject({ twoFactorRedirect: true });
  return { who, data: res.data as unknown as { twoFactorRedirect: true; twoFactorMethods: string[] } };
}

type TotpSetup = { method: "totp"; totpURI: string; backupCodes: string[] };

/** A code the server has not seen yet: the next step's (the current one may be spent). */
const nextCode = (secret: string) => totp(secret, stepAt() + 1);

describe("enabling two-factor", () => {
  it("needs the password, shows a secret and ten backup codes, and switches on only at the first code", async () => {
    const { who, id, email } = await newUser("enable");
    expect((await who.client.twoFactor.enable({ password: "wrong password" })).error).toMatchObject({
      status: 400,
      code: "INVALID_PASSWORD",
    });
    const missing = await who.client.$fetch("/two-factor/enable", { method: "POST", body: {} });
    expect(missing.error).toMatchObject({ status: 400, code: "VALIDATION_ERROR" });

    const enabled = await who.client.twoFactor.enable({ password: PASSWORD });
    expect(enabled.error).toBeNull();
    const uri = new URL((enabled.data as TotpSetup).totpURI);
    expect(uri.protocol).toBe("otpauth:");
    expect(uri.host).toBe("totp");
    expect(decodeURIComponent(uri.pathname)).toBe(`/Acme Cloud:${email}`);
    expect(Object.fromEntries(uri.searchParams)).toMatchObject({ issuer: "Acme Cloud", digits: "6", period: "30" });
    const secret = secretOfURI((enabled.data as TotpSetup).totpURI);
    expect(secret).toMatch(/^[A-Z2-7]{32}$/);
    expect((enabled.data as TotpSetup).backupCodes).toHaveLength(10);
    // Capitals and digits without look-alikes (no 0/O, 1/I/l).
    for (const code of (enabled.data as TotpSetup).backupCodes) {
      expect(code).toMatch(/^[A-HJKMNP-Z2-9]{5}-[A-HJKMNP-Z2-9]{5}$/);
    }

    // Stored encrypted and hashed, and still off.
    const row = await app.prisma.twoFactor.findUniqueOrThrow({ where: { userId: id } });
    expect(row.secret).toMatch(/^v1\./);
    expect(row.secret).not.toContain(secret);
    expect(row.verified).toBe(false);
    // The codes wait for the first code beside the (empty) set of the user.
    const hashes = row.pendingBackupCodes!.split(" ");
    expect(hashes).toHaveLength(10);
    for (const codeHash of hashes) {
      for (const code of (enabled.data as TotpSetup).backupCodes) expect(codeHash).not.toContain(code.replace("-", ""));
    }
    expect(await app.prisma.backupCode.count({ where: { userId: id } })).toBe(0);
    expect((await app.prisma.user.findUniqueOrThrow({ where: { id } })).twoFactorEnabled).toBe(false);
    // Not on yet: signing in still makes a session at once.
    const other = client();
    expect((await other.client.signIn.email({ email, password: PASSWORD })).data).toMatchObject({
      token: expect.any(String),
    });

    expect((await who.client.twoFactor.verifyTotp({ code: totp(secret, stepAt() + 10) })).error).toMatchObject({
      status: 401,
      code: "INVALID_CODE",
    });
    const oldToken = who.jar.get(SESSION_COOKIE);
    const verified = await who.client.twoFactor.verifyTotp({ code: totp(secret) });
    expect(verified.error).toBeNull();
    expect((await app.prisma.user.findUniqueOrThrow({ where: { id } })).twoFactorEnabled).toBe(true);
    const stored = await app.prisma.backupCode.findMany({ where: { userId: id } });
    expect(stored.map((code) => code.codeHash).sort()).toEqual([...hashes].sort());
    // A privilege change: a new session token, the old one ended.
    expect(who.jar.get(SESSION_COOKIE)).not.toBe(oldToken);
    const session = await who.client.getSession({ query: { disableCookieCache: true } });
    expect(session.data?.user).toMatchObject({ id, twoFactorEnabled: true });

    const again = await who.client.twoFactor.enable({ password: PASSWORD });
    expect(again.error).toMatchObject({ status: 400, code: "TOTP_ALREADY_ENABLED" });

    const audit = await app.prisma.auditLog.findMany({ where: { userId: id, category: "security" } });
    expect(audit.map((row) => `${row.action}:${row.status}`)).toEqual(
      expect.arrayContaining(["two-factor-enable:failure", "two-factor-enabled:success"]),
    );
  });

  it("gives the URI again and a new set of backup codes only with the password", async () => {
    const { who } = await newUser("uri");
    const { secret, backupCodes } = await enableTotp(who);
    expect((await who.client.twoFactor.getTotpUri({ password: "nope nope" })).error?.code).toBe("INVALID_PASSWORD");
    const uri = await who.client.twoFactor.getTotpUri({ password: PASSWORD });
    expect(secretOfURI(uri.data!.totpURI)).toBe(secret);

    expect((await who.client.twoFactor.generateBackupCodes({ password: "nope nope" })).error?.code).toBe(
      "INVALID_PASSWORD",
    );
    const fresh = await who.client.twoFactor.generateBackupCodes({ password: PASSWORD });
    expect(fresh.data).toMatchObject({ status: true, backupCodes: expect.any(Array) });
    expect(fresh.data!.backupCodes).toHaveLength(10);
    expect(fresh.data!.backupCodes).not.toContain(backupCodes[0]);
  });

  it("refuses a user without two-factor the calls that need it", async () => {
    const { who } = await newUser("off");
    expect((await who.client.twoFactor.generateBackupCodes({ password: PASSWORD })).error).toMatchObject({
      status: 400,
      code: "TWO_FACTOR_NOT_ENABLED",
    });
    expect((await who.client.twoFactor.getTotpUri({ password: PASSWORD })).error?.code).toBe("TOTP_NOT_ENABLED");
    expect((await who.client.twoFactor.verifyTotp({ code: "123456" })).error?.code).toBe("TOTP_NOT_ENABLED");
    expect((await who.client.twoFactor.sendOtp()).error?.code).toBe("OTP_NOT_CONFIGURED");
  });
});

describe("an authenticator set-up that was never confirmed", () => {
  /** A user with email codes and a set of backup codes, who then starts (only) an authenticator set-up. */
  async function emailCodesThenSetupStarted(name: string) {
    const user = await newUser(name);
    expect((await user.who.client.twoFactor.enable({ password: PASSWORD, method: "otp" })).error).toBeNull();
    const own = await user.who.client.twoFactor.generateBackupCodes({ password: PASSWORD });
    expect(own.error).toBeNull();
    const started = await user.who.client.twoFactor.enable({ password: PASSWORD });
    expect(started.error).toBeNull();
    const setup = started.data as TotpSetup;
    return {
      ...user,
      secret: secretOfURI(setup.totpURI),
      ownCodes: own.data!.backupCodes,
      setupCodes: setup.backupCodes,
    };
  }

  it("does not complete a sign-in, and leaves the user's backup codes as they were", async () => {
    const { who: owner, email, id, secret, ownCodes, setupCodes } = await emailCodesThenSetupStarted("unconfirmed");

    const { who, data } = await pendingSignIn(email);
    expect(data.twoFactorMethods).toEqual(["otp"]);
    // A code of the unconfirmed secret is no second factor.
    expect((await who.client.twoFactor.verifyTotp({ code: totp(secret) })).error).toMatchObject({
      status: 400,
      code: "TOTP_NOT_ENABLED",
    });
    expect(who.jar.has(SESSION_COOKIE)).toBe(false);
    // The set-up's codes are not the user's yet; the user's own still work.
    expect((await who.client.twoFactor.verifyBackupCode({ code: setupCodes[0]! })).error?.code).toBe(
      "INVALID_BACKUP_CODE",
    );
    expect((await who.client.twoFactor.verifyBackupCode({ code: ownCodes[0]! })).error).toBeNull();
    expect((await who.client.getSession()).data?.user.id).toBe(id);

    // Confirmed by its first code, the authenticator counts and its codes replace the old ones.
    expect((await owner.client.twoFactor.verifyTotp({ code: totp(secret) })).error).toBeNull();
    const { who: after, data: methods } = await pendingSignIn(email);
    expect(methods.twoFactorMethods).toEqual(["totp", "otp"]);
    expect((await after.client.twoFactor.verifyBackupCode({ code: ownCodes[1]! })).error?.code).toBe(
      "INVALID_BACKUP_CODE",
    );
    expect((await after.client.twoFactor.verifyBackupCode({ code: setupCodes[0]! })).error).toBeNull();
    expect(await app.prisma.backupCode.count({ where: { userId: id } })).toBe(9);
  });

  it("shows the secret again on the settings page only to someone who gives the password", async () => {
    const { who } = await newUser("reveal");
    const post = (form: Record<string, string>) =>
      fetch(`${base}/profile/two-factor`, {
        method: "POST",
        redirect: "manual",
        headers: { cookie: who.cookieHeader(), origin: base, "content-type": "application/x-www-form-urlencoded" },
        body: new URLSearchParams(form),
      }).then(async (res) => ({ status: res.status, html: await res.text() }));
    const secretShown = (html: string) => /data-testid="totp-secret">([A-Z2-7]{32})</.exec(html)?.[1];

    const started = await post({ intent: "enable", password: PASSWORD });
    const shown = secretShown(started.html)!;
    expect(shown).toMatch(/^[A-Z2-7]{32}$/);

    // A wrong first code (what anyone holding the session can send): the code form, no secret.
    const wrong = await post({ intent: "verify", code: totp(shown, stepAt() + 10) });
    expect(wrong.status).toBe(401);
    expect(wrong.html).toContain("That code is not valid.");
    expect(wrong.html).toContain('name="code"');
    expect(wrong.html).not.toContain(shown);
    expect(wrong.html).not.toContain('data-testid="totp-qr"');
    const badPassword = await post({ intent: "reveal", password: "not the password" });
    expect(badPassword.html).not.toContain(shown);
    expect(badPassword.html).toContain('name="code"');

    const revealed = await post({ intent: "reveal", password: PASSWORD });
    expect(secretShown(revealed.html)).toBe(shown);
    expect(revealed.html).toContain('data-testid="totp-qr"');
    const verified = await post({ intent: "verify", code: totp(shown) });
    expect(verified.status).toBe(302);
  });
});

describe("signing in with two-factor", () => {
  it("makes no session until the second step, then one session", async () => {
    const { who: first, email, id } = await newUser("signin");
    const { secret, code: enablingCode } = await enableTotp(first);

    const { who, data } = await pendingSignIn(email);
    expect(data).toEqual({ twoFactorRedirect: true, twoFactorMethods: ["totp", "otp"] });
    expect(who.jar.has(PENDING_COOKIE)).toBe(true);
    expect(who.jar.has(SESSION_COOKIE)).toBe(false);
    const pendingCookie = who.lastSetCookies().find((line) => line.startsWith(`${PENDING_COOKIE}=`))!;
    expect(pendingCookie).toMatch(/Max-Age=600/);
    expect(pendingCookie).toMatch(/HttpOnly/);
    expect(pendingCookie).toMatch(/SameSite=Lax/i);
    const sessionsBefore = await app.prisma.session.count({ where: { userId: id } });

    // The pending cookie alone is not a session anywhere.
    expect((await who.client.getSession()).data).toBeNull();
    expect((await who.client.listSessions()).error?.status).toBe(401);
    expect((await who.client.updateUser({ name: "Mallory" })).error?.status).toBe(401);
    expect(
      (await who.client.changePassword({ currentPassword: PASSWORD, newPassword: "x".repeat(12) })).error?.status,
    ).toBe(401);
    expect((await who.client.twoFactor.generateBackupCodes({ password: PASSWORD })).error?.status).toBe(401);
    const page = await fetch(`${base}/profile`, { redirect: "manual", headers: { cookie: who.cookieHeader() } });
    expect(page.status).toBe(302);
    expect(page.headers.get("location")).toMatch(/\/signin/);

    expect(
      (await who.client.twoFactor.verifyTotp({ code: "000000" === totp(secret) ? "111111" : "000000" })).error,
    ).toMatchObject({
      status: 401,
      code: "INVALID_CODE",
    });
    // A far time step is refused.
    expect((await who.client.twoFactor.verifyTotp({ code: totp(secret, stepAt() - 5) })).error?.code).toBe(
      "INVALID_CODE",
    );
    // The code that switched two-factor on (its step is spent) is refused.
    expect((await who.client.twoFactor.verifyTotp({ code: enablingCode })).error?.code).toBe("INVALID_CODE");
    expect(await app.prisma.session.count({ where: { userId: id } })).toBe(sessionsBefore);

    const code = nextCode(secret);
    const ok = await who.client.twoFactor.verifyTotp({ code });
    expect(ok.error).toBeNull();
    expect(ok.data).toMatchObject({ token: expect.any(String), user: { id, email } });
    expect(who.jar.has(SESSION_COOKIE)).toBe(true);
    expect(who.jar.has(PENDING_COOKIE)).toBe(false);
    expect((await who.client.getSession()).data?.user.id).toBe(id);

    // The same code again, on another pending sign-in: refused (once within its window).
    const { who: replay } = await pendingSignIn(email);
    expect((await replay.client.twoFactor.verifyTotp({ code })).error?.code).toBe("INVALID_CODE");
  });

  it("refuses the pending cookie alone on every call that needs a session, and changes nothing", async () => {
    const { who: first, email, id } = await newUser("pendingonly");
    await enableTotp(first);
    const { who } = await pendingSignIn(email);
    const calls: [method: "GET" | "POST", path: string, body?: Record<string, unknown>][] = [
      ["GET", "/list-sessions"],
      ["GET", "/list-accounts"],
      ["GET", "/account-info?accountId=x"],
      ["GET", "/passkey/generate-register-options"],
      ["GET", "/passkey/list-user-passkeys"],
      ["GET", "/organization/list"],
      ["GET", "/subscription/list"],
      ["POST", "/update-user", { name: "Mallory" }],
      ["POST", "/change-password", { currentPassword: PASSWORD, newPassword: "mallory's password" }],
      ["POST", "/change-email", { newEmail: "mallory@example.com" }],
      ["POST", "/delete-user", { password: PASSWORD }],
      ["POST", "/revoke-sessions", {}],
      ["POST", "/revoke-other-sessions", {}],
      ["POST", "/revoke-session", { token: "x" }],
      ["POST", "/unlink-account", { providerId: "credential" }],
      ["POST", "/get-access-token", { providerId: "google" }],
      ["POST", "/two-factor/enable", { password: PASSWORD }],
      ["POST", "/two-factor/disable", { password: PASSWORD }],
      ["POST", "/two-factor/get-totp-uri", { password: PASSWORD }],
      ["POST", "/two-factor/generate-backup-codes", { password: PASSWORD }],
      ["POST", "/passkey/update-passkey", { id: "x", name: "mine" }],
      ["POST", "/passkey/delete-passkey", { id: "x" }],
      ["POST", "/organization/create", { name: "Mallory Inc", slug: unique("mallory") }],
    ];
    for (const [method, path, body] of calls) {
      const res = await fetch(`${base}/api/auth${path}`, {
        method,
        headers: { cookie: who.cookieHeader(), origin: base, ...(body && { "content-type": "application/json" }) },
        body: body && JSON.stringify(body),
      });
      expect(`${method} ${path} ${res.status}`).toBe(`${method} ${path} 401`);
    }
    const user = await app.prisma.user.findUniqueOrThrow({ where: { id }, include: { members: true } });
    expect(user).toMatchObject({ name: "pendingonly", email, twoFactorEnabled: true, members: [] });
  });

  it("accepts each backup code once", async () => {
    const { who: first, email, id } = await newUser("backup");
    const { backupCodes } = await enableTotp(first);

    const { who } = await pendingSignIn(email);
    expect((await who.client.twoFactor.verifyBackupCode({ code: "aaaaa-bbbbb" })).error).toMatchObject({
      status: 401,
      code: "INVALID_BACKUP_CODE",
    });
    const used = await who.client.twoFactor.verifyBackupCode({ code: backupCodes[0]! });
    expect(used.error).toBeNull();
    expect((await who.client.getSession()).data?.user.id).toBe(id);
    expect(await app.prisma.backupCode.count({ where: { userId: id } })).toBe(9);

    const { who: again } = await pendingSignIn(email);
    expect((await again.client.twoFactor.verifyBackupCode({ code: backupCodes[0]! })).error?.code).toBe(
      "INVALID_BACKUP_CODE",
    );
    // Typed without the dash, another code works.
    expect(
      (await again.client.twoFactor.verifyBackupCode({ code: backupCodes[1]!.replace("-", "") })).error,
    ).toBeNull();

    const audit = await app.prisma.auditLog.findMany({ where: { userId: id, category: "security" } });
    expect(audit.filter((row) => row.action === "backup-code-used")).toHaveLength(2);
    expect(audit.some((row) => row.action === "two-factor-failed" && row.status === "failure")).toBe(true);
  });

  it("still accepts a code made before the unambiguous alphabet, exactly as it was; today's in any case", async () => {
    const { who: first, email, id } = await newUser("oldcodes");
    const { backupCodes } = await enableTotp(first);
    // A code of the old alphabet (both cases, any digit), stored as its HMAC, as they were.
    const old = "aB3dEf9hIl";
    const codeHash = createHmac("sha256", SECRET).update(`backup-code:${old}`).digest("base64url");
    await app.prisma.backupCode.create({ data: { userId: id, codeHash } });

    const { who } = await pendingSignIn(email);
    // Old codes compare exactly: another case is another code.
    expect((await who.client.twoFactor.verifyBackupCode({ code: "AB3DE-F9HIL" })).error?.code).toBe(
      "INVALID_BACKUP_CODE",
    );
    expect((await who.client.twoFactor.verifyBackupCode({ code: "aB3dE-f9hIl" })).error).toBeNull();

    // A new code typed in lower case, with a space for the dash.
    const { who: again } = await pendingSignIn(email);
    const typed = backupCodes[0]!.toLowerCase().replace("-", " ");
    expect((await again.client.twoFactor.verifyBackupCode({ code: typed })).error).toBeNull();
    expect(await app.prisma.backupCode.count({ where: { userId: id } })).toBe(9);
  });

  it("sends a code by email, limits its tries, and sends a new one", async () => {
    const { who: first, email, id } = await newUser("otp");
    await enableTotp(first);
    const { who } = await pendingSignIn(email);
    expect((await who.client.twoFactor.verifyOtp({ code: "123456" })).error).toMatchObject({
      status: 400,
      code: "OTP_HAS_EXPIRED",
    });

    expect((await who.client.twoFactor.sendOtp()).data).toEqual({ status: true });
    const mail = await app.mailbox.waitFor(email, (m) => m.subject === "Your sign-in code");
    const code = /\b(\d{6})\b/.exec(mail.text!)![1]!;
    const wrong = code === "000000" ? "111111" : "000000";
    for (let i = 0; i < 5; i++) {
      expect((await who.client.twoFactor.verifyOtp({ code: wrong })).error).toMatchObject({
        status: 401,
        code: "INVALID_CODE",
      });
    }
    // The sixth try is refused even with the right code, and the code is gone.
    expect((await who.client.twoFactor.verifyOtp({ code })).error).toMatchObject({
      status: 400,
      code: "TOO_MANY_ATTEMPTS_REQUEST_NEW_CODE",
    });
    expect((await who.client.twoFactor.verifyOtp({ code })).error?.code).toBe("OTP_HAS_EXPIRED");

    await app.prisma.twoFactor.update({ where: { userId: id }, data: { failedCount: 0 } });
    expect((await who.client.twoFactor.sendOtp()).error).toBeNull();
    const second = await app.mailbox.waitFor(email, (m) => m.subject === "Your sign-in code" && m.text !== mail.text);
    const fresh = /\b(\d{6})\b/.exec(second.text!)![1]!;
    const ok = await who.client.twoFactor.verifyOtp({ code: fresh });
    expect(ok.error).toBeNull();
    expect((await who.client.getSession()).data?.user.id).toBe(id);
    // Spent.
    const { who: later } = await pendingSignIn(email);
    expect((await later.client.twoFactor.verifyOtp({ code: fresh })).error?.code).toBe("OTP_HAS_EXPIRED");
  });

  it("gives one pending sign-in five tries, then spends it", async () => {
    const { who: first, email } = await newUser("tries");
    const { secret } = await enableTotp(first);
    const { who } = await pendingSignIn(email);
    const right = nextCode(secret);
    const wrong = right === "000000" ? "111111" : "000000";
    for (let i = 0; i < 5; i++)
      expect((await who.client.twoFactor.verifyTotp({ code: wrong })).error?.code).toBe("INVALID_CODE");
    expect((await who.client.twoFactor.verifyTotp({ code: right })).error).toMatchObject({
      status: 400,
      code: "TOO_MANY_ATTEMPTS_REQUEST_NEW_CODE",
    });
    expect((await who.client.twoFactor.verifyTotp({ code: right })).error).toMatchObject({
      status: 401,
      code: "INVALID_TWO_FACTOR_COOKIE",
    });
  });

  it("locks the second step after ten failures in a row, right codes included", async () => {
    const { who: first, email, id } = await newUser("lock");
    const { secret } = await enableTotp(first);
    for (let round = 0; round < 2; round++) {
      const { who } = await pendingSignIn(email);
      for (let i = 0; i < 5; i++) await who.client.twoFactor.verifyBackupCode({ code: "zzzzz-zzzzz" });
    }
    const { who } = await pendingSignIn(email);
    expect((await who.client.twoFactor.verifyTotp({ code: nextCode(secret) })).error).toMatchObject({
      status: 429,
      code: "ACCOUNT_TEMPORARILY_LOCKED",
    });
    const row = await app.prisma.twoFactor.findUniqueOrThrow({ where: { userId: id } });
    expect(row.lockedUntil!.getTime()).toBeGreaterThan(Date.now() + 14 * 60_000);
  });

  it("counts codes sent at once as they arrive: no more than ten are ever checked before the lock", async () => {
    const { who: first, email, id } = await newUser("burst");
    const { secret } = await enableTotp(first);
    const pendings = [];
    for (let i = 0; i < 4; i++) pendings.push((await pendingSignIn(email)).who);
    const wrong = nextCode(secret) === "000000" ? "111111" : "000000";
    // Four pending sign-ins, five guesses each, all at once (as from many addresses).
    const answers = await Promise.all(
      pendings.flatMap((who) => Array.from({ length: 5 }, () => who.client.twoFactor.verifyTotp({ code: wrong }))),
    );
    const codes = answers.map((answer) => answer.error?.code);
    expect(codes.filter((code) => code === "INVALID_CODE")).toHaveLength(10);
    expect(codes.filter((code) => code === "ACCOUNT_TEMPORARILY_LOCKED")).toHaveLength(10);
    const row = await app.prisma.twoFactor.findUniqueOrThrow({ where: { userId: id } });
    expect(row.lockedUntil!.getTime()).toBeGreaterThan(Date.now());
  });

  it("checks no more than five guesses of an emailed code, however many arrive at once", async () => {
    const { who: first, email } = await newUser("otp-burst");
    await enableTotp(first);
    const { who } = await pendingSignIn(email);
    expect((await who.client.twoFactor.sendOtp()).error).toBeNull();
    const answers = await Promise.all(
      Array.from({ length: 9 }, (_, i) => who.client.twoFactor.verifyOtp({ code: String(100000 + i) })),
    );
    const codes = answers.map((answer) => answer.error?.code);
    expect(codes.filter((code) => code === "INVALID_CODE")).toHaveLength(5);
  });

  it("refuses a forged or missing pending cookie", async () => {
    const who = client();
    expect((await who.client.twoFactor.verifyTotp({ code: "123456" })).error).toMatchObject({
      status: 401,
      code: "INVALID_TWO_FACTOR_COOKIE",
    });
    who.jar.set(PENDING_COOKIE, encodeURIComponent("2fa-abcdefghijklmnopqrst.forgedsignature"));
    expect((await who.client.twoFactor.sendOtp()).error?.code).toBe("INVALID_TWO_FACTOR_COOKIE");
  });

  it("lets a trusted browser skip the second step for 30 days, and no other", async () => {
    const { who: first, email, id } = await newUser("trust");
    const { secret } = await enableTotp(first);
    const { who } = await pendingSignIn(email);
    expect((await who.client.twoFactor.verifyTotp({ code: nextCode(secret), trustDevice: true })).error).toBeNull();
    const trustLine = who.lastSetCookies().find((line) => line.startsWith(`${TRUST_COOKIE}=`))!;
    expect(trustLine).toMatch(/Max-Age=2592000/);
    const trust = who.jar.get(TRUST_COOKIE);
    expect(trust).toBeTruthy();

    await who.client.signOut();
    expect(who.jar.get(TRUST_COOKIE)).toBe(trust); // sign-out keeps it
    const again = await who.client.signIn.email({ email, password: PASSWORD });
    expect(again.data).toMatchObject({ token: expect.any(String), user: { id } });
    // Rotated on use: the old value no longer works.
    expect(who.jar.get(TRUST_COOKIE)).not.toBe(trust);

    const stolen = client();
    stolen.jar.set(TRUST_COOKIE, trust!);
    expect((await stolen.client.signIn.email({ email, password: PASSWORD })).data).toMatchObject({
      twoFactorRedirect: true,
    });
    await pendingSignIn(email); // another browser: the second step

    // Disabling forgets every trusted browser.
    const disabled = await who.client.twoFactor.disable({ password: PASSWORD });
    expect(disabled.error).toBeNull();
    expect(await app.prisma.trustedDevice.count({ where: { userId: id } })).toBe(0);
  });

  it("ends a sign-in the old password started when the password is reset", async () => {
    const { who: first, email } = await newUser("reset-pending");
    const { secret } = await enableTotp(first);
    const { who: started } = await pendingSignIn(email);
    expect((await client().client.requestPasswordReset({ email, redirectTo: "/reset-password" })).error).toBeNull();
    const mail = await app.mailbox.waitFor(email, (m) => m.subject === "Reset your password");
    const token = /\/reset-password\/([A-Za-z0-9]+)/.exec(mail.text!)![1]!;
    expect((await client().client.resetPassword({ token, newPassword: "a brand new password" })).error).toBeNull();
    expect((await started.client.twoFactor.verifyTotp({ code: nextCode(secret) })).error).toMatchObject({
      status: 401,
      code: "INVALID_TWO_FACTOR_COOKIE",
    });
  });

  it("keeps two-factor on through a password change, a password reset and an admin revoking the sessions", async () => {
    const { who, email, id } = await newUser("keep");
    await enableTotp(who);
    const changed = await who.client.changePassword({
      currentPassword: PASSWORD,
      newPassword: "another fine password",
    });
    expect(changed.error).toBeNull();
    expect((await client().client.requestPasswordReset({ email, redirectTo: "/reset-password" })).error).toBeNull();
    const mail = await app.mailbox.waitFor(email, (m) => m.subject === "Reset your password");
    const token = /\/reset-password\/([A-Za-z0-9]+)/.exec(mail.text!)![1]!;
    expect((await client().client.resetPassword({ token, newPassword: PASSWORD })).error).toBeNull();
    const { deleteSessions } = await import("~/server/auth/session.server");
    await deleteSessions(id);
    expect((await app.prisma.user.findUniqueOrThrow({ where: { id } })).twoFactorEnabled).toBe(true);
    await pendingSignIn(email);
  });
});

describe("disabling two-factor", () => {
  it("needs the password, then signing in makes a session at once", async () => {
    const { who, email, id } = await newUser("disable");
    await enableTotp(who);
    expect((await who.client.twoFactor.disable({ password: "wrong password" })).error).toMatchObject({
      status: 400,
      code: "INVALID_PASSWORD",
    });
    const oldToken = who.jar.get(SESSION_COOKIE);
    expect((await who.client.twoFactor.disable({ password: PASSWORD })).data).toEqual({ status: true });
    expect(who.jar.get(SESSION_COOKIE)).not.toBe(oldToken);
    expect(await app.prisma.twoFactor.count({ where: { userId: id } })).toBe(0);
    expect(await app.prisma.backupCode.count({ where: { userId: id } })).toBe(0);
    const session = await who.client.getSession();
    expect(session.data?.user.twoFactorEnabled).toBe(false);
    const again = await client().client.signIn.email({ email, password: PASSWORD });
    expect(again.data).toMatchObject({ token: expect.any(String) });
    const audit = await app.prisma.auditLog.findMany({ where: { userId: id, category: "security" } });
    expect(audit.map((row) => row.action)).toContain("two-factor-disabled");
  });
});
