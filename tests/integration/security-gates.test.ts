/**
 * Rules enforced at the one place every path passes through, each shown by the attack it
 * stops, against the built server through the official client, with a real SMTP capture:
 *
 * - the invitation recipient rule: a verified email equal to the invitation's. A user who
 *   switches their account to an invited address (confirmed from their own old address, so
 *   the new one is unverified) cannot read the invitation's id from their data download,
 *   nor answer it with the id, through the API or the page;
 * - the ban rule at session creation: a banned account gets no session from its verification
 *   link, no new link from a password attempt, and a second step started before the ban does
 *   not complete after it; an admin may still impersonate it, and a ban that is over is lifted.
 *
 * Runs on SQLite, or on PostgreSQL with TEST_DATABASE_URL.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { secretOfURI, stepAt, totp } from "../support/totp";
import { startTestApp, type TestApp } from "./helpers/app";
import { applySetCookies, makeTestClient, type TestClient } from "./helpers/auth-client";
import { createUser, PASSWORD, signInWithPassword, unique, uniqueEmail } from "./helpers/factories";
import { BROWSER_UA } from "./helpers/http";
import type { CapturedMail } from "./helpers/mailbox";

const SECRET = "security-gates-test-secret-0123456789abcdef";
let app: TestApp;

beforeAll(async () => {
  app = await startTestApp({ secret: SECRET });
}, 60_000);
afterAll(() => app?.stop());

const client = () => makeTestClient(app.base, { headers: { "user-agent": BROWSER_UA } });

type Person = { who: TestClient; id: string; email: string };

/** A code the server has not seen yet: the next step's (the current one may be spent). */
const nextCode = (secret: string) => totp(secret, stepAt() + 1);

/** A user with a password (verified unless said otherwise), signed in when verified. */
async function person(name: string, { verified = true, role = "user" } = {}): Promise<Person> {
  const { id, email } = await createUser({ email: uniqueEmail(name), name, role, verified });
  const who = client();
  if (verified) await signInWithPassword(who, email);
  return { who, id, email };
}

/** GETs a link like a browser following it from a mail, with `who`'s cookies, without following redirects. */
async function follow(link: string, who?: TestClient): Promise<Response> {
  const response = await fetch(link, {
    redirect: "manual",
    headers: { "user-agent": BROWSER_UA, ...(who?.jar.size ? { cookie: who.cookieHeader() } : {}) },
  });
  if (who) applySetCookies(who.jar, response.headers.getSetCookie());
  return response;
}

const linkOf = (mail: CapturedMail) => {
  const link = mail.links.find((url) => url.startsWith(`${app.base}/api/auth/verify-email`));
  if (!link) throw new Error(`No verification link in "${mail.subject}"`);
  return link;
};

