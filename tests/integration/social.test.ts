/**
 * Social sign-in end to end against a real OpenID Connect server (oidc-provider) standing in
 * for Google and Microsoft through the endpoint overrides: the authorization-code + PKCE
 * flow, linking rules, ID-token sign-in, every callback error code, and the linked-account
 * calls. The other providers are configured with their real endpoints to check the
 * authorization requests the app builds for them.
 */
import { createHash } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { SOCIAL_PROVIDER_IDS, type SocialProviderId } from "~/server/auth/social/providers/index.server";
import {
  startOidcStandIn,
  STAND_IN_TENANT_ID,
  type OidcStandIn,
  type StandInProviderId,
  type StandInUser,
} from "../support/oidc-stand-in";
import { totp } from "../support/totp";
import { startTestApp, type TestApp } from "./helpers/app";
import { applySetCookies } from "./helpers/auth-client";
import { createUser } from "./helpers/factories";
import { BROWSER_UA } from "./helpers/http";

const SECRET = "social-test-secret-0123456789abcdefghijklmnopqrstuvwxyz";
// Personal Microsoft accounts carry this tenant; the app is configured for them only.
const CONSUMER_TENANT = "9188040d-6c67-4c5b-b112-36a304b66dad";

// The providers not pointed at the stand-in, with the host their real authorization endpoint is on.
const REAL_HOSTS: Record<string, string> = {
  apple: "appleid.apple.com",
  discord: "discord.com",
  facebook: "www.facebook.com",
  github: "github.com",
  huggingface: "huggingface.co",
  spotify: "accounts.spotify.com",
  twitch: "id.twitch.tv",
  twitter: "x.com",
  dropbox: "www.dropbox.com",
  kick: "id.kick.com",
  linkedin: "www.linkedin.com",
  gitlab: "gitlab.com",
  tiktok: "www.tiktok.com",
  reddit: "www.reddit.com",
  roblox: "apis.roblox.com",
  vk: "id.vk.com",
  zoom: "zoom.us",
} satisfies Record<Exclude<SocialProviderId, StandInProviderId>, string>;

let standIn: OidcStandIn;
let app: TestApp;

beforeAll(async () => {
  standIn = await startOidcStandIn();
  const others = Object.fromEntries(
    Object.keys(REAL_HOSTS).flatMap((id) => [
      [`${id.toUpperCase()}_CLIENT_ID`, `${id}-client-id`],
      [`${id.toUpperCase()}_CLIENT_SECRET`, `${id}-client-secret`],
    ]),
  );
  app = await startTestApp({
    secret: SECRET,
    env: {
      ...standIn.envFor("google"),
      ...standIn.envFor("microsoft"),
      ...others,
      MICROSOFT_TENANT_ID: "consumers",
      SOCIAL_SIGN_UP: "explicit",
    },
  });
  await standIn.addAppBaseUrl(app.base);
}, 60_000);

afterAll(async () => {
  await app?.stop();
  await standIn?.close();
});

/** A browser: a cookie jar, redirects followed by hand, requests from the app's origin. */
function browser() {
  const jar = new Map<string, string>();
  const cookie = () => [...jar].map(([name, value]) => `${name}=${value}`).join("; ");
  async function request(url: string, init: RequestInit = {}): Promise<Response> {
    const sameOrigin = url.startsWith(app.base);
    const headers = new Headers(init.headers);
    headers.set("User-Agent", BROWSER_UA);
    if (sameOrigin && jar.size) headers.set("Cookie", cookie());
    const response = await fetch(url, { ...init, headers, redirect: "manual" });
    if (sameOrigin) applySetCookies(jar, response.headers.getSetCookie());
    return response;
  }
  /** Follows redirects from `url` until one leads back to the app outside its callback; returns that Location. */
  async function follow(url: string): Promise<string> {
    let next = url;
    for (let hops = 0; hops < 10; hops++) {
      const response = await request(next);
      const location = response.headers.get("location");
      if (!location) throw new Error(`${next} answered ${response.status} without a redirect`);
      next = new URL(location, next).href;
      if (next.startsWith(app.base) && !next.includes("/api/auth/callback/")) return next;
    }
    throw new Error("too many redirects");
  }
  const api = (path: string, body: unknown) =>
    request(`${app.base}/api/auth${path}`, {
      method: "POST",
      headers: { "Content-Type": "application/json", Origin: app.base },
      body: JSON.stringify(body),
    });
  return { jar, request, follow, api };
}

type Browser = ReturnType<typeof browser>;

/** Starts a social sign-in in `b` and follows it to where the app sends the browser last. */
async function socialSignIn(b: Browser, body: Record<string, unknown>): Promise<URL> {
  const started = await b.api("/sign-in/social", { callbackURL: "/profile", errorCallbackURL: "/signin", ...body });
  expect(started.status).toBe(200);
  const { url, redirect } = (await started.json()) as { url: string; redirect: boolean };
  expect(redirect).toBe(true);
  return new URL(await b.follow(url));
}

async function sessionUser(b: Browser) {
  const response = await b.request(`${app.base}/api/auth/get-session`);
  return ((await response.json()) as { user: { id: string; email: string; emailVerified: boolean } } | null)?.user;
}

let counter = 0;
function person(overrides: Partial<StandInUser> = {}): StandInUser {
  counter += 1;
  return {
    sub: `user-${counter}-${Date.now()}`,
    email: `person${counter}.${Date.now()}@example.com`,
    email_verified: true,
    name: `Person ${counter}`,
    tid: CONSUMER_TENANT,
    ...overrides,
  };
}

