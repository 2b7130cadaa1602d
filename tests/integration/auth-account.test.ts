/**
 * Account management over /api/auth, driven by the official better-auth client (cookie jar +
 * Origin) against the built server, with a real SMTP capture: the journey sign-up → verify →
 * sign-in → get-session → update-user → change-password → reset password → change email
 * (unverified and verified flows) → sessions → delete user, plus every catalogue error
 * (errors.server.ts) these flows can raise, and the audit rows they leave. Runs on SQLite, or on PostgreSQL
 * with TEST_DATABASE_URL.
 */
import { createHash } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { applySetCookies, makeTestClient, type TestClient } from "./helpers/auth-client";
import { startTestApp, type TestApp } from "./helpers/app";
import {
  createUser,
  PASSWORD,
  sessionFor,
  signInInProcess,
  signInWithPassword,
  uniqueEmail,
} from "./helpers/factories";
import type { CapturedMail, Mailbox } from "./helpers/mailbox";

const SECRET = "integration-test-secret-0123456789abcdef";
const USER_AGENT = "AccountTest/1.0 (integration)";
const NEW_PASSWORD = "new correct horse battery";
const RESET_PASSWORD = "reset staple battery";
const SESSION_COOKIE = "app.session_token";
const CACHE_COOKIE = "app.session_data";
const DAY_MS = 24 * 3600 * 1000;

let app: TestApp;
let mailbox: Mailbox;
let base: string;

type Db = (typeof import("~/server/db.server"))["prisma"];
let prisma: Db;

const sha256 = (value: string) => createHash("sha256").update(value).digest("hex");
const client = () => makeTestClient(base, { headers: { "user-agent": USER_AGENT } });

/** The payload of a JWT (unverified: the server checked it; the test only reads it). */
function jwtPayload(token: string): Record<string, unknown> {
  return JSON.parse(Buffer.from(token.split(".")[1]!, "base64url").toString("utf8")) as Record<string, unknown>;
}

/** GET an emailed link like a browser would (with the client's cookies), without following redirects. */
async function follow(link: string, who?: TestClient): Promise<Response> {
  const res = await fetch(link, {
    redirect: "manual",
    headers: { "user-agent": USER_AGENT, ...(who && who.jar.size ? { cookie: who.cookieHeader() } : {}) },
  });
  if (who) applySetCookies(who.jar, res.headers.getSetCookie());
  return res;
}

const linkOf = (mail: CapturedMail, path: string) => {
  const link = mail.links.find((url) => url.startsWith(`${base}/api/auth${path}`));
  if (!link) throw new Error(`No ${path} link in "${mail.subject}":\n${mail.text}`);
  return link;
};

/** Signs a new user up, verifies the address from the captured email and signs in. */
async function newUser(name: string, email = uniqueEmail(name)) {
  const who = client();
  const signUp = await who.client.signUp.email({ name, email, password: PASSWORD });
  expect(signUp.error).toBeNull();
  const mail = await mailbox.waitFor(email, (m) => m.subject === "Verify your email address");
  expect((await follow(linkOf(mail, "/verify-email"))).status).toBe(302);
  const signIn = await who.client.signIn.email({ email, password: PASSWORD });
  expect(signIn.error).toBeNull();
  return { who, email, id: signUp.data!.user.id, token: signIn.data!.token };
}

/** Another client signed in as the same user (another device). */
const anotherDevice = (email: string, password = PASSWORD) => signInWithPassword(client(), email, password);

/** A session made in-process (e.g. for a user who cannot sign in by password), loaded into a client. */
const clientWithSession = (userId: string) =>
  signInInProcess(client(), userId, { ipAddress: "127.0.0.1", userAgent: USER_AGENT });

/** Makes the client's session older than freshAge (1 day), and drops its cookie cache. */
async function makeStale(who: TestClient) {
  const raw = decodeURIComponent(who.jar.get(SESSION_COOKIE)!);
  const token = raw.slice(0, raw.lastIndexOf("."));
  await prisma.session.update({
    where: { token: sha256(token) },
    data: { createdAt: new Date(Date.now() - 2 * DAY_MS) },
  });
  who.jar.delete(CACHE_COOKIE);
}

/** The database's view of the session, ignoring the 60 s cookie cache. */
const freshSession = (who: TestClient) => who.client.getSession({ query: { disableCookieCache: true } });

async function auditRows(userIdOrTarget: string, action: string) {
  return prisma.auditLog.findMany({
    where: { action, OR: [{ userId: userIdOrTarget }, { targetId: userIdOrTarget }] },
    orderBy: { createdAt: "asc" },
  });
}

