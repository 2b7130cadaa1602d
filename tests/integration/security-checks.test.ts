/**
 * The production-readiness security checks, each over the whole product rather than one flow:
 * a new session token at every sign-in and privilege change; cookie flags in production over
 * https; the CSP nonce on every script of every page and no inline event handlers; no secret
 * or token in the server's logs or in API answers; admin pages and APIs refuse everyone else
 * on every route; rate limits on every endpoint that takes a credential. Against the built
 * server; SQLite, or PostgreSQL with TEST_DATABASE_URL.
 */
import { readFileSync } from "node:fs";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { secretOfURI, stepAt, totp } from "../support/totp";
import { startTestApp, type TestApp } from "./helpers/app";
import { applySetCookies, makeTestClient } from "./helpers/auth-client";
import { signedInBrowser } from "./helpers/browser";
import { createUser, PASSWORD, unique } from "./helpers/factories";
import { BROWSER_UA } from "./helpers/http";
import { startServer } from "./helpers/server";

const SECRET = "security-checks-secret-0123456789abcdefghij";
const SESSION_COOKIE = "app.session_token";

let app: TestApp;

beforeAll(async () => {
  app = await startTestApp({ secret: SECRET });
}, 60_000);

afterAll(async () => {
  await app?.stop();
});

const client = () => makeTestClient(app.base, { headers: { "user-agent": BROWSER_UA } });

/** The signed token of a session cookie value (`token.signature`, URL-encoded). */
const tokenOf = (cookie: string | undefined) => decodeURIComponent(cookie ?? "").split(".")[0]!;

describe("a new session token at sign-in and at every privilege change", () => {
  it("never keeps a token the browser brought to sign-in (no fixation)", async () => {
    const attacker = await createUser({ name: "attacker" });
    const victim = await createUser({ name: "victim" });
    const browser = client();
    expect((await browser.client.signIn.email({ email: attacker.email, password: PASSWORD })).error).toBeNull();
    const planted = browser.jar.get(SESSION_COOKIE)!;

    expect((await browser.client.signIn.email({ email: victim.email, password: PASSWORD })).error).toBeNull();
    expect(tokenOf(browser.jar.get(SESSION_COOKIE))).not.toBe(tokenOf(planted));
    // The planted token still names the attacker's own session, never the victim's.
    const replay = await fetch(`${app.base}/api/auth/get-session?disableCookieCache=true`, {
      headers: { cookie: `${SESSION_COOKIE}=${planted}` },
    });
    expect(((await replay.json()) as { user: { id: string } }).user.id).toBe(attacker.id);
  });

  it("replaces the token when two-factor is switched on and off, and when an admin impersonates", async () => {
    const user = await createUser({ name: "privilege" });
    const browser = client();
    await browser.client.signIn.email({ email: user.email, password: PASSWORD });
    const tokens = [tokenOf(browser.jar.get(SESSION_COOKIE))];
    const enabled = await browser.client.twoFactor.enable({ password: PASSWORD });
    const secret = secretOfURI((enabled.data as { totpURI: string }).totpURI);
    expect((await browser.client.twoFactor.verifyTotp({ code: totp(secret, stepAt()) })).error).toBeNull();
    tokens.push(tokenOf(browser.jar.get(SESSION_COOKIE)));
    expect((await browser.client.twoFactor.disable({ password: PASSWORD })).error).toBeNull();
    tokens.push(tokenOf(browser.jar.get(SESSION_COOKIE)));
    expect(new Set(tokens).size).toBe(3);

    const admin = await createUser({ name: "admin", role: "admin" });
    const console = client();
    await console.client.signIn.email({ email: admin.email, password: PASSWORD });
    const own = tokenOf(console.jar.get(SESSION_COOKIE));
    expect((await console.client.admin.impersonateUser({ userId: user.id })).error).toBeNull();
    const impersonating = tokenOf(console.jar.get(SESSION_COOKIE));
    expect(impersonating).not.toBe(own);
    expect(tokens).not.toContain(impersonating);
  });
});

