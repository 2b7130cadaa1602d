/**
 * A signed-in browser without JavaScript, for page tests: a user made in the test's database
 * (with a session made in-process), a cookie jar, and requests that do not follow redirects.
 */
import { expect } from "vitest";
import type { TestApp } from "./app";
import { applySetCookies } from "./auth-client";
import { createUser, signInInProcess, uniqueEmail } from "./factories";
import { BROWSER_UA } from "./http";

export async function signedInBrowser(
  app: TestApp,
  options: { name?: string; role?: string; verified?: boolean } = {},
) {
  return browserFor(app, await createUser({ email: uniqueEmail("browser"), ...options, password: null }));
}

/**
 * A browser signed in as an existing user. The session starts as a sign-in's would (in the
 * organization they last used, or their only one), and its cookie caches the user: make the
 * rows the test needs before signing in.
 */
export async function browserFor(app: TestApp, { id, email, name }: { id: string; email: string; name: string }) {
  const { jar } = await signInInProcess({ jar: new Map<string, string>() }, id, { userAgent: "vitest" });
  async function request(path: string, init: RequestInit = {}) {
    const headers = new Headers(init.headers);
    headers.set("User-Agent", BROWSER_UA);
    headers.set("Cookie", [...jar].map(([key, value]) => `${key}=${value}`).join("; "));
    const response = await fetch(new URL(path, app.base), { ...init, headers, redirect: "manual" });
    applySetCookies(jar, response.headers.getSetCookie());
    return response;
  }
  return {
    id,
    email,
    name,
    jar,
    get: (path: string) => request(path),
    /** A page that must answer 200, as text. */
    async page(path: string) {
      const response = await request(path);
      expect(response.status, path).toBe(200);
      return response.text();
    },
    /** A form post, from our own origin. */
    post: (path: string, body: Record<string, string>) =>
      request(path, {
        method: "POST",
        body: new URLSearchParams(body),
        headers: { "Content-Type": "application/x-www-form-urlencoded", Origin: app.base },
      }),
  };
}
export type SignedInBrowser = Awaited<ReturnType<typeof signedInBrowser>>;
