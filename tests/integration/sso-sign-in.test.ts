/**
 * Single sign-on sign-in end to end against a real OpenID Connect server (oidc-provider)
 * standing in for an organization's identity provider: POST /sign-in/sso by email, domain,
 * provider id and organization slug; the callback's provisioning rules (new user, returning
 * user, an existing account linked only through a verified domain, the organization's
 * membership); its refusals (state, nonce, audience, issuer, ban, membership limit); two-factor
 * after the provider; enforced SSO refusing password, social and passkey sign-ins; the page;
 * and SAML through the Assertion Consumer Service against the SAML IdP stand-in.
 * Connections are rows made here in the stored forms of config.server.ts.
 * Runs on SQLite, or on PostgreSQL with TEST_DATABASE_URL.
 */
import { createHash } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { encryptSecret } from "~/server/crypto.server";
import { startOidcStandIn, SSO_CALLBACK_PATH, type OidcStandIn, type StandInUser } from "../support/oidc-stand-in";
import {
  formBody,
  startSamlIdpStandIn,
  stripSignatures,
  type SamlIdpStandIn,
  type SamlPost,
} from "../support/saml-idp-stand-in";
import { softwareAuthenticator } from "../support/webauthn-authenticator";
import { startTestApp, type TestApp } from "./helpers/app";
import { applySetCookies, makeTestClient } from "./helpers/auth-client";
import { browserFor } from "./helpers/browser";
import { createOrganization, createUser, PASSWORD, signInWithPassword, unique } from "./helpers/factories";
import { BROWSER_UA } from "./helpers/http";

const SECRET = "sso-sign-in-test-secret-0123456789abcdefghij";
const MEMBERSHIP_LIMIT = 3;

let standIn: OidcStandIn;
let samlIdp: SamlIdpStandIn;
let app: TestApp;

beforeAll(async () => {
  standIn = await startOidcStandIn();
  samlIdp = await startSamlIdpStandIn();
  app = await startTestApp({
    secret: SECRET,
    env: {
      ...standIn.envFor("google"),
      // The stand-in is on loopback: only an origin listed here may be called at a private address.
      SSO_IDP_ORIGIN: standIn.issuer,
      ORGANIZATION_MEMBERSHIP_LIMIT: String(MEMBERSHIP_LIMIT),
    },
  });
  await standIn.addAppBaseUrl(app.base);
}, 60_000);

afterAll(async () => {
  await app?.stop();
  await standIn?.close();
  await samlIdp?.close();
});

const sha256 = (value: string) => createHash("sha256").update(value).digest("hex");

// ---- connections, people, browsers ----

interface Connection {
  providerId: string;
  domain: string;
  organization: { id: string; slug: string };
}

/** An organization with an OIDC connection at the stand-in (its own client), for `domain`. */
async function connection(
  options: {
    verified?: boolean;
    required?: boolean;
    domain?: string;
    issuer?: string;
    auth?: "client_secret_basic" | "client_secret_post";
  } = {},
): Promise<Connection> {
  const providerId = unique("idp");
  const domain = options.domain ?? `${unique("corp")}.example`;
  const organization = await createOrganization({ name: `Org of ${providerId}` });
  if (options.required) {
    await app.prisma.organization.update({ where: { id: organization.id }, data: { ssoRequired: true } });
  }
  const client = {
    clientId: `${providerId}-client`,
    clientSecret: `${providerId}-secret`,
    redirectUris: [`${app.base}${SSO_CALLBACK_PATH}${providerId}`],
    tokenEndpointAuthMethod: options.auth,
  };
  await standIn.addClient(client);
  // Imported when called: its database client must be made for the test's database.
  const { storedOidcConfig } = await import("~/server/sso/config.server");
  const oidcConfig = storedOidcConfig.parse({
    clientId: client.clientId,
    clientSecret: encryptSecret(SECRET, client.clientSecret),
    authorizationEndpoint: standIn.authorizationUrl,
    tokenEndpoint: standIn.tokenUrl,
    jwksEndpoint: standIn.jwksUrl,
    userInfoEndpoint: standIn.userInfoUrl,
    tokenEndpointAuthentication: options.auth,
  });
  await app.prisma.ssoProvider.create({
    data: {
      providerId,
      issuer: options.issuer ?? standIn.issuer,
      domain,
      organizationId: organization.id,
      oidcConfig: JSON.stringify(oidcConfig),
      domains: {
        create: { domain, token: `token-${providerId}`, verifiedAt: options.verified ? new Date() : null },
      },
    },
  });
  return { providerId, domain, organization };
}

let people = 0;
/** Someone at the identity provider, with an address in `domain`; the stand-in signs them in next. */
function employee(domain: string, overrides: Partial<StandInUser> = {}): StandInUser {
  people += 1;
  const user = {
    sub: `employee-${people}-${Date.now()}`,
    email: `employee${people}.${Date.now()}@${domain}`,
    email_verified: true,
    name: `Employee ${people}`,
    ...overrides,
  };
  standIn.setUser(user);
  return user;
}

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
  const inCallback = (url: string) => url.includes(SSO_CALLBACK_PATH) || url.includes("/api/auth/callback/");
  /** Follows the provider's redirects from `url` until they lead back to the app's callback: that URL, not requested. */
  async function toCallback(url: string): Promise<string> {
    let next = url;
    for (let hops = 0; hops < 10; hops++) {
      const response = await request(next);
      const location = response.headers.get("location");
      if (!location) throw new Error(`${next} answered ${response.status} without a redirect`);
      next = new URL(location, next).href;
      if (next.startsWith(app.base) && inCallback(next)) return next;
    }
    throw new Error("too many redirects");
  }
  /** Requests the callback and returns where the app sends the browser next. */
  async function land(callback: string): Promise<URL> {
    const response = await request(callback);
    expect(response.status, callback).toBe(302);
    return new URL(response.headers.get("location")!, callback);
  }
  const api = (path: string, body: unknown) =>
    request(`${app.base}/api/auth${path}`, {
      method: "POST",
      headers: { "Content-Type": "application/json", Origin: app.base },
      body: JSON.stringify(body),
    });
  async function session() {
    const response = await request(`${app.base}/api/auth/get-session`);
    return (await response.json()) as {
      session: { userId: string; activeOrganizationId: string | null };
      user: { id: string; email: string; emailVerified: boolean; name: string };
    } | null;
  }
  return { jar, request, toCallback, land, api, session };
}
type Browser = ReturnType<typeof browser>;

