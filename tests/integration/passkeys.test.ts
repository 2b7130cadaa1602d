/**
 * Passkeys over /api/auth against the built server, driven by the official better-auth
 * client (cookie jar + Origin) with a software authenticator in place of the browser's:
 * register, list, sign in, rename, delete, and every refusal of better-auth's passkey plugin
 * and of the stricter rules of decision 0016: one try per challenge, the origin and RP id of
 * BASE_URL only, a spoiled signature, a counter that does not go up, another user's passkey,
 * a stale session, a ban. Runs on SQLite, or on PostgreSQL with TEST_DATABASE_URL.
 */
import { createHash } from "node:crypto";
import type {
  PublicKeyCredentialCreationOptionsJSON,
  PublicKeyCredentialRequestOptionsJSON,
} from "@simplewebauthn/server";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  FLAGS,
  softwareAuthenticator,
  type SoftwareAuthenticator,
  type Tweaks,
} from "../support/webauthn-authenticator";
import { startTestApp, type TestApp } from "./helpers/app";
import { makeTestClient, type TestClient } from "./helpers/auth-client";
import { signedInBrowser } from "./helpers/browser";
import { createUser, signInWithPassword, unique, uniqueEmail } from "./helpers/factories";

const SECRET = "passkeys-test-secret-0123456789abcdefghijkl";
const CHALLENGE_COOKIE = "app.better-auth-passkey";
const SESSION_COOKIE = "app.session_token";
const DAY_MS = 24 * 3600 * 1000;

let app: TestApp;

beforeAll(async () => {
  app = await startTestApp({ secret: SECRET });
}, 60_000);
afterAll(() => app?.stop());

const sha256 = (value: string) => createHash("sha256").update(value).digest("hex");
type Person = TestClient & { id: string; email: string };

/** A verified user with a password, signed in through the API. */
async function person(): Promise<Person> {
  const user = await createUser({ email: uniqueEmail("passkeys") });
  const who = await signInWithPassword(makeTestClient(app.base), user.email);
  return Object.assign(who, { id: user.id, email: user.email });
}

const anonymous = () => makeTestClient(app.base);

type Reply<T = unknown> = { data: T | null; error: { status: number; code?: string; message?: string } | null };

function call<T = unknown>(who: TestClient, path: string, body?: Record<string, unknown>): Promise<Reply<T>> {
  const url = `/passkey/${path}`;
  const reply = body ? who.client.$fetch(url, { method: "POST", body }) : who.client.$fetch(url, { method: "GET" });
  return reply as Promise<Reply<T>>;
}

/** Creation options the server never made (the authenticator reads the RP id, user handle and challenge). */
const creationOptions = (challenge = "bm90LWEtY2hhbGxlbmdl") =>
  ({
    challenge,
    rp: { name: "Acme Cloud", id: "127.0.0.1" },
    user: { id: "dXNlcg", name: "someone", displayName: "someone" },
    pubKeyCredParams: [{ alg: -7, type: "public-key" }],
  }) as PublicKeyCredentialCreationOptionsJSON;

const registerOptions = (who: TestClient) =>
  call<PublicKeyCredentialCreationOptionsJSON>(who, "generate-register-options");
const signInOptions = (who: TestClient) =>
  call<PublicKeyCredentialRequestOptionsJSON>(who, "generate-authenticate-options");

/** Asks for creation options, lets the authenticator answer (with `tweaks`), posts the answer. */
async function register(who: TestClient, authenticator: SoftwareAuthenticator, name?: string, tweaks?: Tweaks) {
  const options = await registerOptions(who);
  expect(options.error).toBeNull();
  const response = authenticator.register(options.data!, tweaks);
  return call<Record<string, unknown>>(who, "verify-registration", { response, ...(name && { name }) });
}

/** Asks for request options, lets the authenticator answer (with `tweaks`), posts the answer. */
async function signIn(who: TestClient, authenticator: SoftwareAuthenticator, tweaks?: Tweaks) {
  const options = await signInOptions(who);
  expect(options.error).toBeNull();
  const response = authenticator.authenticate(options.data!, tweaks);
  return call<{ session: { userId: string }; user: { id: string } }>(who, "verify-authentication", { response });
}