describe("authorization requests", () => {
  it("answers every provider with its real host, the state, the client id and our callback", async () => {
    for (const id of SOCIAL_PROVIDER_IDS) {
      const b = browser();
      const response = await b.api("/sign-in/social", { provider: id, callbackURL: "/profile" });
      expect(response.status, id).toBe(200);
      const body = (await response.json()) as { url: string; redirect: boolean };
      expect(response.headers.get("location")).toBe(body.url);
      const url = new URL(body.url);
      if (REAL_HOSTS[id]) expect(url.host, id).toBe(REAL_HOSTS[id]);
      else expect(url.origin, id).toBe(standIn.issuer);
      const clientParam = id === "tiktok" ? "client_key" : "client_id";
      expect(url.searchParams.get(clientParam), id).toBe(
        id === "google" || id === "microsoft" ? `${id}-client` : `${id}-client-id`,
      );
      expect(url.searchParams.get("redirect_uri"), id).toBe(`${app.base}/api/auth/callback/${id}`);
      expect(url.searchParams.get("state"), id).toMatch(/^[A-Za-z0-9]{32}$/);
      expect(url.searchParams.get("response_type"), id).toBe("code");
      // The state is tied to this browser by a signed, HttpOnly cookie.
      const stateCookie = response.headers.getSetCookie().find((line) => line.startsWith("app.oauth_state="));
      expect(stateCookie, id).toMatch(/HttpOnly/);
      expect(stateCookie, id).toMatch(/Max-Age=600/);
    }
  });

  it("stores a state record with a 128-character PKCE verifier for 10 minutes", async () => {
    const before = Date.now();
    const response = await browser().api("/sign-in/social", { provider: "google", callbackURL: "/profile" });
    const url = new URL(((await response.json()) as { url: string }).url);
    const state = url.searchParams.get("state")!;
    const row = await app.prisma.verification.findFirst({
      where: { identifier: `oauth-state:${createHash("sha256").update(state).digest("hex")}` },
    });
    expect(row).not.toBeNull();
    const record = JSON.parse(row!.value) as { codeVerifier: string; callbackURL: string; nonce: string };
    expect(record.codeVerifier).toMatch(/^[A-Za-z0-9._~-]{128}$/);
    expect(record.callbackURL).toBe("/profile");
    expect(row!.expiresAt.getTime() - before).toBeGreaterThanOrEqual(600_000 - 1000);
    expect(row!.expiresAt.getTime() - before).toBeLessThanOrEqual(600_000 + 5000);
    // PKCE S256 of that verifier, and the nonce the ID token must carry back.
    expect(url.searchParams.get("code_challenge")).toBe(
      createHash("sha256").update(record.codeVerifier).digest("base64url"),
    );
    expect(url.searchParams.get("code_challenge_method")).toBe("S256");
    expect(url.searchParams.get("nonce")).toBe(record.nonce);
  });

  it("forwards loginHint and extra scopes", async () => {
    const response = await browser().api("/sign-in/social", {
      provider: "google",
      loginHint: "ada@example.com",
      scopes: ["https://www.googleapis.com/auth/drive.readonly"],
    });
    const url = new URL(((await response.json()) as { url: string }).url);
    expect(url.searchParams.get("login_hint")).toBe("ada@example.com");
    expect(url.searchParams.get("scope")!.split(" ")).toEqual(
      expect.arrayContaining(["openid", "email", "profile", "https://www.googleapis.com/auth/drive.readonly"]),
    );
  });

  it("refuses an unknown or disabled provider and untrusted URLs", async () => {
    const b = browser();
    for (const provider of ["myspace", "GOOGLE"]) {
      const response = await b.api("/sign-in/social", { provider });
      expect(response.status).toBe(404);
      expect(await response.json()).toMatchObject({ code: "PROVIDER_NOT_FOUND" });
    }
    const evil = await b.api("/sign-in/social", { provider: "google", callbackURL: "https://evil.example.com/" });
    expect(evil.status).toBe(403);
    expect(await evil.json()).toMatchObject({ code: "INVALID_CALLBACK_URL" });
    const evilError = await b.api("/sign-in/social", { provider: "google", errorCallbackURL: "//evil.example.com" });
    expect(await evilError.json()).toMatchObject({ code: "INVALID_ERROR_CALLBACK_URL" });
    const evilNew = await b.api("/sign-in/social", {
      provider: "google",
      newUserCallbackURL: "https:evil.example.com",
    });
    expect(await evilNew.json()).toMatchObject({ code: "INVALID_NEW_USER_CALLBACK_URL" });
  });
});

