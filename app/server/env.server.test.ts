import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import {
  DEMO_ADMIN,
  formatProblems,
  missingPaymentVariables,
  parseEnv,
  readOrCreateDevSecret,
  type Env,
} from "./env.server";

const SECRET = "s".repeat(32);
const SMTP = "smtp://user:pass@mail.example.com:587";
const STRIPE = {
  STRIPE_SECRET_KEY: "sk_live_123",
  STRIPE_WEBHOOK_SECRET: "whsec_123",
  STRIPE_PRICE_PRO_MONTHLY: "price_pm",
  STRIPE_PRICE_PRO_YEARLY: "price_py",
  STRIPE_PRICE_TEAM_MONTHLY: "price_tm",
  STRIPE_PRICE_TEAM_YEARLY: "price_ty",
};
const POLAR = {
  POLAR_ACCESS_TOKEN: "polar_oat_123",
  POLAR_WEBHOOK_SECRET: "polar_whs_123",
  POLAR_PRODUCT_PRO_MONTHLY: "prod-pm",
  POLAR_PRODUCT_PRO_YEARLY: "prod-py",
  POLAR_PRODUCT_TEAM_MONTHLY: "prod-tm",
  POLAR_PRODUCT_TEAM_YEARLY: "prod-ty",
};

function ok(source: Record<string, string | undefined>): Env {
  const result = parseEnv(source, { devSecret: () => "dev-secret" });
  if (!result.success) throw new Error(formatProblems(result.problems));
  return result.data;
}

function problems(source: Record<string, string | undefined>): string[] {
  const result = parseEnv(source);
  if (result.success) throw new Error("expected the environment to be rejected");
  return result.problems;
}

describe("parseEnv defaults", () => {
  it("fills in the development defaults from an empty environment", () => {
    const env = ok({});
    expect(env).toMatchObject({
      NODE_ENV: "development",
      PORT: 3000,
      HOST: "0.0.0.0",
      BASE_URL: "http://localhost:3000",
      DATABASE_URL: "file:./data/app.db",
      AUTH_SECRET: "dev-secret",
      RATE_LIMIT: false,
      TRUST_PROXY: 0,
      BODY_LIMIT: 1024 * 1024,
      PAYMENT_PROVIDER: "stripe",
      ADMIN_USER_IDS: [],
      TRUSTED_ORIGINS: [],
      isProduction: false,
      secureCookies: false,
      trustedOrigins: ["http://localhost:3000"],
      admin: { ...DEMO_ADMIN, isDemo: true },
      socialProviders: [],
    });
    // Unset: the mailer writes as the product (app/server/mail/sender.test.ts).
    expect(env.MAIL_FROM).toBeUndefined();
    expect(env.SMTP_URL).toBeUndefined();
  });

  it("derives BASE_URL from PORT and treats blank values as unset", () => {
    const env = ok({ PORT: "4100", SMTP_URL: "", BASE_URL: "  " });
    expect(env.BASE_URL).toBe("http://localhost:4100");
    expect(env.SMTP_URL).toBeUndefined();
  });

  it("parses lists, switches and derived values", () => {
    const env = ok({
      BASE_URL: "https://app.example.com/",
      TRUSTED_ORIGINS: "https://admin.example.com, https://app.example.com ,",
      ADMIN_USER_IDS: "u1,u2",
      RATE_LIMIT: "on",
      TRUST_PROXY: "on",
      BODY_LIMIT: "2048",
      DATABASE_URL: "postgresql://user@127.0.0.1:5432/test",
    });
    expect(env.BASE_URL).toBe("https://app.example.com");
    expect(env.trustedOrigins).toEqual(["https://app.example.com", "https://admin.example.com"]);
    expect(env.ADMIN_USER_IDS).toEqual(["u1", "u2"]);
    expect(env.RATE_LIMIT).toBe(true);
    expect(env.TRUST_PROXY).toBe(1);
    expect(env.BODY_LIMIT).toBe(2048);
    expect(env.secureCookies).toBe(true);
  });

  it("reads TRUST_PROXY as a number of trusted proxies", () => {
    expect(ok({ TRUST_PROXY: "off" }).TRUST_PROXY).toBe(0);
    expect(ok({ TRUST_PROXY: "0" }).TRUST_PROXY).toBe(0);
    expect(ok({ TRUST_PROXY: "on" }).TRUST_PROXY).toBe(1);
    expect(ok({ TRUST_PROXY: "1" }).TRUST_PROXY).toBe(1);
    expect(ok({ TRUST_PROXY: "2" }).TRUST_PROXY).toBe(2);
    expect(problems({ TRUST_PROXY: "-1" })).toEqual([
      'TRUST_PROXY: must be "off", "on" (one proxy) or the number of trusted proxies such as 2, got "-1"',
    ]);
    expect(problems({ TRUST_PROXY: "1.5" })).toHaveLength(1);
    expect(problems({ TRUST_PROXY: "10.0.0.1" })).toHaveLength(1);
  });

  it("uses a random secret per parse when no devSecret is given", () => {
    const a = parseEnv({});
    const b = parseEnv({});
    expect(a.success && b.success && a.data.AUTH_SECRET !== b.data.AUTH_SECRET).toBe(true);
  });
});