describe("the invitation recipient rule", () => {
  it("an account switched to an invited address cannot learn or use the invitation's id", async () => {
    const owner = await person("owner");
    const organization = await owner.who.client.organization.create({ name: "Target", slug: unique("target") });
    expect(organization.error).toBeNull();
    const invited = uniqueEmail("invited-cfo");
    const invitation = await owner.who.client.organization.inviteMember({
      email: invited,
      role: "admin",
      organizationId: organization.data!.id,
    });
    expect(invitation.error).toBeNull();
    const invitationId = invitation.data!.id;

    // The attacker moves their verified account to the invited address: the confirmation goes
    // to their own old address, and their session survives the change.
    const attacker = await person("attacker");
    expect((await attacker.who.client.changeEmail({ newEmail: invited, callbackURL: "/profile" })).error).toBeNull();
    const confirmation = await app.mailbox.waitFor(
      attacker.email,
      (m) => m.subject === "Confirm your new email address",
    );
    expect((await follow(linkOf(confirmation), attacker.who)).headers.get("location")).toBe("/profile?changed=1");
    const session = await attacker.who.client.getSession();
    expect(session.data!.user).toMatchObject({ email: invited, emailVerified: false });

    // The data download names no invitation to the unproven address, and no invitation id at all.
    const download = await fetch(`${app.base}/profile/data.json`, {
      headers: { cookie: attacker.who.cookieHeader(), "user-agent": BROWSER_UA },
    });
    expect(download.status).toBe(200);
    const text = await download.text();
    expect(text).not.toContain(invitationId);
    expect((JSON.parse(text) as { invitations: { received: unknown[] } }).invitations.received).toEqual([]);

    // Knowing the id anyway (a browser history, a forwarded link) is not enough, through any door.
    const refused = { status: 403, code: "EMAIL_VERIFICATION_REQUIRED_FOR_INVITATION" };
    expect((await attacker.who.client.organization.acceptInvitation({ invitationId })).error).toMatchObject(refused);
    expect((await attacker.who.client.organization.rejectInvitation({ invitationId })).error).toMatchObject(refused);
    expect((await attacker.who.client.organization.getInvitation({ query: { id: invitationId } })).error).toMatchObject(
      refused,
    );
    expect((await attacker.who.client.organization.listUserInvitations()).error).toMatchObject(refused);
    const page = await fetch(`${app.base}/invitations/${invitationId}`, {
      headers: { cookie: attacker.who.cookieHeader(), "user-agent": BROWSER_UA },
    });
    const html = await page.text();
    expect(html).toContain('data-testid="invitation-unverified"');
    expect(html).not.toContain("Target");
    const answered = await fetch(`${app.base}/invitations/${invitationId}`, {
      method: "POST",
      redirect: "manual",
      headers: {
        cookie: attacker.who.cookieHeader(),
        origin: app.base,
        "content-type": "application/x-www-form-urlencoded",
        "user-agent": BROWSER_UA,
      },
      body: "intent=accept",
    });
    expect(answered.status).toBe(302);
    expect(answered.headers.get("location")).toBe(`/invitations/${invitationId}`);

    expect(await app.prisma.member.count({ where: { userId: attacker.id } })).toBe(0);
    expect(await app.prisma.invitation.findUniqueOrThrow({ where: { id: invitationId } })).toMatchObject({
      status: "pending",
    });

    // Once the address is proven (the real owner's mailbox), the invitation is theirs to answer.
    const verification = await app.mailbox.waitFor(invited, (m) => m.subject === "Verify your email address");
    expect((await follow(linkOf(verification), attacker.who)).status).toBe(302);
    expect((await attacker.who.client.organization.getInvitation({ query: { id: invitationId } })).error).toBeNull();
  });

  it("the data download lists a verified user's invitations without their ids", async () => {
    const owner = await person("owner2");
    const organization = await owner.who.client.organization.create({ name: "Inviting", slug: unique("inviting") });
    const guest = await person("guest");
    const invitation = await owner.who.client.organization.inviteMember({
      email: guest.email,
      role: "member",
      organizationId: organization.data!.id,
    });
    const download = await fetch(`${app.base}/profile/data.json`, {
      headers: { cookie: guest.who.cookieHeader(), "user-agent": BROWSER_UA },
    });
    const text = await download.text();
    const received = (JSON.parse(text) as { invitations: { received: Record<string, unknown>[] } }).invitations
      .received;
    expect(received).toEqual([
      expect.objectContaining({
        email: guest.email,
        role: "member",
        status: "pending",
        organization: expect.anything(),
      }),
    ]);
    expect(received[0]).not.toHaveProperty("id");
    expect(text).not.toContain(invitation.data!.id);
  });
});