/** Makes the client's session older than freshAge (1 day), and drops its cookie cache. */
async function makeStale(who: TestClient) {
  const raw = decodeURIComponent(who.jar.get(SESSION_COOKIE)!);
  const token = raw.slice(0, raw.lastIndexOf("."));
  await app.prisma.session.update({
    where: { token: sha256(token) },
    data: { createdAt: new Date(Date.now() - 2 * DAY_MS) },
  });
  who.jar.delete("app.session_data");
}

const auditRows = (userId: string, action: string) =>
  app.prisma.auditLog.findMany({ where: { userId, action }, orderBy: { createdAt: "asc" } });

describe("registration", () => {
  it("answers better-auth's creation options and a 5-minute challenge cookie naming a stored record", async () => {
    const alice = await person();
    const { data, error } = await registerOptions(alice);
    expect(error).toBeNull();
    expect(data).toMatchObject({
      rp: { name: "Acme Cloud", id: "127.0.0.1" },
      user: { name: alice.email, displayName: alice.email },
      pubKeyCredParams: [
        { alg: -8, type: "public-key" },
        { alg: -7, type: "public-key" },
        { alg: -257, type: "public-key" },
      ],
      timeout: 60000,
      attestation: "none",
      excludeCredentials: [],
      authenticatorSelection: { residentKey: "preferred", userVerification: "preferred", requireResidentKey: false },
      extensions: { credProps: true },
      hints: [],
    });
    expect(data!.user.id).toMatch(/^[A-Za-z0-9_-]{20,}$/);
    expect(data!.user.id).not.toContain(alice.id);

    const line = alice.lastSetCookies().find((cookie) => cookie.startsWith(`${CHALLENGE_COOKIE}=`))!;
    expect(line).toMatch(/; Path=\/; SameSite=Lax; Max-Age=300; HttpOnly$/);
    const signed = decodeURIComponent(alice.jar.get(CHALLENGE_COOKIE)!);
    const token = signed.slice(0, signed.lastIndexOf("."));
    expect(token).toMatch(/^[A-Za-z0-9]{32}$/);
    expect(signed.slice(signed.lastIndexOf(".") + 1)).toHaveLength(44);

    const record = await app.prisma.verification.findFirstOrThrow({
      where: { identifier: `passkey-challenge:${sha256(token)}` },
    });
    expect(JSON.parse(record.value)).toEqual({
      type: "registration",
      expectedChallenge: data!.challenge,
      userId: alice.id,
    });
    expect(record.expiresAt.getTime() - Date.now()).toBeGreaterThan(290_000);
    expect(record.expiresAt.getTime() - Date.now()).toBeLessThanOrEqual(300_000);
  });

  it("stores the passkey as better-auth's row, lists it, audits it, and excludes it next time", async () => {
    const alice = await person();
    const authenticator = softwareAuthenticator(app.base);
    const { data, error } = await register(alice, authenticator, "  Laptop  ");
    expect(error).toBeNull();
    expect(Object.keys(data!).sort()).toEqual(
      [
        "aaguid",
        "backedUp",
        "counter",
        "createdAt",
        "credentialID",
        "deviceType",
        "id",
        "name",
        "publicKey",
        "transports",
        "userId",
      ].sort(),
    );
    const credentialID = [...authenticator.credentials.keys()][0];
    expect(data).toMatchObject({
      name: "Laptop",
      userId: alice.id,
      credentialID,
      counter: 0,
      deviceType: "singleDevice",
      backedUp: false,
      transports: "internal",
      aaguid: "00000000-0000-0000-0000-000000000000",
    });
    expect(data!.publicKey).toMatch(/^[A-Za-z0-9+/]+=*$/);

    const list = await call<unknown[]>(alice, "list-user-passkeys");
    expect(list.data).toEqual([data]);

    const [row] = await auditRows(alice.id, "add-passkey");
    expect(row).toMatchObject({ category: "security", status: "success", targetType: "passkey", targetId: data!.id });

    const again = await registerOptions(alice);
    expect(again.data!.excludeCredentials).toEqual([
      { id: credentialID, type: "public-key", transports: ["internal"] },
    ]);
  });

  it("gives each challenge one try: the same answer again is CHALLENGE_NOT_FOUND", async () => {
    const alice = await person();
    const authenticator = softwareAuthenticator(app.base);
    const options = await registerOptions(alice);
    const response = authenticator.register(options.data!);
    // A spoiled first try still spends the challenge.
    const spoiled = await call(alice, "verify-registration", {
      response: { ...response, response: { ...response.response, clientDataJSON: "e30" } },
    });
    expect(spoiled.error).toMatchObject({ status: 400, code: "FAILED_TO_VERIFY_REGISTRATION" });
    const replay = await call(alice, "verify-registration", { response });
    expect(replay.error).toMatchObject({ status: 400, code: "CHALLENGE_NOT_FOUND" });
    expect(await app.prisma.passkey.count({ where: { userId: alice.id } })).toBe(0);
  });

  it("refuses without a session (401) and with a stale one (403 SESSION_NOT_FRESH)", async () => {
    const stranger = anonymous();
    expect((await registerOptions(stranger)).error).toMatchObject({ status: 401, code: "UNAUTHORIZED" });
    const unasked = softwareAuthenticator(app.base).register(creationOptions());
    expect((await call(stranger, "verify-registration", { response: unasked })).error).toMatchObject({
      status: 401,
      code: "UNAUTHORIZED",
    });

    const alice = await person();
    const options = await registerOptions(alice);
    await makeStale(alice);
    expect((await registerOptions(alice)).error).toMatchObject({ status: 403, code: "SESSION_NOT_FRESH" });
    const response = softwareAuthenticator(app.base).register(options.data!);
    expect((await call(alice, "verify-registration", { response })).error).toMatchObject({
      status: 403,
      code: "SESSION_NOT_FRESH",
    });
  });

  it("answers 400 FAILED_TO_VERIFY_REGISTRATION, never 500, to a response that does not verify", async () => {
    const alice = await person();
    const authenticator = softwareAuthenticator(app.base);
    const bad: Tweaks[] = [
      { origin: "https://evil.example" },
      { rpId: "evil.example" },
      { type: "webauthn.get" },
      { challenge: "bm90LXRoZS1jaGFsbGVuZ2U" },
      { flags: FLAGS.AT }, // user not present
      { counter: 2 ** 31 }, // a signCount the counter column cannot hold
    ];
    for (const tweaks of bad) {
      const { error } = await register(alice, authenticator, "Bad", tweaks);
      expect(error, JSON.stringify(tweaks)).toMatchObject({ status: 400, code: "FAILED_TO_VERIFY_REGISTRATION" });
    }
    // User verification is preferred, not required.
    expect((await register(alice, authenticator, "No UV", { flags: FLAGS.UP | FLAGS.AT })).error).toBeNull();
    expect(await app.prisma.passkey.count({ where: { userId: alice.id } })).toBe(1);
  });

  it("refuses malformed input, a missing cookie and the other ceremony's challenge", async () => {
    const alice = await person();
    await registerOptions(alice);
    const shapeless = await call(alice, "verify-registration", { response: { id: 42 } });
    expect(shapeless.error).toMatchObject({ status: 400, code: "VALIDATION_ERROR" });

    // Alice's challenge cookie now names an authentication challenge: it cannot register.
    const options = await signInOptions(alice);
    const response = softwareAuthenticator(app.base).register(creationOptions(options.data!.challenge));
    expect((await call(alice, "verify-registration", { response })).error).toMatchObject({
      status: 400,
      code: "CHALLENGE_NOT_FOUND",
    });
    const withoutChallenge = makeTestClient(app.base);
    withoutChallenge.jar.set(SESSION_COOKIE, alice.jar.get(SESSION_COOKIE)!);
    expect((await call(withoutChallenge, "verify-registration", { response })).error).toMatchObject({
      status: 400,
      code: "CHALLENGE_NOT_FOUND",
    });
  });

  it("refuses a challenge made for another user (401 YOU_ARE_NOT_ALLOWED_TO_REGISTER_THIS_PASSKEY)", async () => {
    const alice = await person();
    const bob = await person();
    const options = await registerOptions(alice);
    bob.jar.set(CHALLENGE_COOKIE, alice.jar.get(CHALLENGE_COOKIE)!);
    const response = softwareAuthenticator(app.base).register(options.data!);
    expect((await call(bob, "verify-registration", { response })).error).toMatchObject({
      status: 401,
      code: "YOU_ARE_NOT_ALLOWED_TO_REGISTER_THIS_PASSKEY",
    });
    expect(await app.prisma.passkey.count({ where: { userId: { in: [alice.id, bob.id] } } })).toBe(0);
  });
});