function expectAudited(row: { ipAddress: string | null; userAgent: string | null } | undefined) {
  expect(row).toBeDefined();
  expect(row!.ipAddress).toMatch(/127\.0\.0\.1|::1/);
  expect(row!.userAgent).toBe(USER_AGENT);
}

/** Asserts that nothing was mailed to `address` beyond `count` messages, once mail has settled. */
async function expectNoMoreMail(address: string, count: number) {
  expect(await mailbox.settled(address)).toHaveLength(count);
}

beforeAll(async () => {
  app = await startTestApp({ secret: SECRET });
  ({ mailbox, base, prisma } = app);
});

afterAll(async () => {
  await app?.stop();
});

describe("the account journey with the official client", () => {
  let alice: Awaited<ReturnType<typeof newUser>>;
  let bob: Awaited<ReturnType<typeof newUser>>;
  let password = PASSWORD;

  it("signs up, verifies from the captured email, signs in and reads the session", async () => {
    const email = uniqueEmail("Alice").replace("alice", "Alice");
    const who = client();
    const signUp = await who.client.signUp.email({ name: "Alice", email, password: PASSWORD });
    expect(signUp.error).toBeNull();
    expect(signUp.data).toMatchObject({ token: null, user: { email: email.toLowerCase(), emailVerified: false } });
    expect(who.jar.has(SESSION_COOKIE)).toBe(false);

    const mail = await mailbox.waitFor(email.toLowerCase(), (m) => m.subject === "Verify your email address");
    const verify = await follow(linkOf(mail, "/verify-email"));
    expect(verify.status).toBe(302);
    expect(await prisma.user.findUnique({ where: { email: email.toLowerCase() } })).toMatchObject({
      emailVerified: true,
    });

    const signIn = await who.client.signIn.email({ email, password: PASSWORD });
    expect(signIn.error).toBeNull();
    expect(signIn.data).toMatchObject({ redirect: false, user: { email: email.toLowerCase(), emailVerified: true } });
    expect(typeof signIn.data!.token).toBe("string");

    const { data, error } = await who.client.getSession();
    expect(error).toBeNull();
    expect(data!.user).toMatchObject({ id: signUp.data!.user.id, name: "Alice", email: email.toLowerCase() });
    expect(data!.session.userId).toBe(signUp.data!.user.id);
    expect(data!.session.expiresAt).toBeInstanceOf(Date);
    expect(data!.user.createdAt).toBeInstanceOf(Date);

    alice = { who, email: email.toLowerCase(), id: signUp.data!.user.id, token: signIn.data!.token };
    bob = await newUser("bob");
  });

  it("update-user changes name and image; email, nothing, bad types and no session are refused", async () => {
    const res = await alice.who.client.updateUser({ name: "Alice Liddell", image: "https://img.example.com/a.png" });
    expect(res.error).toBeNull();
    expect(res.data).toEqual({ status: true });
    // Both the refreshed cookie cache and the database show the change.
    expect((await alice.who.client.getSession()).data!.user).toMatchObject({
      name: "Alice Liddell",
      image: "https://img.example.com/a.png",
    });
    expect((await freshSession(alice.who)).data!.user.name).toBe("Alice Liddell");

    const email = await alice.who.client.$fetch("/update-user", { method: "POST", body: { email: "x@example.com" } });
    expect(email.error).toMatchObject({ status: 400, code: "EMAIL_CAN_NOT_BE_UPDATED" });

    const nothing = await alice.who.client.$fetch("/update-user", { method: "POST", body: {} });
    expect(nothing.error).toMatchObject({ status: 400, message: "No fields to update" });

    const badType = await alice.who.client.$fetch("/update-user", { method: "POST", body: { name: 42 } });
    expect(badType.error).toMatchObject({ status: 400, code: "VALIDATION_ERROR" });
    expect((badType.error as { message: string }).message).toMatch(/^Invalid body parameters/);

    const anonymous = await client().client.updateUser({ name: "Mallory" });
    expect(anonymous.error).toMatchObject({ status: 401, code: "UNAUTHORIZED", message: "Unauthorized" });
  });

  it("change-password refuses a wrong current password and bad new lengths", async () => {
    const wrong = await alice.who.client.changePassword({
      currentPassword: "not my password",
      newPassword: "whatever123",
    });
    expect(wrong.error).toMatchObject({ status: 400, code: "INVALID_PASSWORD" });
    const short = await alice.who.client.changePassword({ currentPassword: PASSWORD, newPassword: "short" });
    expect(short.error).toMatchObject({ status: 400, code: "PASSWORD_TOO_SHORT" });
    const long = await alice.who.client.changePassword({ currentPassword: PASSWORD, newPassword: "x".repeat(129) });
    expect(long.error).toMatchObject({ status: 400, code: "PASSWORD_TOO_LONG" });
    const missing = await alice.who.client.$fetch("/change-password", {
      method: "POST",
      body: { newPassword: NEW_PASSWORD },
    });
    expect(missing.error).toMatchObject({ status: 400, code: "VALIDATION_ERROR" });
    expect((missing.error as { message: string }).message).toMatch(/^Invalid body parameters/);
    expect((await auditRows(alice.id, "change-password")).map((row) => row.status)).toContain("failure");
  });

  it("change-password answers CREDENTIAL_ACCOUNT_NOT_FOUND for a user without a password", async () => {
    const user = await createUser({ email: uniqueEmail("social"), name: "Social Only", password: null });
    const social = await clientWithSession(user.id);
    const res = await social.client.changePassword({ currentPassword: "anything1", newPassword: "something-new" });
    expect(res.error).toMatchObject({ status: 400, code: "CREDENTIAL_ACCOUNT_NOT_FOUND" });
  });

  it("change-password with revokeOtherSessions revokes the other device and renews this one", async () => {
    const other = await anotherDevice(alice.email);
    const before = alice.who.jar.get(SESSION_COOKIE);

    const res = await alice.who.client.changePassword({
      currentPassword: PASSWORD,
      newPassword: NEW_PASSWORD,
      revokeOtherSessions: true,
    });
    expect(res.error).toBeNull();
    expect(res.data!.user).toMatchObject({ id: alice.id, email: alice.email });
    expect(res.data!.user.createdAt).toBeInstanceOf(Date);
    expect(typeof res.data!.token).toBe("string");
    expect(res.data!.token).not.toBe(alice.token);
    expect(alice.who.jar.get(SESSION_COOKIE)).not.toBe(before);
    password = NEW_PASSWORD;

    // The new cookie works; the other device's session is gone from the database at once.
    expect((await freshSession(alice.who)).data!.session.token).toBe(res.data!.token);
    expect((await freshSession(other)).data).toBeNull();
    expect((await other.client.updateUser({ name: "revoked" })).error).toMatchObject({ status: 401 });

    const old = await client().client.signIn.email({ email: alice.email, password: PASSWORD });
    expect(old.error).toMatchObject({ status: 401, code: "INVALID_EMAIL_OR_PASSWORD" });
    expect((await client().client.signIn.email({ email: alice.email, password: NEW_PASSWORD })).error).toBeNull();

    // Without revokeOtherSessions: same session, token null.
    const keep = await alice.who.client.changePassword({ currentPassword: NEW_PASSWORD, newPassword: NEW_PASSWORD });
    expect(keep.error).toBeNull();
    expect(keep.data!.token).toBeNull();

    const rows = (await auditRows(alice.id, "change-password")).filter((row) => row.status === "success");
    expect(rows).toHaveLength(2);
    expect(rows[0]!.category).toBe("auth");
    expectAudited(rows[0]);
  });

  it("requests a password reset: same answer for unknown emails, INVALID_EMAIL, INVALID_REDIRECT_URL", async () => {
    const message = "If this email exists in our system, check your email for the reset link";
    const unknown = "nobody-here@example.com";
    const res = await client().client.requestPasswordReset({ email: unknown, redirectTo: "/reset-password" });
    expect(res.error).toBeNull();
    expect(res.data).toEqual({ status: true, message });
    await expectNoMoreMail(unknown, 0);

    const invalid = await client().client.requestPasswordReset({ email: "not-an-email" });
    expect(invalid.error).toMatchObject({ status: 400, code: "INVALID_EMAIL" });

    const evil = await client().client.requestPasswordReset({
      email: alice.email,
      redirectTo: "https://evil.example.com/steal",
    });
    expect(evil.error).toMatchObject({ status: 403, code: "INVALID_REDIRECT_URL" });

    // The email speaks the language of the request (lng cookie, else Accept-Language).
    const french = makeTestClient(base, { headers: { "user-agent": USER_AGENT, "accept-language": "fr-FR,fr;q=0.9" } });
    expect((await french.client.requestPasswordReset({ email: bob.email })).error).toBeNull();
    const mail = await mailbox.waitFor(bob.email, (m) => m.subject === "Réinitialisez votre mot de passe");
    expect(linkOf(mail, "/reset-password/")).toMatch(/\?callbackURL=%2Ffr%2Freset-password$/);

    // The older name of the call answers the same way.
    const legacy = await client().client.$fetch("/forget-password", { method: "POST", body: { email: unknown } });
    expect(legacy.data).toEqual({ status: true, message });
  });

  it("resets the password through the emailed link: single use, lengths checked, sessions revoked", async () => {
    const other = await anotherDevice(alice.email, password);
    const res = await client().client.requestPasswordReset({ email: alice.email, redirectTo: "/reset-password" });
    expect(res.error).toBeNull();
    const mail = await mailbox.waitFor(alice.email, (m) => m.subject === "Reset your password");
    const link = linkOf(mail, "/reset-password/");
    const token = /\/reset-password\/([^?]+)\?/.exec(link)![1]!;
    expect(token).toMatch(/^[A-Za-z0-9]{24}$/);
    expect(link).toBe(`${base}/api/auth/reset-password/${token}?callbackURL=%2Freset-password`);
    // Only a hash of the token is stored.
    expect(await prisma.verification.count({ where: { identifier: `reset-password:${sha256(token)}` } })).toBe(1);
    expect(await prisma.verification.count({ where: { identifier: { contains: token } } })).toBe(0);

    // The link redirects to the page with the token (or with an error for a bad one).
    const opened = await follow(link);
    expect(opened.status).toBe(302);
    expect(opened.headers.get("location")).toBe(`${base}/reset-password?token=${token}`);
    const bogus = await follow(`${base}/api/auth/reset-password/bogus?callbackURL=%2Freset-password`);
    expect(bogus.headers.get("location")).toBe(`${base}/reset-password?error=INVALID_TOKEN`);
    const untrusted = await follow(`${base}/api/auth/reset-password/${token}?callbackURL=https://evil.example.com/`);
    expect(untrusted.status).toBe(403);
    expect(await untrusted.json()).toMatchObject({ code: "INVALID_CALLBACK_URL" });

    const anonymous = client();
    const short = await anonymous.client.resetPassword({ token, newPassword: "short" });
    expect(short.error).toMatchObject({ status: 400, code: "PASSWORD_TOO_SHORT" });
    const long = await anonymous.client.resetPassword({ token, newPassword: "y".repeat(129) });
    expect(long.error).toMatchObject({ status: 400, code: "PASSWORD_TOO_LONG" });
    const noToken = await anonymous.client.resetPassword({ newPassword: RESET_PASSWORD });
    expect(noToken.error).toMatchObject({ status: 400, code: "INVALID_TOKEN" });

    const reset = await anonymous.client.resetPassword({ token, newPassword: RESET_PASSWORD });
    expect(reset.error).toBeNull();
    expect(reset.data).toEqual({ status: true });
    password = RESET_PASSWORD;

    // Single use, whether the token comes in the body or the query.
    const again = await anonymous.client.$fetch(`/reset-password?token=${token}`, {
      method: "POST",
      body: { newPassword: "yet another password" },
    });
    expect(again.error).toMatchObject({ status: 400, code: "INVALID_TOKEN" });
    expect((await follow(link)).headers.get("location")).toBe(`${base}/reset-password?error=INVALID_TOKEN`);

    // Every session of the user is revoked by a reset.
    expect((await freshSession(other)).data).toBeNull();
    expect((await freshSession(alice.who)).data).toBeNull();

    const old = await client().client.signIn.email({ email: alice.email, password: NEW_PASSWORD });
    expect(old.error).toMatchObject({ status: 401, code: "INVALID_EMAIL_OR_PASSWORD" });
    const signIn = await alice.who.client.signIn.email({ email: alice.email, password: RESET_PASSWORD });
    expect(signIn.error).toBeNull();

    const [row] = await auditRows(alice.id, "reset-password");
    expect(row).toMatchObject({ category: "auth", status: "success" });
    expect(row!.ipAddress).toBeTruthy();
  });

  it("changes an unverified user's email at once and sends a verification to the new address", async () => {
    // An unverified user cannot sign in, so the session is made in-process.
    const email = uniqueEmail("carol");
    const signUp = await client().client.signUp.email({ name: "Carol", email, password: PASSWORD });
    const carolId = signUp.data!.user.id;
    await mailbox.waitFor(email); // the sign-up verification, not used
    const carol = await clientWithSession(carolId);

    const invalid = await carol.client.changeEmail({ newEmail: "not-an-email" });
    expect(invalid.error).toMatchObject({ status: 400, code: "INVALID_EMAIL" });
    const same = await carol.client.changeEmail({ newEmail: email.toUpperCase() });
    expect(same.error).toMatchObject({ status: 400, message: "Email is the same" });
    const untrusted = await carol.client.changeEmail({
      newEmail: uniqueEmail("x"),
      callbackURL: "https://evil.example.com",
    });
    expect(untrusted.error).toMatchObject({ status: 403, code: "INVALID_CALLBACK_URL" });

    const newEmail = uniqueEmail("carol-new");
    const res = await carol.client.changeEmail({ newEmail: newEmail.toUpperCase(), callbackURL: "/verify-email" });
    expect(res.error).toBeNull();
    expect(res.data).toEqual({ status: true });
    expect(await prisma.user.findUnique({ where: { id: carolId } })).toMatchObject({
      email: newEmail,
      emailVerified: false,
    });
    expect((await carol.client.getSession()).data!.user.email).toBe(newEmail);

    const mail = await mailbox.waitFor(newEmail, (m) => m.subject === "Verify your email address");
    const verify = await follow(linkOf(mail, "/verify-email"), carol);
    expect(verify.status).toBe(302);
    expect(verify.headers.get("location")).toBe("/verify-email");
    expect(await prisma.user.findUnique({ where: { id: carolId } })).toMatchObject({
      email: newEmail,
      emailVerified: true,
    });

    const [row] = (await auditRows(carolId, "change-email")).filter((r) => r.status === "success");
    expect(row).toMatchObject({ category: "email" });
    expectAudited(row);
  });

  it("answers an unverified user the same for a taken address as for a free one, and tells the owner", async () => {
    const email = uniqueEmail("dave");
    const signUp = await client().client.signUp.email({ name: "Dave", email, password: PASSWORD });
    const daveId = signUp.data!.user.id;
    await mailbox.waitFor(email);
    const dave = await clientWithSession(daveId);
    const change = async (newEmail: string) => {
      const res = await fetch(`${base}/api/auth/change-email`, {
        method: "POST",
        headers: { cookie: dave.cookieHeader(), origin: base, "content-type": "application/json" },
        body: JSON.stringify({ newEmail }),
      });
      return { status: res.status, body: await res.text() };
    };

    const taken = await change(bob.email);
    const free = await change(uniqueEmail("dave-new"));
    expect(taken).toEqual(free);
    expect(taken).toEqual({ status: 200, body: JSON.stringify({ status: true }) });
    // The owner of the taken address hears of it; nothing of theirs changes.
    const notice = await mailbox.waitFor(bob.email, (m) => m.subject === "Someone tried to use your email address");
    expect(notice.text).toContain("nothing was changed");
    expect((await prisma.user.findUniqueOrThrow({ where: { id: bob.id } })).email).toBe(bob.email);
  });

  it("a verified user's change is confirmed from the old address, then verified at the new one", async () => {
    // Anti-enumeration: another account's address answers like any request and changes nothing.
    const mailsBefore = (await mailbox.settled(alice.email)).length;
    const taken = await alice.who.client.changeEmail({ newEmail: bob.email });
    expect(taken.error).toBeNull();
    expect(taken.data).toEqual({ status: true });
    await expectNoMoreMail(alice.email, mailsBefore);
    expect((await prisma.user.findUnique({ where: { id: alice.id } }))!.email).toBe(alice.email);
    // The owner of the taken address hears of it (the same work as a real change: one email).
    expect(
      (await mailbox.waitFor(bob.email, (m) => m.subject === "Someone tried to use your email address")).text,
    ).toContain("nothing was changed");

    const newEmail = uniqueEmail("alice-new");
    const res = await alice.who.client.changeEmail({ newEmail, callbackURL: "/profile" });
    expect(res.error).toBeNull();
    expect(res.data).toEqual({ status: true });
    // Nothing changes until the old address confirms.
    expect(await prisma.user.findUnique({ where: { id: alice.id } })).toMatchObject({
      email: alice.email,
      emailVerified: true,
    });

    const confirmation = await mailbox.waitFor(alice.email, (m) => m.subject === "Confirm your new email address");
    expect(confirmation.text).toContain(newEmail);
    const link = linkOf(confirmation, "/verify-email");
    const token = new URL(link).searchParams.get("token")!;
    expect(jwtPayload(token)).toMatchObject({
      email: alice.email,
      updateTo: newEmail,
      requestType: "change-email-confirmation",
      userId: alice.id,
    });

    const confirmed = await follow(link, alice.who);
    expect(confirmed.status).toBe(302);
    // The landing page is told that this was a change, not a verification.
    expect(confirmed.headers.get("location")).toBe("/profile?changed=1");
    expect(await prisma.user.findUnique({ where: { id: alice.id } })).toMatchObject({
      email: newEmail,
      emailVerified: false,
    });
    expect((await alice.who.client.getSession()).data!.user).toMatchObject({ email: newEmail, emailVerified: false });

    // The confirmation is spent once the address has changed.
    const again = await follow(link);
    expect(again.headers.get("location")).toBe("/profile?error=invalid_token");

    const verification = await mailbox.waitFor(newEmail, (m) => m.subject === "Verify your email address");
    expect((await follow(linkOf(verification, "/verify-email"), alice.who)).status).toBe(302);
    expect(await prisma.user.findUnique({ where: { id: alice.id } })).toMatchObject({
      email: newEmail,
      emailVerified: true,
    });
    alice.email = newEmail;

    const rows = await auditRows(alice.id, "change-email");
    expect(rows.map((row) => [row.status, JSON.parse(row.details ?? "{}").step ?? null])).toEqual([
      ["failure", null],
      ["success", "confirmation-sent"],
      ["success", "confirmed"],
    ]);
    expect(rows.every((row) => row.category === "email")).toBe(true);
    expectAudited(rows[1]);
  });

  it("hands an address moved onto someone else's mailbox to its owner alone: the mover's passkeys, keys and second factor go", async () => {
    const mallory = await newUser("Mallory");
    const victimEmail = uniqueEmail("new-hire");
    // What Mallory made while the account was hers: a passkey, a personal API key, two-factor.
    await prisma.passkey.create({
      data: {
        userId: mallory.id,
        publicKey: "cHVibGljLWtleQ",
        credentialID: `cred-${mallory.id}`,
        counter: 0,
        deviceType: "singleDevice",
        backedUp: false,
      },
    });
    const { createApiKey } = await import("~/server/organization/api-keys.server");
    const meta = { ipAddress: null, userAgent: null, locale: "en" as const };
    const { key } = await createApiKey(await sessionFor(mallory.id), { name: "kept" }, meta, {});
    await prisma.twoFactor.create({ data: { userId: mallory.id, verified: true } });
    await prisma.user.update({ where: { id: mallory.id }, data: { twoFactorEnabled: true } });
    const keySession = () => fetch(`${base}/api/auth/get-session`, { headers: { "x-api-key": key } });
    // Then she moves the account onto the new hire's address (what her confirmed change does).
    const { moveToUnverifiedEmail } = await import("~/server/auth/accounts.server");
    await moveToUnverifiedEmail(mallory.id, victimEmail);
    expect((await keySession()).status).toBe(200);

    // The new hire signs up with their address: the unproven account is theirs now, and only theirs.
    const signUp = await client().client.signUp.email({
      name: "New Hire",
      email: victimEmail,
      password: "new-hire-pass-1",
    });
    expect(signUp.error).toBeNull();
    expect((await keySession()).status).toBe(401);
    expect(await prisma.passkey.count({ where: { userId: mallory.id } })).toBe(0);
    expect(await prisma.apiKey.count({ where: { userId: mallory.id } })).toBe(0);
    expect(await prisma.twoFactor.count({ where: { userId: mallory.id } })).toBe(0);
    expect(await prisma.user.findUnique({ where: { id: mallory.id } })).toMatchObject({ twoFactorEnabled: false });
    expect(await prisma.session.count({ where: { userId: mallory.id } })).toBe(0);
    expect(await prisma.account.findMany({ where: { userId: mallory.id }, select: { providerId: true } })).toEqual([
      { providerId: "credential" },
    ]);
    // Mallory's password is gone with it; the new hire's link signs them in.
    expect((await client().client.signIn.email({ email: victimEmail, password: PASSWORD })).error?.status).toBe(401);
    const mail = await mailbox.waitFor(victimEmail, (m) => m.subject === "Verify your email address");
    expect((await follow(linkOf(mail, "/verify-email"))).status).toBe(302);
    expect((await client().client.signIn.email({ email: victimEmail, password: "new-hire-pass-1" })).error).toBeNull();
  });

  it("lists sessions (fresh only) and revokes one, the others, then all", async () => {
    const second = await anotherDevice(alice.email, password);
    const third = await anotherDevice(alice.email, password);

    const list = await alice.who.client.listSessions();
    expect(list.error).toBeNull();
    expect(list.data).toHaveLength(3);
    for (const session of list.data!) {
      expect(session).toMatchObject({ userId: alice.id, userAgent: USER_AGENT });
      expect(session.token).toMatch(/^[0-9a-f]{64}$/);
      expect(session.expiresAt).toBeInstanceOf(Date);
      expect(session.createdAt).toBeInstanceOf(Date);
      expect(session.ipAddress).toBeTruthy();
    }

    await makeStale(third);
    const stale = await third.client.listSessions();
    expect(stale.error).toMatchObject({ status: 403, code: "SESSION_NOT_FRESH", message: "Session is not fresh" });

    // Another user's session: refused, and it survives.
    const bobSession = (await freshSession(bob.who)).data!.session.token;
    const foreign = await alice.who.client.revokeSession({ token: bobSession });
    expect(foreign.error).toMatchObject({ status: 401, code: "UNAUTHORIZED" });
    expect((await freshSession(bob.who)).data).not.toBeNull();

    const secondToken = (await freshSession(second)).data!.session.token;
    const one = await alice.who.client.revokeSession({ token: secondToken });
    expect(one.error).toBeNull();
    expect(one.data).toEqual({ status: true });
    expect((await freshSession(second)).data).toBeNull();
    // Already gone: nothing to do.
    expect((await alice.who.client.revokeSession({ token: secondToken })).data).toEqual({ status: true });

    const others = await alice.who.client.revokeOtherSessions();
    expect(others.data).toEqual({ status: true });
    expect((await freshSession(third)).data).toBeNull();
    expect((await freshSession(alice.who)).data).not.toBeNull();

    await anotherDevice(alice.email, password);
    const all = await alice.who.client.revokeSessions();
    expect(all.data).toEqual({ status: true });
    expect(alice.who.jar.has(SESSION_COOKIE)).toBe(false);
    expect(alice.who.lastSetCookies().some((line) => line.startsWith(`${SESSION_COOKIE}=;`))).toBe(true);
    expect(await prisma.session.count({ where: { userId: alice.id } })).toBe(0);

    for (const action of ["revoke-session", "revoke-other-sessions", "revoke-sessions"]) {
      const rows = await auditRows(alice.id, action);
      expect(rows.length, action).toBeGreaterThan(0);
      expect(rows.every((row) => row.category === "auth")).toBe(true);
      expectAudited(rows.find((row) => row.status === "success"));
    }
    expect((await auditRows(alice.id, "revoke-session")).some((row) => row.status === "failure")).toBe(true);
  });

  it("every account endpoint needs a session", async () => {
    const anonymous = client().client;
    const calls = [
      () => anonymous.listSessions(),
      () => anonymous.revokeSession({ token: "x" }),
      () => anonymous.revokeSessions(),
      () => anonymous.revokeOtherSessions(),
      () => anonymous.changePassword({ currentPassword: PASSWORD, newPassword: NEW_PASSWORD }),
      () => anonymous.changeEmail({ newEmail: uniqueEmail("anon") }),
      () => anonymous.deleteUser({ password: PASSWORD }),
    ];
    for (const call of calls) {
      expect((await call()).error).toMatchObject({ status: 401, code: "UNAUTHORIZED", message: "Unauthorized" });
    }
  });

  it("set-password is server only: 404 over HTTP; in-process it refuses a user who has one", async () => {
    const signedIn = await anotherDevice(alice.email, password);
    const http = await signedIn.client.$fetch("/set-password", { method: "POST", body: { newPassword: "abcdefgh1" } });
    expect(http.error).toMatchObject({ status: 404 });

    const { setPassword } = await import("~/server/auth/account-management.server");
    const { createSession } = await import("~/server/auth/session.server");
    const meta = { ipAddress: "127.0.0.1", userAgent: USER_AGENT, locale: "en" as const };
    const signedInAs = async (userId: string) => {
      const { session, user } = await createSession(userId, meta);
      return { session, user };
    };
    await expect(setPassword(await signedInAs(alice.id), { newPassword: "abcdefgh1" }, meta)).rejects.toMatchObject({
      code: "USER_ALREADY_HAS_PASSWORD",
      status: 400,
      message: "user already has a password",
    });

    // A user without one gets it, and can then sign in with it.
    const user = await createUser({ email: uniqueEmail("passwordless"), name: "No Password", password: null });
    const auth = await signedInAs(user.id);
    await expect(setPassword(auth, { newPassword: "short" }, meta)).rejects.toMatchObject({
      code: "PASSWORD_TOO_SHORT",
    });
    // Only a fresh session may add a password: there is no current one to ask for.
    await prisma.session.update({
      where: { id: auth.session.id },
      data: { createdAt: new Date(Date.now() - 2 * DAY_MS) },
    });
    await expect(setPassword(auth, { newPassword: "a fine new password" }, meta)).rejects.toMatchObject({
      code: "SESSION_NOT_FRESH",
    });
    expect(await prisma.account.count({ where: { userId: user.id } })).toBe(0);
    await setPassword(await signedInAs(user.id), { newPassword: "a fine new password" }, meta);
    expect(
      (await client().client.signIn.email({ email: user.email, password: "a fine new password" })).error,
    ).toBeNull();
  });
});

