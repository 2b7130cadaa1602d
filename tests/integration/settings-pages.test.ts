/**
 * Account settings as pages of their own: each section answers at its own address, in the
 * page's language, with its own title, its own forms only and its own action; a form of one
 * section is not answered by another. Plain posts, as a browser without JavaScript sends them.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startTestApp, type TestApp } from "./helpers/app";
import { applySetCookies } from "./helpers/auth-client";
import { createUser, PASSWORD, signInInProcess, uniqueEmail } from "./helpers/factories";
import { BROWSER_UA } from "./helpers/http";

const SECRET = "settings-pages-test-secret-0123456789abcdef";
const CHROME_LINUX =
  "Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/124.0.0.0 Safari/537.36";

let app: TestApp;

beforeAll(async () => {
  app = await startTestApp({ secret: SECRET });
}, 120_000);

afterAll(async () => {
  await app?.stop();
});

/** A user with a password, signed in (on Chrome on Linux) in a cookie jar that does not follow redirects. */
async function signedIn() {
  const user = await createUser({ email: uniqueEmail("settings"), name: "Settings Tester" });
  const { jar } = await signInInProcess({ jar: new Map<string, string>() }, user.id, { userAgent: CHROME_LINUX });
  async function request(path: string, init: RequestInit = {}) {
    const headers = new Headers(init.headers);
    headers.set("User-Agent", BROWSER_UA);
    headers.set("Cookie", [...jar].map(([key, value]) => `${key}=${value}`).join("; "));
    const response = await fetch(new URL(path, app.base), { ...init, headers, redirect: "manual" });
    applySetCookies(jar, response.headers.getSetCookie());
    return response;
  }
  return {
    user,
    get: (path: string) => request(path),
    async page(path: string) {
      const response = await request(path);
      expect(response.status, path).toBe(200);
      return response.text();
    },
    post: (path: string, body: Record<string, string>) =>
      request(path, {
        method: "POST",
        body: new URLSearchParams(body),
        headers: { "Content-Type": "application/x-www-form-urlencoded", Origin: app.base },
      }),
  };
}

/** Each section: its address, its title in English and Japanese, the forms (intents) it shows. */
const SECTIONS = [
  { path: "/profile", en: "Profile · Settings", ja: "プロフィール · 設定", intents: ["update-profile"] },
  { path: "/profile/email", en: "Email · Settings", ja: "メールアドレス · 設定", intents: ["change-email"] },
  { path: "/profile/security", en: "Security · Settings", ja: "セキュリティ · 設定", intents: ["change-password"] },
  {
    path: "/profile/sessions",
    en: "Sessions · Settings",
    ja: "セッション · 設定",
    intents: ["revoke-session", "revoke-other-sessions"],
  },
  { path: "/profile/data", en: "Your data · Settings", ja: "データ · 設定", intents: ["delete-account"] },
  { path: "/profile/api-keys", en: "API keys · Settings", ja: "API キー · 設定", intents: ["create-key"] },
];
const ALL_INTENTS = SECTIONS.flatMap((section) => section.intents);

const intentsIn = (html: string) => [...html.matchAll(/name="intent" value="([^"]+)"/g)].map((m) => m[1]!);
const titleOf = (html: string) => /<title>([^<]*)<\/title>/.exec(html)?.[1];

describe("account settings: one page per section", () => {
  it("answers each section at its own address in two languages, with its own title and only its own forms", async () => {
    const me = await signedIn();
    // Another device, so the sessions section has a row to sign out.
    await signInInProcess({ jar: new Map<string, string>() }, me.user.id, { userAgent: "Mozilla/5.0 (iPhone)" });
    for (const section of SECTIONS) {
      for (const [prefix, title] of [
        ["", section.en],
        ["/ja", section.ja],
      ] as const) {
        const path = `${prefix}${section.path}`;
        const html = await me.page(path);
        expect(titleOf(html), path).toBe(`${title} · Acme Cloud`);
        expect(html, path).toContain(`<html lang="${prefix ? "ja" : "en"}"`);
        // The tabs: every section, this one (and only this one) current.
        const label = prefix ? "アカウント設定" : "Account settings";
        const tabs = new RegExp(`<nav aria-label="${label}"[\\s\\S]*?</nav>`).exec(html)?.[0] ?? "";
        expect(
          [...tabs.matchAll(/href="([^"]+)"/g)].map((m) => m[1]),
          path,
        ).toEqual(SECTIONS.map((other) => `${prefix}${other.path}`));
        expect(
          [...tabs.matchAll(/<a aria-current="page"[^>]*href="([^"]+)"/g)].map((m) => m[1]),
          path,
        ).toEqual([path]);
        expect(new Set(intentsIn(html)), path).toEqual(new Set(section.intents));
        for (const intent of ALL_INTENTS.filter((intent) => !section.intents.includes(intent))) {
          expect(html, `${path} has no ${intent}`).not.toContain(`value="${intent}"`);
        }
      }
    }
  });

  it("loads only what a section shows: sessions and passkeys on their own pages", async () => {
    const me = await signedIn();
    const profile = await me.page("/profile");
    expect(profile).not.toContain('data-testid="session-list"');
    expect(profile).not.toContain('data-section="passkeys"');
    const security = await me.page("/profile/security");
    expect(security).toContain('data-section="passkeys"');
    expect(security).toContain('data-section="two-factor"');
    expect(security).toContain('data-section="accounts"');
    expect(security).not.toContain('data-testid="session-list"');
    expect(security).toContain('href="/profile/two-factor"');
  });

  it("shows the sessions as a table: device, address, last active, the current badge, sign out", async () => {
    const me = await signedIn();
    const { createSession } = await import("~/server/auth/session.server");
    const other = await createSession(me.user.id, { userAgent: CHROME_LINUX, ipAddress: "203.0.113.9" });
    const html = await me.page("/profile/sessions");
    expect(html.match(/<th scope="col"/g)).toHaveLength(4);
    expect(html).toContain("Chrome on Linux");
    expect(html).toContain("203.0.113.9");
    expect(html).toContain("This device");
    // One sign-out button per other session, labelled with its device.
    expect(html.match(/aria-label="Sign out Chrome on Linux"/g)).toHaveLength(1);
    expect(html).toContain(`value="${other.session.token}"`);
    const ja = await me.page("/ja/profile/sessions");
    expect(ja).toContain("Linux の Chrome");
  });
});

