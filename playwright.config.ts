import { defineConfig, devices } from "@playwright/test";
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { standInEnv } from "./tests/support/oidc-stand-in";

const PORT = Number(process.env.E2E_PORT ?? 4173);
export const BASE_URL = `http://localhost:${PORT}`;

/**
 * Mail: the web server sends through SMTP to a capture that tests/e2e/support/global-setup.ts
 * starts; it writes each message as JSON into E2E_MAIL_DIR, where the tests find the links.
 * Set on process.env so the test workers (which inherit it) read the same directory.
 */
process.env.E2E_SMTP_PORT ??= String(PORT + 2);
// The OpenID Connect stand-in for Google and Microsoft sign-in, and its control port (+1).
process.env.E2E_OIDC_PORT ??= String(PORT + 3);
export const OIDC_ISSUER = `http://127.0.0.1:${process.env.E2E_OIDC_PORT}`;
// The payment provider's stand-in (Stripe) and its control port (+1).
process.env.E2E_BILLING_PORT ??= String(PORT + 5);
export const BILLING_URL = `http://127.0.0.1:${process.env.E2E_BILLING_PORT}`;
const billingEnv = {
  PAYMENT_PROVIDER: "stripe",
  STRIPE_SECRET_KEY: "sk_test_e2e",
  STRIPE_WEBHOOK_SECRET: "whsec_e2e",
  STRIPE_API_BASE_URL: BILLING_URL,
  STRIPE_PRICE_PRO_MONTHLY: "price_e2e_pro_monthly",
  STRIPE_PRICE_PRO_YEARLY: "price_e2e_pro_yearly",
  STRIPE_PRICE_TEAM_MONTHLY: "price_e2e_team_monthly",
  STRIPE_PRICE_TEAM_YEARLY: "price_e2e_team_yearly",
};
// The DNS stand-in that answers the app's domain-verification lookups (UDP), with its control
// server on the same port number (TCP).
process.env.E2E_DNS_PORT ??= String(PORT + 9);
export const DNS_CONTROL_URL = `http://127.0.0.1:${process.env.E2E_DNS_PORT}`;
// The loopback webhook receiver a test starts (tests/support/webhook-receiver.ts): the one
// origin the app may deliver to over plain http on loopback.
process.env.E2E_WEBHOOK_PORT ??= String(PORT + 7);
export const WEBHOOK_RECEIVER_ORIGIN = `http://127.0.0.1:${process.env.E2E_WEBHOOK_PORT}`;
process.env.E2E_MAIL_DIR ??= mkdtempSync(join(tmpdir(), "app-e2e-mail-"));
// The web server's SQLite database, known to the workers too: tests/e2e/support/organizations.ts
// adds members to organizations directly, which no page does yet.
process.env.E2E_DATABASE_URL ??= `file:${join(mkdtempSync(join(tmpdir(), "app-e2e-")), "app.db")}`;
/** The web server's AUTH_SECRET: tests/e2e/support/sso.ts stores a connection's client secret encrypted with it. */
export const E2E_AUTH_SECRET = "e2e-test-secret-0123456789abcdefghijkl";

/**
 * Browsers cannot be downloaded here: tests drive the system's Chromium. The flags keep it
 * from reaching for Google's services, which a closed network refuses.
 */
const chromium = {
  executablePath: process.env.CHROMIUM_PATH ?? "/usr/bin/chromium",
  args: [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
  ],
};

export default defineConfig({
  testDir: "tests/e2e",
  globalSetup: "./tests/e2e/support/global-setup.ts",
  outputDir: "test-results/e2e",
  fullyParallel: false,
  workers: 1,
  // No retries: a test that passes only on a second try hides a bug.
  retries: 0,
  reporter: [["list"], ["html", { open: "never", outputFolder: "playwright-report" }]],
  use: {
    baseURL: BASE_URL,
    ...devices["Desktop Chrome"],
    launchOptions: chromium,
    trace: "retain-on-failure",
    screenshot: "only-on-failure",
  },
  projects: [
    { name: "js", testIgnore: /no-js\.spec\.ts/ },
    { name: "no-js", testMatch: /no-js\.spec\.ts/, use: { javaScriptEnabled: false } },
  ],
  webServer: [
    {
      command: "npx vite-node tests/e2e/support/oidc-server.ts",
      url: `${OIDC_ISSUER}/.well-known/openid-configuration`,
      reuseExistingServer: false,
      timeout: 60_000,
      env: { E2E_OIDC_PORT: process.env.E2E_OIDC_PORT, E2E_APP_URL: BASE_URL },
    },
    {
      command: "npx vite-node tests/e2e/support/billing-server.ts",
      // The API answers 401 without a key: it is up.
      url: `${BILLING_URL}/v1/customers`,
      reuseExistingServer: false,
      timeout: 60_000,
      env: {
        ...billingEnv,
        E2E_BILLING_PROVIDER: "stripe",
        E2E_BILLING_PORT: process.env.E2E_BILLING_PORT,
        E2E_BILLING_WEBHOOK_URL: `${BASE_URL}/api/auth/stripe/webhook`,
      },
    },
    {
      command: "npx vite-node tests/e2e/support/dns-server.ts",
      url: `${DNS_CONTROL_URL}/txt`,
      reuseExistingServer: false,
      timeout: 60_000,
      env: { E2E_DNS_PORT: process.env.E2E_DNS_PORT },
    },
    {
      command: "node build/server.js",
      url: `${BASE_URL}/healthz`,
      reuseExistingServer: false,
      timeout: 60_000,
      env: {
        PORT: String(PORT),
        BASE_URL,
        DATABASE_URL: process.env.E2E_DATABASE_URL,
        AUTH_SECRET: E2E_AUTH_SECRET,
        RATE_LIMIT: "off",
        SMTP_URL: `smtp://127.0.0.1:${process.env.E2E_SMTP_PORT}`,
        ...standInEnv(OIDC_ISSUER, "google"),
        ...standInEnv(OIDC_ISSUER, "microsoft"),
        // Organizations' own identity providers (single sign-on) at the same stand-in, on loopback.
        SSO_IDP_ORIGIN: OIDC_ISSUER,
        // SSO domain verification resolves through the DNS stand-in.
        DNS_SERVERS: `127.0.0.1:${process.env.E2E_DNS_PORT}`,
        WEBHOOK_PRIVATE_ORIGINS: WEBHOOK_RECEIVER_ORIGIN,
        ...billingEnv,
      },
    },
  ],
});