describe("signing in", () => {
  let alice: Person;
  let authenticator: SoftwareAuthenticator;
  let passkeyId: string;

  beforeAll(async () => {
    alice = await person();
    authenticator = softwareAuthenticator(app.base);
    const { data } = await register(alice, authenticator, "Phone");
    passkeyId = String(data!.id);
  });

  it("answers request options to anyone, listing credentials only for a signed-in caller", async () => {
    const { data, error } = await signInOptions(anonymous());
    expect(error).toBeNull();
    expect(data).toEqual({
      challenge: expect.stringMatching(/^[A-Za-z0-9_-]{40,}$/),
      rpId: "127.0.0.1",
      timeout: 60000,
      userVerification: "preferred",
    });
    const mine = await signInOptions(alice);
    expect(mine.data!.allowCredentials).toEqual([
      { id: [...authenticator.credentials.keys()][0], type: "public-key", transports: ["internal"] },
    ]);
  });

  it("signs in: the session cookie is set, get-session knows the user, the counter is stored", async () => {
    const device = anonymous();
    const { data, error } = await signIn(device, authenticator);
    expect(error).toBeNull();
    expect(data!.session.userId).toBe(alice.id);
    expect(data!.user).toMatchObject({ id: alice.id, email: alice.email });
    expect(device.jar.has(SESSION_COOKIE)).toBe(true);
    const session = await device.client.getSession({ query: { disableCookieCache: true } });
    expect(session.data?.user.id).toBe(alice.id);
    expect((await app.prisma.passkey.findUniqueOrThrow({ where: { id: passkeyId } })).counter).toBe(1);
    const rows = await auditRows(alice.id, "sign-in");
    expect(JSON.parse(rows.at(-1)!.details!)).toMatchObject({ method: "passkey" });
    expect(rows.at(-1)!.status).toBe("success");
  });

  it("signs in with user presence alone (verification is preferred, not required)", async () => {
    const { error } = await signIn(anonymous(), authenticator, { flags: FLAGS.UP });
    expect(error).toBeNull();
  });

  it("refuses a replayed challenge: the second verify with the same cookie is CHALLENGE_NOT_FOUND", async () => {
    const device = anonymous();
    const options = await signInOptions(device);
    const response = authenticator.authenticate(options.data!);
    expect((await call(device, "verify-authentication", { response })).error).toBeNull();
    const replay = await call(device, "verify-authentication", { response });
    expect(replay.error).toMatchObject({ status: 400, code: "CHALLENGE_NOT_FOUND" });
    // And without any challenge cookie at all.
    const fresh = await call(anonymous(), "verify-authentication", { response });
    expect(fresh.error).toMatchObject({ status: 400, code: "CHALLENGE_NOT_FOUND" });
  });

  it("refuses a spoiled signature with 401 AUTHENTICATION_FAILED, and audits it", async () => {
    const device = anonymous();
    const { error } = await signIn(device, authenticator, { tamperSignature: true });
    expect(error).toMatchObject({ status: 401, code: "AUTHENTICATION_FAILED" });
    expect(device.jar.has(SESSION_COOKIE)).toBe(false);
    const rows = await auditRows(alice.id, "sign-in");
    expect(rows.at(-1)).toMatchObject({ category: "auth", status: "failure" });
    expect(JSON.parse(rows.at(-1)!.details!)).toMatchObject({ method: "passkey", reason: "INVALID_SIGNATURE" });
  });

  it("refuses another origin, another RP id, the wrong ceremony, absent user and a counter that did not go up (400)", async () => {
    const stored = (await app.prisma.passkey.findUniqueOrThrow({ where: { id: passkeyId } })).counter;
    const bad: Tweaks[] = [
      { origin: "https://evil.example" },
      { origin: `http://localhost:${new URL(app.base).port}` },
      { rpId: "evil.example" },
      { type: "webauthn.create" },
      { flags: FLAGS.UV },
      { counter: stored },
      { counter: stored - 1 },
    ];
    for (const tweaks of bad) {
      const device = anonymous();
      const { error } = await signIn(device, authenticator, tweaks);
      expect(error, JSON.stringify(tweaks)).toMatchObject({ status: 400, code: "AUTHENTICATION_FAILED" });
      expect(device.jar.has(SESSION_COOKIE)).toBe(false);
    }
    // A refused try does not move the stored counter.
    expect((await app.prisma.passkey.findUniqueOrThrow({ where: { id: passkeyId } })).counter).toBe(stored);
    for (const credential of authenticator.credentials.values()) credential.counter = stored;
  });

  it("refuses an unknown credential with 401 PASSKEY_NOT_FOUND", async () => {
    const stranger = softwareAuthenticator(app.base);
    stranger.register(creationOptions()); // held, never sent to the server
    const { error } = await signIn(anonymous(), stranger);
    expect(error).toMatchObject({ status: 401, code: "PASSKEY_NOT_FOUND" });
  });

  it("refuses a banned user (403 BANNED_USER) and lifts a ban that is over", async () => {
    await app.prisma.user.update({ where: { id: alice.id }, data: { banned: true, banReason: "spam" } });
    expect((await signIn(anonymous(), authenticator)).error).toMatchObject({ status: 403, code: "BANNED_USER" });
    await app.prisma.user.update({
      where: { id: alice.id },
      data: { banExpires: new Date(Date.now() - 1000) },
    });
    expect((await signIn(anonymous(), authenticator)).error).toBeNull();
    expect(await app.prisma.user.findUniqueOrThrow({ where: { id: alice.id } })).toMatchObject({
      banned: false,
      banReason: null,
      banExpires: null,
    });
  });
});