describe("the authorization-code flow through the stand-in", () => {
  it("signs up a new user (with requestSignUp), then signs the same user in", async () => {
    const user = person({ picture: "https://example.com/grace.png" });
    standIn.setUser(user);
    const b = browser();
    const landed = await socialSignIn(b, { provider: "google", requestSignUp: true, newUserCallbackURL: "/welcome" });
    expect(landed.pathname).toBe("/welcome");
    expect(b.jar.has("app.oauth_state")).toBe(false); // used up
    const signedIn = await sessionUser(b);
    expect(signedIn).toMatchObject({ email: user.email, emailVerified: true });
    const stored = await app.prisma.user.findUniqueOrThrow({
      where: { email: user.email },
      include: { accounts: true },
    });
    expect(stored.name).toBe(user.name);
    expect(stored.image).toBe("https://example.com/grace.png");
    expect(stored.accounts).toHaveLength(1);
    expect(stored.accounts[0]).toMatchObject({ providerId: "google", accountId: user.sub, password: null });

    // Again, in another browser: the linked account signs in; callbackURL this time.
    const other = browser();
    const again = await socialSignIn(other, { provider: "google", newUserCallbackURL: "/welcome" });
    expect(again.pathname).toBe("/profile");
    expect((await sessionUser(other))?.id).toBe(stored.id);
    expect(await app.prisma.user.count({ where: { email: user.email } })).toBe(1);
  });

  it("signs up through Microsoft too", async () => {
    const user = person({ picture: "https://example.com/photo.png" });
    standIn.setUser(user);
    const b = browser();
    const landed = await socialSignIn(b, { provider: "microsoft", requestSignUp: true });
    expect(landed.pathname).toBe("/profile");
    expect(await sessionUser(b)).toMatchObject({ email: user.email });
    const account = await app.prisma.account.findFirstOrThrow({
      where: { providerId: "microsoft", user: { email: user.email } },
    });
    expect(account.accountId).toBe(user.sub); // the object id, which defaults to sub here
    // The Graph photo became the image.
    const stored = await app.prisma.user.findUniqueOrThrow({ where: { email: user.email } });
    expect(stored.image).toMatch(/^data:image\/png;base64,/);
  });

  it("links to an existing user whose address the provider vouches for", async () => {
    const user = person();
    const existing = await createUser({ email: user.email!, name: "Existing", password: null });
    standIn.setUser(user);
    const b = browser();
    const landed = await socialSignIn(b, { provider: "google" });
    expect(landed.pathname).toBe("/profile");
    expect((await sessionUser(b))?.id).toBe(existing.id);
    expect(await app.prisma.account.count({ where: { userId: existing.id, providerId: "google" } })).toBe(1);
    const audit = await app.prisma.auditLog.findFirst({ where: { userId: existing.id, action: "link-social" } });
    expect(audit?.status).toBe("success");
  });

  it("refuses to link when the provider does not vouch for the address (account_not_linked)", async () => {
    const user = person({ email_verified: false });
    const existing = await createUser({ email: user.email!, name: "Owner", password: null });
    standIn.setUser(user);
    const b = browser();
    const landed = await socialSignIn(b, { provider: "google" });
    expect(landed.pathname).toBe("/signin");
    expect(landed.searchParams.get("error")).toBe("account_not_linked");
    expect(await sessionUser(b)).toBeFalsy();
    expect(await app.prisma.account.count({ where: { userId: existing.id } })).toBe(0);
  });

  it("takes over an unverified registration only by proving the address: the stranger's password and sessions go", async () => {
    const user = person();
    const squatter = await app.prisma.user.create({
      data: {
        email: user.email!,
        name: "Squatter",
        emailVerified: false,
        accounts: {
          create: [
            { providerId: "credential", accountId: "x", password: "$2b$10$abcdefghijklmnopqrstuv" },
            // A provider that does not vouch for emails (GitLab's API says nothing) let them in too.
            { providerId: "gitlab", accountId: "squatter-on-gitlab" },
          ],
        },
        sessions: { create: { token: "t".repeat(64), expiresAt: new Date(Date.now() + 3600_000) } },
      },
    });
    standIn.setUser(user);
    const b = browser();
    await socialSignIn(b, { provider: "google" });
    expect((await sessionUser(b))?.id).toBe(squatter.id);
    const after = await app.prisma.user.findUniqueOrThrow({
      where: { id: squatter.id },
      include: { accounts: true, sessions: true },
    });
    expect(after.emailVerified).toBe(true);
    expect(after.accounts.map((a) => a.providerId)).toEqual(["google"]);
    expect(after.sessions.map((s) => s.token)).not.toContain("t".repeat(64));
  });

  it("a password sign-up of an address a provider never vouched for ends that provider account", async () => {
    const user = person({ email_verified: false });
    standIn.setUser(user);
    const squatter = browser();
    await socialSignIn(squatter, { provider: "google", requestSignUp: true });
    const created = await app.prisma.user.findUniqueOrThrow({
      where: { email: user.email },
      include: { accounts: true },
    });
    expect(created.emailVerified).toBe(false);
    expect(created.accounts.map((a) => a.providerId)).toEqual(["google"]);

    // The owner of the address signs up with a password: the squatter's way in is gone.
    const owner = await browser().api("/sign-up/email", {
      name: "Owner",
      email: user.email,
      password: "owner-password-1",
    });
    expect(owner.status).toBe(200);
    const after = await app.prisma.account.findMany({ where: { userId: created.id } });
    expect(after.map((a) => a.providerId)).toEqual(["credential"]);
    expect(await sessionUser(squatter)).toBeFalsy();
  });

  it("stores provider tokens encrypted, and hands them out decrypted", async () => {
    const user = person();
    standIn.setUser(user);
    const b = browser();
    await socialSignIn(b, { provider: "google", requestSignUp: true });
    const account = await app.prisma.account.findFirstOrThrow({ where: { providerId: "google", accountId: user.sub } });
    expect(account.accessToken).toMatch(/^v1\./);
    expect(account.refreshToken).toMatch(/^v1\./);
    expect(account.idToken).toMatch(/^v1\./);
    const reply = await b.api("/get-access-token", { providerId: "google" });
    expect(reply.status).toBe(200);
    const { accessToken, idToken } = (await reply.json()) as { accessToken: string; idToken: string };
    expect(accessToken).not.toBe(account.accessToken);
    expect(account.accessToken).not.toContain(accessToken);
    expect(idToken.split(".")).toHaveLength(3);
    // The decrypted token is the provider's own: its user info answers with it.
    const info = await fetch(standIn.userInfoUrl, { headers: { Authorization: `Bearer ${accessToken}` } });
    expect(((await info.json()) as { sub: string }).sub).toBe(user.sub);
  });
});