describe("the ban rule at session creation", () => {
  it("a banned, unverified account gets no new link from its password and no session from its link", async () => {
    const admin = await person("admin", { role: "admin" });
    const email = uniqueEmail("banned-unverified");
    const who = client();
    expect((await who.client.signUp.email({ name: "Banned", email, password: PASSWORD })).error).toBeNull();
    const mail = await app.mailbox.waitFor(email, (m) => m.subject === "Verify your email address");
    const { id } = await app.prisma.user.findUniqueOrThrow({ where: { email } });
    expect((await admin.who.client.admin.banUser({ userId: id, banReason: "Spam" })).error).toBeNull();

    // The password is right, but the answer is the ban, and no link that would sign in is sent.
    const sent = app.mailbox.to(email).length;
    expect((await who.client.signIn.email({ email, password: PASSWORD })).error).toMatchObject({
      status: 403,
      code: "BANNED_USER",
    });
    expect(await app.mailbox.settled(email)).toHaveLength(sent);

    // The link from before the ban verifies the address but signs no one in.
    const landing = await follow(linkOf(mail), who);
    expect(landing.status).toBe(302);
    expect(landing.headers.get("location")).toMatch(/[?&]error=banned_user/);
    expect(landing.headers.getSetCookie().filter((cookie) => cookie.startsWith("app.session_token="))).toEqual([]);
    expect(await app.prisma.session.count({ where: { userId: id } })).toBe(0);
    const page = await fetch(new URL(landing.headers.get("location")!, app.base), {
      headers: { "user-agent": BROWSER_UA },
    });
    expect(await page.text()).toContain("Your account is suspended");

    const audit = await app.prisma.auditLog.findMany({
      where: { userId: id, action: "sign-in", status: "failure" },
      orderBy: { createdAt: "asc" },
    });
    expect(audit.map((row) => JSON.parse(row.details!) as { reason: string })).toEqual([
      expect.objectContaining({ reason: "BANNED_USER" }),
      expect.objectContaining({ reason: "BANNED_USER", method: "email-verification" }),
    ]);
  });

  it("a second step started before the ban does not complete after it", async () => {
    const admin = await person("admin2", { role: "admin" });
    const user = await person("two-step");
    const enabled = await user.who.client.twoFactor.enable({ password: PASSWORD });
    const secret = secretOfURI((enabled.data as { totpURI: string }).totpURI);
    expect((await user.who.client.twoFactor.verifyTotp({ code: totp(secret) })).error).toBeNull();

    // Two browsers stop at the second step; the user is banned meanwhile.
    const first = client();
    const second = client();
    for (const browser of [first, second]) {
      const started = await browser.client.signIn.email({ email: user.email, password: PASSWORD });
      expect(started.data).toMatchObject({ twoFactorRedirect: true });
    }
    expect((await admin.who.client.admin.banUser({ userId: user.id })).error).toBeNull();
    // The ban ends the sign-ins waiting for their second step.
    expect(await app.prisma.pendingSignIn.count({ where: { userId: user.id } })).toBe(0);
    expect((await first.client.twoFactor.verifyTotp({ code: nextCode(secret) })).error).toMatchObject({ status: 401 });

    // Even a waiting sign-in the ban did not reach (a row written as the ban landed) makes no session.
    await app.prisma.user.update({ where: { id: user.id }, data: { banned: false } });
    const third = client();
    expect((await third.client.signIn.email({ email: user.email, password: PASSWORD })).data).toMatchObject({
      twoFactorRedirect: true,
    });
    await app.prisma.user.update({ where: { id: user.id }, data: { banned: true } });
    expect((await third.client.twoFactor.verifyTotp({ code: nextCode(secret) })).error).toMatchObject({
      status: 403,
      code: "BANNED_USER",
    });
    expect(await app.prisma.session.count({ where: { userId: user.id } })).toBe(0);
    // And no new second step starts for a banned user.
    expect((await second.client.signIn.email({ email: user.email, password: PASSWORD })).error).toMatchObject({
      status: 403,
      code: "BANNED_USER",
    });
    expect(await app.prisma.pendingSignIn.count({ where: { userId: user.id } })).toBe(0);
  });

  it("an admin still impersonates a banned user, and a ban that is over is lifted at sign-in", async () => {
    const admin = await person("admin3", { role: "admin" });
    const user = await person("short-ban");
    expect((await admin.who.client.admin.banUser({ userId: user.id, banExpiresIn: 60 })).error).toBeNull();
    const impersonated = await admin.who.client.admin.impersonateUser({ userId: user.id });
    expect(impersonated.error).toBeNull();
    expect(impersonated.data!.session).toMatchObject({ userId: user.id, impersonatedBy: admin.id });

    await app.prisma.user.update({ where: { id: user.id }, data: { banExpires: new Date(Date.now() - 1000) } });
    const again = client();
    expect((await again.client.signIn.email({ email: user.email, password: PASSWORD })).error).toBeNull();
    expect(await app.prisma.user.findUniqueOrThrow({ where: { id: user.id } })).toMatchObject({
      banned: false,
      banReason: null,
      banExpires: null,
    });
  });
});