describe("managing passkeys", () => {
  let alice: Person;
  let bob: Person;
  let passkeyId: string;
  let authenticator: SoftwareAuthenticator;

  beforeAll(async () => {
    alice = await person();
    bob = await person();
    authenticator = softwareAuthenticator(app.base);
    passkeyId = String((await register(alice, authenticator, "Key")).data!.id);
  });

  it("needs a session to list", async () => {
    expect((await call(anonymous(), "list-user-passkeys")).error).toMatchObject({ status: 401, code: "UNAUTHORIZED" });
    expect((await call(bob, "list-user-passkeys")).data).toEqual([]);
  });

  it("renames one's own passkey (trimmed) and audits it", async () => {
    const { data, error } = await call<{ passkey: { id: string; name: string } }>(alice, "update-passkey", {
      id: passkeyId,
      name: "  Work laptop ",
    });
    expect(error).toBeNull();
    expect(data!.passkey).toMatchObject({ id: passkeyId, name: "Work laptop", userId: alice.id });
    expect((await call<{ name: string }[]>(alice, "list-user-passkeys")).data![0]!.name).toBe("Work laptop");
    const [row] = await auditRows(alice.id, "rename-passkey");
    expect(row).toMatchObject({ category: "security", targetId: passkeyId });
  });

  it("refuses an empty name, an unknown passkey and another user's", async () => {
    expect((await call(alice, "update-passkey", { id: passkeyId, name: "   " })).error).toMatchObject({
      status: 400,
      code: "VALIDATION_ERROR",
    });
    expect((await call(alice, "update-passkey", { id: "nope", name: "X" })).error).toMatchObject({
      status: 404,
      code: "PASSKEY_NOT_FOUND",
    });
    expect((await call(bob, "update-passkey", { id: passkeyId, name: "Mine now" })).error).toMatchObject({
      status: 401,
      code: "YOU_ARE_NOT_ALLOWED_TO_REGISTER_THIS_PASSKEY",
    });
    expect((await app.prisma.passkey.findUniqueOrThrow({ where: { id: passkeyId } })).name).toBe("Work laptop");
  });

  it("refuses to delete another user's passkey (401, empty body) or an unknown one (404)", async () => {
    const response = await fetch(`${app.base}/api/auth/passkey/delete-passkey`, {
      method: "POST",
      headers: { "Content-Type": "application/json", Origin: app.base, Cookie: bob.cookieHeader() },
      body: JSON.stringify({ id: passkeyId }),
    });
    expect(response.status).toBe(401);
    expect(await response.text()).toBe("");
    expect((await call(alice, "delete-passkey", { id: "nope" })).error).toMatchObject({
      status: 404,
      code: "PASSKEY_NOT_FOUND",
    });
    expect(await app.prisma.passkey.count({ where: { id: passkeyId } })).toBe(1);
  });

  it("deletes one's own passkey, audits it, and it signs no one in any more", async () => {
    expect((await call(alice, "delete-passkey", { id: passkeyId })).data).toEqual({ status: true });
    expect((await call(alice, "list-user-passkeys")).data).toEqual([]);
    const [row] = await auditRows(alice.id, "delete-passkey");
    expect(row).toMatchObject({ category: "security", targetId: passkeyId });
    expect((await signIn(anonymous(), authenticator)).error).toMatchObject({ status: 401, code: "PASSKEY_NOT_FOUND" });
  });
});