/** Follows the provider's redirects from `authUrl` and returns the app callback URL it ends on (not requested). */
async function callbackUrlFrom(b: Browser, authUrl: string): Promise<URL> {
  let next = authUrl;
  for (let hops = 0; hops < 10; hops++) {
    if (next.startsWith(`${app.base}/api/auth/callback/`)) return new URL(next);
    const response = await b.request(next);
    const location = response.headers.get("location");
    if (!location) throw new Error(`${next} answered ${response.status} without a redirect`);
    next = new URL(location, next).href;
  }
  throw new Error("too many redirects");
}

async function startFlow(b: Browser, body: Record<string, unknown>): Promise<URL> {
  const started = await b.api("/sign-in/social", { callbackURL: "/profile", errorCallbackURL: "/signin", ...body });
  return callbackUrlFrom(b, ((await started.json()) as { url: string }).url);
}

/** Requests an app URL and returns where it redirects. */
async function landing(b: Browser, url: URL | string): Promise<URL> {
  const response = await b.request(url.toString());
  expect(response.status).toBe(302);
  return new URL(response.headers.get("location")!, app.base);
}

const isPostgres = () => app.db.url.startsWith("postgres");

/** Runs `fn` while the database refuses `operation` on `table` rows where `column` = `value`. */
async function whileRefusing(
  operation: "INSERT" | "DELETE",
  table: string,
  column: string,
  value: string,
  fn: () => Promise<void>,
) {
  const row = operation === "INSERT" ? "NEW" : "OLD";
  if (isPostgres()) {
    await app.prisma.$executeRawUnsafe(
      `CREATE FUNCTION refuse_row() RETURNS trigger AS $$ BEGIN RAISE EXCEPTION 'refused by the test'; END $$ LANGUAGE plpgsql`,
    );
    await app.prisma.$executeRawUnsafe(
      `CREATE TRIGGER refuse_row BEFORE ${operation} ON "${table}" FOR EACH ROW WHEN (${row}."${column}" = '${value}') EXECUTE FUNCTION refuse_row()`,
    );
  } else {
    await app.prisma.$executeRawUnsafe(
      `CREATE TRIGGER refuse_row BEFORE ${operation} ON "${table}" WHEN ${row}."${column}" = '${value}' BEGIN SELECT RAISE(ABORT, 'refused by the test'); END`,
    );
  }
  try {
    await fn();
  } finally {
    await app.prisma.$executeRawUnsafe(
      isPostgres() ? `DROP TRIGGER refuse_row ON "${table}"` : "DROP TRIGGER refuse_row",
    );
    if (isPostgres()) await app.prisma.$executeRawUnsafe("DROP FUNCTION refuse_row()");
  }
}

