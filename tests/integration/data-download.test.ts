/**
 * "Download my data" (docs/decisions/0017-data-download.md) against the built server: a user
 * with something in every table downloads /profile/data.json through the page route with
 * their session cookie; the file holds their records, and none of the secrets stored beside
 * them (searched for in the raw text, not just the parsed fields). Guests are sent to sign in.
 * Runs on SQLite, or on PostgreSQL with TEST_DATABASE_URL.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startTestApp, type TestApp } from "./helpers/app";
import { signedInBrowser, type SignedInBrowser } from "./helpers/browser";
import { createOrganization, createUser } from "./helpers/factories";
import { BROWSER_UA, get } from "./helpers/http";

const SECRET = "data-download-test-secret-0123456789abcdefgh";
const DAY = 86_400_000;
let app: TestApp;

beforeAll(async () => {
  app = await startTestApp({ secret: SECRET });
}, 60_000);
afterAll(() => app?.stop());

/** A user with a row in every table the download reads, and every secret stored about them. */
async function seed(me: SignedInBrowser) {
  const { prisma } = app;
  const { encryptSecret } = await import("~/server/crypto.server");
  const { hashPassword } = await import("~/server/auth/password.server");
  const { createSession } = await import("~/server/auth/session.server");
  const { audit } = await import("~/server/audit.server");
  const tag = me.id.slice(-8);
  const later = new Date(Date.now() + 30 * DAY);

  const passwordHash = await hashPassword("a-long-secret-password");
  await prisma.account.create({
    data: { userId: me.id, providerId: "credential", accountId: me.id, password: passwordHash },
  });
  const oauth = {
    accessToken: `gho_access_${tag}`,
    refreshToken: `ghr_refresh_${tag}`,
    idToken: `eyJ.id-token-${tag}.sig`,
  };
  const sealed = {
    accessToken: encryptSecret(SECRET, oauth.accessToken),
    refreshToken: encryptSecret(SECRET, oauth.refreshToken),
    idToken: encryptSecret(SECRET, oauth.idToken),
  };
  await prisma.account.create({
    data: {
      userId: me.id,
      providerId: "github",
      accountId: `gh-${tag}`,
      scope: "read:user,user:email",
      accessTokenExpiresAt: later,
      ...sealed,
    },
  });

  const phone = await createSession(me.id, { ipAddress: "203.0.113.7", userAgent: "Phone/1.0" });
  const admin = await createUser({
    email: `admin-${tag}@example.com`,
    name: "Some Admin",
    role: "admin",
    verified: false,
    password: null,
  });
  const impersonation = await createSession(
    me.id,
    { ipAddress: "198.51.100.9", userAgent: "AdminBrowser/9" },
    { impersonatedBy: admin.id, expiresIn: 3600 },
  );

  const totpSecret = `JBSWY3DPEHPK3PXP${tag.toUpperCase()}`;
  const encryptedTotp = encryptSecret(SECRET, totpSecret);
  const otpHash = `otp-hash-${tag}`;
  await prisma.twoFactor.create({ data: { userId: me.id, secret: encryptedTotp, verified: true, otpHash } });
  await prisma.user.update({ where: { id: me.id }, data: { twoFactorEnabled: true } });
  const backupCodeHashes = [1, 2, 3].map((n) => `backup-code-hash-${n}-${tag}`);
  await prisma.backupCode.createMany({ data: backupCodeHashes.map((codeHash) => ({ userId: me.id, codeHash })) });
  const trustedTokenHash = `trusted-device-hash-${tag}`;
  await prisma.trustedDevice.create({
    data: { userId: me.id, tokenHash: trustedTokenHash, userAgent: "Laptop/2.0", expiresAt: later },
  });
  const pendingTokenHash = `pending-sign-in-hash-${tag}`;
  await prisma.pendingSignIn.create({
    data: { userId: me.id, tokenHash: pendingTokenHash, method: "email", expiresAt: later },
  });
  const passkey = { publicKey: `pQECAyYgASFYIPublicKey${tag}`, credentialID: `credential-id-${tag}` };
  await prisma.passkey.create({
    data: {
      userId: me.id,
      name: "My laptop",
      counter: 3,
      deviceType: "multiDevice",
      backedUp: true,
      transports: "internal,hybrid",
      ...passkey,
    },
  });

  const organization = await createOrganization({ name: "Data Org", members: [{ userId: me.id, role: "admin" }] });
  await prisma.session.update({ where: { id: phone.session.id }, data: { activeOrganizationId: organization.id } });
  const team = await prisma.team.create({ data: { name: "Data Team", organizationId: organization.id } });
  await prisma.teamMember.create({ data: { teamId: team.id, userId: me.id } });
  const other = await createOrganization({ name: "Inviting Org" });
  const received = await prisma.invitation.create({
    data: { organizationId: other.id, email: me.email, role: "member", inviterId: admin.id, expiresAt: later },
  });
  const sent = await prisma.invitation.create({
    data: {
      organizationId: organization.id,
      email: `friend-${tag}@example.com`,
      role: "member",
      inviterId: me.id,
      expiresAt: later,
    },
  });
  const own = await prisma.subscription.create({
    data: { plan: "pro", referenceId: me.id, provider: "stripe", status: "active", customerId: `cus_${tag}` },
  });
  const organizations = await prisma.subscription.create({
    data: { plan: "team", referenceId: organization.id, provider: "stripe", status: "trialing", seats: 5 },
  });
  const foreign = await prisma.subscription.create({
    data: { plan: "team", referenceId: other.id, provider: "stripe", status: "active" },
  });
  const meta = { ipAddress: "203.0.113.7", userAgent: "Phone/1.0" };
  await audit({
    userId: me.id,
    category: "auth",
    action: "sign-in",
    status: "success",
    details: { method: "email" },
    meta,
  });
  await audit({ userId: admin.id, category: "admin", action: "ban-user", status: "success", targetId: me.id, meta });

  return {
    phone,
    impersonation,
    organization,
    team,
    received,
    sent,
    subscriptions: { own, organizations, foreign },
    secrets: {
      passwordHash,
      ...oauth,
      ...Object.fromEntries(Object.entries(sealed).map(([key, value]) => [`sealed ${key}`, value])),
      totpSecret,
      encryptedTotp,
      otpHash,
      ...Object.fromEntries(backupCodeHashes.map((hash, i) => [`backup code hash ${i}`, hash])),
      trustedTokenHash,
      pendingTokenHash,
      ...passkey,
      "phone session token": phone.token,
      "impersonation session token": impersonation.token,
    } as Record<string, string>,
  };
}