/** Starts a single sign-on in `b` and returns the provider's URL. */
async function start(b: Browser, body: Record<string, unknown>): Promise<string> {
  const response = await b.api("/sign-in/sso", { callbackURL: "/dashboard", errorCallbackURL: "/signin/sso", ...body });
  expect(response.status, JSON.stringify(body)).toBe(200);
  const answer = (await response.json()) as { url: string; redirect: boolean };
  expect(answer.redirect).toBe(true);
  return answer.url;
}

/** A whole sign-in through `c`'s provider: where the app sends the browser at the end. */
async function ssoSignIn(b: Browser, c: Connection, body: Record<string, unknown> = {}): Promise<URL> {
  return b.land(await b.toCallback(await start(b, { providerId: c.providerId, ...body })));
}

const ssoAudit = (providerId: string, status: "success" | "failure") =>
  app.prisma.auditLog
    .findMany({ where: { category: "sso", action: "sign-in", status }, orderBy: { createdAt: "asc" } })
    .then((rows) =>
      rows
        .map((row) => ({ ...row, details: JSON.parse(row.details ?? "{}") as Record<string, unknown> }))
        .filter((row) => row.details.providerId === providerId),
    );

// ---- POST /sign-in/sso ----

describe("POST /sign-in/sso", () => {
  it("answers the provider's authorization URL with state, nonce and PKCE S256, and a state cookie for 10 minutes", async () => {
    const c = await connection();
    const b = browser();
    const before = Date.now();
    const response = await b.api("/sign-in/sso", { email: `someone@${c.domain}`, callbackURL: "/dashboard" });
    expect(response.status).toBe(200);
    const { url } = (await response.json()) as { url: string };
    const authorization = new URL(url);
    expect(authorization.origin + authorization.pathname).toBe(standIn.authorizationUrl);
    const query = authorization.searchParams;
    expect(query.get("client_id")).toBe(`${c.providerId}-client`);
    expect(query.get("redirect_uri")).toBe(`${app.base}/api/auth/sso/callback/${c.providerId}`);
    expect(query.get("response_type")).toBe("code");
    expect(query.get("scope")!.split(" ")).toEqual(["openid", "email", "profile"]);
    expect(query.get("login_hint")).toBe(`someone@${c.domain}`);
    const state = query.get("state")!;
    expect(state).toMatch(/^[A-Za-z0-9]{32}$/);

    const line = response.headers.getSetCookie().find((cookie) => cookie.startsWith("app.sso_state="));
    expect(line).toMatch(/HttpOnly/);
    expect(line).toMatch(/Max-Age=600/);
    const row = await app.prisma.verification.findFirstOrThrow({ where: { identifier: `sso-state:${sha256(state)}` } });
    const record = JSON.parse(row.value) as { codeVerifier: string; nonce: string; providerId: string };
    expect(record.providerId).toBe(c.providerId);
    expect(query.get("nonce")).toBe(record.nonce);
    expect(query.get("code_challenge")).toBe(createHash("sha256").update(record.codeVerifier).digest("base64url"));
    expect(query.get("code_challenge_method")).toBe("S256");
    expect(row.expiresAt.getTime() - before).toBeGreaterThanOrEqual(600_000 - 1000);
    expect(row.expiresAt.getTime() - before).toBeLessThanOrEqual(600_000 + 5000);
  });

  it("finds the connection by email, domain, provider id or organization slug", async () => {
    const c = await connection();
    for (const by of [
      { email: `ada@${c.domain.toUpperCase()}` },
      { domain: c.domain },
      { providerId: c.providerId },
      { organizationSlug: c.organization.slug },
    ]) {
      const url = new URL(await start(browser(), by));
      expect(url.searchParams.get("client_id"), JSON.stringify(by)).toBe(`${c.providerId}-client`);
    }
  });

  it("answers 404 NO_PROVIDER_FOUND when nothing serves the email, domain, id or slug", async () => {
    for (const by of [
      { email: "ada@nobody-here.example" },
      { domain: "nobody-here.example" },
      { providerId: "no-such-provider" },
      { organizationSlug: "no-such-organization" },
    ]) {
      const response = await browser().api("/sign-in/sso", { ...by, callbackURL: "/dashboard" });
      expect(response.status, JSON.stringify(by)).toBe(404);
      expect(await response.json()).toMatchObject({ code: "NO_PROVIDER_FOUND" });
    }
  });

  it("wants exactly one of email, domain, providerId or organizationSlug", async () => {
    const c = await connection();
    for (const body of [{}, { domain: c.domain, providerId: c.providerId }]) {
      const response = await browser().api("/sign-in/sso", { ...body, callbackURL: "/dashboard" });
      expect(response.status).toBe(400);
      expect(await response.json()).toMatchObject({ code: "VALIDATION_ERROR" });
    }
    const untrusted = await browser().api("/sign-in/sso", {
      providerId: c.providerId,
      callbackURL: "https://elsewhere.example/",
    });
    expect(untrusted.status).toBe(403);
    expect(await untrusted.json()).toMatchObject({ code: "INVALID_CALLBACK_URL" });
  });

  it("routes a domain to the connection that verified it before an older one that did not", async () => {
    const domain = `${unique("shared")}.example`;
    await connection({ domain });
    const verified = await connection({ domain, verified: true });
    await connection({ domain });
    const url = new URL(await start(browser(), { email: `someone@${domain}` }));
    expect(url.searchParams.get("client_id")).toBe(`${verified.providerId}-client`);
  });
});