describe("every callback error code", () => {
  it("invalid_callback_request: a callback delivered to another provider than the one its flow started with", async () => {
    standIn.setUser(person());
    const b = browser();
    const callback = await startFlow(b, { provider: "google" });
    const elsewhere = new URL(callback.href.replace("/callback/google", "/callback/microsoft"));
    const to = await landing(b, elsewhere);
    expect(to.pathname).toBe("/signin");
    expect(to.searchParams.get("error")).toBe("invalid_callback_request");
  });

  it("state_not_found: no state at all", async () => {
    const to = await landing(browser(), `${app.base}/api/auth/callback/google?code=abc`);
    expect(to.pathname).toBe("/api/auth/error");
    expect(to.searchParams.get("error")).toBe("state_not_found");
  });

  it("please_restart_the_process: replayed, expired, unknown, or finished in another browser", async () => {
    standIn.setUser(person());
    const b = browser();
    const callback = await startFlow(b, { provider: "google", requestSignUp: true });
    const replay = new URL(callback);
    expect((await landing(b, callback)).pathname).toBe("/profile");
    const again = await landing(b, replay);
    expect(again.searchParams.get("error")).toBe("please_restart_the_process");

    // Expired: the record is older than 10 minutes.
    const late = browser();
    const lateCallback = await startFlow(late, { provider: "google" });
    const state = lateCallback.searchParams.get("state")!;
    await app.prisma.verification.updateMany({
      where: { identifier: `oauth-state:${createHash("sha256").update(state).digest("hex")}` },
      data: { expiresAt: new Date(Date.now() - 1000) },
    });
    expect((await landing(late, lateCallback)).searchParams.get("error")).toBe("please_restart_the_process");

    // Unknown state.
    const unknown = await landing(browser(), `${app.base}/api/auth/callback/google?code=abc&state=${"x".repeat(32)}`);
    expect(unknown.searchParams.get("error")).toBe("please_restart_the_process");

    // A genuine callback URL carried to another browser (login CSRF): refused, and nobody is signed in.
    const victim = browser();
    const attacker = browser();
    const carried = await startFlow(attacker, { provider: "google" });
    const forged = await landing(victim, carried);
    expect(forged.searchParams.get("error")).toBe("please_restart_the_process");
    expect(await sessionUser(victim)).toBeFalsy();
  });

  it("no_code, invalid_code and a provider's own error with its description", async () => {
    standIn.setUser(person());
    const b = browser();
    const callback = await startFlow(b, { provider: "google" });
    callback.searchParams.delete("code");
    expect((await landing(b, callback)).searchParams.get("error")).toBe("no_code");

    const bogus = await startFlow(b, { provider: "google" });
    bogus.searchParams.set("code", "not-a-code-the-provider-issued");
    expect((await landing(b, bogus)).searchParams.get("error")).toBe("invalid_code");

    standIn.setNextError({ error: "access_denied", error_description: "The user said no" });
    const denied = await landing(b, await startFlow(b, { provider: "google" }));
    expect(denied.pathname).toBe("/signin");
    expect(denied.searchParams.get("error")).toBe("access_denied");
    expect(denied.searchParams.get("error_description")).toBe("The user said no");
  });

  it("oauth_provider_not_found: a callback for a provider that is not on", async () => {
    const to = await landing(browser(), `${app.base}/api/auth/callback/myspace?code=abc&state=${"x".repeat(32)}`);
    expect(to.searchParams.get("error")).toBe("oauth_provider_not_found");
  });

  it("unable_to_get_user_info: the provider's answer is not an account this app accepts", async () => {
    // The app only takes personal Microsoft accounts; this one is a work account.
    standIn.setUser(person({ tid: STAND_IN_TENANT_ID }));
    const b = browser();
    const to = await landing(b, await startFlow(b, { provider: "microsoft", requestSignUp: true }));
    expect(to.searchParams.get("error")).toBe("unable_to_get_user_info");
  });

  it("email_not_found: a provider account without an email", async () => {
    standIn.setUser(person({ email: undefined, email_verified: undefined }));
    const b = browser();
    const to = await landing(b, await startFlow(b, { provider: "google", requestSignUp: true }));
    expect(to.searchParams.get("error")).toBe("email_not_found");
  });

  it("no_callback_url: a state record without a callback URL", async () => {
    const { createOAuthState } = await import("~/server/auth/social/oauth-state.server");
    const created = await createOAuthState({
      providerId: "google",
      callbackURL: "",
      errorURL: "/signin",
      newUserURL: null,
      link: null,
      requestSignUp: true,
    });
    standIn.setUser(person());
    const b = browser();
    applySetCookies(b.jar, [created.cookie]);
    const authorize = new URL(standIn.authorizationUrl);
    for (const [key, value] of Object.entries({
      response_type: "code",
      client_id: standIn.clients.google.clientId,
      redirect_uri: `${app.base}/api/auth/callback/google`,
      state: created.state,
      scope: "openid email profile",
      code_challenge: createHash("sha256").update(created.record.codeVerifier).digest("base64url"),
      code_challenge_method: "S256",
      nonce: created.record.nonce,
    })) {
      authorize.searchParams.set(key, value);
    }
    const to = await landing(b, await callbackUrlFrom(b, authorize.href));
    expect(to.searchParams.get("error")).toBe("no_callback_url");
  });

  it("signup_disabled: sign-up is explicit here, and this sign-in did not ask for it", async () => {
    const user = person();
    standIn.setUser(user);
    const b = browser();
    const to = await landing(b, await startFlow(b, { provider: "google" }));
    expect(to.searchParams.get("error")).toBe("signup_disabled");
    expect(await app.prisma.user.count({ where: { email: user.email } })).toBe(0);
  });

  it("unable_to_create_user and unable_to_create_session: the database refuses the write", async () => {
    const user = person();
    standIn.setUser(user);
    const b = browser();
    await whileRefusing("INSERT", "user", "email", user.email!, async () => {
      const to = await landing(b, await startFlow(b, { provider: "google", requestSignUp: true }));
      expect(to.searchParams.get("error")).toBe("unable_to_create_user");
    });
    expect((await landing(b, await startFlow(b, { provider: "google", requestSignUp: true }))).pathname).toBe(
      "/profile",
    );
    const { id } = await app.prisma.user.findUniqueOrThrow({ where: { email: user.email } });
    const other = browser();
    await whileRefusing("INSERT", "session", "userId", id, async () => {
      const to = await landing(other, await startFlow(other, { provider: "google" }));
      expect(to.searchParams.get("error")).toBe("unable_to_create_session");
    });
  });

  it("internal_server_error: the state record cannot be read", async () => {
    standIn.setUser(person());
    const b = browser();
    const callback = await startFlow(b, { provider: "google" });
    const identifier = `oauth-state:${createHash("sha256").update(callback.searchParams.get("state")!).digest("hex")}`;
    await whileRefusing("DELETE", "verification", "identifier", identifier, async () => {
      const to = await landing(b, callback);
      expect(to.pathname).toBe("/api/auth/error");
      expect(to.searchParams.get("error")).toBe("internal_server_error");
    });
  });
});

/** A browser signed in as a new user through Google; returns it with the stand-in user. */
async function signedUpWithGoogle(overrides: Partial<StandInUser> = {}) {
  const user = person(overrides);
  standIn.setUser(user);
  const b = browser();
  await socialSignIn(b, { provider: "google", requestSignUp: true });
  const { id } = (await sessionUser(b))!;
  return { b, user, id };
}