describe("download my data", () => {
  it("sends guests to sign in, in their language", async () => {
    for (const prefix of ["", "/fr"]) {
      const path = `${prefix}/profile/data.json`;
      const response = await get(app.base + path);
      expect(response.status, path).toBe(302);
      expect(response.headers.get("location")).toBe(`${prefix}/signin?redirect=${encodeURIComponent(path)}`);
    }
  });

  it("links to the download from the settings' data section, in every language", async () => {
    const me = await signedInBrowser(app);
    const section = await me.page("/profile/data");
    expect(section).toMatch(/<a href="\/profile\/data\.json" download="" class="[^"]*">Download my data<\/a>/);
    // Above the account's deletion, on the same page.
    expect(section.indexOf('data-section="data"')).toBeLessThan(section.indexOf('data-section="danger"'));
    expect(await me.page("/ja/profile/data")).toContain('href="/ja/profile/data.json"');
  });

  it("holds the user's records and none of their secrets, and is audited", async () => {
    const me = await signedInBrowser(app, { name: "Data Owner" });
    const seeded = await seed(me);
    const browserSession = await app.prisma.session.findFirstOrThrow({
      where: { userId: me.id, userAgent: "vitest" },
    });
    const cookieToken = decodeURIComponent(me.jar.get("app.session_token")!).split(".")[0]!;

    const response = await me.get("/profile/data.json");
    expect(response.status).toBe(200);
    expect(response.headers.get("content-type")).toBe("application/json; charset=utf-8");
    expect(response.headers.get("cache-control")).toBe("no-store");
    expect(response.headers.get("content-disposition")).toMatch(
      /^attachment; filename="account-data-\d{4}-\d{2}-\d{2}\.json"$/,
    );
    const text = await response.text();

    // Not one secret, in any form, anywhere in the file.
    const secrets = {
      ...seeded.secrets,
      "browser session token": cookieToken,
      "browser session token hash": browserSession.token,
      "phone session token hash": seeded.phone.session.token,
      "impersonation session token hash": seeded.impersonation.session.token,
      // Answering an invitation takes nothing but its id.
      "received invitation id": seeded.received.id,
      "sent invitation id": seeded.sent.id,
    };
    for (const [name, secret] of Object.entries(secrets)) {
      expect(secret.length, name).toBeGreaterThan(8);
      expect(text.includes(secret), name).toBe(false);
    }
    for (const field of ["password", "accessToken", "refreshToken", "idToken", "token", "tokenHash", "secret"]) {
      expect(text, field).not.toContain(`"${field}"`);
    }
    expect(text).not.toMatch(/codeHash|otpHash|publicKey|credentialID/);

    const data = JSON.parse(text);
    expect(data.profile).toMatchObject({ id: me.id, email: me.email, name: "Data Owner", twoFactorEnabled: true });
    expect(data.linkedAccounts.map((a: { providerId: string }) => a.providerId).sort()).toEqual([
      "credential",
      "github",
    ]);
    expect(data.linkedAccounts.find((a: { providerId: string }) => a.providerId === "github")).toMatchObject({
      accountId: expect.stringMatching(/^gh-/),
      scope: "read:user,user:email",
    });
    // The user's own sessions; an admin's impersonation carries the admin's address, not theirs.
    expect(data.sessions.map((s: { id: string }) => s.id).sort()).toEqual(
      [browserSession.id, seeded.phone.session.id].sort(),
    );
    expect(data.sessions).toContainEqual(
      expect.objectContaining({
        id: seeded.phone.session.id,
        ipAddress: "203.0.113.7",
        userAgent: "Phone/1.0",
        activeOrganizationId: seeded.organization.id,
      }),
    );
    expect(text).not.toContain("198.51.100.9");
    expect(data.twoFactor).toMatchObject({
      enabled: true,
      backupCodesLeft: 3,
      trustedDevices: [expect.objectContaining({ userAgent: "Laptop/2.0" })],
    });
    expect(data.passkeys).toEqual([
      expect.objectContaining({
        name: "My laptop",
        deviceType: "multiDevice",
        backedUp: true,
        transports: ["internal", "hybrid"],
      }),
    ]);
    expect(data.organizations).toEqual([
      expect.objectContaining({
        id: seeded.organization.id,
        name: "Data Org",
        role: "admin",
        teams: [expect.objectContaining({ id: seeded.team.id, name: "Data Team" })],
      }),
    ]);
    expect(data.invitations.received).toEqual([
      expect.objectContaining({
        email: seeded.received.email,
        organization: expect.objectContaining({ name: "Inviting Org" }),
      }),
    ]);
    expect(data.invitations.sent).toEqual([expect.objectContaining({ email: seeded.sent.email, status: "pending" })]);
    expect(data.subscriptions.map((s: { id: string }) => s.id).sort()).toEqual(
      [seeded.subscriptions.own.id, seeded.subscriptions.organizations.id].sort(),
    );
    // Entries the user made; not an admin's entries about them (those name the admin).
    expect(data.auditLog).toEqual([
      expect.objectContaining({ category: "auth", action: "sign-in", details: { method: "email" } }),
    ]);

    const downloads = await app.prisma.auditLog.findMany({
      where: { userId: me.id, category: "security", action: "data-download" },
    });
    expect(downloads).toEqual([expect.objectContaining({ status: "success", userAgent: BROWSER_UA })]);
  });

  it("leaves out what an admin did while impersonating the user; the admin's audit log shows it as theirs", async () => {
    const admin = await signedInBrowser(app, { role: "admin" });
    const me = await signedInBrowser(app, { name: "Impersonated Person" });
    expect((await admin.post("/admin/users", { intent: "impersonate", userId: me.id })).status).toBe(302);
    expect(
      (await admin.post("/profile?index", { intent: "update-profile", name: "Renamed By Admin", image: "" })).status,
    ).toBe(302);
    expect((await admin.post("/stop-impersonating", { locale: "en" })).status).toBe(302);
    expect((await app.prisma.user.findUniqueOrThrow({ where: { id: me.id } })).name).toBe("Renamed By Admin");
    expect((await me.post("/profile?index", { intent: "update-profile", name: "My Own Name", image: "" })).status).toBe(
      302,
    );

    // The rows name the admin; the user's own change does not.
    const rows = await app.prisma.auditLog.findMany({ where: { userId: me.id, action: "update-user" } });
    expect(rows.map((row) => row.impersonatedBy).sort()).toEqual([admin.id, null].sort());

    const data = JSON.parse(await (await me.get("/profile/data.json")).text());
    const updates = data.auditLog.filter((entry: { action: string }) => entry.action === "update-user");
    expect(updates.map((entry: { id: string }) => entry.id)).toEqual(
      rows.filter((row) => !row.impersonatedBy).map((row) => row.id),
    );

    // Listed under the admin's actions, acting as the user.
    const log = await admin.page(`/admin/maintenance/audit-log?user=${encodeURIComponent(admin.email)}`);
    const row = /<tr data-audit="[^"]+" data-action="update-user"[^>]*>[\s\S]*?<\/tr>/.exec(log)?.[0];
    expect(row).toContain(`data-impersonated-by="${admin.id}">${admin.email}</span>`);
    expect(row).toContain(`as ${me.email}`);
    const csv = await (
      await admin.get(`/admin/maintenance/audit-log.csv?user=${encodeURIComponent(admin.email)}`)
    ).text();
    const line = csv.split("\r\n").find((text) => text.includes('"update-user"'));
    expect(line).toContain(`"${me.id}","${me.email}"`);
    expect(line?.endsWith(`"${admin.id}","${admin.email}"`)).toBe(true);
  });
});
