import Database from "better-sqlite3";
import { randomUUID } from "node:crypto";
import { readFileSync } from "node:fs";
import { expect } from "@playwright/test";

/**
 * An SSO connection of the organization `slug`, made in the web server's database
 * (playwright.config.ts shares its path), for the pages that hang off a connection.
 * Returns its wire name.
 */
export function addConnection(slug: string): string {
  const providerId = `e2e-idp-${randomUUID().slice(0, 8)}`;
  const db = new Database(process.env.E2E_DATABASE_URL!.replace(/^file:/, ""));
  try {
    db.pragma("busy_timeout = 5000");
    // The organization's own createdAt: a date stored the way the app's database client stores them.
    const added = db
      .prepare(
        `INSERT INTO "sso_provider" ("id", "providerId", "issuer", "domain", "organizationId", "createdAt", "updatedAt")
         SELECT ?, ?, 'https://idp.example.com', '', o."id", o."createdAt", o."createdAt" FROM "organization" o WHERE o."slug" = ?`,
      )
      .run(randomUUID(), providerId, slug);
    expect(added.changes).toBe(1);
  } finally {
    db.close();
  }
  return providerId;
}

type Strings = { [key: string]: string | Strings };

/** A string of the SCIM page in `locale`, its placeholders filled. */
export function scimText(locale: string, key: string, values: Record<string, string> = {}): string {
  const file = JSON.parse(
    readFileSync(new URL(`../../../locales/${locale}/scim.json`, import.meta.url), "utf8"),
  ) as Strings;
  const text = key.split(".").reduce<string | Strings | undefined>((node, part) => (node as Strings)?.[part], file);
  if (typeof text !== "string") throw new Error(`no translation ${locale}:scim:${key}`);
  return text.replace(/{{\s*(\w+)\s*}}/g, (whole, name: string) => values[name] ?? whole);
}