describe("two-factor", () => {
  it("ends a provider sign-in of a user with two-factor on the second step, with no session until it is taken", async () => {
    const { user, id } = await signedUpWithGoogle();
    const { encryptSecret } = await import("~/server/crypto.server");
    const secret = "JBSWY3DPEHPK3PXPJBSWY3DPEHPK3PXP";
    await app.prisma.twoFactor.create({ data: { userId: id, secret: encryptSecret(SECRET, secret), verified: true } });
    await app.prisma.user.update({ where: { id }, data: { twoFactorEnabled: true } });

    standIn.setUser(user);
    const b = browser();
    const landed = await socialSignIn(b, { provider: "google" });
    expect(landed.pathname).toBe("/signin/two-factor");
    expect(landed.searchParams.get("redirect")).toBe("/profile");
    expect(b.jar.has("app.two_factor")).toBe(true);
    expect(b.jar.has("app.session_token")).toBe(false);
    expect(await sessionUser(b)).toBeUndefined();
    expect((await b.request(landed.href)).status).toBe(200); // the page that asks for the code

    const verified = await b.api("/two-factor/verify-totp", { code: totp(secret) });
    expect(verified.status).toBe(200);
    expect((await sessionUser(b))?.id).toBe(id);
  });
});

describe("linking from a signed-in session", () => {
  it("links another provider through the redirect flow, then refuses one already linked elsewhere", async () => {
    const { b, id } = await signedUpWithGoogle();
    const microsoftUser = person(); // another address: fine for a redirect link
    standIn.setUser(microsoftUser);
    const started = await b.api("/link-social", {
      provider: "microsoft",
      callbackURL: "/profile",
      errorCallbackURL: "/profile",
    });
    expect(started.status).toBe(200);
    const body = (await started.json()) as { url: string; redirect: boolean };
    expect(body.redirect).toBe(true);
    expect(started.headers.get("location")).toBe(body.url);
    const linked = await landing(b, await callbackUrlFrom(b, body.url));
    expect(linked.pathname).toBe("/profile");
    expect(linked.searchParams.get("error")).toBeNull();
    expect((await app.prisma.account.findMany({ where: { userId: id } })).map((a) => a.providerId).sort()).toEqual([
      "google",
      "microsoft",
    ]);
    expect(await app.prisma.auditLog.count({ where: { userId: id, action: "link-social" } })).toBe(1);

    // That Microsoft account now belongs to this user: someone else cannot link it.
    const taken = await signedUpWithGoogle();
    standIn.setUser(microsoftUser);
    const stolen = await taken.b.api("/link-social", { provider: "microsoft", errorCallbackURL: "/profile" });
    const to = await landing(taken.b, await callbackUrlFrom(taken.b, ((await stolen.json()) as { url: string }).url));
    expect(to.searchParams.get("error")).toBe("account_already_linked_to_different_user");
  });

  it("unable_to_link_account: the provider does not vouch for the address", async () => {
    const { b, id } = await signedUpWithGoogle();
    standIn.setUser(person({ email_verified: false }));
    const started = await b.api("/link-social", { provider: "microsoft", errorCallbackURL: "/profile" });
    const to = await landing(b, await callbackUrlFrom(b, ((await started.json()) as { url: string }).url));
    expect(to.pathname).toBe("/profile");
    expect(to.searchParams.get("error")).toBe("unable_to_link_account");
    expect(await app.prisma.account.count({ where: { userId: id } })).toBe(1);
  });

  it("needs a session", async () => {
    const response = await browser().api("/link-social", { provider: "google" });
    expect(response.status).toBe(401);
  });
});

describe("ID tokens", () => {
  it("signs in (and up) with a Google ID token checked against the key set", async () => {
    const user = person();
    standIn.setUser(user);
    const b = browser();
    const token = await standIn.signIdToken({ nonce: "nonce-1" }, "google");
    const response = await b.api("/sign-in/social", {
      provider: "google",
      requestSignUp: true,
      idToken: { token, nonce: "nonce-1" },
    });
    expect(response.status).toBe(200);
    const body = (await response.json()) as { redirect: boolean; token: string; user: { email: string } };
    expect(body.redirect).toBe(false);
    expect(body.token).toEqual(expect.any(String));
    expect(body.user.email).toBe(user.email);
    expect((await sessionUser(b))?.email).toBe(user.email);
  });

  it("refuses a forged, expired or replayed-elsewhere ID token, and providers without ID tokens", async () => {
    const user = person();
    standIn.setUser(user);
    const b = browser();
    const attempts = [
      { token: await standIn.signIdTokenWithForeignKey({}, "google") },
      { token: await standIn.signIdToken({ exp: Math.floor(Date.now() / 1000) - 3600 }, "google") },
      { token: await standIn.signIdToken({ nonce: "one" }, "google"), nonce: "another" },
      { token: await standIn.signIdToken({ aud: "someone-else" }, "google") },
    ];
    for (const idToken of attempts) {
      const response = await b.api("/sign-in/social", { provider: "google", requestSignUp: true, idToken });
      expect(response.status).toBe(401);
      expect(await response.json()).toMatchObject({ code: "INVALID_TOKEN" });
    }
    expect(await app.prisma.user.count({ where: { email: user.email } })).toBe(0);
    const github = await b.api("/sign-in/social", { provider: "github", idToken: { token: attempts[0]!.token } });
    expect(github.status).toBe(404);
    expect(await github.json()).toMatchObject({ code: "ID_TOKEN_NOT_SUPPORTED" });
  });

  it("links with an ID token only for the user's own address", async () => {
    const { b, user } = await signedUpWithGoogle();
    standIn.setUser({ ...person(), email: user.email, tid: CONSUMER_TENANT });
    const same = await b.api("/link-social", {
      provider: "microsoft",
      idToken: { token: await standIn.signIdToken({}, "microsoft") },
    });
    expect(same.status).toBe(200);
    expect(await same.json()).toEqual({ url: "", status: true, redirect: false });

    standIn.setUser(person({ tid: CONSUMER_TENANT }));
    const different = await b.api("/link-social", {
      provider: "microsoft",
      idToken: { token: await standIn.signIdToken({}, "microsoft") },
    });
    expect(different.status).toBe(401);
    expect(await different.json()).toMatchObject({ code: "LINKING_DIFFERENT_EMAILS_NOT_ALLOWED" });
  });
});

