/**
 * The signed-in home: what it shows (the active organization at a glance, what to do next,
 * the user's own recent activity) in the page's language, and that signing in, a verified
 * link and a guest-only page lead there. The marketing home and the footer speak to a
 * signed-in visitor as one.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startTestApp, type TestApp } from "./helpers/app";
import { browserFor, signedInBrowser } from "./helpers/browser";
import { createUser, PASSWORD, uniqueEmail } from "./helpers/factories";
import { BROWSER_UA } from "./helpers/http";

let app: TestApp;

beforeAll(async () => {
  app = await startTestApp({ secret: "dashboard-test-secret-0123456789abcdefghij" });
}, 60_000);
afterAll(() => app?.stop());

const figure = (html: string, testId: string) =>
  html
    .match(new RegExp(`data-testid="${testId}"[\\s\\S]*?<dd[^>]*>([\\s\\S]*?)</dd>`))?.[1]
    ?.replace(/<[^>]+>/g, "")
    .replace(/<!-- -->/g, "");

const steps = (html: string) =>
  [...html.matchAll(/<li data-step="([a-z-]+)"( data-done="true")?/g)].map(
    ([, step, done]) => `${step}${done ? ":done" : ""}`,
  );

describe("the dashboard", () => {
  it("sends a guest to sign in and back", async () => {
    const res = await fetch(`${app.base}/ja/dashboard`, { redirect: "manual", headers: { "User-Agent": BROWSER_UA } });
    expect(res.status).toBe(302);
    expect(res.headers.get("location")).toBe(`/ja/signin?redirect=${encodeURIComponent("/ja/dashboard")}`);
  });

  it("shows a user without an organization how to start, and the steps of a new account", async () => {
    const me = await signedInBrowser(app, { name: "Nora New", verified: false });
    const html = await me.page("/fr/dashboard");
    expect(html).toContain("<title>Tableau de bord");
    expect(html).toContain("Bon retour, Nora New");
    expect(html).toContain("Pas encore d&#x27;organisation");
    expect(html).toContain('href="/fr/organizations/new"');
    // No organization: nothing to invite to, no plan to choose for one.
    expect(steps(html)).toEqual(["verify-email", "two-factor", "passkey"]);
    expect(html).toContain("0 sur 3 terminées");
  });

  it("shows the active organization's members, plan, pending invitations and teams, and what is left to do", async () => {
    const ownerUser = await createUser({ email: uniqueEmail("owner"), name: "Olive Owner" });
    const colleague = await createUser({ email: uniqueEmail("colleague") });
    const organization = await app.prisma.organization.create({
      data: {
        name: "Acme Widgets",
        slug: `acme-${Date.now().toString(36)}`,
        members: {
          create: [
            { userId: ownerUser.id, role: "owner" },
            { userId: colleague.id, role: "member" },
          ],
        },
        teams: { create: [{ name: "Design" }] },
      },
    });
    const later = new Date(Date.now() + 86_400_000);
    await app.prisma.invitation.createMany({
      data: [
        {
          organizationId: organization.id,
          email: uniqueEmail("pending"),
          role: "member",
          inviterId: ownerUser.id,
          expiresAt: later,
        },
        // Neither an accepted nor an expired invitation is pending.
        {
          organizationId: organization.id,
          email: uniqueEmail("accepted"),
          role: "member",
          status: "accepted",
          inviterId: ownerUser.id,
          expiresAt: later,
        },
        {
          organizationId: organization.id,
          email: uniqueEmail("old"),
          role: "member",
          inviterId: ownerUser.id,
          expiresAt: new Date(0),
        },
      ],
    });
    // Their only organization: the session starts in it.
    const owner = await browserFor(app, ownerUser);

    const free = await owner.page("/dashboard");
    expect(free).toContain("Acme Widgets");
    expect(figure(free, "figure-members")).toBe("2");
    expect(figure(free, "figure-invitations")).toBe("1");
    expect(figure(free, "figure-teams")).toBe("1");
    expect(figure(free, "figure-plan")).toBe("Free");
    expect(free).toContain(`href="/organizations/${organization.slug}/members"`);
    // Colleagues are in, so inviting is done; the plan is still to choose.
    expect(steps(free)).toEqual(["verify-email:done", "two-factor", "passkey", "invite:done", "plan"]);

    await app.prisma.subscription.create({
      data: {
        plan: "team",
        referenceId: organization.id,
        provider: "stripe",
        status: "trialing",
        periodEnd: new Date("2031-03-05T12:00:00Z"),
      },
    });
    const paid = await owner.page("/ja/dashboard");
    expect(figure(paid, "figure-plan")).toBe("Teamトライアル中 · 2031年3月5日に更新");
    expect(steps(paid)).toContain("plan:done");
  });

  it("offers a member who may not invite or pay neither step", async () => {
    const memberUser = await createUser({ email: uniqueEmail("member") });
    await app.prisma.organization.create({
      data: {
        name: "Members Only",
        slug: `members-${Date.now().toString(36)}`,
        members: { create: [{ userId: memberUser.id, role: "member" }] },
      },
    });
    const member = await browserFor(app, memberUser);
    const html = await member.page("/dashboard");
    expect(html).toContain("Members Only");
    expect(steps(html)).toEqual(["verify-email:done", "two-factor", "passkey"]);
  });

  it("lists the user's own recent activity, newest first, and nobody else's", async () => {
    const me = await signedInBrowser(app);
    const other = await createUser();
    const at = (minutes: number) => new Date(Date.UTC(2030, 0, 1, 12, minutes));
    await app.prisma.auditLog.createMany({
      data: [
        {
          userId: me.id,
          category: "auth",
          action: "sign-in",
          status: "success",
          createdAt: at(1),
          userAgent: BROWSER_UA,
          ipAddress: "203.0.113.9",
        },
        { userId: me.id, category: "auth", action: "change-password", status: "failure", createdAt: at(2) },
        { userId: other.id, category: "auth", action: "delete-user", status: "success", createdAt: at(3) },
      ],
    });
    const html = await me.page("/dashboard");
    const activity = html.slice(html.indexOf('data-testid="recent-activity"'));
    expect(activity).toContain("203.0.113.9");
    expect(activity).toContain("Chrome on Linux");
    expect(activity).toContain("Failed");
    // Named as the audit log names them, newest first; nobody else's row.
    expect(activity).not.toContain("Account deleted");
    expect(activity.indexOf("Password changed")).toBeGreaterThan(-1);
    expect(activity.indexOf("Password changed")).toBeLessThan(activity.indexOf(">Sign-in<"));
  });
});

describe("where a signed-in person lands", () => {
  it("lands a password sign-in on the dashboard, in the page's language", async () => {
    const { email } = await createUser({ email: uniqueEmail("lands") });
    const res = await fetch(`${app.base}/ja/signin`, {
      method: "POST",
      redirect: "manual",
      headers: { "User-Agent": BROWSER_UA, "Content-Type": "application/x-www-form-urlencoded", Origin: app.base },
      body: new URLSearchParams({ intent: "sign-in", email, password: PASSWORD }),
    });
    expect(res.status).toBe(302);
    expect(res.headers.get("location")).toBe("/ja/dashboard");
  });

  it("lands a verified link on the dashboard with a toast, or on the page the sign-up started from", async () => {
    const me = await signedInBrowser(app);
    const home = await me.get("/fr/verify-email");
    expect(home.status).toBe(302);
    expect(home.headers.get("location")).toBe("/fr/dashboard");
    expect(home.headers.getSetCookie().some((line) => line.startsWith("toast="))).toBe(true);
    const back = await me.get(`/fr/verify-email?redirect=${encodeURIComponent("/fr/pricing")}`);
    expect(back.headers.get("location")).toBe("/fr/pricing");
  });

  it("asks a signed-in person whose address is not verified yet to verify it, instead of congratulating them", async () => {
    const me = await signedInBrowser(app, { verified: false });
    const html = await me.page("/verify-email");
    expect(html).toContain('data-testid="verify-pending"');
    expect(html).not.toContain('data-testid="verify-success"');
  });

  it("offers a signed-in visitor of the marketing home their dashboard instead of sign-up calls", async () => {
    const me = await signedInBrowser(app);
    const html = await me.page("/fr");
    expect(html).toContain("Ouvrir le tableau de bord");
    expect(html).not.toContain('href="/fr/signup"');
    expect(html).not.toContain('href="/fr/signin"');
    const guest = await (await fetch(`${app.base}/fr`, { headers: { "User-Agent": BROWSER_UA } })).text();
    expect(guest).toContain('href="/fr/signup"');
    expect(guest).not.toContain("Ouvrir le tableau de bord");
  });
});