// ---- the callback: who signs in ----

describe("the OIDC callback", () => {
  it("creates a new user (email unverified on an unverified domain) as a member, in that organization", async () => {
    const c = await connection();
    const person = employee(c.domain);
    const b = browser();
    const landed = await ssoSignIn(b, c, { newUserCallbackURL: "/welcome" });
    expect(landed.href).toBe(`${app.base}/welcome`);
    expect(b.jar.has("app.sso_state")).toBe(false);
    const signedIn = await b.session();
    expect(signedIn?.user).toMatchObject({ email: person.email, emailVerified: false, name: person.name });
    expect(signedIn?.session.activeOrganizationId).toBe(c.organization.id);
    const member = await app.prisma.member.findUniqueOrThrow({
      where: { organizationId_userId: { organizationId: c.organization.id, userId: signedIn!.user.id } },
    });
    expect(member.role).toBe("member");
    const account = await app.prisma.account.findUniqueOrThrow({
      where: { providerId_accountId: { providerId: c.providerId, accountId: person.sub } },
    });
    expect(account.userId).toBe(signedIn!.user.id);
    const [audited] = await ssoAudit(c.providerId, "success");
    expect(audited).toMatchObject({
      userId: signedIn!.user.id,
      details: { organizationId: c.organization.id, newUser: true, domainVerified: false },
    });
    const session = await app.prisma.auditLog.findFirst({
      where: { userId: signedIn!.user.id, category: "auth", action: "sign-in", status: "success" },
    });
    expect(JSON.parse(session!.details!)).toMatchObject({ method: `sso:${c.providerId}` });
  });

  it("counts the email as verified when the connection verified its domain", async () => {
    const c = await connection({ verified: true });
    const person = employee(c.domain);
    const b = browser();
    expect((await ssoSignIn(b, c)).pathname).toBe("/dashboard");
    expect((await b.session())?.user).toMatchObject({ email: person.email, emailVerified: true });
  });

  it("signs a returning user in again as the same user, to callbackURL", async () => {
    const c = await connection();
    const person = employee(c.domain);
    const first = browser();
    await ssoSignIn(first, c);
    const userId = (await first.session())!.user.id;
    standIn.setUser(person);
    const again = browser();
    expect((await ssoSignIn(again, c, { newUserCallbackURL: "/welcome" })).pathname).toBe("/dashboard");
    expect((await again.session())?.user.id).toBe(userId);
    expect(await app.prisma.user.count({ where: { email: person.email } })).toBe(1);
    expect(await app.prisma.member.count({ where: { userId } })).toBe(1);
    expect((await ssoAudit(c.providerId, "success")).map((row) => row.details.newUser)).toEqual([true, false]);
  });

  it("keeps out someone the organization's directory deactivated, though the provider lets them through", async () => {
    const c = await connection();
    const person = employee(c.domain);
    const first = browser();
    await ssoSignIn(first, c);
    const userId = (await first.session())!.user.id;
    // As a SCIM deactivation leaves it: the directory's record inactive, the membership gone.
    await app.prisma.scimUser.create({
      data: { organizationId: c.organization.id, userId, userName: person.email!, active: false },
    });
    await app.prisma.member.deleteMany({ where: { organizationId: c.organization.id, userId } });
    standIn.setUser(person);
    const again = browser();
    const landed = await ssoSignIn(again, c);
    expect(landed.searchParams.get("error")).toBe("account_deactivated");
    expect(await again.session()).toBeNull();
    expect(await app.prisma.member.count({ where: { organizationId: c.organization.id, userId } })).toBe(0);
    expect((await ssoAudit(c.providerId, "failure")).at(-1)?.details.reason).toBe("account_deactivated");
  });

  it("refuses an existing account of the same email through an unverified domain", async () => {
    const c = await connection();
    const existing = await createUser({ email: `taken.${Date.now()}@${c.domain}` });
    employee(c.domain, { email: existing.email });
    const b = browser();
    const landed = await ssoSignIn(b, c);
    expect(landed.pathname).toBe("/signin/sso");
    expect(landed.searchParams.get("error")).toBe("account_not_linked");
    expect(await b.session()).toBeNull();
    expect(await app.prisma.account.count({ where: { userId: existing.id, providerId: c.providerId } })).toBe(0);
    expect(await app.prisma.member.count({ where: { userId: existing.id } })).toBe(0);
    const [refused] = await ssoAudit(c.providerId, "failure");
    expect(refused?.details).toMatchObject({ reason: "account_not_linked", detail: "unverified_domain" });
  });

  it("links an existing account of the same email through a verified domain", async () => {
    const c = await connection({ verified: true });
    const existing = await createUser({ email: `known.${Date.now()}@${c.domain}` });
    const person = employee(c.domain, { email: existing.email });
    const b = browser();
    expect((await ssoSignIn(b, c)).pathname).toBe("/dashboard");
    expect((await b.session())?.user.id).toBe(existing.id);
    expect(
      await app.prisma.account.count({
        where: { userId: existing.id, providerId: c.providerId, accountId: person.sub },
      }),
    ).toBe(1);
    // The password stays: the account was the user's own, with a proven address.
    expect(await app.prisma.account.count({ where: { userId: existing.id, providerId: "credential" } })).toBe(1);
    expect(await app.prisma.member.count({ where: { userId: existing.id, organizationId: c.organization.id } })).toBe(
      1,
    );
    expect((await ssoAudit(c.providerId, "success"))[0]?.details).toMatchObject({ newUser: false, linked: true });
  });

  it("signs in with client_secret_post when the connection says so", async () => {
    const c = await connection({ auth: "client_secret_post" });
    employee(c.domain);
    const b = browser();
    expect((await ssoSignIn(b, c)).pathname).toBe("/dashboard");
    expect(await b.session()).not.toBeNull();
  });

  it("sends a banned user to the error page, without a session or a membership", async () => {
    const c = await connection({ verified: true });
    const banned = await createUser({ email: `banned.${Date.now()}@${c.domain}` });
    await app.prisma.user.update({ where: { id: banned.id }, data: { banned: true } });
    employee(c.domain, { email: banned.email });
    const b = browser();
    const landed = await ssoSignIn(b, c);
    expect(landed.searchParams.get("error")).toBe("banned");
    expect(await b.session()).toBeNull();
    expect(await app.prisma.member.count({ where: { userId: banned.id } })).toBe(0);
    expect(await app.prisma.account.count({ where: { userId: banned.id, providerId: c.providerId } })).toBe(0);
  });

  it("sends a user with two-factor to the second step, without a session yet", async () => {
    const c = await connection({ verified: true });
    const user = await createUser({ email: `twofactor.${Date.now()}@${c.domain}` });
    await app.prisma.twoFactor.create({ data: { userId: user.id, verified: true } });
    await app.prisma.user.update({ where: { id: user.id }, data: { twoFactorEnabled: true } });
    employee(c.domain, { email: user.email });
    const b = browser();
    const landed = await ssoSignIn(b, c);
    expect(landed.pathname).toBe("/signin/two-factor");
    expect(landed.searchParams.get("redirect")).toBe("/dashboard");
    expect(b.jar.has("app.two_factor")).toBe(true);
    expect(b.jar.has("app.session_token")).toBe(false);
    const pending = await app.prisma.pendingSignIn.findFirstOrThrow({ where: { userId: user.id } });
    expect(pending.method).toBe(`sso:${c.providerId}`);
  });

  it("refuses a new member once the organization is full, and makes no user", async () => {
    const c = await connection();
    for (let i = 0; i < MEMBERSHIP_LIMIT; i++) {
      const user = await createUser();
      await app.prisma.member.create({ data: { organizationId: c.organization.id, userId: user.id, role: "member" } });
    }
    const person = employee(c.domain);
    const landed = await ssoSignIn(browser(), c);
    expect(landed.searchParams.get("error")).toBe("organization_membership_limit_reached");
    expect(await app.prisma.user.count({ where: { email: person.email } })).toBe(0);
  });

  it("passes the provider's own error on to the error URL", async () => {
    const c = await connection();
    standIn.setNextError({ error: "access_denied", error_description: "The user said no" });
    const landed = await ssoSignIn(browser(), c);
    expect(landed.pathname).toBe("/signin/sso");
    expect(landed.searchParams.get("error")).toBe("access_denied");
    expect(landed.searchParams.get("error_description")).toBe("The user said no");
  });
});

