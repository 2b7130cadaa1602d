import { expect, type Page } from "@playwright/test";
import { uniqueEmail } from "./auth";

export interface StandInUser {
  sub: string;
  email?: string;
  email_verified?: boolean;
  name?: string;
}

/** Chooses who the OpenID Connect stand-in signs in next (tests/e2e/support/oidc-server.ts). */
export async function nextProviderUser(overrides: Partial<StandInUser> = {}): Promise<StandInUser> {
  const user = {
    sub: `e2e-${Date.now()}-${Math.random().toString(36).slice(2, 8)}`,
    email: uniqueEmail("social"),
    email_verified: true,
    name: "Katherine Johnson",
    ...overrides,
  };
  const response = await fetch(`http://127.0.0.1:${Number(process.env.E2E_OIDC_PORT) + 1}/user`, {
    method: "POST",
    body: JSON.stringify(user),
  });
  expect(response.status).toBe(204);
  return user;
}

/** The signed-in user's email, from the session API (null when signed out). */
export async function sessionEmail(page: Page): Promise<string | null> {
  const session = (await (await page.request.get("/api/auth/get-session")).json()) as {
    user: { email: string };
  } | null;
  return session?.user.email ?? null;
}
