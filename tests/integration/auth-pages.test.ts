import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startTestApp, type TestApp } from "./helpers/app";
import { applySetCookies } from "./helpers/auth-client";
import { createUser, signInInProcess, uniqueEmail } from "./helpers/factories";
import { BROWSER_UA, get } from "./helpers/http";
import type { Mailbox } from "./helpers/mailbox";
import { startServer } from "./helpers/server";

// The account pages as a browser without JavaScript uses them: plain form posts, answered
// with the page (errors next to the fields) or a redirect that flashes a toast. These cover
// the page paths the Playwright flows do not: set password, deletion by emailed link,
// change of a verified email, origin checks and rate limits on page actions.

const SECRET = "integration-test-secret-0123456789abcdef";

/** The <input> named `name` in a page, to check its attributes. */
const inputNamed = (html: string, name: string) => html.match(new RegExp(`<input[^>]*name="${name}"[^>]*>`))?.[0] ?? "";

let app: TestApp;
let db: TestApp["db"];
let mailbox: Mailbox;
let base: string;

/** A tiny cookie jar: what the server set, sent back as a browser would. */
class Browser {
  jar = new Map<string, string>();
  cookie() {
    return [...this.jar].map(([name, value]) => `${name}=${value}`).join("; ");
  }
  keep(response: Response) {
    applySetCookies(this.jar, response.headers.getSetCookie());
    return response;
  }
  async get(path: string) {
    return this.keep(await get(new URL(path, base).toString(), { Cookie: this.cookie() }));
  }
  async post(path: string, body: Record<string, string>, origin = base) {
    const response = await fetch(new URL(path, base), {
      method: "POST",
      redirect: "manual",
      body: new URLSearchParams(body),
      headers: {
        "User-Agent": BROWSER_UA,
        "Content-Type": "application/x-www-form-urlencoded",
        Origin: origin,
        Cookie: this.cookie(),
      },
    });
    return this.keep(response);
  }
}

/** A user made directly in the database (with a password only if given), signed in in a fresh Browser. */
async function signedIn(options: { verified?: boolean; password?: string | null } = {}) {
  const user = await createUser({
    email: uniqueEmail("pages"),
    name: "Page Tester",
    verified: options.verified,
    password: options.password ?? null,
  });
  const browser = await signInInProcess(new Browser(), user.id, { userAgent: BROWSER_UA });
  return { user, email: user.email, browser };
}

beforeAll(async () => {
  app = await startTestApp({ secret: SECRET });
  ({ db, mailbox, base } = app);
});

afterAll(async () => {
  await app?.stop();
});

describe("forms without JavaScript", () => {
  it("answers a rejected form with the errors next to its fields, in the page language", async () => {
    const browser = new Browser();
    const res = await browser.post("/fr/signup", {
      name: "Zoé",
      email: "zoe@example.com",
      newPassword: "long-enough-1",
      confirmPassword: "long-enough-2",
    });
    expect(res.status).toBe(400);
    const html = await res.text();
    expect(html).toContain('<html lang="fr"');
    expect(html).toContain("Les mots de passe ne correspondent pas.");
    expect(inputNamed(html, "confirmPassword")).toContain('aria-invalid="true"');
    expect(inputNamed(html, "email")).toContain('value="zoe@example.com"');
    expect(inputNamed(html, "email")).not.toContain('aria-invalid="true"');
    // Passwords are never sent back.
    expect(html).not.toContain("long-enough-1");
  });

  it("shows a service error (wrong password) for the whole sign-in form, with its status", async () => {
    const { email } = await signedIn({ password: "right-password-1" });
    const res = await new Browser().post("/ja/signin", {
      intent: "sign-in",
      email,
      password: "wrong-password-1",
      rememberMe: "on",
    });
    expect(res.status).toBe(401);
    const html = await res.text();
    expect(html).toContain("メールアドレスまたはパスワードが正しくありません。");
    expect(html).toContain('role="alert"');
  });

  it("signs in and goes to the safe `redirect` target, never off-site", async () => {
    const { email } = await signedIn({ password: "right-password-1" });
    const browser = new Browser();
    const body = { intent: "sign-in", email, password: "right-password-1" };
    const res = await browser.post(`/fr/signin?redirect=${encodeURIComponent("/fr/profile")}`, body);
    expect(res.status).toBe(302);
    expect(res.headers.get("location")).toBe("/fr/profile");
    // Without "remember me" the session cookie has no Max-Age: it ends with the browser.
    const sessionCookie = res.headers.getSetCookie().find((line) => line.startsWith("app.session_token="));
    expect(sessionCookie).toBeDefined();
    expect(sessionCookie).not.toMatch(/Max-Age/i);
    const evil = await new Browser().post(
      `/fr/signin?redirect=${encodeURIComponent("https://evil.example.com/")}`,
      body,
    );
    expect(evil.headers.get("location")).toBe("/fr/dashboard");
  });

  it("refuses page actions from another origin", async () => {
    const { user, browser } = await signedIn({ password: "right-password-1" });
    const res = await browser.post(
      "/profile?index",
      { intent: "update-profile", name: "Mallory" },
      "https://evil.example.com",
    );
    expect(res.status).toBe(403);
    expect((await res.json()).code).toBe("INVALID_ORIGIN");
    const { prisma } = await import("~/server/db.server");
    expect((await prisma.user.findUniqueOrThrow({ where: { id: user.id } })).name).toBe("Page Tester");
  });
});