describe("parseEnv in production", () => {
  it("requires AUTH_SECRET", () => {
    expect(problems({ NODE_ENV: "production", ...STRIPE, SMTP_URL: SMTP })).toEqual([
      expect.stringMatching(/^AUTH_SECRET: is required in production/),
    ]);
    expect(problems({ NODE_ENV: "production", ...STRIPE, SMTP_URL: SMTP, AUTH_SECRET: "short" })).toEqual([
      "AUTH_SECRET: must be at least 32 characters long in production",
    ]);
  });

  it("requires SMTP_URL: the development outbox is no place for live tokens", () => {
    const expected = expect.stringMatching(/^SMTP_URL: is required in production \(e\.g\. smtp:\/\/.*\): .*emails/);
    expect(problems({ NODE_ENV: "production", ...STRIPE, AUTH_SECRET: SECRET })).toEqual([expected]);
    expect(problems({ NODE_ENV: "production", ...STRIPE, AUTH_SECRET: SECRET, SMTP_URL: "  " })).toEqual([expected]);
    expect(problems({ NODE_ENV: "production", ...STRIPE, AUTH_SECRET: SECRET, SMTP_URL: "http://mail" })).toEqual([
      expect.stringMatching(/^SMTP_URL: must be a smtp\/smtps URL/),
    ]);
    // Reported together with the other problems, not one at a time.
    expect(problems({ NODE_ENV: "production", ...STRIPE }).map((line) => line.split(":")[0])).toEqual([
      "AUTH_SECRET",
      "SMTP_URL",
    ]);
    expect(ok({ NODE_ENV: "production", ...STRIPE, AUTH_SECRET: SECRET, SMTP_URL: SMTP }).SMTP_URL).toBe(SMTP);
    // Outside production the outbox stays the default.
    expect(ok({ NODE_ENV: "test" }).SMTP_URL).toBeUndefined();
  });

  it("has no demo admin, rate limiting on, and accepts a configured admin", () => {
    const bare = ok({ NODE_ENV: "production", ...STRIPE, AUTH_SECRET: SECRET, SMTP_URL: SMTP });
    expect(bare.admin).toBeNull();
    expect(bare.RATE_LIMIT).toBe(true);
    expect(bare.isProduction).toBe(true);
    expect(bare.AUTH_SECRET).toBe(SECRET);

    const withAdmin = ok({
      NODE_ENV: "production",
      ...STRIPE,
      AUTH_SECRET: SECRET,
      SMTP_URL: SMTP,
      ADMIN_EMAIL: "root@example.com",
      ADMIN_PASSWORD: "a-long-password",
      RATE_LIMIT: "off",
    });
    expect(withAdmin.admin).toEqual({ email: "root@example.com", password: "a-long-password", isDemo: false });
    expect(withAdmin.RATE_LIMIT).toBe(false);
  });

  it("requires the chosen payment provider's keys and ids, and ignores the other's", () => {
    const bare = { NODE_ENV: "production", AUTH_SECRET: SECRET, SMTP_URL: SMTP };
    expect(problems(bare)).toEqual([
      "STRIPE_SECRET_KEY: is required in production when PAYMENT_PROVIDER is stripe",
      "STRIPE_WEBHOOK_SECRET: is required in production when PAYMENT_PROVIDER is stripe",
      "STRIPE_PRICE_PRO_MONTHLY: is required in production when PAYMENT_PROVIDER is stripe",
      "STRIPE_PRICE_PRO_YEARLY: is required in production when PAYMENT_PROVIDER is stripe",
      "STRIPE_PRICE_TEAM_MONTHLY: is required in production when PAYMENT_PROVIDER is stripe",
      "STRIPE_PRICE_TEAM_YEARLY: is required in production when PAYMENT_PROVIDER is stripe",
    ]);
    // Polar chosen: Stripe's variables are not asked for, Polar's are.
    expect(problems({ ...bare, PAYMENT_PROVIDER: "polar", POLAR_ACCESS_TOKEN: "polar_oat_x" })).toEqual([
      "POLAR_WEBHOOK_SECRET: is required in production when PAYMENT_PROVIDER is polar",
      "POLAR_PRODUCT_PRO_MONTHLY: is required in production when PAYMENT_PROVIDER is polar",
      "POLAR_PRODUCT_PRO_YEARLY: is required in production when PAYMENT_PROVIDER is polar",
      "POLAR_PRODUCT_TEAM_MONTHLY: is required in production when PAYMENT_PROVIDER is polar",
      "POLAR_PRODUCT_TEAM_YEARLY: is required in production when PAYMENT_PROVIDER is polar",
    ]);
    expect(ok({ ...bare, ...POLAR, PAYMENT_PROVIDER: "polar" }).PAYMENT_PROVIDER).toBe("polar");
    // Outside production nothing is required: checkout answers a clear error instead.
    expect(ok({ NODE_ENV: "test" }).STRIPE_SECRET_KEY).toBeUndefined();
  });

  it("starts a deployment that does not sell yet with PAYMENT_PROVIDER=none, without any payment key", () => {
    const env = ok({ NODE_ENV: "production", AUTH_SECRET: SECRET, SMTP_URL: SMTP, PAYMENT_PROVIDER: "none" });
    expect(env.PAYMENT_PROVIDER).toBe("none");
    expect(env.STRIPE_SECRET_KEY).toBeUndefined();
    // Keys left over from a provider are ignored, not required to be complete.
    expect(
      ok({
        NODE_ENV: "production",
        AUTH_SECRET: SECRET,
        SMTP_URL: SMTP,
        PAYMENT_PROVIDER: "none",
        STRIPE_SECRET_KEY: "x",
      }).PAYMENT_PROVIDER,
    ).toBe("none");
    expect(problems({ PAYMENT_PROVIDER: "paypal" })).toEqual([
      'PAYMENT_PROVIDER: must be "stripe", "polar" or "none", got "paypal"',
    ]);
  });

  it("names the variables a provider still misses", () => {
    expect(missingPaymentVariables("stripe", {})).toEqual([
      "STRIPE_SECRET_KEY",
      "STRIPE_WEBHOOK_SECRET",
      "STRIPE_PRICE_PRO_MONTHLY",
      "STRIPE_PRICE_PRO_YEARLY",
      "STRIPE_PRICE_TEAM_MONTHLY",
      "STRIPE_PRICE_TEAM_YEARLY",
    ]);
    expect(missingPaymentVariables("stripe", STRIPE)).toEqual([]);
    expect(missingPaymentVariables("polar", { ...POLAR, POLAR_WEBHOOK_SECRET: " " })).toEqual(["POLAR_WEBHOOK_SECRET"]);
  });

  it("requires both admin variables when one is set", () => {
    expect(
      problems({
        NODE_ENV: "production",
        ...STRIPE,
        AUTH_SECRET: SECRET,
        SMTP_URL: SMTP,
        ADMIN_EMAIL: "root@example.com",
      }),
    ).toEqual(["ADMIN_PASSWORD: is required when ADMIN_EMAIL is set"]);
    expect(problems({ ADMIN_PASSWORD: "a-long-password" })).toEqual([
      "ADMIN_EMAIL: is required when ADMIN_PASSWORD is set",
    ]);
  });
});