// ---- the callback: refusals ----

describe("the callback refuses", () => {
  it("a tampered state with state_mismatch, on the API's error page", async () => {
    const c = await connection();
    employee(c.domain);
    const b = browser();
    const callback = new URL(await b.toCallback(await start(b, { providerId: c.providerId })));
    callback.searchParams.set("state", "A".repeat(32));
    const landed = await b.land(callback.href);
    expect(landed.pathname).toBe("/api/auth/error");
    expect(landed.searchParams.get("error")).toBe("state_mismatch");
    expect(await b.session()).toBeNull();
    // The API's error page explains single sign-on's codes too, in the visitor's language.
    const page = await b.request(landed.href, { headers: { "Accept-Language": "fr" } });
    expect(await page.text()).toContain("Cette connexion a expiré");
  });

  it("a replayed callback with state_mismatch", async () => {
    const c = await connection();
    employee(c.domain);
    const b = browser();
    const callback = await b.toCallback(await start(b, { providerId: c.providerId }));
    const stateCookie = b.jar.get("app.sso_state")!;
    expect((await b.land(callback)).pathname).toBe("/dashboard");
    // The same answer again, from a browser holding the very state cookie it started with.
    const replay = browser();
    replay.jar.set("app.sso_state", stateCookie);
    expect((await replay.land(callback)).searchParams.get("error")).toBe("state_mismatch");
    expect(await replay.session()).toBeNull();
  });

  it("a callback carried to another browser with state_mismatch, and leaves the flow unusable", async () => {
    const c = await connection();
    employee(c.domain);
    const starter = browser();
    const callback = await starter.toCallback(await start(starter, { providerId: c.providerId }));
    const victim = browser();
    expect((await victim.land(callback)).searchParams.get("error")).toBe("state_mismatch");
    expect(await victim.session()).toBeNull();
    expect((await starter.land(callback)).searchParams.get("error")).toBe("state_mismatch");
  });

  it("a state started for another connection", async () => {
    const c = await connection();
    const other = await connection();
    employee(c.domain);
    const b = browser();
    const callback = await b.toCallback(await start(b, { providerId: c.providerId }));
    const foreign = callback.replace(`${SSO_CALLBACK_PATH}${c.providerId}`, `${SSO_CALLBACK_PATH}${other.providerId}`);
    expect((await b.land(foreign)).searchParams.get("error")).toBe("state_mismatch");
  });

  for (const [check, claims] of [
    ["nonce", { nonce: "not-the-nonce-we-sent" }],
    ["audience", { aud: "someone-elses-client" }],
    ["issuer", { iss: "https://other-issuer.example" }],
  ] as const) {
    it(`an ID token whose ${check} is wrong`, async () => {
      const c = await connection();
      const person = employee(c.domain);
      standIn.tamperNextIdToken(claims);
      const b = browser();
      const landed = await ssoSignIn(b, c);
      expect(landed.searchParams.get("error")).toBe("invalid_provider");
      expect(landed.searchParams.get("error_description")).toBe("token_not_verified");
      expect(await b.session()).toBeNull();
      expect(await app.prisma.user.count({ where: { email: person.email } })).toBe(0);
      const [refused] = await ssoAudit(c.providerId, "failure");
      expect(refused?.details).toMatchObject({ reason: "invalid_provider", detail: `token_not_verified: ${check}` });
    });
  }

  it("an ID token from an issuer the connection does not name", async () => {
    const c = await connection({ issuer: "https://login.corp.example" });
    employee(c.domain);
    const landed = await ssoSignIn(browser(), c);
    expect(landed.searchParams.get("error")).toBe("invalid_provider");
  });
});

