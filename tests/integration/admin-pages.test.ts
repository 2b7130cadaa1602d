/**
 * The admin console's users pages as a browser without JavaScript uses them: the table's
 * view in the URL (search, filters, order, page size) and its second-factor marks, the row
 * buttons, the create, ban, password, two-factor reset and delete dialogs (pages of their
 * own), impersonation with its banner and the way back, and the refusal of everyone else.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startTestApp, type TestApp } from "./helpers/app";
import { signedInBrowser, type SignedInBrowser } from "./helpers/browser";
import { get } from "./helpers/http";

const SECRET = "admin-pages-test-secret-0123456789abcdefghijk";
let app: TestApp;

beforeAll(async () => {
  app = await startTestApp({ secret: SECRET });
}, 60_000);
afterAll(() => app?.stop());

type Browser = SignedInBrowser;
const browserOf = (role: string, name?: string) => signedInBrowser(app, { role, name });
const open = (b: Browser, path: string) => b.get(path);
const submit = (b: Browser, path: string, form: Record<string, string>) => b.post(path, form);
const rowsOf = (html: string) => [...html.matchAll(/<tr data-user="([^"]+)"/g)].map((m) => m[1]);

describe("access", () => {
  it("sends non-admins to /403 and guests to sign in, on every users page", async () => {
    const user = await browserOf("user");
    for (const path of ["/admin/users", "/admin/users/new", `/admin/users/${user.id}/ban`, "/fr/admin/users"]) {
      const response = await open(user, path);
      expect(response.status, path).toBe(302);
      expect(response.headers.get("location"), path).toMatch(/\/403$/);
      const guest = await get(app.base + path);
      expect(guest.headers.get("location"), path).toMatch(/\/signin\?redirect=/);
    }
    const refused = await submit(user, "/admin/users", { intent: "set-role", userId: user.id, role: "admin" });
    expect(refused.status).toBe(302);
    expect((await app.prisma.user.findUniqueOrThrow({ where: { id: user.id } })).role).toBe("user");
  });
});

describe("the users table", () => {
  it("keeps search, filters, order and page size in the URL", async () => {
    const admin = await browserOf("admin");
    const tag = `tbl${Date.now()}`;
    for (let i = 0; i < 7; i++) {
      await app.prisma.user.create({
        data: {
          email: `${tag}-${i}@example.com`,
          name: `Zed ${i}`,
          banned: i % 3 === 0,
          createdAt: new Date(Date.UTC(2026, 2, 1 + i)),
        },
      });
    }
    const html = await (await open(admin, `/admin/users?q=${tag}&sort=createdAt&dir=asc&size=5`)).text();
    expect(rowsOf(html)).toEqual([0, 1, 2, 3, 4].map((i) => `${tag}-${i}@example.com`));
    expect(html).toContain("Page 1 of 2");
    const next = await (await open(admin, `/admin/users?q=${tag}&sort=createdAt&dir=asc&size=5&page=2`)).text();
    expect(rowsOf(next)).toEqual([5, 6].map((i) => `${tag}-${i}@example.com`));

    const banned = await (await open(admin, `/admin/users?q=${tag}&status=banned&sort=email&dir=desc`)).text();
    expect(rowsOf(banned)).toEqual([6, 3, 0].map((i) => `${tag}-${i}@example.com`));
    const ranged = await (
      await open(admin, `/admin/users?q=${tag}&from=2026-03-02&to=2026-03-03&sort=createdAt`)
    ).text();
    expect(rowsOf(ranged).sort()).toEqual([1, 2].map((i) => `${tag}-${i}@example.com`));
    const byName = await (await open(admin, `/admin/users?q=Zed 4&field=name`)).text();
    expect(rowsOf(byName)).toEqual([`${tag}-4@example.com`]);
    // A bad value falls back to the default instead of failing the page.
    expect((await open(admin, "/admin/users?size=7&sort=password&page=-3")).status).toBe(200);
    // The page's short name leads here.
    expect((await open(admin, "/admin/user")).headers.get("location")).toBe("/admin/users");
  });

  it("changes a role, ends sessions and lifts a ban from the row buttons, audited", async () => {
    const admin = await browserOf("admin");
    const user = await browserOf("user");
    const view = "/admin/users?q=admin-pages&size=50";
    const response = await submit(admin, view, { intent: "set-role", userId: user.id, role: "admin" });
    expect([response.status, response.headers.get("location")]).toEqual([302, view]);
    expect((await app.prisma.user.findUniqueOrThrow({ where: { id: user.id } })).role).toBe("admin");

    await submit(admin, view, { intent: "revoke-sessions", userId: user.id });
    expect(await app.prisma.session.count({ where: { userId: user.id } })).toBe(0);
    await app.prisma.user.update({ where: { id: user.id }, data: { banned: true } });
    await submit(admin, view, { intent: "unban", userId: user.id });
    expect((await app.prisma.user.findUniqueOrThrow({ where: { id: user.id } })).banned).toBe(false);

    const actions = await app.prisma.auditLog.findMany({
      where: { category: "admin", userId: admin.id, targetId: user.id },
      select: { action: true },
    });
    expect(actions.map((a) => a.action).sort()).toEqual(["revoke-user-sessions", "set-role", "unban-user"]);
  });
});

describe("dialogs", () => {
  it("creates a user, with the form's errors in the page's language", async () => {
    const admin = await browserOf("admin");
    const dialog = await (await open(admin, "/admin/users/new?q=x")).text();
    expect(dialog).toContain('data-testid="confirm-dialog"');
    const email = `made-${Date.now()}@example.com`;
    const made = await submit(admin, "/admin/users/new?q=x", {
      intent: "create-user",
      name: "Made Here",
      email,
      password: "a-long-password",
      role: "user",
    });
    expect([made.status, made.headers.get("location")]).toEqual([302, "/admin/users?q=x"]);
    expect(await app.prisma.user.findUniqueOrThrow({ where: { email } })).toMatchObject({ emailVerified: true });

    const again = await submit(admin, "/fr/admin/users/new", {
      intent: "create-user",
      name: "Again",
      email,
      password: "a-long-password",
      role: "user",
    });
    expect(again.status).toBe(400);
    expect(await again.text()).toContain("Utilisez une autre adresse");
  });

  it("bans for a number of days: the user's session ends at once", async () => {
    const admin = await browserOf("admin");
    const user = await browserOf("user");
    expect((await open(user, "/profile")).status).toBe(200);
    const banned = await submit(admin, `/admin/users/${user.id}/ban?status=all`, {
      intent: "ban-user",
      reason: "Abuse",
      duration: "7",
    });
    expect([banned.status, banned.headers.get("location")]).toEqual([302, "/admin/users?status=all"]);
    const row = await app.prisma.user.findUniqueOrThrow({ where: { id: user.id } });
    expect(row).toMatchObject({ banned: true, banReason: "Abuse" });
    expect(row.banExpires!.getTime() - Date.now()).toBeGreaterThan(6.9 * 86_400_000);
    expect((await open(user, "/profile")).headers.get("location")).toMatch(/\/signin/);
    // Not yourself.
    const self = await submit(admin, `/admin/users/${admin.id}/ban`, { intent: "ban-user", duration: "permanent" });
    expect(self.status).toBe(400);
  });

  it("sets a password and deletes a user, never the admin themself", async () => {
    const admin = await browserOf("admin");
    const user = await browserOf("user");
    const short = await submit(admin, `/admin/users/${user.id}/password`, {
      intent: "set-password",
      password: "short",
    });
    expect(short.status).toBe(400);
    const set = await submit(admin, `/admin/users/${user.id}/password`, {
      intent: "set-password",
      password: "a-long-password",
    });
    expect(set.status).toBe(302);
    expect(await app.prisma.account.count({ where: { userId: user.id, providerId: "credential" } })).toBe(1);

    expect((await submit(admin, `/admin/users/${admin.id}/delete`, { intent: "delete-user" })).status).toBe(400);
    expect((await submit(admin, `/admin/users/${user.id}/delete`, { intent: "delete-user" })).status).toBe(302);
    expect(await app.prisma.user.count({ where: { id: user.id } })).toBe(0);
    expect((await open(admin, `/admin/users/${user.id}/delete`)).status).toBe(404);
  });
});

describe("impersonation", () => {
  it("acts as the user with a banner, then returns to the admin's own session", async () => {
    const admin = await browserOf("admin", "Root Admin");
    const user = await browserOf("user", "Imma User");
    const adminToken = admin.jar.get("app.session_token");
    const started = await submit(admin, "/admin/users", { intent: "impersonate", userId: user.id });
    // Acting as the user: where the user's own sign-in lands.
    expect([started.status, started.headers.get("location")]).toEqual([302, "/dashboard"]);
    expect(admin.jar.get("app.session_token")).not.toBe(adminToken);

    const profile = await (await open(admin, "/profile")).text();
    expect(profile).toContain('data-testid="impersonation-banner"');
    expect(profile).toContain("Imma User");
    // As the user, the console is closed.
    expect((await open(admin, "/admin/users")).headers.get("location")).toMatch(/\/403$/);

    const stopped = await submit(admin, "/stop-impersonating", { locale: "en" });
    expect([stopped.status, stopped.headers.get("location")]).toEqual([302, "/admin/users"]);
    expect(admin.jar.get("app.session_token")).toBe(adminToken);
    expect((await open(admin, "/admin/users")).status).toBe(200);
    expect(await app.prisma.session.count({ where: { userId: user.id, impersonatedBy: admin.id } })).toBe(0);

    // Admins cannot be impersonated.
    const other = await browserOf("admin");
    await submit(admin, "/admin/users", { intent: "impersonate", userId: other.id });
    expect(admin.jar.get("app.session_token")).toBe(adminToken);
  });
});

describe("second factors", () => {
  /** A user with two-factor on: its secret, backup codes, a trusted browser, and `passkeys` passkeys. */
  async function withTwoFactor(passkeys: number) {
    const user = await browserOf("user");
    await app.prisma.user.update({ where: { id: user.id }, data: { twoFactorEnabled: true } });
    await app.prisma.twoFactor.create({ data: { userId: user.id, secret: "v1.sealed", verified: true } });
    await app.prisma.backupCode.createMany({
      data: ["a", "b"].map((code) => ({ userId: user.id, codeHash: `${code}-${user.id}` })),
    });
    await app.prisma.trustedDevice.create({
      data: { userId: user.id, tokenHash: `trusted-${user.id}`, expiresAt: new Date(Date.now() + 86_400_000) },
    });
    for (let i = 0; i < passkeys; i++) {
      await app.prisma.passkey.create({
        data: {
          userId: user.id,
          publicKey: "key",
          credentialID: `cred-${i}-${user.id}`,
          counter: 0,
          deviceType: "multiDevice",
          backedUp: true,
        },
      });
    }
    return user;
  }
  const rowOf = (html: string, email: string) => html.match(new RegExp(`<tr data-user="${email}"[^]*?</tr>`))![0];

  it("shows in the users table who has two-factor and how many passkeys, and offers the reset only then", async () => {
    const admin = await browserOf("admin");
    const secured = await withTwoFactor(2);
    const plain = await browserOf("user");
    const html = await admin.page("/admin/users?size=100&sort=createdAt&dir=desc");
    const row = rowOf(html, secured.email);
    expect(row).toContain('data-two-factor="true"');
    expect(row).toContain('data-passkeys="2"');
    expect(row).toContain('<span class="sr-only">Two-factor authentication on</span>');
    expect(row).toContain("2 passkeys");
    expect(row).toContain(`href="/admin/users/${secured.id}/two-factor?size=100&amp;sort=createdAt&amp;dir=desc"`);
    const none = rowOf(html, plain.email);
    expect(none).not.toContain("data-two-factor");
    expect(none).toContain('<span class="sr-only">No second factor</span>');
    expect(none).not.toContain("/two-factor");
    expect(rowOf(await admin.page("/fr/admin/users?size=100"), secured.email)).toContain("2 clés d’accès");
  });

  it("resets a user's two-factor with a reason, audited; refuses without one, or without two-factor", async () => {
    const admin = await browserOf("admin");
    const user = await withTwoFactor(1);
    const path = `/admin/users/${user.id}/two-factor?q=x`;
    expect(await admin.page(path)).toContain('data-testid="confirm-dialog"');

    const empty = await submit(admin, path, { intent: "reset-two-factor", reason: "  " });
    expect(empty.status).toBe(400);
    expect(await empty.text()).toContain("This field is required.");
    const long = await submit(admin, `/fr${path}`, { intent: "reset-two-factor", reason: "x".repeat(501) });
    expect(long.status).toBe(400);
    expect(await long.text()).toContain("Le motif ne peut pas dépasser 500 caractères.");
    expect(await app.prisma.twoFactor.count({ where: { userId: user.id } })).toBe(1);

    const done = await submit(admin, path, {
      intent: "reset-two-factor",
      reason: "Lost phone, identity checked by call",
    });
    expect([done.status, done.headers.get("location")]).toEqual([302, "/admin/users?q=x"]);
    expect(await app.prisma.user.findUniqueOrThrow({ where: { id: user.id } })).toMatchObject({
      twoFactorEnabled: false,
    });
    expect(await app.prisma.twoFactor.count({ where: { userId: user.id } })).toBe(0);
    expect(await app.prisma.backupCode.count({ where: { userId: user.id } })).toBe(0);
    expect(await app.prisma.trustedDevice.count({ where: { userId: user.id } })).toBe(0);
    // Passkeys are a sign-in method of their own, not part of two-factor.
    expect(await app.prisma.passkey.count({ where: { userId: user.id } })).toBe(1);
    const audit = await app.prisma.auditLog.findFirstOrThrow({
      where: { category: "admin", action: "reset-two-factor", targetId: user.id },
    });
    expect(audit).toMatchObject({ userId: admin.id, status: "success", targetType: "user" });
    expect(JSON.parse(audit.details!)).toEqual({ admin: admin.email, reason: "Lost phone, identity checked by call" });

    // Now without two-factor: refused in the page's language, nothing written.
    const again = await submit(admin, path, { intent: "reset-two-factor", reason: "Again" });
    expect(again.status).toBe(400);
    expect(await again.text()).toContain("Two-factor authentication is not on.");
    const japanese = await submit(admin, `/ja${path}`, { intent: "reset-two-factor", reason: "Again" });
    expect(japanese.status).toBe(400);
    expect(await japanese.text()).toContain("二要素認証は有効になっていません。");
    expect(await app.prisma.auditLog.count({ where: { action: "reset-two-factor", targetId: user.id } })).toBe(1);
  });

  it("refuses everyone but admins: the console sends them to /403, the verb answers 403", async () => {
    const user = await withTwoFactor(0);
    const other = await browserOf("user");
    const path = `/admin/users/${user.id}/two-factor`;
    for (const response of [await open(other, path), await submit(other, path, { reason: "Because" })]) {
      expect(response.status).toBe(302);
      expect(response.headers.get("location")).toBe("/403");
    }
    expect((await open(other, "/403")).status).toBe(403);
    expect(await app.prisma.twoFactor.count({ where: { userId: user.id } })).toBe(1);

    const { resetTwoFactor } = await import("~/server/admin/users.server");
    const caller = await app.prisma.session.findFirstOrThrow({ where: { userId: other.id }, include: { user: true } });
    const { user: callerUser, ...session } = caller;
    const refused = resetTwoFactor(
      { session, user: callerUser },
      { userId: user.id, reason: "Because" },
      { ipAddress: null, userAgent: null, locale: "en" },
    );
    await expect(refused).rejects.toMatchObject({ status: 403, code: "YOU_ARE_NOT_ALLOWED_TO_UPDATE_USERS" });
    expect((await app.prisma.user.findUniqueOrThrow({ where: { id: user.id } })).twoFactorEnabled).toBe(true);
  });
});