describe("parseEnv problems", () => {
  it("reports every bad value at once, one readable line per variable", () => {
    const list = problems({
      NODE_ENV: "staging",
      PORT: "http",
      BASE_URL: "https://example.com/app",
      TRUSTED_ORIGINS: "https://ok.example.com,not a url",
      DATABASE_URL: "mysql://localhost/db",
      SMTP_URL: "http://mail.example.com",
      ADMIN_EMAIL: "nobody",
      ADMIN_PASSWORD: "short",
      RATE_LIMIT: "sometimes",
      BODY_LIMIT: "1mb",
      PAYMENT_PROVIDER: "paypal",
      STRIPE_API_BASE_URL: "localhost:12111",
    });
    const byVar = Object.fromEntries(list.map((line) => [line.split(":")[0], line]));
    expect(Object.keys(byVar).sort()).toEqual(
      [
        "NODE_ENV",
        "PORT",
        "BASE_URL",
        "TRUSTED_ORIGINS",
        "DATABASE_URL",
        "SMTP_URL",
        "ADMIN_EMAIL",
        "ADMIN_PASSWORD",
        "RATE_LIMIT",
        "BODY_LIMIT",
        "PAYMENT_PROVIDER",
        "STRIPE_API_BASE_URL",
      ].sort(),
    );
    expect(byVar.NODE_ENV).toBe('NODE_ENV: must be development, production or test, got "staging"');
    expect(byVar.PORT).toBe('PORT: must be a port number between 1 and 65535, got "http"');
    expect(byVar.BASE_URL).toMatch(/must be an origin without path/);
    expect(byVar.TRUSTED_ORIGINS).toMatch(/"not a url" is not a URL/);
    expect(byVar.DATABASE_URL).toMatch(/must start with "file:"/);
    expect(byVar.RATE_LIMIT).toBe('RATE_LIMIT: must be "on" or "off", got "sometimes"');
    expect(byVar.PAYMENT_PROVIDER).toBe('PAYMENT_PROVIDER: must be "stripe", "polar" or "none", got "paypal"');
  });

  it("reads the traces' endpoint and refuses one that is not an http(s) URL", () => {
    expect(ok({}).OTEL_EXPORTER_OTLP_ENDPOINT).toBeUndefined();
    expect(ok({ OTEL_EXPORTER_OTLP_ENDPOINT: " " }).OTEL_EXPORTER_OTLP_ENDPOINT).toBeUndefined();
    expect(ok({ OTEL_EXPORTER_OTLP_ENDPOINT: "http://collector:4318" }).OTEL_EXPORTER_OTLP_ENDPOINT).toBe(
      "http://collector:4318",
    );
    expect(problems({ OTEL_EXPORTER_OTLP_ENDPOINT: "collector:4318" })).toEqual([
      "OTEL_EXPORTER_OTLP_ENDPOINT: must be a http/https URL such as http://otel-collector:4318",
    ]);
  });

  it("reads the metrics settings: off by default, a token of some length, a port of its own", () => {
    const off = ok({});
    expect(off.METRICS_TOKEN).toBeUndefined();
    expect(off.METRICS_PORT).toBeUndefined();
    expect(off.METRICS_HOST).toBe("127.0.0.1");
    expect(ok({ METRICS_TOKEN: "t".repeat(16), METRICS_PORT: "9464", METRICS_HOST: "0.0.0.0" })).toMatchObject({
      METRICS_TOKEN: "t".repeat(16),
      METRICS_PORT: 9464,
      METRICS_HOST: "0.0.0.0",
    });
    expect(problems({ METRICS_TOKEN: "short" })).toEqual([
      "METRICS_TOKEN: must be at least 16 characters long (e.g. from `openssl rand -base64 32`)",
    ]);
    expect(problems({ METRICS_TOKEN: "a token with spaces" })).toEqual([
      "METRICS_TOKEN: may only hold letters, digits and - . _ ~ + / =",
    ]);
    expect(problems({ METRICS_PORT: "metrics" })).toEqual([
      'METRICS_PORT: must be a port number between 1 and 65535, got "metrics"',
    ]);
    expect(problems({ METRICS_PORT: "3000" })).toEqual([
      "METRICS_PORT: must differ from PORT (the metrics listener is a second one)",
    ]);
    expect(problems({ PORT: "8080", METRICS_PORT: "8080" })).toHaveLength(1);
  });

  it("formats problems as a list", () => {
    expect(formatProblems(["PORT: bad", "HOST: bad"])).toBe(
      "Invalid environment configuration:\n- PORT: bad\n- HOST: bad",
    );
  });
});