// ---- enforced single sign-on ----

describe("enforced single sign-on", () => {
  const passwordSignIn = (email: string) =>
    fetch(`${app.base}/api/auth/sign-in/email`, {
      method: "POST",
      headers: { "Content-Type": "application/json", Origin: app.base },
      body: JSON.stringify({ email, password: PASSWORD }),
    });

  it("refuses a password sign-in with SSO_REQUIRED for a verified enforced domain, and only there", async () => {
    const enforced = await connection({ verified: true, required: true });
    const unverified = await connection({ required: true });
    const optional = await connection({ verified: true });
    const refused = await createUser({ email: `pw.${Date.now()}@${enforced.domain}` });
    const response = await passwordSignIn(refused.email);
    expect(response.status).toBe(403);
    expect(await response.json()).toMatchObject({ code: "SSO_REQUIRED", email: refused.email });
    expect(response.headers.getSetCookie().some((line) => line.startsWith("app.session_token="))).toBe(false);
    const audited = await app.prisma.auditLog.findFirst({
      where: { userId: refused.id, category: "auth", action: "sign-in", status: "failure" },
    });
    expect(JSON.parse(audited!.details!)).toMatchObject({ method: "email", reason: "SSO_REQUIRED" });

    for (const c of [unverified, optional]) {
      const allowed = await createUser({ email: `pw.${Date.now()}@${c.domain}` });
      expect((await passwordSignIn(allowed.email)).status, c.domain).toBe(200);
    }
  });

  it("refuses a social sign-in of such an email and sends it to single sign-on, filled in", async () => {
    const c = await connection({ verified: true, required: true });
    const user = await createUser({ email: `social.${Date.now()}@${c.domain}` });
    standIn.setUser({ sub: `google-${Date.now()}`, email: user.email, email_verified: true, name: "Grace" });
    const b = browser();
    const started = await b.api("/sign-in/social", {
      provider: "google",
      callbackURL: "/dashboard",
      errorCallbackURL: "/signin",
    });
    const { url } = (await started.json()) as { url: string };
    const landed = await b.land(await b.toCallback(url));
    expect(landed.pathname).toBe("/signin");
    expect(landed.searchParams.get("error")).toBe("sso_required");
    expect(landed.searchParams.get("email")).toBe(user.email);
    expect(await b.session()).toBeNull();
    // The sign-in page passes it on to the single sign-on page, which says why.
    const page = await b.request(landed.href);
    expect(page.status).toBe(302);
    const sso = new URL(page.headers.get("location")!, app.base);
    expect(sso.pathname).toBe("/signin/sso");
    expect(sso.searchParams.get("email")).toBe(user.email);
    const html = await (await b.request(sso.href)).text();
    expect(html).toContain('data-testid="sso-required"');
    expect(html).toContain(`value="${user.email}"`);
  });

  it("refuses a passkey sign-in of such an email", async () => {
    const c = await connection({ verified: true });
    const user = await createUser({ email: `passkey.${Date.now()}@${c.domain}` });
    const owner = await signInWithPassword(makeTestClient(app.base), user.email);
    const authenticator = softwareAuthenticator(app.base);
    const options = await owner.client.$fetch("/passkey/generate-register-options", { method: "GET" });
    const registered = await owner.client.$fetch("/passkey/verify-registration", {
      method: "POST",
      body: { response: authenticator.register(options.data as never) },
    });
    expect(registered.error).toBeNull();
    await app.prisma.organization.update({ where: { id: c.organization.id }, data: { ssoRequired: true } });

    const stranger = makeTestClient(app.base);
    const challenge = await stranger.client.$fetch("/passkey/generate-authenticate-options", { method: "GET" });
    const answer = await stranger.client.$fetch("/passkey/verify-authentication", {
      method: "POST",
      body: { response: authenticator.authenticate(challenge.data as never) },
    });
    expect(answer.error).toMatchObject({ status: 403, code: "SSO_REQUIRED", email: user.email });
    expect(stranger.jar.has("app.session_token")).toBe(false);
  });

  it("lets no other organization's single sign-on through, though it was linked to the account", async () => {
    const enforced = await connection({ verified: true, required: true });
    const elsewhere = await connection({ verified: true });
    const user = await createUser({ email: `linked.${Date.now()}@${enforced.domain}` });
    // The user linked their account to another organization's identity provider (under another address, say).
    const person = employee(elsewhere.domain, { email: `linked.${Date.now()}@${elsewhere.domain}` });
    await app.prisma.account.create({
      data: { providerId: elsewhere.providerId, accountId: person.sub, userId: user.id },
    });
    const b = browser();
    const landed = await ssoSignIn(b, elsewhere, { errorCallbackURL: "/signin" });
    expect(landed.searchParams.get("error")).toBe("sso_required");
    expect(landed.searchParams.get("email")).toBe(user.email);
    expect(await b.session()).toBeNull();
    const audited = await app.prisma.auditLog.findFirst({
      where: { userId: user.id, category: "auth", action: "sign-in", status: "failure" },
    });
    expect(JSON.parse(audited!.details!)).toMatchObject({ reason: "SSO_REQUIRED" });
  });

  it("lets the organization's own single sign-on through", async () => {
    const c = await connection({ verified: true, required: true });
    const user = await createUser({ email: `own.${Date.now()}@${c.domain}` });
    employee(c.domain, { email: user.email });
    const b = browser();
    expect((await ssoSignIn(b, c)).pathname).toBe("/dashboard");
    expect((await b.session())?.user.id).toBe(user.id);
  });

  it("ends, once required, every session and personal key that did not come through the organization's own sign-on", async () => {
    const c = await connection({ verified: true });
    const elsewhere = await connection({ verified: true });
    const owner = await createUser({ email: `owner.${Date.now()}@owners.example` });
    await app.prisma.member.create({ data: { organizationId: c.organization.id, userId: owner.id, role: "owner" } });
    // Signed in with a password, holding a personal key and a key of the organization.
    const byPassword = await createUser({ email: `pw-session.${Date.now()}@${c.domain}` });
    await app.prisma.member.create({
      data: { organizationId: c.organization.id, userId: byPassword.id, role: "admin" },
    });
    const passwordClient = await signInWithPassword(makeTestClient(app.base), byPassword.email);
    const key = async (body: Record<string, unknown>) => {
      const made = await passwordClient.client.$fetch<{ key: string }>("/api-key/create", { method: "POST", body });
      expect(made.error).toBeNull();
      return made.data!.key;
    };
    const personalKey = await key({ name: "laptop" });
    const organizationKey = await key({ name: "automation", configId: "org", organizationId: c.organization.id });
    // Signed in through the organization's own connection, and through another organization's.
    const throughOwn = browser();
    employee(c.domain);
    expect((await ssoSignIn(throughOwn, c)).pathname).toBe("/dashboard");
    const throughOther = browser();
    const linked = employee(elsewhere.domain);
    expect((await ssoSignIn(throughOther, elsewhere)).pathname).toBe("/dashboard");
    await app.prisma.user.update({
      where: { email: linked.email },
      data: { email: `moved.${Date.now()}@${c.domain}` },
    });
    // Someone outside the domain, signed in with a password.
    const outsider = await createUser({ email: `outsider.${Date.now()}@elsewhere.example` });
    const outsiderClient = await signInWithPassword(makeTestClient(app.base), outsider.email);
    const keyAnswers = async (value: string) =>
      (await fetch(`${app.base}/api/auth/get-session`, { headers: { "x-api-key": value } })).status;
    expect(await keyAnswers(personalKey)).toBe(200);
    expect(await keyAnswers(organizationKey)).toBe(200);

    const ownerBrowser = await browserFor(app, owner);
    const page = `/organizations/${c.organization.slug}/sso`;
    const required = await ownerBrowser.post(page, { intent: "set-sso-required", required: "true" });
    expect(required.status).toBe(302);

    expect((await passwordClient.client.getSession()).data).toBeNull();
    expect(await throughOther.session()).toBeNull();
    expect(await keyAnswers(personalKey)).toBe(401);
    // The organization's key acts for the organization, not as its author's sign-in.
    expect(await keyAnswers(organizationKey)).toBe(200);
    expect((await throughOwn.session())?.user.email).toContain(`@${c.domain}`);
    expect((await outsiderClient.client.getSession()).data?.user.id).toBe(outsider.id);
    expect((await ownerBrowser.get("/dashboard")).status).toBe(200);
    const audited = await app.prisma.auditLog.findFirstOrThrow({
      where: { organizationId: c.organization.id, action: "require-sso" },
    });
    expect(JSON.parse(audited.details!)).toEqual({ required: true, endedSessions: 2, deletedApiKeys: 1 });

    // A key made through the organization's sign-on survives the form sent again.
    const made = await throughOwn.api("/api-key/create", { name: "after" });
    expect(made.status).toBe(200);
    const { key: laterKey } = (await made.json()) as { key: string };
    expect((await ownerBrowser.post(page, { intent: "set-sso-required", required: "true" })).status).toBe(302);
    expect(await keyAnswers(laterKey)).toBe(200);
    expect((await throughOwn.session())?.user.email).toContain(`@${c.domain}`);
  });

  it("ends the other sessions and personal keys of an account whose email moves onto an enforced domain", async () => {
    const c = await connection({ verified: true, required: true });
    const user = await createUser({ email: `moving.${Date.now()}@elsewhere.example` });
    const signedIn = await signInWithPassword(makeTestClient(app.base), user.email);
    const made = await signedIn.client.$fetch<{ key: string }>("/api-key/create", {
      method: "POST",
      body: { name: "laptop" },
    });
    const admin = await createUser({ role: "admin" });
    const adminClient = await signInWithPassword(makeTestClient(app.base), admin.email);
    const moved = await adminClient.client.admin.updateUser({
      userId: user.id,
      data: { email: `moved.${Date.now()}@${c.domain}` },
    });
    expect(moved.error).toBeNull();
    expect((await signedIn.client.getSession()).data).toBeNull();
    const keyAnswer = await fetch(`${app.base}/api/auth/get-session`, { headers: { "x-api-key": made.data!.key } });
    expect(keyAnswer.status).toBe(401);
    expect((await adminClient.client.getSession()).data?.user.id).toBe(admin.id);
  });

  it("lets an admin impersonate such a user", async () => {
    const c = await connection({ verified: true, required: true });
    const user = await createUser({ email: `target.${Date.now()}@${c.domain}` });
    const admin = await createUser({ role: "admin" });
    const adminClient = await signInWithPassword(makeTestClient(app.base), admin.email);
    const { data, error } = await adminClient.client.admin.impersonateUser({ userId: user.id });
    expect(error).toBeNull();
    expect(data!.session).toMatchObject({ userId: user.id, impersonatedBy: admin.id });
  });

  it("sends the sign-in page's password form on to single sign-on with the email filled in", async () => {
    const c = await connection({ verified: true, required: true });
    const user = await createUser({ email: `form.${Date.now()}@${c.domain}` });
    const response = await fetch(`${app.base}/fr/signin?redirect=%2Fprofile`, {
      method: "POST",
      redirect: "manual",
      headers: { "Content-Type": "application/x-www-form-urlencoded", Origin: app.base, "User-Agent": BROWSER_UA },
      body: new URLSearchParams({ intent: "sign-in", email: user.email, password: PASSWORD }),
    });
    expect(response.status).toBe(302);
    const target = new URL(response.headers.get("location")!, app.base);
    expect(target.pathname).toBe("/fr/signin/sso");
    expect(Object.fromEntries(target.searchParams)).toEqual({
      error: "sso_required",
      email: user.email,
      redirect: "/profile",
    });
    expect(response.headers.getSetCookie().some((line) => line.startsWith("app.session_token="))).toBe(false);
  });
});