describe("the user's accounts", () => {
  it("a user who signed up socially sets a password in the security settings and signs in either way", async () => {
    const { b, user, id } = await signedUpWithGoogle();
    const set = await b.request(`${app.base}/profile/security`, {
      method: "POST",
      headers: { "Content-Type": "application/x-www-form-urlencoded", Origin: app.base },
      body: new URLSearchParams({
        intent: "set-password",
        newPassword: "social-then-password-1",
        confirmPassword: "social-then-password-1",
      }),
    });
    expect(set.status).toBe(302);
    expect((await app.prisma.account.findMany({ where: { userId: id } })).map((a) => a.providerId).sort()).toEqual([
      "credential",
      "google",
    ]);
    const byPassword = await browser().api("/sign-in/email", { email: user.email, password: "social-then-password-1" });
    expect(byPassword.status).toBe(200);
    expect(((await byPassword.json()) as { user: { id: string } }).user.id).toBe(id);
    const bySocial = browser();
    await socialSignIn(bySocial, { provider: "google" });
    expect((await sessionUser(bySocial))?.id).toBe(id);
  });

  it("lists accounts without secrets, scopes as an array", async () => {
    const { b, id, user } = await signedUpWithGoogle();
    const response = await b.request(`${app.base}/api/auth/list-accounts`);
    const accounts = (await response.json()) as Record<string, unknown>[];
    expect(accounts).toHaveLength(1);
    expect(Object.keys(accounts[0]!).sort()).toEqual(
      ["accountId", "createdAt", "id", "providerId", "scopes", "updatedAt", "userId"].sort(),
    );
    expect(accounts[0]).toMatchObject({ providerId: "google", accountId: user.sub, userId: id });
    expect(accounts[0]!.scopes).toEqual(expect.arrayContaining(["openid", "email", "profile"]));
  });

  it("refuses to unlink the last account, unlinks another, and wants a fresh session", async () => {
    const { b, id } = await signedUpWithGoogle();
    const [google] = await app.prisma.account.findMany({ where: { userId: id } });
    const last = await b.api("/unlink-account", { accountId: google!.id });
    expect(last.status).toBe(400);
    expect(await last.json()).toEqual({
      code: "FAILED_TO_UNLINK_LAST_ACCOUNT",
      message: "You can't unlink your last account",
    });

    const second = await app.prisma.account.create({ data: { providerId: "github", accountId: "gh-1", userId: id } });
    const unknown = await b.api("/unlink-account", { accountId: "no-such-account" });
    expect(await unknown.json()).toMatchObject({ code: "ACCOUNT_NOT_FOUND" });
    const unlinked = await b.api("/unlink-account", { accountId: second.id });
    expect(await unlinked.json()).toEqual({ status: true });
    expect(await app.prisma.account.count({ where: { userId: id } })).toBe(1);
    expect(await app.prisma.auditLog.count({ where: { userId: id, action: "unlink-account" } })).toBe(1);

    await app.prisma.account.create({ data: { providerId: "github", accountId: "gh-2", userId: id } });
    await app.prisma.session.updateMany({
      where: { userId: id },
      data: { createdAt: new Date(Date.now() - 2 * 86400_000) },
    });
    b.jar.delete("app.session_data"); // the cookie cache would still show the session as new for a minute
    const stale = await b.api("/unlink-account", { providerId: "github" });
    expect(stale.status).toBe(403);
    expect(await stale.json()).toMatchObject({ code: "SESSION_NOT_FRESH" });
  });

  it("refreshes an access token with fewer than 5 seconds left, and not before", async () => {
    const { b, user } = await signedUpWithGoogle();
    const where = { providerId: "google", accountId: user.sub };
    const first = (await (await b.api("/get-access-token", { providerId: "google" })).json()) as {
      accessToken: string;
    };

    await app.prisma.account.updateMany({ where, data: { accessTokenExpiresAt: new Date(Date.now() + 60_000) } });
    const kept = (await (await b.api("/get-access-token", { providerId: "google" })).json()) as { accessToken: string };
    expect(kept.accessToken).toBe(first.accessToken);

    await app.prisma.account.updateMany({ where, data: { accessTokenExpiresAt: new Date(Date.now() + 4000) } });
    const renewed = (await (await b.api("/get-access-token", { providerId: "google" })).json()) as {
      accessToken: string;
      accessTokenExpiresAt: string;
    };
    expect(renewed.accessToken).not.toBe(first.accessToken);
    expect(new Date(renewed.accessTokenExpiresAt).getTime()).toBeGreaterThan(Date.now() + 60_000);

    const forced = await b.api("/refresh-token", { providerId: "google" });
    expect(forced.status).toBe(200);
    const refreshed = (await forced.json()) as { accessToken: string; providerId: string; accountId: string };
    expect(refreshed).toMatchObject({ providerId: "google", accountId: user.sub });
    expect(refreshed.accessToken).not.toBe(renewed.accessToken);

    const unknown = await b.api("/get-access-token", { providerId: "github" });
    expect(await unknown.json()).toMatchObject({ code: "ACCOUNT_NOT_FOUND" });
  });

  it("returns the provider's user info for an account", async () => {
    const { b, user } = await signedUpWithGoogle();
    const response = await b.request(`${app.base}/api/auth/account-info?accountId=${user.sub}`);
    expect(response.status).toBe(200);
    expect(await response.json()).toMatchObject({
      user: { id: user.sub, email: user.email, name: user.name, emailVerified: true },
      data: expect.any(Object),
    });
  });
});