describe("account settings actions", () => {
  it("updates the profile and shows the fresh data and a toast after the redirect", async () => {
    const { browser } = await signedIn({ password: "right-password-1" });
    // The profile is the settings' index route: its form posts to /profile?index.
    const res = await browser.post("/fr/profile?index", { intent: "update-profile", name: "Nouveau Nom", image: "" });
    expect(res.status).toBe(302);
    expect(res.headers.get("location")).toBe("/fr/profile");
    const page = await browser.get("/fr/profile");
    const html = await page.text();
    expect(html).toContain('value="Nouveau Nom"');
    expect(html).toContain("Profil enregistré");
  });

  it("lets an account without a password set one, then offers to change it", async () => {
    const { user, browser } = await signedIn({ password: null });
    let html = await (await browser.get("/profile/security")).text();
    expect(html).toContain('value="set-password"');
    expect(html).not.toContain('value="change-password"');

    const short = await browser.post("/profile/security", {
      intent: "set-password",
      newPassword: "short",
      confirmPassword: "short",
    });
    expect(short.status).toBe(400);
    expect(await short.text()).toContain("The password is too short");

    const res = await browser.post("/profile/security", {
      intent: "set-password",
      newPassword: "a-brand-new-password",
      confirmPassword: "a-brand-new-password",
    });
    expect(res.status).toBe(302);
    const { hasPassword } = await import("~/server/auth/account-management.server");
    expect(await hasPassword(user.id)).toBe(true);
    expect(res.headers.get("location")).toBe("/profile/security");
    html = await (await browser.get("/profile/security")).text();
    expect(html).toContain('value="change-password"');
    expect(html).toContain("Password set");
  });

  it("deletes a passwordless account through the emailed confirmation link", async () => {
    const { user, email, browser } = await signedIn({ password: null });
    const res = await browser.post("/ja/profile/data", { intent: "delete-account" });
    expect(res.status).toBe(302);
    expect(res.headers.get("location")).toBe("/ja/profile/data");
    expect(await (await browser.get("/ja/profile/data")).text()).toContain("削除を確認してください");

    const mail = await mailbox.waitFor(email);
    const link = mail.links.find((url) => url.includes("/api/auth/delete-user/callback"))!;
    expect(new URL(link).searchParams.get("callbackURL")).toBe("/ja");
    const followed = await browser.get(link);
    expect(followed.status).toBe(302);
    expect(new URL(followed.headers.get("location")!, base).pathname).toBe("/ja");
    const { prisma } = await import("~/server/db.server");
    expect(await prisma.user.findUnique({ where: { id: user.id } })).toBeNull();
  });

  it("changes a verified email once the old address confirms", async () => {
    const { user, email, browser } = await signedIn({ password: "right-password-1" });
    const newEmail = `moved-${Date.now()}@example.com`;
    const res = await browser.post("/profile/email", { intent: "change-email", newEmail });
    expect(res.status).toBe(302);
    expect(await (await browser.get("/profile/email")).text()).toContain("Confirm the change");

    const confirmation = await mailbox.waitFor(email);
    const link = confirmation.links.find((url) => url.includes("/api/auth/verify-email"))!;
    const followed = await browser.get(link);
    expect(followed.headers.get("location")).toBe("/verify-email?changed=1");
    const { prisma } = await import("~/server/db.server");
    const updated = await prisma.user.findUniqueOrThrow({ where: { id: user.id } });
    expect(updated).toMatchObject({ email: newEmail, emailVerified: false });
    // The new address gets its verification, and the profile shows the new state.
    await mailbox.waitFor(newEmail);
    const profile = await (await browser.get("/profile/email")).text();
    expect(profile).toContain(newEmail);
    expect(profile).toContain("Not verified");
  });

  it("says the same for a taken address as for a free one, to a user whose email is unverified", async () => {
    const { email: taken } = await signedIn();
    const { browser } = await signedIn({ verified: false });
    const said = async (newEmail: string) => {
      const res = await browser.post("/profile/email", { intent: "change-email", newEmail });
      const html = await (await browser.get("/profile/email")).text();
      const toast = html.includes("Check your new address") && html.includes(`If ${newEmail} can be used`);
      return { status: res.status, location: res.headers.get("location"), toast };
    };
    const answer = await said(taken);
    expect(answer).toEqual({ status: 302, location: "/profile/email", toast: true });
    expect(await said(`free-${Date.now()}@example.com`)).toEqual(answer);
  });

  it("changing the email to the current one is answered next to the field", async () => {
    const { email, browser } = await signedIn({ password: "right-password-1" });
    const res = await browser.post("/profile/email", { intent: "change-email", newEmail: email });
    expect(res.status).toBe(400);
    const html = await res.text();
    expect(html).toContain("This is already your email address.");
    expect(inputNamed(html, "newEmail")).toContain('aria-invalid="true"');
  });

  it("signs out another session and rejects unknown intents", async () => {
    const { user, browser } = await signedIn({ password: "right-password-1" });
    const { createSession, listSessions } = await import("~/server/auth/session.server");
    const other = await createSession(user.id, { userAgent: "Mozilla/5.0 (iPhone; CPU iPhone OS 17_4 like Mac OS X)" });
    const html = await (await browser.get("/profile/sessions")).text();
    expect(html).toContain(other.session.token);
    const res = await browser.post("/profile/sessions", { intent: "revoke-session", token: other.session.token });
    expect(res.status).toBe(302);
    expect(res.headers.get("location")).toBe("/profile/sessions");
    expect((await listSessions(user.id)).map((s) => s.id)).not.toContain(other.session.id);

    expect((await browser.post("/profile/sessions", { intent: "nonsense" })).status).toBe(400);
  });
});