// ---- the page ----

describe("the single sign-on page", () => {
  const post = (path: string, identifier: string, jar?: Map<string, string>) =>
    fetch(`${app.base}${path}`, {
      method: "POST",
      redirect: "manual",
      headers: {
        "Content-Type": "application/x-www-form-urlencoded",
        Origin: app.base,
        "User-Agent": BROWSER_UA,
        ...(jar && { Cookie: [...jar].map(([k, v]) => `${k}=${v}`).join("; ") }),
      },
      body: new URLSearchParams({ intent: "sso", identifier }),
    });

  it("sends a work email, a domain or a slug to the provider with a plain form post", async () => {
    const c = await connection();
    for (const identifier of [`ada@${c.domain}`, c.domain, c.organization.slug]) {
      const response = await post("/ja/signin/sso?redirect=%2Fprofile", identifier);
      expect(response.status, identifier).toBe(302);
      const url = new URL(response.headers.get("location")!);
      expect(url.origin, identifier).toBe(standIn.issuer);
      expect(url.searchParams.get("client_id")).toBe(`${c.providerId}-client`);
      expect(response.headers.getSetCookie().some((line) => line.startsWith("app.sso_state="))).toBe(true);
      const state = url.searchParams.get("state")!;
      const row = await app.prisma.verification.findFirstOrThrow({
        where: { identifier: `sso-state:${sha256(state)}` },
      });
      expect(JSON.parse(row.value)).toMatchObject({
        callbackURL: "/profile",
        errorURL: "/ja/signin/sso?redirect=%2Fprofile",
      });
    }
  });

  it("says in the page's language when nothing serves the address", async () => {
    const response = await post("/fr/signin/sso", "ada@nobody-here.example");
    expect(response.status).toBe(404);
    expect(await response.text()).toContain("Aucune authentification unique n’est configurée");
  });

  it("explains a failed callback in the page's language", async () => {
    const response = await fetch(`${app.base}/zh-CN/signin/sso?error=state_mismatch`, {
      headers: { "User-Agent": BROWSER_UA },
    });
    expect(await response.text()).toContain("此登录已过期");
  });

  it("lands a new employee in the organization after the provider, without JavaScript", async () => {
    const c = await connection({ verified: true });
    const person = employee(c.domain);
    const b = browser();
    const response = await post("/signin/sso", person.email!);
    applySetCookies(b.jar, response.headers.getSetCookie());
    const landed = await b.land(await b.toCallback(response.headers.get("location")!));
    expect(landed.href).toBe(`${app.base}/dashboard`);
    const html = await (await b.request(landed.href)).text();
    expect(html).toContain(`Org of ${c.providerId}`);
  });
});