describe("social providers", () => {
  it("enables a provider only when both credentials are set", () => {
    const env = ok({
      GITHUB_CLIENT_ID: "gh-id",
      GITHUB_CLIENT_SECRET: "gh-secret",
      GOOGLE_CLIENT_ID: "",
      GOOGLE_CLIENT_SECRET: "",
      APPLE_CLIENT_ID: "apple-id",
      APPLE_CLIENT_SECRET: "apple-secret",
    });
    // In SOCIAL_PROVIDER_IDS order, whatever the order of the environment, with the default endpoints.
    expect(env.socialProviders).toEqual([
      {
        id: "apple",
        clientId: "apple-id",
        clientSecret: "apple-secret",
        authorizationUrl: "https://appleid.apple.com/auth/authorize",
        tokenUrl: "https://appleid.apple.com/auth/token",
        issuer: "https://appleid.apple.com",
        jwksUrl: "https://appleid.apple.com/auth/keys",
        extras: {},
      },
      {
        id: "github",
        clientId: "gh-id",
        clientSecret: "gh-secret",
        authorizationUrl: "https://github.com/login/oauth/authorize",
        tokenUrl: "https://github.com/login/oauth/access_token",
        userInfoUrl: "https://api.github.com/user",
        extras: {},
      },
    ]);
  });

  it("lets every endpoint be overridden, e.g. to point at a local stand-in", () => {
    const env = ok({
      GOOGLE_CLIENT_ID: "g-id",
      GOOGLE_CLIENT_SECRET: "g-secret",
      GOOGLE_AUTHORIZATION_URL: "http://127.0.0.1:4500/auth",
      GOOGLE_TOKEN_URL: "http://127.0.0.1:4500/token",
      GOOGLE_ISSUER: "http://127.0.0.1:4500",
      GOOGLE_JWKS_URL: "http://127.0.0.1:4500/jwks",
      GITHUB_CLIENT_ID: "gh-id",
      GITHUB_CLIENT_SECRET: "gh-secret",
      GITHUB_USERINFO_URL: "http://127.0.0.1:4501/user",
    });
    expect(env.socialProviders).toEqual([
      {
        id: "github",
        clientId: "gh-id",
        clientSecret: "gh-secret",
        authorizationUrl: "https://github.com/login/oauth/authorize",
        tokenUrl: "https://github.com/login/oauth/access_token",
        userInfoUrl: "http://127.0.0.1:4501/user",
        extras: {},
      },
      {
        id: "google",
        clientId: "g-id",
        clientSecret: "g-secret",
        authorizationUrl: "http://127.0.0.1:4500/auth",
        tokenUrl: "http://127.0.0.1:4500/token",
        issuer: "http://127.0.0.1:4500",
        jwksUrl: "http://127.0.0.1:4500/jwks",
        extras: {},
      },
    ]);
  });

  it("puts the Microsoft tenant into its endpoints and reads the provider extras", () => {
    const tenant = "72f988bf-86f1-41af-91ab-2d7cd011db47";
    const env = ok({
      MICROSOFT_CLIENT_ID: "ms-id",
      MICROSOFT_CLIENT_SECRET: "ms-secret",
      MICROSOFT_TENANT_ID: tenant,
      MICROSOFT_PROFILE_PHOTO_SIZE: "96",
      MICROSOFT_TOKEN_URL: "http://127.0.0.1:4500/token",
      GITLAB_CLIENT_ID: "gl-id",
      GITLAB_CLIENT_SECRET: "gl-secret",
      GITLAB_BASE_URL: "https://git.example.com/",
      APPLE_CLIENT_ID: "com.example.web",
      APPLE_CLIENT_SECRET: "apple-secret",
      APPLE_APP_BUNDLE_IDENTIFIER: "com.example.ios",
      GOOGLE_CLIENT_ID: "g-id",
      GOOGLE_CLIENT_SECRET: "g-secret",
      GOOGLE_HOSTED_DOMAIN: "example.com",
    });
    const byId = Object.fromEntries(env.socialProviders.map((provider) => [provider.id, provider]));
    expect(byId.microsoft).toEqual({
      id: "microsoft",
      clientId: "ms-id",
      clientSecret: "ms-secret",
      authorizationUrl: `https://login.microsoftonline.com/${tenant}/oauth2/v2.0/authorize`,
      tokenUrl: "http://127.0.0.1:4500/token",
      userInfoUrl: "https://graph.microsoft.com/v1.0/me",
      issuer: `https://login.microsoftonline.com/${tenant}/v2.0`,
      jwksUrl: `https://login.microsoftonline.com/${tenant}/discovery/v2.0/keys`,
      extras: { tenantId: tenant, profilePhotoSize: 96 },
    });
    expect(byId.gitlab).toMatchObject({
      authorizationUrl: "https://git.example.com/oauth/authorize",
      tokenUrl: "https://git.example.com/oauth/token",
      userInfoUrl: "https://git.example.com/api/v4/user",
      extras: { baseUrl: "https://git.example.com" },
    });
    expect(byId.apple?.extras).toEqual({ appBundleIdentifier: "com.example.ios" });
    expect(byId.google?.extras).toEqual({ hostedDomain: "example.com" });

    const common = ok({ MICROSOFT_CLIENT_ID: "ms-id", MICROSOFT_CLIENT_SECRET: "ms-secret" }).socialProviders[0];
    expect(common).toMatchObject({
      authorizationUrl: "https://login.microsoftonline.com/common/oauth2/v2.0/authorize",
      issuer: "https://login.microsoftonline.com/{tenantid}/v2.0",
    });
  });

  it("rejects an override that is not an http(s) URL, and bad extras", () => {
    expect(
      problems({
        GITHUB_TOKEN_URL: "localhost:4500/token",
        DISCORD_AUTHORIZATION_URL: "ftp://auth.example.com/",
        MICROSOFT_TENANT_ID: "contoso.onmicrosoft.com",
        MICROSOFT_PROFILE_PHOTO_SIZE: "50",
        GITLAB_BASE_URL: "gitlab.example.com",
      }),
    ).toEqual([
      "DISCORD_AUTHORIZATION_URL: must be a http/https URL such as https://auth.example.com/oauth",
      "GITHUB_TOKEN_URL: must be a http/https URL such as https://auth.example.com/oauth",
      'MICROSOFT_TENANT_ID: must be the directory (tenant) id, a GUID, or "common", "organizations" or "consumers"',
      'MICROSOFT_PROFILE_PHOTO_SIZE: must be one of 48, 64, 96, 120, 240, 360, 432, 504, 648, got "50"',
      "GITLAB_BASE_URL: must be a http/https URL such as https://gitlab.example.com",
    ]);
  });

  it("rejects an override of an endpoint the provider does not have", () => {
    expect(
      problems({
        GITHUB_ISSUER: "https://github.com",
        DISCORD_JWKS_URL: "https://discord.com/jwks",
        APPLE_USERINFO_URL: "https://appleid.apple.com/userinfo",
        GOOGLE_JWKS_URL: "https://www.googleapis.com/oauth2/v3/certs",
      }),
    ).toEqual([
      "APPLE_USERINFO_URL: Apple has no user-info endpoint (its profile comes from the ID token)",
      "DISCORD_JWKS_URL: Discord issues no ID tokens, so it has no issuer or key set",
      "GITHUB_ISSUER: GitHub issues no ID tokens, so it has no issuer or key set",
    ]);
  });

  it("wants the team and key ids when APPLE_CLIENT_SECRET is the .p8 key", () => {
    const key = "-----BEGIN PRIVATE KEY-----\\nMIGT...\\n-----END PRIVATE KEY-----";
    const found = problems({ APPLE_CLIENT_ID: "com.example.web", APPLE_CLIENT_SECRET: key });
    expect(found).toEqual([
      "APPLE_TEAM_ID: is required when APPLE_CLIENT_SECRET is a private key",
      "APPLE_KEY_ID: is required when APPLE_CLIENT_SECRET is a private key",
    ]);
    const env = ok({
      APPLE_CLIENT_ID: "com.example.web",
      APPLE_CLIENT_SECRET: key,
      APPLE_TEAM_ID: "T1",
      APPLE_KEY_ID: "K1",
    });
    expect(env.socialProviders[0]!.extras).toMatchObject({ teamId: "T1", keyId: "K1" });
  });

  it("reads the organization settings", () => {
    const defaults = ok({});
    expect(defaults).toMatchObject({
      ORGANIZATION_CREATION: "on",
      ORGANIZATION_DELETION: true,
      ORGANIZATION_ALLOW_REMOVING_ALL_TEAMS: false,
    });
    expect(defaults.ORGANIZATION_LIMIT).toBeUndefined();
    expect(defaults.ORGANIZATION_MEMBERSHIP_LIMIT).toBe(100);
    expect(
      ok({
        ORGANIZATION_CREATION: "verified",
        ORGANIZATION_LIMIT: "5",
        ORGANIZATION_DELETION: "off",
        ORGANIZATION_MEMBERSHIP_LIMIT: "1000",
      }),
    ).toMatchObject({
      ORGANIZATION_CREATION: "verified",
      ORGANIZATION_LIMIT: 5,
      ORGANIZATION_DELETION: false,
      ORGANIZATION_MEMBERSHIP_LIMIT: 1000,
    });
    const found = problems({
      ORGANIZATION_CREATION: "admins",
      ORGANIZATION_LIMIT: "0",
      ORGANIZATION_MEMBERSHIP_LIMIT: "many",
    });
    expect(found.some((line) => line.startsWith("ORGANIZATION_CREATION"))).toBe(true);
    expect(found.some((line) => line.startsWith("ORGANIZATION_LIMIT"))).toBe(true);
    expect(found).toContain('ORGANIZATION_MEMBERSHIP_LIMIT: must be a number of members such as 100, got "many"');
    expect(problems({ ORGANIZATION_MEMBERSHIP_LIMIT: "0" })).toEqual([
      'ORGANIZATION_MEMBERSHIP_LIMIT: must be a number of members such as 100, got "0"',
    ]);
  });

  it("reads the linking and sign-up settings", () => {
    expect(ok({})).toMatchObject({ ACCOUNT_LINKING: true, TRUSTED_PROVIDERS: [], SOCIAL_SIGN_UP: "on" });
    expect(
      ok({ ACCOUNT_LINKING: "off", TRUSTED_PROVIDERS: "google, github", SOCIAL_SIGN_UP: "explicit" }),
    ).toMatchObject({ ACCOUNT_LINKING: false, TRUSTED_PROVIDERS: ["google", "github"], SOCIAL_SIGN_UP: "explicit" });
    const found = problems({ TRUSTED_PROVIDERS: "google,myspace", SOCIAL_SIGN_UP: "sometimes" });
    expect(found.some((line) => line.startsWith("TRUSTED_PROVIDERS") && line.includes('"myspace"'))).toBe(true);
    expect(found.some((line) => line.startsWith("SOCIAL_SIGN_UP") && line.includes('"sometimes"'))).toBe(true);
  });

  it("reports a credential without its partner", () => {
    expect(problems({ DISCORD_CLIENT_ID: "id", VK_CLIENT_SECRET: "secret" })).toEqual([
      "DISCORD_CLIENT_SECRET: is required when DISCORD_CLIENT_ID is set",
      "VK_CLIENT_ID: is required when VK_CLIENT_SECRET is set",
    ]);
  });
});

describe("readOrCreateDevSecret", () => {
  let dir: string | undefined;
  afterEach(() => {
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  it("creates the secret once and returns the same one afterwards", () => {
    dir = mkdtempSync(join(tmpdir(), "env-test-"));
    const file = join(dir, "data", "auth-secret");
    const first = readOrCreateDevSecret(file);
    expect(first.length).toBeGreaterThanOrEqual(32);
    expect(readFileSync(file, "utf8").trim()).toBe(first);
    expect(readOrCreateDevSecret(file)).toBe(first);
  });
});
