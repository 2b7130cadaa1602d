import { expect, type APIRequestContext } from "@playwright/test";
import Database from "better-sqlite3";
import { randomUUID } from "node:crypto";
import { uniqueEmail } from "./auth";

/** An account of someone else, made through the JSON API in its own cookie jar (`request`). */
export async function otherAccount(request: APIRequestContext, name: string) {
  const email = uniqueEmail("member");
  const response = await request.post("/api/auth/sign-up/email", {
    data: { name, email, password: "correct-horse-battery" },
  });
  expect(response.status()).toBe(200);
  return { name, email };
}

/**
 * Makes the account with `email` a member of the organization `slug`, in the web server's
 * database (playwright.config.ts shares its path): no page adds members yet.
 */
export function addMember(slug: string, email: string, role = "member") {
  const db = new Database(process.env.E2E_DATABASE_URL!.replace(/^file:/, ""));
  try {
    db.pragma("busy_timeout = 5000");
    // The organization's own createdAt: a date stored the way the app's database client stores them.
    const added = db
      .prepare(
        `INSERT INTO "member" ("id", "organizationId", "userId", "role", "createdAt")
         SELECT ?, o."id", u."id", ?, o."createdAt" FROM "organization" o, "user" u WHERE o."slug" = ? AND u."email" = ?`,
      )
      .run(randomUUID(), role, slug, email.toLowerCase());
    expect(added.changes).toBe(1);
  } finally {
    db.close();
  }
}