// ---- SAML: the Assertion Consumer Service ----

describe("SAML sign-in through POST /sso/saml2/sp/acs/:providerId", () => {
  /** An organization with a SAML connection to the stand-in, for a domain of its own. */
  async function samlConnection(options: { verified?: boolean } = {}): Promise<Connection> {
    const providerId = unique("saml");
    const domain = `${unique("samlcorp")}.example`;
    const organization = await createOrganization({ name: `Org of ${providerId}` });
    await app.prisma.ssoProvider.create({
      data: {
        providerId,
        issuer: samlIdp.entityId,
        domain,
        organizationId: organization.id,
        samlConfig: JSON.stringify({
          entryPoint: samlIdp.ssoUrl,
          certs: [samlIdp.cert],
          idpEntityId: samlIdp.entityId,
        }),
        domains: { create: { domain, token: `token-${providerId}`, verifiedAt: options.verified ? new Date() : null } },
      },
    });
    return { providerId, domain, organization };
  }

  function samlEmployee(domain: string) {
    people += 1;
    const email = `saml${people}.${Date.now()}@${domain}`;
    samlIdp.setUser({ nameId: email, attributes: { email, givenName: "Grace", surname: "Hopper" } });
    return email;
  }

  /** The IdP's form post, sent by the browser from the IdP's page (a cross-site POST). */
  const postToAcs = (b: Browser, post: SamlPost) =>
    b.request(post.action, {
      method: "POST",
      headers: { "Content-Type": "application/x-www-form-urlencoded", Origin: samlIdp.origin },
      body: formBody(post),
    });

  it("goes to the IdP with a deflated AuthnRequest and a RelayState kept in the database, and signs the answer in", async () => {
    const c = await samlConnection({ verified: true });
    const email = samlEmployee(c.domain);
    const b = browser();
    const started = await b.api("/sign-in/sso", {
      email: `someone@${c.domain}`,
      callbackURL: "/dashboard",
      newUserCallbackURL: "/welcome",
    });
    expect(started.status).toBe(200);
    const { url } = (await started.json()) as { url: string };
    expect(`${new URL(url).origin}${new URL(url).pathname}`).toBe(samlIdp.ssoUrl);
    const relayState = new URL(url).searchParams.get("RelayState")!;
    expect(relayState).toMatch(/^[A-Za-z0-9]{32}$/);
    await app.prisma.verification.findFirstOrThrow({ where: { identifier: `sso-relay:${sha256(relayState)}` } });
    // The browser holds the RelayState too: the IdP's cross-site post brings no SameSite=Lax
    // cookie, but the GET the ACS sends the browser on to does.
    expect(started.headers.getSetCookie().some((line) => line.startsWith("app.sso_state="))).toBe(true);

    const post = await samlIdp.answer(url);
    expect(post.action).toBe(`${app.base}/api/auth/sso/saml2/sp/acs/${c.providerId}`);
    const response = await postToAcs(b, post);
    expect(response.status).toBe(302);
    const onward = new URL(response.headers.get("location")!);
    expect(`${onward.origin}${onward.pathname}`).toBe(`${app.base}/api/auth/sso/saml2/sp/finish/${c.providerId}`);
    expect(response.headers.getSetCookie().some((line) => line.startsWith("app.session_token="))).toBe(false);
    const finished = await b.request(onward.href);
    expect(finished.status).toBe(302);
    expect(finished.headers.get("location")).toBe(`${app.base}/welcome`);
    const signedIn = await b.session();
    expect(signedIn?.user).toMatchObject({ email, emailVerified: true, name: "Grace Hopper" });
    expect(signedIn?.session.activeOrganizationId).toBe(c.organization.id);
    expect(
      await app.prisma.member.count({ where: { userId: signedIn!.user.id, organizationId: c.organization.id } }),
    ).toBe(1);
    expect(
      await app.prisma.account.count({
        where: { userId: signedIn!.user.id, providerId: c.providerId, accountId: email },
      }),
    ).toBe(1);

    // The same response again: its request was answered, its RelayState spent.
    const replayed = await postToAcs(browser(), post);
    const replayedTo = new URL(replayed.headers.get("location")!);
    expect(replayedTo.pathname).toBe("/api/auth/error");
    expect(replayedTo.searchParams.get("error")).toBe("invalid_saml_response");
  });

  it("completes only in the browser that started it: a response forged into another browser signs no one in", async () => {
    const c = await samlConnection({ verified: true });
    samlEmployee(c.domain);
    // Someone starts a sign-in of their own account and stops at the IdP's answer…
    const attacker = browser();
    const post = await samlIdp.answer(await start(attacker, { providerId: c.providerId }));
    // …then has a victim's browser post it (an auto-submitting form on a page of theirs).
    const victim = browser();
    const accepted = await postToAcs(victim, post);
    expect(accepted.status).toBe(302);
    const onward = accepted.headers.get("location")!;
    const refused = await victim.request(onward);
    const landed = new URL(refused.headers.get("location")!);
    expect(landed.pathname).toBe("/api/auth/error");
    expect(landed.searchParams.get("error")).toBe("state_mismatch");
    expect(await victim.session()).toBeNull();
    // The handoff is spent: the attacker's own browser cannot use it afterwards either.
    const late = await attacker.request(onward);
    expect(new URL(late.headers.get("location")!).searchParams.get("error")).toBe("state_mismatch");
    expect(await attacker.session()).toBeNull();
    const [audited] = await ssoAudit(c.providerId, "failure");
    expect(audited?.details).toMatchObject({ reason: "state_mismatch", detail: "saml_browser" });
  });

  it("refuses an unsigned response with invalid_saml_response, on the flow's error page", async () => {
    const c = await samlConnection();
    samlEmployee(c.domain);
    const b = browser();
    const url = await start(b, { providerId: c.providerId });
    const post = await samlIdp.answer(url);
    const response = await postToAcs(b, { ...post, SAMLResponse: stripSignatures(post.SAMLResponse) });
    const landed = new URL(response.headers.get("location")!);
    expect(landed.pathname).toBe("/signin/sso");
    expect(landed.searchParams.get("error")).toBe("invalid_saml_response");
    expect(await b.session()).toBeNull();
    const [refused] = await ssoAudit(c.providerId, "failure");
    expect(refused?.details).toMatchObject({ reason: "invalid_saml_response", detail: "unsigned" });
  });

  it("refuses an unsolicited response with unsolicited_response", async () => {
    const c = await samlConnection();
    samlEmployee(c.domain);
    const url = await start(browser(), { providerId: c.providerId });
    const post = await samlIdp.answer(url, { inResponseTo: null });
    const response = await postToAcs(browser(), { ...post, RelayState: null });
    const landed = new URL(response.headers.get("location")!);
    expect(landed.pathname).toBe("/api/auth/error");
    expect(landed.searchParams.get("error")).toBe("unsolicited_response");
  });

  it("refuses a solicited response without the RelayState of a sign-in started here", async () => {
    const c = await samlConnection();
    samlEmployee(c.domain);
    const url = await start(browser(), { providerId: c.providerId });
    const post = await samlIdp.answer(url);
    const b = browser();
    const response = await postToAcs(b, { ...post, RelayState: "made-up-relay-state" });
    expect(new URL(response.headers.get("location")!).searchParams.get("error")).toBe("unsolicited_response");
    expect(await b.session()).toBeNull();
  });

  it("answers the IdP's post even with cookies and a foreign origin, and refuses an OIDC connection with saml_error", async () => {
    const c = await connection();
    const response = await fetch(`${app.base}/api/auth/sso/saml2/sp/acs/${c.providerId}`, {
      method: "POST",
      redirect: "manual",
      headers: {
        "Content-Type": "application/x-www-form-urlencoded",
        Origin: "https://idp.example",
        Cookie: "app.theme=dark",
      },
      body: new URLSearchParams({ SAMLResponse: "PHNhbWxwOlJlc3BvbnNlLz4=", RelayState: "unknown" }),
    });
    expect(response.status).toBe(302);
    const landed = new URL(response.headers.get("location")!);
    expect(landed.pathname).toBe("/api/auth/error");
    expect(landed.searchParams.get("error")).toBe("saml_error");
  });

  it("answers a post without SAMLResponse with 400", async () => {
    const c = await samlConnection();
    const response = await fetch(`${app.base}/api/auth/sso/saml2/sp/acs/${c.providerId}`, {
      method: "POST",
      headers: { "Content-Type": "application/x-www-form-urlencoded" },
      body: new URLSearchParams({ RelayState: "x" }),
    });
    expect(response.status).toBe(400);
    expect(await response.json()).toMatchObject({ code: "VALIDATION_ERROR" });
  });
});