describe("pages and the error page", () => {
  it("shows a button for each enabled provider, with an accessible name, on sign-in and sign-up", async () => {
    for (const path of ["/signin", "/fr/signup"]) {
      const html = await (await browser().request(`${app.base}${path}`)).text();
      const buttons = [...html.matchAll(/<button[^>]*value="([a-z]+)" aria-label="([^"]+)"[^>]*name="provider"/g)];
      expect(buttons.map(([, id]) => id).sort(), path).toEqual([...SOCIAL_PROVIDER_IDS].sort());
      const google = buttons.find(([, id]) => id === "google")![2];
      expect(google).toBe(path.startsWith("/fr") ? "Continuer avec Google" : "Continue with Google");
    }
  });

  it("a social button posts to the provider with the state cookie, and an unknown one comes back with a toast", async () => {
    const b = browser();
    const post = (provider: string) =>
      b.request(`${app.base}/signin?redirect=%2Fpricing`, {
        method: "POST",
        headers: { "Content-Type": "application/x-www-form-urlencoded", Origin: app.base },
        body: new URLSearchParams({ intent: "social", provider }),
      });
    const started = await post("google");
    expect(started.status).toBe(302);
    const location = new URL(started.headers.get("location")!);
    expect(location.origin).toBe(standIn.issuer);
    expect(b.jar.has("app.oauth_state")).toBe(true);
    const state = location.searchParams.get("state")!;
    const row = await app.prisma.verification.findFirstOrThrow({
      where: { identifier: `oauth-state:${createHash("sha256").update(state).digest("hex")}` },
    });
    expect(JSON.parse(row.value)).toMatchObject({ callbackURL: "/pricing", errorURL: "/signin", requestSignUp: false });

    const unknown = await post("myspace");
    expect(unknown.status).toBe(302);
    expect(unknown.headers.get("location")).toBe("/signin?redirect=%2Fpricing");
  });

  it("explains each error code on /api/auth/error in the visitor's language", async () => {
    const expected = {
      en: "An account with this email already exists.",
      fr: "Un compte avec cet e-mail existe déjà.",
      ja: "このメールアドレスのアカウントはすでに存在します。",
      "zh-CN": "使用此邮箱的账户已存在。",
    };
    for (const [language, text] of Object.entries(expected)) {
      const response = await fetch(`${app.base}/api/auth/error?error=account_not_linked`, {
        headers: { "Accept-Language": language },
      });
      const html = await response.text();
      expect(html).toContain("<title>Authentication Error</title>");
      expect(html).toContain(`<html lang="${language}">`);
      expect(html).toContain(text);
      expect(html).toContain('data-testid="auth-error-code">account_not_linked<');
    }
    const provider = await (
      await fetch(`${app.base}/api/auth/error?error=access_denied&error_description=%3Cb%3Eno%3C%2Fb%3E`)
    ).text();
    expect(provider).toContain("&lt;b&gt;no&lt;/b&gt;");
  });

  it("re-issues Apple's cross-site form post as the GET callback, whatever the Origin", async () => {
    const response = await fetch(`${app.base}/api/auth/callback/apple`, {
      method: "POST",
      redirect: "manual",
      headers: {
        "Content-Type": "application/x-www-form-urlencoded",
        Origin: "https://appleid.apple.com",
        Cookie: "tracking=1",
      },
      body: new URLSearchParams({ code: "c1", state: "s".repeat(32), user: '{"name":{"firstName":"Ada"}}' }),
    });
    expect(response.status).toBe(302);
    const location = new URL(response.headers.get("location")!);
    expect(location.pathname).toBe("/api/auth/callback/apple");
    expect(Object.fromEntries(location.searchParams)).toEqual({
      code: "c1",
      state: "s".repeat(32),
      user: '{"name":{"firstName":"Ada"}}',
    });
  });

  it("records social sign-ins, sign-ups and links in the audit log", async () => {
    const { id } = await signedUpWithGoogle();
    const rows = await app.prisma.auditLog.findMany({ where: { userId: id }, orderBy: { createdAt: "asc" } });
    expect(rows.map((row) => [row.action, row.status])).toEqual([
      ["sign-up", "success"],
      ["sign-in", "success"],
    ]);
    expect(JSON.parse(rows[1]!.details!)).toMatchObject({ method: "social:google" });
  });
});