describe("rate limits on page actions", () => {
  let limited: Awaited<ReturnType<typeof startServer>>;
  beforeAll(async () => {
    limited = await startServer({ DATABASE_URL: db.url, AUTH_SECRET: SECRET, RATE_LIMIT: "on" });
  });
  afterAll(async () => {
    await limited?.stop();
  });

  it("answers the fourth sign-in within 10 s with 429, X-Retry-After and a localized message", async () => {
    const statuses: number[] = [];
    let last: Response | undefined;
    for (let i = 0; i < 4; i++) {
      last = await fetch(`${limited.url}/fr/signin`, {
        method: "POST",
        redirect: "manual",
        body: new URLSearchParams({ intent: "sign-in", email: "nobody@example.com", password: "whatever-123" }),
        headers: { "Content-Type": "application/x-www-form-urlencoded", "User-Agent": BROWSER_UA },
      });
      statuses.push(last.status);
    }
    expect(statuses).toEqual([401, 401, 401, 429]);
    expect(Number(last!.headers.get("X-Retry-After"))).toBeGreaterThan(0);
    expect(await last!.text()).toContain("Trop de requêtes.");
  });
});

describe("verify-email landing", () => {
  it("says the email was changed after a change-email confirmation, not that it was verified", async () => {
    const changed = await (await get(`${base}/fr/verify-email?changed=1`)).text();
    expect(changed).toContain('data-testid="email-changed"');
    expect(changed).toContain("Votre adresse e-mail a été modifiée");
    expect(changed).not.toContain('data-testid="verify-success"');
    const verified = await (await get(`${base}/fr/verify-email`)).text();
    expect(verified).toContain('data-testid="verify-success"');
  });
});
