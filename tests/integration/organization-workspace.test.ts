/**
 * The organization as a workspace: each section at its own address, with its title and its
 * forms, in the page's language; what the only owner is told instead of controls they cannot
 * use; open invitations apart from their history; the metadata folded under "Advanced";
 * banned people not offered for teams. Then the invitation page, which names the inviter, and
 * the sign-up it links to, which takes the invited address and no other.
 */
import { readFileSync } from "node:fs";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { signedInBrowser, type SignedInBrowser } from "./helpers/browser";
import { startTestApp, type TestApp } from "./helpers/app";
import { createOrganization, unique, uniqueEmail } from "./helpers/factories";
import { BROWSER_UA } from "./helpers/http";

const SECRET = "organization-workspace-test-secret-0123456789ab";

let app: TestApp;

beforeAll(async () => {
  app = await startTestApp({ secret: SECRET });
}, 60_000);
afterAll(() => app?.stop());

const person = (name?: string) => signedInBrowser(app, { name });
type Person = SignedInBrowser;

/** A string of locales/<lng>/<namespace>.json, its placeholders filled (HTML-escaped as React writes it). */
function text(lng: string, namespace: string, path: string, values: Record<string, string> = {}): string {
  const file = new URL(`../../locales/${lng}/${namespace}.json`, import.meta.url);
  let value: unknown = JSON.parse(readFileSync(file, "utf8"));
  for (const part of path.split(".")) value = (value as Record<string, unknown>)[part];
  return Object.entries(values)
    .reduce((result, [name, filler]) => result.replaceAll(`{{${name}}}`, filler), value as string)
    .replace(/&/g, "&amp;")
    .replace(/'/g, "&#x27;")
    .replace(/"/g, "&quot;");
}

/** The document's <title>. */
const titleOf = (html: string) => html.match(/<title>(.*?)<\/title>/)?.[1] ?? "";

/** An organization made through the create form by its owner, with an admin and a member. */
async function workspace() {
  const owner = await person("Olive Owner");
  const slug = unique("ws");
  expect((await owner.post("/organizations/new", { name: "Acme", slug })).status).toBe(302);
  const organization = await app.prisma.organization.findUniqueOrThrow({ where: { slug } });
  const admin = await person("Ada Admin");
  const member = await person("Max Member");
  await app.prisma.member.createMany({
    data: [
      { organizationId: organization.id, userId: admin.id, role: "admin" },
      { organizationId: organization.id, userId: member.id, role: "member" },
    ],
  });
  const memberId = async (who: Person) =>
    (await app.prisma.member.findFirstOrThrow({ where: { userId: who.id, organizationId: organization.id } })).id;
  return { owner, admin, member, organization, slug, base: `/organizations/${slug}`, memberId };
}

describe("the sections of an organization", () => {
  const sections = [
    { path: "", meta: "organizationOverview", form: 'data-testid="quick-links"' },
    { path: "/members", meta: "organizationMembers", form: 'name="intent" value="update-member-role"' },
    { path: "/invitations", meta: "organizationInvitations", form: 'id="form-invite-member"' },
    { path: "/teams", meta: "organizationTeams", form: 'id="form-create-team"' },
    { path: "/settings", meta: "organizationSettings", form: 'id="form-update-organization"' },
    { path: "/billing", meta: "organizationBilling", form: 'data-testid="organization-plan"' },
  ];

  it.each(["en", "ja"])("answers each at its own address with its title, tabs and forms (%s)", async (lng) => {
    const { owner, base } = await workspace();
    const prefix = lng === "en" ? "" : `/${lng}`;
    for (const section of sections) {
      const html = await owner.page(`${prefix}${base}${section.path}`);
      const title = text(lng, "common", `meta.${section.meta}.title`, { name: "Acme" });
      expect(titleOf(html), section.path).toContain(title);
      expect(html, section.path).toContain(section.form);
      // The header and the tabs, the current one marked.
      expect(html).toMatch(/<h1[^>]*data-testid="organization-name"[^>]*>Acme<\/h1>/);
      expect(html).toMatch(
        new RegExp(
          `href="${prefix}${base}${section.path}"[^>]*aria-current="page"|aria-current="page"[^>]*href="${prefix}${base}${section.path}"`,
        ),
      );
      for (const tab of ["members", "invitations", "teams", "settings", "billing"]) {
        expect(html).toContain(`href="${prefix}${base}/${tab}"`);
        expect(html).toContain(`>${text(lng, "organization", `nav.${tab}`)}</a>`);
      }
    }
  });

  it("counts members, open invitations and teams on the overview, with its plan, and links on", async () => {
    const { owner, organization, base } = await workspace();
    await owner.post(`${base}/invitations`, { intent: "invite-member", email: uniqueEmail("x"), role: "member" });
    await owner.post(`${base}/teams`, { intent: "create-team", name: "Ops" });
    await app.prisma.subscription.create({
      data: {
        plan: "team",
        referenceId: organization.id,
        provider: "stripe",
        status: "active",
        periodEnd: new Date("2031-03-04T12:00:00Z"),
      },
    });
    const html = await owner.page(base);
    const count = (id: string) => html.match(new RegExp(`data-count="${id}"[\\s\\S]*?<a[^>]*>(\\d+)</a>`))?.[1];
    const teams = await app.prisma.team.count({ where: { organizationId: organization.id } });
    expect(teams).toBeGreaterThan(0);
    expect([count("members"), count("invitations"), count("teams")]).toEqual(["3", "1", String(teams)]);
    expect(html).toMatch(/data-plan="team"[\s\S]*?data-status="active"/);
    expect(html).toContain("March 4, 2031");
    expect(html).toContain(`href="${base}/invitations#invite-title"`);
    expect(html).toContain(">Invite a colleague<");

    // Billing: the same plan, a way to choose another and to manage it.
    const billing = await owner.page(`${base}/billing`);
    expect(billing).toMatch(/data-plan="team"/);
    expect(billing).toContain(`href="/pricing?for=${organization.id}"`);
    expect(billing).toContain('href="/billing"');
  });

  it("gives the only owner no role control on their own row, and says why; nor a way to leave", async () => {
    const { owner, admin, base, memberId } = await workspace();
    const ownRow = (html: string, email: string) =>
      html.match(new RegExp(`<li data-member="${email}"[\\s\\S]*?</li>`))?.[0] ?? "";

    const members = await owner.page(`${base}/members`);
    const row = ownRow(members, owner.email);
    expect(row).not.toContain("<select");
    expect(row).toContain(text("en", "organization", "members.soleOwner"));
    // Others' rows keep theirs.
    expect(ownRow(members, admin.email)).toContain(`id="role-${await memberId(admin)}"`);

    const settings = await owner.page(`/fr${base}/settings`);
    expect(settings).toContain('data-testid="leave-sole-owner"');
    expect(settings).toContain(text("fr", "organization", "leave.soleOwner"));
    expect(settings).not.toContain(`href="/fr${base}/settings/leave"`);

    // With a second owner, both may change their own role and leave.
    await app.prisma.member.update({ where: { id: await memberId(admin) }, data: { role: "owner" } });
    const after = await owner.page(`${base}/members`);
    expect(ownRow(after, owner.email)).toContain(`id="role-${await memberId(owner)}"`);
    expect(after).not.toContain('data-testid="sole-owner-note"');
    expect(await owner.page(`${base}/settings`)).toContain(`href="${base}/settings/leave"`);
  });

  it("lists open invitations apart from the history, which is folded away", async () => {
    const { owner, organization, base } = await workspace();
    const hour = 3600_000;
    const make = (email: string, status: string, expiresIn = 48 * hour) =>
      app.prisma.invitation.create({
        data: {
          organizationId: organization.id,
          email,
          role: "member",
          status,
          inviterId: owner.id,
          expiresAt: new Date(Date.now() + expiresIn),
        },
      });
    const open = uniqueEmail("open");
    const closed = {
      accepted: uniqueEmail("accepted"),
      rejected: uniqueEmail("rejected"),
      canceled: uniqueEmail("canceled"),
      expired: uniqueEmail("expired"),
    };
    await make(open, "pending");
    await make(closed.accepted, "accepted");
    await make(closed.rejected, "rejected");
    await make(closed.canceled, "canceled");
    await make(closed.expired, "pending", -hour);

    const html = await owner.page(`/ja${base}/invitations`);
    const [pending = "", history = ""] = html.split('data-testid="invitation-history"');
    expect(pending).toContain(`data-invitation="${open}"`);
    for (const email of Object.values(closed)) expect(pending).not.toContain(`data-invitation="${email}"`);
    for (const [status, email] of Object.entries(closed)) {
      expect(history).toMatch(new RegExp(`data-invitation="${email}"[\\s\\S]*?data-status="${status}"`));
    }
    // Folded: a <details> that is not open, titled with how many it holds.
    expect(html).toMatch(/<details(?![^>]*\sopen)[^>]*data-testid="invitation-history"/);
    expect(history).toContain(text("ja", "organization", "invitations.historyTitle_other", { count: "4" }));
    // The history's rows offer no Resend or Cancel.
    expect(history.split("</details>")[0]).not.toContain('value="resend-invitation"');
  });

  it("folds the metadata field under Advanced in the settings", async () => {
    const { owner, base } = await workspace();
    const html = await owner.page(`${base}/settings`);
    const advanced = html.match(/<details[^>]*data-testid="settings-advanced"[\s\S]*?<\/details>/)?.[0] ?? "";
    expect(advanced).toContain(">Advanced</summary>");
    expect(advanced).toMatch(/<textarea[^>]*name="metadata"/);
    expect(advanced).not.toMatch(/<details[^>]*\sopen/);
    expect(html.replace(advanced, "")).not.toContain('name="metadata"');

    // A refused metadata opens the fold, with its error.
    const refused = await owner.post(`${base}/settings`, {
      intent: "update-organization",
      name: "Acme",
      slug: base.split("/").pop()!,
      logo: "",
      metadata: "[1]",
    });
    expect(refused.status).toBe(400);
    expect((await refused.text()).match(/<details[^>]*data-testid="settings-advanced"[^>]*>/)?.[0]).toMatch(
      /\sopen=""/,
    );
  });

  it("does not offer banned people for a team, while a ban that is over no longer counts", async () => {
    const { owner, admin, member, organization, base } = await workspace();
    await owner.post(`${base}/teams`, { intent: "create-team", name: "Ops" });
    const team = await app.prisma.team.findFirstOrThrow({ where: { organizationId: organization.id } });
    await app.prisma.user.update({ where: { id: member.id }, data: { banned: true } });
    await app.prisma.user.update({
      where: { id: admin.id },
      data: { banned: true, banExpires: new Date(Date.now() - 60_000) },
    });
    const candidates = (html: string) => [...html.matchAll(/data-team-candidate="([^"]+)"/g)].map((m) => m[1]);
    const offered = candidates(await owner.page(`${base}/teams/${team.id}`));
    expect(offered).not.toContain(member.email);
    expect(offered).toContain(admin.email);
    // Not found by a search either.
    expect(candidates(await owner.page(`${base}/teams/${team.id}?q=Max`))).toEqual([]);
  });
});

describe("the invitation page and its sign-up", () => {
  async function invited(email: string) {
    const owner = await person("Alice Martin");
    const organization = await createOrganization({
      name: "Invited Org",
      members: [{ userId: owner.id, role: "owner" }],
    });
    const invitation = await app.prisma.invitation.create({
      data: {
        organizationId: organization.id,
        email,
        role: "member",
        inviterId: owner.id,
        expiresAt: new Date(Date.now() + 48 * 3600_000),
      },
    });
    return { owner, organization, invitation };
  }

  it("names the inviter, in the page's language", async () => {
    const recipient = await person("Rita Recipient");
    const { owner, invitation } = await invited(recipient.email);
    for (const lng of ["en", "fr"]) {
      const html = await recipient.page(`${lng === "en" ? "" : `/${lng}`}/invitations/${invitation.id}`);
      const body = text(lng, "organization", "invitation.body", {
        name: "Alice Martin",
        email: owner.email,
        organization: "Invited Org",
      });
      expect(html).toContain(body);
    }
    expect(
      text("en", "organization", "invitation.body", { name: "Alice Martin", email: "a@x", organization: "Acme" }),
    ).toBe("Alice Martin (a@x) invited you to join Acme");
  });

  /** A form post from a visitor without a session. */
  const visitorPost = (path: string, body: Record<string, string>) =>
    fetch(new URL(path, app.base), {
      method: "POST",
      redirect: "manual",
      headers: { "Content-Type": "application/x-www-form-urlencoded", Origin: app.base, "User-Agent": BROWSER_UA },
      body: new URLSearchParams(body),
    });

  it("signs up with the invited address, shown fixed, and refuses another", async () => {
    const email = uniqueEmail("newcomer");
    const { invitation } = await invited(email);
    const path = `/ja/signup?${new URLSearchParams({ invitation: invitation.id, redirect: `/ja/invitations/${invitation.id}` })}`;
    const page = await fetch(new URL(path, app.base), { headers: { "User-Agent": BROWSER_UA } });
    const html = await page.text();
    const input = html.match(/<input[^>]*name="email"[^>]*>/)?.[0] ?? "";
    expect(input).toContain(`value="${email}"`);
    expect(input).toContain("readOnly");

    const other = uniqueEmail("other");
    const fields = {
      intent: "sign-up",
      name: "New Comer",
      newPassword: "newcomer-pw-123",
      confirmPassword: "newcomer-pw-123",
    };
    const refused = await visitorPost(path, { ...fields, email: other });
    expect(refused.status).toBe(400);
    const refusedHtml = await refused.text();
    expect(refusedHtml).toContain(text("ja", "auth", "signUp.invitedOnly", { email }));
    expect(await app.prisma.user.findUnique({ where: { email: other } })).toBeNull();

    const created = await visitorPost(path, { ...fields, email: email.toUpperCase() });
    expect(created.status).toBe(302);
    expect(await app.prisma.user.findUnique({ where: { email } })).not.toBeNull();

    // Without an open invitation the form is the usual one.
    const plain = await (
      await fetch(new URL(`/signup?invitation=${unique("nothing")}`, app.base), {
        headers: { "User-Agent": BROWSER_UA },
      })
    ).text();
    expect(plain.match(/<input[^>]*name="email"[^>]*>/)?.[0]).not.toContain("readOnly");
  });
});