describe("deleting an account", () => {
  it("with the password: INVALID_PASSWORD when wrong, deleted at once when right", async () => {
    const eve = await newUser("eve");
    const wrong = await eve.who.client.deleteUser({ password: "not the password" });
    expect(wrong.error).toMatchObject({ status: 400, code: "INVALID_PASSWORD" });

    const res = await eve.who.client.deleteUser({ password: PASSWORD });
    expect(res.error).toBeNull();
    expect(res.data).toEqual({ success: true, message: "User deleted" });
    expect(eve.who.jar.has(SESSION_COOKIE)).toBe(false);
    expect(await prisma.user.findUnique({ where: { id: eve.id } })).toBeNull();
    expect(await prisma.session.count({ where: { userId: eve.id } })).toBe(0);
    expect((await client().client.signIn.email({ email: eve.email, password: PASSWORD })).error).toMatchObject({
      status: 401,
    });

    // The audit row outlives the user: its user id is cleared, the target keeps it.
    const row = (await auditRows(eve.id, "delete-user")).find((r) => r.status === "success");
    expect(row).toMatchObject({ category: "auth", userId: null, targetType: "user", targetId: eve.id });
    expectAudited(row);
  });

  it("without a password: a fresh session gets a confirmation email whose link deletes the account", async () => {
    const frank = await newUser("frank");
    const res = await frank.who.client.deleteUser();
    expect(res.error).toBeNull();
    expect(res.data).toEqual({ success: true, message: "Verification email sent" });
    expect(await prisma.user.findUnique({ where: { id: frank.id } })).not.toBeNull();

    const mail = await mailbox.waitFor(frank.email, (m) => m.subject === "Confirm the deletion of your account");
    const link = linkOf(mail, "/delete-user/callback");
    const token = new URL(link).searchParams.get("token")!;
    expect(token).toMatch(/^[a-z0-9]{32}$/);
    expect(new URL(link).searchParams.get("callbackURL")).toBe("/");
    expect(await prisma.verification.count({ where: { identifier: `delete-account-${sha256(token)}` } })).toBe(1);

    // Opened without the account's session (e.g. a mail scanner): nothing happens.
    const anonymous = await follow(link);
    expect(anonymous.status).toBe(302);
    expect(anonymous.headers.get("location")).toBe(`${base}/api/auth/error?error=UNAUTHORIZED`);
    expect(await prisma.user.findUnique({ where: { id: frank.id } })).not.toBeNull();

    const opened = await follow(link, frank.who);
    expect(opened.status).toBe(302);
    expect(opened.headers.get("location")).toBe(`${base}/`);
    expect(frank.who.jar.has(SESSION_COOKIE)).toBe(false);
    expect(await prisma.user.findUnique({ where: { id: frank.id } })).toBeNull();
    expect((await auditRows(frank.id, "delete-user")).map((r) => JSON.parse(r.details ?? "{}"))).toEqual([
      { step: "confirmation-sent" },
      expect.objectContaining({ method: "email-confirmation" }),
    ]);
  });

  it("the emailed token also works through POST /delete-user, once", async () => {
    const gina = await newUser("gina");
    await gina.who.client.deleteUser();
    const mail = await mailbox.waitFor(gina.email, (m) => m.subject === "Confirm the deletion of your account");
    const token = new URL(linkOf(mail, "/delete-user/callback")).searchParams.get("token")!;

    const bad = await gina.who.client.deleteUser({ token: "a".repeat(32) });
    expect(bad.error).toMatchObject({ status: 400, code: "INVALID_TOKEN" });
    const res = await gina.who.client.deleteUser({ token });
    expect(res.data).toEqual({ success: true, message: "User deleted" });
    expect(await prisma.user.findUnique({ where: { id: gina.id } })).toBeNull();
    // Without a callbackURL the link answers JSON (here: no session any more).
    const spent = await fetch(`${base}/api/auth/delete-user/callback?token=${token}`);
    expect(spent.status).toBe(401);
    expect(await spent.json()).toEqual({ code: "UNAUTHORIZED", message: "Unauthorized" });
  });

  it("without a password, a session older than freshAge gets SESSION_EXPIRED", async () => {
    const harry = await newUser("harry");
    await makeStale(harry.who);
    const res = await harry.who.client.deleteUser();
    expect(res.error).toMatchObject({
      status: 400,
      code: "SESSION_EXPIRED",
      message: "Session expired. Re-authenticate to perform this action.",
    });
    expect(await prisma.user.findUnique({ where: { id: harry.id } })).not.toBeNull();
    // The password path does not depend on freshness.
    expect((await harry.who.client.deleteUser({ password: PASSWORD })).data).toEqual({
      success: true,
      message: "User deleted",
    });
  });
});