describe("account settings: each section's action at its own address", () => {
  it("saves the name at /profile (its index route posts to ?index) and comes back there", async () => {
    const me = await signedIn();
    const res = await me.post("/fr/profile?index", { intent: "update-profile", name: "Nouveau Nom", image: "" });
    expect(res.status).toBe(302);
    expect(res.headers.get("location")).toBe("/fr/profile");
    expect((await app.prisma.user.findUniqueOrThrow({ where: { id: me.user.id } })).name).toBe("Nouveau Nom");
    const html = await me.page("/fr/profile");
    expect(html).toContain("Profil enregistré");
    expect(html).toContain('value="Nouveau Nom"');
  });

  it("changes the email at /profile/email", async () => {
    const me = await signedIn();
    const res = await me.post("/ja/profile/email", { intent: "change-email", newEmail: uniqueEmail("moved") });
    expect(res.status).toBe(302);
    expect(res.headers.get("location")).toBe("/ja/profile/email");
  });

  it("changes the password at /profile/security, a wrong one answered next to its field", async () => {
    const me = await signedIn();
    const wrong = await me.post("/profile/security", {
      intent: "change-password",
      currentPassword: "not the password",
      newPassword: "a brand new password",
      confirmPassword: "a brand new password",
    });
    expect(wrong.status).toBe(400);
    const field = /<input[^>]*name="currentPassword"[^>]*>/.exec(await wrong.text())?.[0];
    expect(field).toContain('aria-invalid="true"');
    const res = await me.post("/profile/security", {
      intent: "change-password",
      currentPassword: PASSWORD,
      newPassword: "a brand new password",
      confirmPassword: "a brand new password",
    });
    expect(res.status).toBe(302);
    expect(res.headers.get("location")).toBe("/profile/security");
    expect(await me.page("/profile/security")).toContain("Password changed");
  });

  it("says a provider's link outcome once, on the security section", async () => {
    const me = await signedIn();
    const linked = await me.get("/fr/profile/security?linked=1");
    expect(linked.status).toBe(302);
    expect(linked.headers.get("location")).toBe("/fr/profile/security");
    const failed = await me.get("/profile/security?error=unable_to_link_account");
    expect(failed.status).toBe(302);
    expect(failed.headers.get("location")).toBe("/profile/security");
  });

  it("signs out another session at /profile/sessions", async () => {
    const me = await signedIn();
    const { createSession, listSessions } = await import("~/server/auth/session.server");
    const other = await createSession(me.user.id, { userAgent: CHROME_LINUX });
    const res = await me.post("/ja/profile/sessions", { intent: "revoke-session", token: other.session.token });
    expect(res.status).toBe(302);
    expect(res.headers.get("location")).toBe("/ja/profile/sessions");
    expect((await listSessions(me.user.id)).map((s) => s.id)).not.toContain(other.session.id);
    expect(await me.page("/ja/profile/sessions")).toContain("セッションをログアウトしました");
  });

  it("deletes the account at /profile/data", async () => {
    const me = await signedIn();
    const res = await me.post("/profile/data", { intent: "delete-account", password: PASSWORD });
    expect(res.status).toBe(302);
    expect(res.headers.get("location")).toBe("/");
    expect(await app.prisma.user.findUnique({ where: { id: me.user.id } })).toBeNull();
  });

  it("answers a form only at its own section", async () => {
    const me = await signedIn();
    const { createSession, listSessions } = await import("~/server/auth/session.server");
    const other = await createSession(me.user.id, { userAgent: CHROME_LINUX });
    expect((await me.post("/profile/security", { intent: "update-profile", name: "Elsewhere" })).status).toBe(400);
    expect((await me.post("/profile/email", { intent: "revoke-other-sessions" })).status).toBe(400);
    // The data section has one form: whatever is posted there is the deletion, and without
    // the password it deletes nothing.
    expect((await me.post("/profile/data", { intent: "revoke-session", token: other.session.token })).status).toBe(400);
    expect((await app.prisma.user.findUniqueOrThrow({ where: { id: me.user.id } })).name).toBe("Settings Tester");
    expect((await listSessions(me.user.id)).map((s) => s.id)).toContain(other.session.id);
  });

  it("keeps the two-factor page and the data download at their addresses, linking back to security", async () => {
    const me = await signedIn();
    const twoFactor = await me.page("/fr/profile/two-factor");
    expect(twoFactor).toContain('href="/fr/profile/security"');
    const download = await me.get("/profile/data.json");
    expect(download.status).toBe(200);
    expect(download.headers.get("content-type")).toMatch(/application\/json/);
  });
});