describe("cookies in production over https", () => {
  it("are __Secure-, Secure, HttpOnly and SameSite=Lax", async () => {
    const base = "https://app.example.test";
    // A production instance on the same database (its users are this file's users).
    const server = await startServer({
      NODE_ENV: "production",
      DATABASE_URL: app.db.url,
      BASE_URL: base,
      AUTH_SECRET: SECRET,
      SMTP_URL: "smtp://127.0.0.1:9",
      STRIPE_SECRET_KEY: "sk_test_checks",
      STRIPE_WEBHOOK_SECRET: "whsec_checks",
      STRIPE_API_BASE_URL: "http://127.0.0.1:9",
      STRIPE_PRICE_PRO_MONTHLY: "price_a",
      STRIPE_PRICE_PRO_YEARLY: "price_b",
      STRIPE_PRICE_TEAM_MONTHLY: "price_c",
      STRIPE_PRICE_TEAM_YEARLY: "price_d",
    });
    try {
      const { email } = await createUser({ name: "https" });
      const signIn = await fetch(`${server.url}/api/auth/sign-in/email`, {
        method: "POST",
        headers: { "content-type": "application/json", origin: base },
        body: JSON.stringify({ email, password: PASSWORD }),
      });
      expect(signIn.status).toBe(200);
      const lines = signIn.headers.getSetCookie();
      const names = lines.map((line) => line.slice(0, line.indexOf("=")));
      expect(names).toEqual(expect.arrayContaining(["__Secure-app.session_token", "__Secure-app.session_data"]));
      for (const line of lines) {
        expect(line, line).toMatch(/^__Secure-/);
        expect(line, line).toMatch(/;\s*Secure/i);
        expect(line, line).toMatch(/;\s*HttpOnly/i);
        expect(line, line).toMatch(/;\s*SameSite=Lax/i);
        expect(line, line).toMatch(/;\s*Path=\//i);
      }
      const page = await fetch(`${server.url}/`, { headers: { "user-agent": BROWSER_UA } });
      expect(page.headers.get("strict-transport-security")).toMatch(/max-age=\d+/);
    } finally {
      await server.stop();
    }
  });
});

/** Every page module of app/routes.ts (a .tsx with a component), so a new page cannot be missed. */
function pageModules(): string[] {
  const table = readFileSync(new URL("../../app/routes.ts", import.meta.url), "utf8");
  return [...table.matchAll(/"(routes\/[^"]+\.tsx)"/g)]
    .map((m) => m[1]!)
    .filter((file) => !file.startsWith("routes/layouts/") && file !== "routes/profile/passkeys.tsx");
}

describe("the CSP nonce on every script, and no inline event handlers", () => {
  it("holds on every page, as a guest, a user and an admin", async () => {
    const admin = await signedInBrowser(app, { role: "admin", name: "Admin Checks" });
    const member = await signedInBrowser(app, { name: "Member Checks" });
    const adminClient = makeTestClient(app.base);
    applySetCookies(
      adminClient.jar,
      [...admin.jar].map(([name, value]) => `${name}=${value}`),
    );
    const organization = await adminClient.client.organization.create({
      name: "Checks Inc",
      slug: unique("checks"),
    });
    expect(organization.error).toBeNull();
    const orgId = organization.data!.id;
    const slug = organization.data!.slug;
    await app.prisma.member.create({ data: { organizationId: orgId, userId: member.id, role: "member" } });
    const memberRow = await app.prisma.member.findFirstOrThrow({ where: { organizationId: orgId, userId: member.id } });
    const team = await app.prisma.team.create({ data: { name: "Crew", organizationId: orgId } });
    const invitation = await app.prisma.invitation.create({
      data: {
        organizationId: orgId,
        email: "invitee@example.com",
        role: "member",
        inviterId: admin.id,
        expiresAt: new Date(Date.now() + 86_400_000),
      },
    });

    const role = await app.prisma.organizationRole.create({
      data: { organizationId: orgId, role: "checker", permission: JSON.stringify({ team: ["create"] }) },
    });
    const provider = await app.prisma.ssoProvider.create({
      data: {
        providerId: unique("checks-idp"),
        issuer: "https://idp.example.com",
        domain: "checks.example.com",
        organizationId: orgId,
        samlConfig: JSON.stringify({ entryPoint: "https://idp.example.com/sso", certs: ["not a certificate"] }),
        domains: { create: { domain: "checks.example.com", token: "checks-token" } },
      },
    });

    // A sign-in waiting for its second step, for /signin/two-factor.
    const twoFactorUser = await createUser({ name: "pending-page" });
    await app.prisma.twoFactor.create({ data: { userId: twoFactorUser.id, verified: true } });
    await app.prisma.user.update({ where: { id: twoFactorUser.id }, data: { twoFactorEnabled: true } });
    const pending = makeTestClient(app.base);
    expect((await pending.client.signIn.email({ email: twoFactorUser.email, password: PASSWORD })).data).toMatchObject({
      twoFactorRedirect: true,
    });

    // [who, path, page module]
    const pages: ["guest" | "admin" | "pending", string, string][] = [
      ["pending", "/ja/signin/two-factor", "routes/signin-two-factor.tsx"],
      ["guest", "/", "routes/home.tsx"],
      ["guest", "/ja/pricing", "routes/pricing.tsx"],
      ["guest", "/403", "routes/forbidden.tsx"],
      ["guest", "/verify-email", "routes/verify-email.tsx"],
      ["guest", `/invitations/${invitation.id}`, "routes/invitations/invitation.tsx"],
      ["guest", "/fr/signin", "routes/signin.tsx"],
      ["guest", "/signin/sso?error=sso_required&email=a%40b.example", "routes/signin-sso.tsx"],
      ["guest", "/signup", "routes/signup.tsx"],
      ["guest", "/forgot-password", "routes/forgot-password.tsx"],
      ["guest", "/reset-password?token=nope", "routes/reset-password.tsx"],
      ["guest", "/no-such-page", "routes/not-found.tsx"],
      ["admin", "/profile", "routes/profile/layout.tsx"],
      ["admin", "/profile", "routes/profile/index.tsx"],
      ["admin", "/profile/email", "routes/profile/email.tsx"],
      ["admin", "/profile/security", "routes/profile/security.tsx"],
      ["admin", "/profile/sessions", "routes/profile/sessions.tsx"],
      ["admin", "/profile/data", "routes/profile/data.tsx"],
      ["admin", "/fr/profile/api-keys", "routes/profile/api-keys.tsx"],
      ["admin", "/profile/two-factor", "routes/profile/two-factor.tsx"],
      ["admin", "/dashboard", "routes/dashboard.tsx"],
      ["admin", "/billing", "routes/billing/billing.tsx"],
      ["admin", "/billing/success", "routes/billing/success.tsx"],
      ["admin", "/checkout?plan=pro", "routes/billing/checkout.tsx"],
      ["admin", "/organizations", "routes/organizations/organizations.tsx"],
      ["admin", "/organizations/new", "routes/organizations/new-organization.tsx"],
      ["admin", `/organizations/${slug}`, "routes/organizations/workspace/layout.tsx"],
      ["admin", `/organizations/${slug}`, "routes/organizations/workspace/overview.tsx"],
      ["admin", `/organizations/${slug}/members`, "routes/organizations/workspace/members.tsx"],
      ["admin", `/organizations/${slug}/invitations`, "routes/organizations/workspace/invitations.tsx"],
      ["admin", `/organizations/${slug}/teams`, "routes/organizations/workspace/teams.tsx"],
      ["admin", `/organizations/${slug}/settings`, "routes/organizations/workspace/settings.tsx"],
      ["admin", `/organizations/${slug}/billing`, "routes/organizations/workspace/billing.tsx"],
      ["admin", `/organizations/${slug}/sso`, "routes/organizations/workspace/sso.tsx"],
      ["admin", `/fr/organizations/${slug}/sso/new?kind=saml`, "routes/organizations/workspace/sso-new.tsx"],
      [
        "admin",
        `/organizations/${slug}/sso/${provider.providerId}`,
        "routes/organizations/workspace/sso-connection.tsx",
      ],
      [
        "admin",
        `/ja/organizations/${slug}/sso/${provider.providerId}/remove`,
        "routes/organizations/workspace/sso-remove.tsx",
      ],
      [
        "admin",
        `/zh-CN/organizations/${slug}/sso/${provider.providerId}/scim`,
        "routes/organizations/workspace/sso-scim.tsx",
      ],
      [
        "admin",
        `/ja/organizations/${slug}/audit-log?category=organization`,
        "routes/organizations/workspace/audit-log.tsx",
      ],
      ["admin", `/ja/organizations/${slug}/api-keys`, "routes/organizations/workspace/api-keys.tsx"],
      ["admin", `/zh-CN/organizations/${slug}/roles`, "routes/organizations/workspace/roles.tsx"],
      ["admin", `/organizations/${slug}/roles/${role.id}`, "routes/organizations/workspace/role.tsx"],
      ["admin", `/fr/organizations/${slug}/roles/${role.id}/delete`, "routes/organizations/workspace/role-delete.tsx"],
      ["admin", `/organizations/${slug}/members/${memberRow.id}/remove`, "routes/organizations/remove-member.tsx"],
      ["admin", `/organizations/${slug}/teams/${team.id}`, "routes/organizations/team.tsx"],
      ["admin", `/organizations/${slug}/teams/${team.id}/remove`, "routes/organizations/remove-team.tsx"],
      ["admin", `/organizations/${slug}/settings/leave`, "routes/organizations/leave-organization.tsx"],
      ["admin", `/organizations/${slug}/settings/delete`, "routes/organizations/delete-organization.tsx"],
      ["admin", "/admin/dashboard", "routes/admin/dashboard.tsx"],
      ["admin", "/admin/users", "routes/admin/users.tsx"],
      ["admin", "/admin/users/new", "routes/admin/new-user.tsx"],
      ["admin", `/admin/users/${member.id}/ban`, "routes/admin/ban-user.tsx"],
      ["admin", `/admin/users/${member.id}/password`, "routes/admin/user-password.tsx"],
      ["admin", `/admin/users/${member.id}/two-factor`, "routes/admin/reset-two-factor.tsx"],
      ["admin", `/admin/users/${member.id}/delete`, "routes/admin/delete-user.tsx"],
      ["admin", "/admin/subscriptions", "routes/admin/subscriptions.tsx"],
      ["admin", "/admin/maintenance/database", "routes/admin/maintenance/database.tsx"],
      ["admin", "/admin/maintenance/audit-log", "routes/admin/maintenance/audit-log.tsx"],
      ["admin", "/admin/maintenance/migrations", "routes/admin/maintenance/migrations.tsx"],
    ];
    expect(new Set(pages.map(([, , file]) => file))).toEqual(new Set(pageModules()));

    for (const [who, path] of pages) {
      const response =
        who === "admin"
          ? await admin.get(path)
          : await fetch(`${app.base}${path}`, {
              redirect: "manual",
              headers: { "user-agent": BROWSER_UA, ...(who === "pending" && { cookie: pending.cookieHeader() }) },
            });
      // Dialog pages of someone who may not open them still render (403/404 pages are pages too).
      expect(response.headers.get("content-type"), path).toMatch(/text\/html/);
      const csp = response.headers.get("content-security-policy") ?? "";
      const nonce = /script-src[^;]*'nonce-([^']+)'/.exec(csp)?.[1];
      expect(nonce, `${path}: CSP ${csp}`).toBeTruthy();
      expect(csp, path).not.toMatch(/script-src[^;]*'unsafe-inline'/);
      const html = await response.text();
      const scripts = [...html.matchAll(/<script\b[^>]*>/gi)].map((m) => m[0]);
      expect(scripts.length, path).toBeGreaterThan(0);
      for (const tag of scripts) expect(tag, `${path}: ${tag}`).toContain(`nonce="${nonce}"`);
      // No inline handlers (onclick=…) and no javascript: URLs in any tag.
      for (const [tag] of html.matchAll(/<[a-zA-Z][^>]*>/g)) {
        expect(tag, `${path}: ${tag.slice(0, 120)}`).not.toMatch(/\son[a-z]+\s*=/i);
        expect(tag, `${path}: ${tag.slice(0, 120)}`).not.toMatch(/(href|src|action)\s*=\s*["']?\s*javascript:/i);
      }
    }
  });
});

describe("no secret or token in the logs or in API answers", () => {
  it("keeps passwords, tokens, codes and secrets out of both", async () => {
    const logStart = app.server.stdout().length;
    const answers: string[] = [];
    const browser = makeTestClient(app.base, { headers: { "user-agent": BROWSER_UA } });
    const email = `secrets-${Date.now()}@example.com`;
    const password = "a very secret passphrase 1";
    const call = async <T>(run: () => Promise<{ data: T; error: unknown }>) => {
      const result = await run();
      answers.push(JSON.stringify(result.data ?? result.error));
      return result;
    };

    await call(() => browser.client.signUp.email({ name: "Secretive", email, password }));
    const verify = await app.mailbox.waitFor(email, (m) => m.subject === "Verify your email address");
    const verifyLink = verify.links.find((link) => link.includes("/api/auth/verify-email"))!;
    const verifyToken = new URL(verifyLink).searchParams.get("token")!;
    await fetch(verifyLink, { redirect: "manual" });
    await call(() => browser.client.signIn.email({ email, password }));
    const sessionCookie = browser.jar.get(SESSION_COOKIE)!;
    await call(() => browser.client.getSession());
    await call(() => browser.client.listSessions());
    await call(() => browser.client.listAccounts());
    const enabled = await call(() => browser.client.twoFactor.enable({ password }));
    const { totpURI, backupCodes } = enabled.data as { totpURI: string; backupCodes: string[] };
    const secret = secretOfURI(totpURI);
    const code = totp(secret);
    await call(() => browser.client.twoFactor.verifyTotp({ code }));
    await call(() => browser.client.requestPasswordReset({ email, redirectTo: "/reset-password" }));
    const reset = await app.mailbox.waitFor(email, (m) => m.subject === "Reset your password");
    const resetToken = /\/reset-password\/([A-Za-z0-9]+)/.exec(reset.text!)![1]!;

    const pending = makeTestClient(app.base);
    await pending.client.signIn.email({ email, password });
    const pendingCookie = pending.jar.get("app.two_factor")!;
    await call(() => pending.client.twoFactor.sendOtp());
    const otpMail = await app.mailbox.waitFor(email, (m) => m.subject === "Your sign-in code");
    const otp = /\b(\d{6})\b/.exec(otpMail.text!)![1]!;
    await call(() => pending.client.twoFactor.verifyOtp({ code: otp }));
    await call(() => pending.client.getSession());

    const secrets = {
      password,
      verifyToken,
      resetToken,
      session: tokenOf(sessionCookie),
      pending: tokenOf(pendingCookie),
      totpSecret: secret,
      otp,
      backupCode: backupCodes[0]!,
    };
    const logs = app.server.stdout().slice(logStart);
    const everything = answers.join("\n");
    for (const [name, value] of Object.entries(secrets)) {
      expect(logs.includes(value), `${name} in the server log`).toBe(false);
      if (name !== "totpSecret" && name !== "backupCode") {
        // enable answers the URI and the codes once, as better-auth's does; nothing else may.
        expect(everything.includes(value), `${name} in an API answer`).toBe(false);
      }
    }
    const afterEnable = answers.slice(answers.findIndex((a) => a.includes("totpURI")) + 1).join("\n");
    expect(afterEnable.includes(secret)).toBe(false);
    expect(afterEnable.includes(backupCodes[0]!)).toBe(false);
  });
});

describe("admin pages and APIs refuse everyone else, on every route", () => {
  it("sends guests to sign in and users to 403; the API answers 401 and 403", async () => {
    const user = await signedInBrowser(app, { name: "Not An Admin" });
    const adminPages = pageModules().filter((file) => file.startsWith("routes/admin/"));
    const paths = [
      "/admin/dashboard",
      "/admin/users",
      "/admin/users/new",
      `/admin/users/${user.id}/ban`,
      `/admin/users/${user.id}/password`,
      `/admin/users/${user.id}/two-factor`,
      `/admin/users/${user.id}/delete`,
      "/admin/subscriptions",
      "/admin/maintenance/database",
      "/admin/maintenance/audit-log",
      "/admin/maintenance/audit-log.csv",
      "/admin/maintenance/migrations",
    ];
    expect(paths.length - 1).toBe(adminPages.length); // every page, plus the CSV download
    for (const path of paths) {
      const guest = await fetch(`${app.base}${path}`, { redirect: "manual", headers: { "user-agent": BROWSER_UA } });
      expect(guest.status, path).toBe(302);
      expect(guest.headers.get("location"), path).toMatch(/^\/signin\?redirect=/);
      for (const method of ["GET", "POST"] as const) {
        const response =
          method === "GET" ? await user.get(path) : await user.post(path, { intent: "anything", reason: "x" });
        expect([302, 403], `${method} ${path}`).toContain(response.status);
        if (response.status === 302) expect(response.headers.get("location"), path).toBe("/403");
      }
    }
    const userClient = makeTestClient(app.base);
    applySetCookies(
      userClient.jar,
      [...user.jar].map(([name, value]) => `${name}=${value}`),
    );
    // Imported here: the server modules read the test database's address when first loaded.
    const { endpoints: adminEndpoints } = await import("~/server/admin/api.server");
    for (const endpoint of adminEndpoints) {
      const query = endpoint.method === "GET" ? `?${new URLSearchParams({ id: user.id, userId: user.id })}` : "";
      const url = `${app.base}/api/auth${endpoint.path}${query}`;
      const init = (cookie?: string): RequestInit => ({
        method: endpoint.method,
        headers: {
          origin: app.base,
          ...(cookie && { cookie }),
          ...(endpoint.method === "POST" && { "content-type": "application/json" }),
        },
        // One body that every admin call accepts, so the refusal is about who asks, not what.
        ...(endpoint.method === "POST" && {
          body: JSON.stringify({
            userId: user.id,
            email: `made-${Date.now()}@example.com`,
            password: "a fine password",
            newPassword: "a fine password",
            name: "Made Up",
            role: "user",
            data: { name: "Renamed" },
            sessionToken: "x",
            banReason: "x",
            permissions: { user: ["create"] },
          }),
        }),
      });
      const anonymous = await fetch(url, init());
      expect(anonymous.status, `guest ${endpoint.path}`).toBe(401);
      const signedIn = await fetch(url, init(userClient.cookieHeader()));
      if (endpoint.path === "/admin/has-permission") {
        // Anyone may ask; a user is told no.
        expect(await signedIn.json(), endpoint.path).toMatchObject({ success: false });
      } else if (endpoint.path === "/admin/stop-impersonating") {
        // Ending an impersonation needs one; a plain user's session is not.
        expect(signedIn.status, endpoint.path).toBeGreaterThanOrEqual(400);
        expect(signedIn.status, endpoint.path).toBeLessThan(500);
      } else {
        expect(signedIn.status, `user ${endpoint.path}`).toBe(403);
      }
    }
  });
});

describe("rate limits on every endpoint that takes a credential", () => {
  it("answers the fourth try within 10 s with 429 (the mail-sending ones within 60 s)", async () => {
    const limited = await startServer({ DATABASE_URL: app.db.url, AUTH_SECRET: SECRET, RATE_LIMIT: "on" });
    try {
      const credentialCalls: [string, Record<string, unknown>][] = [
        ["/sign-in/email", { email: "nobody@example.com", password: "wrong password" }],
        ["/sign-up/email", { name: "X", email: "someone@example.com", password: "short" }],
        ["/change-password", { currentPassword: "x", newPassword: "y" }],
        ["/change-email", { newEmail: "new@example.com" }],
        ["/delete-user", { password: "x" }],
        ["/reset-password", { token: "guess", newPassword: "a new password" }],
        ["/request-password-reset", { email: "nobody@example.com" }],
        ["/send-verification-email", { email: "nobody@example.com" }],
        ["/two-factor/enable", { password: "x" }],
        ["/two-factor/disable", { password: "x" }],
        ["/two-factor/get-totp-uri", { password: "x" }],
        ["/two-factor/generate-backup-codes", { password: "x" }],
        ["/two-factor/verify-totp", { code: "123456" }],
        ["/two-factor/verify-otp", { code: "123456" }],
        ["/two-factor/verify-backup-code", { code: "aaaaa-bbbbb" }],
        ["/two-factor/send-otp", {}],
        ["/passkey/verify-authentication", { response: {} }],
        ["/passkey/verify-registration", { response: {} }],
      ];
      for (const [path, body] of credentialCalls) {
        const statuses: number[] = [];
        for (let i = 0; i < 4; i++) {
          const response = await fetch(`${limited.url}/api/auth${path}`, {
            method: "POST",
            headers: { "content-type": "application/json", origin: limited.url },
            body: JSON.stringify(body),
          });
          statuses.push(response.status);
          if (response.status === 429) expect(Number(response.headers.get("x-retry-after")), path).toBeGreaterThan(0);
        }
        expect(statuses.slice(0, 3), path).not.toContain(429);
        expect(statuses[3], `${path}: ${statuses.join(", ")}`).toBe(429);
      }
    } finally {
      await limited.stop();
    }
  });
});