describe("the security settings' passkey forms (no JavaScript)", () => {
  /** A stored passkey row of `userId` (the forms never look at the key). */
  const storedPasskey = (userId: string, name: string) =>
    app.prisma.passkey.create({
      data: {
        userId,
        name,
        publicKey: "AQID",
        credentialID: unique("cred"),
        counter: 0,
        deviceType: "multiDevice",
        backedUp: true,
        transports: "internal,hybrid",
      },
    });

  it("lists the passkeys in the security settings; adding one is left to the hydrated page", async () => {
    const browser = await signedInBrowser(app);
    await storedPasskey(browser.id, "Old phone");
    const html = await browser.page("/fr/profile/security");
    expect(html).toContain('id="passkeys"');
    expect(html).toContain("Old phone");
    expect(html).toContain("Synchronisée entre appareils");
    expect(html).not.toContain('data-testid="add-passkey"');
    expect(html).toContain('action="/fr/profile/passkeys"');
  });

  it("renames and deletes by plain posts, back to /profile/security#passkeys with a toast in the page's language", async () => {
    const browser = await signedInBrowser(app);
    const passkey = await storedPasskey(browser.id, "Old phone");

    const renamed = await browser.post("/fr/profile/passkeys", {
      intent: "rename",
      id: passkey.id,
      name: " New phone ",
    });
    expect(renamed.status).toBe(302);
    expect(renamed.headers.get("location")).toBe("/fr/profile/security#passkeys");
    let html = await browser.page("/fr/profile/security");
    expect(html).toContain("Clé d’accès renommée");
    expect(html).toContain("New phone");

    const blank = await browser.post("/fr/profile/passkeys", { intent: "rename", id: passkey.id, name: "   " });
    expect(blank.headers.get("location")).toBe("/fr/profile/security#passkeys");
    expect(await browser.page("/fr/profile/security")).toContain("Saisissez un nom pour la clé d’accès.");

    const deleted = await browser.post("/fr/profile/passkeys", { intent: "delete", id: passkey.id });
    expect(deleted.headers.get("location")).toBe("/fr/profile/security#passkeys");
    html = await browser.page("/fr/profile/security");
    expect(html).toContain("Clé d’accès supprimée");
    expect(html).not.toContain("New phone");
    expect(await auditRows(browser.id, "delete-passkey")).toHaveLength(1);
  });

  it("refuses another user's passkey with a toast and leaves it alone", async () => {
    const owner = await signedInBrowser(app);
    const passkey = await storedPasskey(owner.id, "Owner's key");
    const other = await signedInBrowser(app);
    const bodies: Record<string, string>[] = [
      { intent: "rename", id: passkey.id, name: "Mine" },
      { intent: "delete", id: passkey.id },
    ];
    for (const body of bodies) {
      const res = await other.post("/ja/profile/passkeys", body);
      expect(res.headers.get("location")).toBe("/ja/profile/security#passkeys");
      expect(await other.page("/ja/profile/security")).toContain("このパスキーを変更する権限がありません。");
    }
    expect(await app.prisma.passkey.findUniqueOrThrow({ where: { id: passkey.id } })).toMatchObject({
      name: "Owner's key",
    });
  });

  it("sends a GET to the security settings, an unknown intent away with 400, and a signed-out post to sign in", async () => {
    const browser = await signedInBrowser(app);
    const page = await browser.get("/ja/profile/passkeys");
    expect(page.status).toBe(302);
    expect(page.headers.get("location")).toBe("/ja/profile/security#passkeys");
    expect((await browser.post("/profile/passkeys", { intent: "steal" })).status).toBe(400);
    const signedOut = await fetch(`${app.base}/profile/passkeys`, {
      method: "POST",
      redirect: "manual",
      body: new URLSearchParams({ intent: "delete", id: "x" }),
      headers: { "Content-Type": "application/x-www-form-urlencoded", Origin: app.base },
    });
    expect(signedOut.status).toBe(302);
    expect(signedOut.headers.get("location")).toMatch(/^\/signin\?redirect=/);
  });
});

describe("the server", () => {
  it("answered every refusal above with a catalogue error: no passkey call failed with a 500", () => {
    expect(app.server.stdout()).not.toMatch(/\/api\/auth\/passkey\/\S+ failed/);
  });
});
