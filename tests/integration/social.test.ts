/**
 * Social sign-in end to end against a real OpenID Connect server (oidc-provider) standing in
 * for Google and Microsoft through the endpoint overrides: the authorization-code + PKCE
 * flow, linking rules, ID-token sign-in, every callback error code, and the linked-account
 * calls. The other 17 providers are configured with their real endpoints to check the
 * authorization requests the app builds for them.
 */
import { createHash } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { SOCIAL_PROVIDER_IDS } from "~/server/env.server";
import { startOidcStandIn, STAND_IN_TENANT_ID, type OidcStandIn, type StandInUser } from "../support/oidc-stand-in";
import { startTestApp, type TestApp } from "./helpers/app";
import { applySetCookies } from "./helpers/auth-client";
import { BROWSER_UA } from "./helpers/http";

const SECRET = "social-test-secret-0123456789abcdefghijklmnopqrstuvwxyz";
// Personal Microsoft accounts carry this tenant; the app is configured for them only.
const CONSUMER_TENANT = "9188040d-6c67-4c5b-b112-36a304b66dad";

// The 17 providers not pointed at the stand-in, with the host their real authorization endpoint is on.
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
};

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
  it("answers every one of the 19 providers with its real host, the state, the client id and our callback", async () => {
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
    const existing = await app.prisma.user.create({
      data: { email: user.email!, name: "Existing", emailVerified: true },
    });
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
    const existing = await app.prisma.user.create({ data: { email: user.email!, name: "Owner", emailVerified: true } });
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
        accounts: { create: { providerId: "credential", accountId: "x", password: "$2b$10$abcdefghijklmnopqrstuv" } },
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
