import { expect, type Page } from "@playwright/test";
import Database from "better-sqlite3";
import { randomUUID } from "node:crypto";
import { encryptSecret } from "../../../app/server/crypto.server";
import { BASE_URL, E2E_AUTH_SECRET, OIDC_ISSUER } from "../../../playwright.config";
import { prefixOf, uniqueEmail } from "./auth";
import { waitForLink } from "./mail";

export interface SsoConnection {
  providerId: string;
  /** The email domain it serves. */
  domain: string;
  organization: { id: string; name: string; slug: string };
}

/** A date the way the app's database client stores it in SQLite. */
const stored = (date = new Date()) => date.toISOString().replace("Z", "+00:00");

/**
 * An organization with an OpenID Connect connection to the stand-in (tests/e2e/support/
 * oidc-server.ts, which gets a client of its own for it), written to the web server's database
 * in the stored forms of app/server/sso/config.server.ts: no page of this suite registers one.
 */
export async function ssoConnection(options: { verified: boolean; required?: boolean }): Promise<SsoConnection> {
  const suffix = `${Date.now().toString(36)}${Math.random().toString(36).slice(2, 6)}`;
  const providerId = `e2e-idp-${suffix}`;
  const domain = `corp-${suffix}.example`;
  const organization = { id: randomUUID(), name: `Corp ${suffix}`, slug: `corp-${suffix}` };
  const client = {
    clientId: `${providerId}-client`,
    clientSecret: `${providerId}-secret`,
    redirectUris: [`${BASE_URL}/api/auth/sso/callback/${providerId}`],
  };
  const registered = await fetch(`http://127.0.0.1:${Number(process.env.E2E_OIDC_PORT) + 1}/client`, {
    method: "POST",
    body: JSON.stringify(client),
  });
  expect(registered.status).toBe(204);

  const oidcConfig = {
    clientId: client.clientId,
    clientSecret: encryptSecret(E2E_AUTH_SECRET, client.clientSecret),
    authorizationEndpoint: `${OIDC_ISSUER}/auth`,
    tokenEndpoint: `${OIDC_ISSUER}/token`,
    jwksEndpoint: `${OIDC_ISSUER}/jwks`,
    userInfoEndpoint: `${OIDC_ISSUER}/me`,
    tokenEndpointAuthentication: "client_secret_basic",
    scopes: ["openid", "email", "profile"],
    pkce: true,
  };
  const db = new Database(process.env.E2E_DATABASE_URL!.replace(/^file:/, ""));
  try {
    db.pragma("busy_timeout = 5000");
    const now = stored();
    const rowId = randomUUID();
    db.prepare(
      `INSERT INTO "organization" ("id", "name", "slug", "ssoRequired", "createdAt", "updatedAt") VALUES (?, ?, ?, ?, ?, ?)`,
    ).run(organization.id, organization.name, organization.slug, options.required ? 1 : 0, now, now);
    db.prepare(
      `INSERT INTO "sso_provider" ("id", "providerId", "issuer", "domain", "organizationId", "oidcConfig", "createdAt", "updatedAt")
       VALUES (?, ?, ?, ?, ?, ?, ?, ?)`,
    ).run(rowId, providerId, OIDC_ISSUER, domain, organization.id, JSON.stringify(oidcConfig), now, now);
    db.prepare(
      `INSERT INTO "sso_domain" ("id", "providerId", "domain", "token", "verifiedAt", "createdAt") VALUES (?, ?, ?, ?, ?, ?)`,
    ).run(randomUUID(), rowId, domain, `token-${suffix}`, options.verified ? now : null, now);
  } finally {
    db.close();
  }
  return { providerId, domain, organization };
}

/**
 * A verified account with a password in `domain`, made through the JSON API and its emailed
 * link. Its organization may already require single sign-on: the link verifies the address
 * without signing in then.
 */
export async function passwordAccount(page: Page, locale: string, domain: string) {
  const email = uniqueEmail("sso").replace(/@.*$/, `@${domain}`);
  const password = "correct-horse-battery";
  const response = await page.request.post("/api/auth/sign-up/email", {
    data: { name: "Mary Jackson", email, password, callbackURL: `${prefixOf(locale)}/verify-email` },
  });
  expect(response.status()).toBe(200);
  const { url } = await waitForLink(email, "/api/auth/verify-email");
  expect((await page.request.get(url)).ok()).toBe(true);
  await page.context().clearCookies();
  return { email, password };
}

/** Switches the organization's "require single sign-on" on, in the web server's database. */
export function requireSso(organizationId: string) {
  const db = new Database(process.env.E2E_DATABASE_URL!.replace(/^file:/, ""));
  try {
    db.pragma("busy_timeout = 5000");
    expect(db.prepare(`UPDATE "organization" SET "ssoRequired" = 1 WHERE "id" = ?`).run(organizationId).changes).toBe(
      1,
    );
  } finally {
    db.close();
  }
}
