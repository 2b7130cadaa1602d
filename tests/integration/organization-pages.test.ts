/**
 * The organization pages as a browser without JavaScript uses them: plain form posts,
 * answered with the page (errors next to the fields, in the page's language) or a redirect
 * that flashes a toast. The confirmations (remove a member, leave, delete) are pages of
 * their own. What a role may do shows in what the page offers, and the server refuses the
 * rest whatever was posted.
 */
import { readFileSync } from "node:fs";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { signedInBrowser, type SignedInBrowser } from "./helpers/browser";
import { startTestApp, type TestApp } from "./helpers/app";
import { createOrganization, unique, uniqueEmail } from "./helpers/factories";
import { BROWSER_UA } from "./helpers/http";

const SECRET = "organization-pages-test-secret-0123456789abcdef";

/** How the page words an error code, in `lng` (HTML-escaped as React writes it). */
function errorText(lng: string, code: string): string {
  const file = new URL(`../../locales/${lng}/auth.json`, import.meta.url);
  const { errors } = JSON.parse(readFileSync(file, "utf8")) as { errors: Record<string, string> };
  return errors[code]!.replace(/&/g, "&amp;")
    .replace(/</g, "&lt;")
    .replace(/>/g, "&gt;")
    .replace(/'/g, "&#x27;")
    .replace(/"/g, "&quot;");
}
let app: TestApp;

beforeAll(async () => {
  app = await startTestApp({ secret: SECRET });
}, 60_000);
afterAll(() => app?.stop());

/** A signed-in browser without JavaScript (helpers/browser.ts). */
const person = (name?: string) => signedInBrowser(app, { name });
type Person = SignedInBrowser;

/** The <input> named `name` in a page, to check its attributes. */
const inputNamed = (html: string, name: string) => html.match(new RegExp(`<input[^>]*name="${name}"[^>]*>`))?.[0] ?? "";

/** Follows a redirect as the browser would and returns the page it leads to. */
async function follow(who: Person, response: Response) {
  expect(response.status).toBe(302);
  return who.get(response.headers.get("location")!);
}

async function activeOrganizationId(userId: string) {
  const session = await app.prisma.session.findFirstOrThrow({ where: { userId } });
  return session.activeOrganizationId;
}

/** An organization made through the create form, with an admin and a member added in-process. */
async function organizationWithMembers() {
  const owner = await person("Olive Owner");
  const slug = unique("acme");
  expect((await owner.post("/organizations/new", { name: "Acme", slug })).status).toBe(302);
  const organization = await app.prisma.organization.findUniqueOrThrow({ where: { slug } });
  const admin = await person("Ada Admin");
  const member = await person("Max Member");
  const { addMember } = await import("~/server/organization/organizations.server");
  const meta = { ipAddress: null, userAgent: null, locale: "en" as const };
  await addMember({ userId: admin.id, role: "admin", organizationId: organization.id }, meta);
  await addMember({ userId: member.id, role: "member", organizationId: organization.id }, meta);
  const memberId = async (who: Person) =>
    (await app.prisma.member.findFirstOrThrow({ where: { userId: who.id, organizationId: organization.id } })).id;
  return { owner, admin, member, organization, slug, memberId };
}

describe("creating an organization", () => {
  it("creates it with the slug given, makes it active and opens its page with a toast", async () => {
    const owner = await person();
    const slug = unique("created");
    const created = await owner.post("/organizations/new", { intent: "create-organization", name: "Acme Corp", slug });
    expect(created.headers.get("location")).toBe(`/organizations/${slug}`);
    const page = await follow(owner, created);
    expect(page.status).toBe(200);
    const html = await page.text();
    expect(html).toContain("<h1");
    expect(html).toContain("Acme Corp was created");
    const organization = await app.prisma.organization.findUniqueOrThrow({
      where: { slug },
      include: { members: true },
    });
    expect(organization.members).toEqual([expect.objectContaining({ userId: owner.id, role: "owner" })]);
    expect(await activeOrganizationId(owner.id)).toBe(organization.id);
  });

  it("suggests a free slug from the name when none is given", async () => {
    const owner = await person();
    const name = `Café ${unique("du Monde")}`;
    const first = await owner.post("/organizations/new", { name, slug: "" });
    const expected = name
      .normalize("NFKD")
      .replace(/[\u0300-\u036f]/g, "")
      .toLowerCase()
      .replace(/[^a-z0-9]+/g, "-");
    expect(first.headers.get("location")).toBe(`/organizations/${expected}`);
    // The same name again: the next free one.
    expect((await owner.post("/organizations/new", { name, slug: "" })).headers.get("location")).toBe(
      `/organizations/${expected}-2`,
    );
    // A name with no Latin letters still gets a slug.
    const japanese = await owner.post("/ja/organizations/new", { name: "株式会社サンプル", slug: "" });
    expect(japanese.headers.get("location")).toMatch(/^\/ja\/organizations\/org(-[\w-]+)?$/);
  });

  it("reports a taken or malformed slug next to the field, in the page's language", async () => {
    const owner = await person();
    const slug = unique("taken");
    await owner.post("/organizations/new", { name: "First", slug });

    const taken = await owner.post("/fr/organizations/new", { name: "Second", slug });
    expect(taken.status).toBe(400);
    const html = await taken.text();
    expect(html).toContain('<html lang="fr"');
    expect(html).toContain(errorText("fr", "ORGANIZATION_ALREADY_EXISTS"));
    expect(inputNamed(html, "slug")).toContain('aria-invalid="true"');
    // What was typed comes back.
    expect(inputNamed(html, "name")).toContain('value="Second"');

    const malformed = await owner.post("/fr/organizations/new", { name: "Second", slug: "Pas Bon" });
    expect(malformed.status).toBe(400);
    expect(await malformed.text()).toContain("Utilisez des lettres minuscules, des chiffres et des tirets");

    // "new" would be hidden behind this very page.
    const reserved = await owner.post("/organizations/new", { name: "New", slug: "new" });
    expect(reserved.status).toBe(400);
    expect(await reserved.text()).toContain(errorText("en", "ORGANIZATION_SLUG_ALREADY_TAKEN"));
    expect(await app.prisma.organization.count({ where: { name: "Second" } })).toBe(0);
  });

  it("answers the live slug check for signed-in users only", async () => {
    const owner = await person();
    const slug = unique("checked");
    await owner.post("/organizations/new", { name: "Checked", slug });
    expect(await (await owner.get(`/check-slug?slug=${slug}`)).json()).toEqual({
      slug,
      error: "ORGANIZATION_SLUG_ALREADY_TAKEN",
    });
    expect(await (await owner.get(`/check-slug?slug=${slug}-free`)).json()).toEqual({
      slug: `${slug}-free`,
      error: null,
    });
    const anonymous = await fetch(`${app.base}/check-slug?slug=${slug}`);
    expect(anonymous.status).toBe(401);
  });
});

describe("the list and the active organization", () => {
  it("lists the caller's organizations with their role, and switches the active one", async () => {
    const { member, organization, slug } = await organizationWithMembers();
    const otherSlug = unique("mine");
    await member.post("/organizations/new", { name: "Mine", slug: otherSlug });
    const mine = await app.prisma.organization.findUniqueOrThrow({ where: { slug: otherSlug } });
    expect(await activeOrganizationId(member.id)).toBe(mine.id);

    const html = await (await member.get("/organizations")).text();
    expect(html).toMatch(new RegExp(`data-slug="${slug}"[^>]*>[\\s\\S]*?data-role="member"`));
    expect(html).toMatch(new RegExp(`data-slug="${otherSlug}" data-active="true"[^>]*>[\\s\\S]*?data-role="owner"`));
    expect(html).toContain("Switch to Acme");
    // The switcher in the menu shows the active one.
    expect(html).toMatch(/data-testid="active-organization"[^>]*>Mine</);

    const switched = await member.post("/organizations", { intent: "set-active", organizationId: organization.id });
    expect(switched.headers.get("location")).toBe("/organizations");
    expect(await activeOrganizationId(member.id)).toBe(organization.id);
    expect(await (await follow(member, switched)).text()).toContain("Switched to Acme");

    // The switcher comes back to the page it was on; never to another site.
    const fromProfile = await member.post("/fr/organizations", {
      intent: "set-active",
      organizationId: mine.id,
      redirectTo: "/fr/profile",
    });
    expect(fromProfile.headers.get("location")).toBe("/fr/profile");
    const away = await member.post("/organizations", {
      intent: "set-active",
      organizationId: mine.id,
      redirectTo: "https://evil.example/",
    });
    expect(away.headers.get("location")).toBe("/organizations");

    // Someone else's organization cannot be made active.
    const outsider = await person();
    const refused = await outsider.post("/organizations", { intent: "set-active", organizationId: organization.id });
    expect(refused.status).toBe(302);
    expect(await activeOrganizationId(outsider.id)).toBeNull();
  });
});

describe("the organization page", () => {
  it("answers 404 to a non-member and for an unknown slug", async () => {
    const { slug, memberId, member } = await organizationWithMembers();
    const outsider = await person();
    expect((await outsider.get(`/organizations/${slug}`)).status).toBe(404);
    for (const section of ["members", "invitations", "teams", "settings", "billing", "settings/leave"]) {
      expect((await outsider.get(`/organizations/${slug}/${section}`)).status).toBe(404);
    }
    expect((await outsider.get(`/organizations/${slug}/members/${await memberId(member)}/remove`)).status).toBe(404);
    expect(
      (await outsider.post(`/organizations/${slug}/settings`, { intent: "update-organization", name: "X", slug }))
        .status,
    ).toBe(404);
    expect((await outsider.get(`/organizations/${unique("nothing")}`)).status).toBe(404);
  });

  it("shows each role what it may do", async () => {
    const { owner, admin, member, slug } = await organizationWithMembers();
    const section = async (who: Person, name: string) => (await who.get(`/organizations/${slug}/${name}`)).text();
    const pages = {
      owner: (await section(owner, "settings")) + (await section(owner, "members")),
      admin: (await section(admin, "settings")) + (await section(admin, "members")),
      member: (await section(member, "settings")) + (await section(member, "members")),
    };
    // Settings: owner and admin.
    expect(pages.owner).toContain('data-section="settings"');
    expect(pages.admin).toContain('data-section="settings"');
    expect(pages.member).not.toContain('data-section="settings"');
    // Deletion: the owner only.
    expect(pages.owner).toContain(`href="/organizations/${slug}/settings/delete"`);
    expect(pages.admin).not.toContain(`/organizations/${slug}/settings/delete`);
    expect(pages.member).not.toContain(`/organizations/${slug}/settings/delete`);
    // Role changes and removals: not for members; an admin does not touch the owner.
    expect(pages.member).not.toContain('name="role"');
    expect(pages.member).not.toContain('aria-label="Remove');
    expect(pages.owner).toContain("Remove Ada Admin");
    expect(pages.owner).toContain("Remove Max Member");
    expect(pages.admin).toContain("Remove Max Member");
    expect(pages.admin).not.toContain("Remove Olive Owner");
    expect(pages.admin).not.toContain('<option value="owner"');
    expect(pages.owner).toContain('<option value="owner"');
    // Everyone may leave but the only owner, who is told why instead.
    expect(pages.admin).toContain(`href="/organizations/${slug}/settings/leave"`);
    expect(pages.member).toContain(`href="/organizations/${slug}/settings/leave"`);
    expect(pages.owner).not.toContain(`href="/organizations/${slug}/settings/leave"`);
    expect(pages.owner).toContain(organizationText("en", "leave.soleOwner"));
  });

  it("updates the settings, and refuses a member with 403", async () => {
    const { owner, member, organization, slug } = await organizationWithMembers();
    const update = (who: Person, fields: Record<string, string>, path = `/organizations/${slug}/settings`) =>
      who.post(path, { intent: "update-organization", name: "Acme", slug, logo: "", metadata: "", ...fields });

    // The member has no settings form; posting one anyway is refused.
    expect((await update(member, { name: "Hijacked" })).status).toBe(403);
    expect((await app.prisma.organization.findUniqueOrThrow({ where: { id: organization.id } })).name).toBe("Acme");

    const badMetadata = await update(owner, { metadata: '{"plan": ["pro"]}' }, `/fr/organizations/${slug}/settings`);
    expect(badMetadata.status).toBe(400);
    expect(await badMetadata.text()).toContain("Saisissez un objet JSON de clés et de valeurs");

    const taken = unique("taken");
    await (await person()).post("/organizations/new", { name: "Taken", slug: taken });
    const clash = await update(owner, { slug: taken });
    expect(clash.status).toBe(400);
    expect(inputNamed(await clash.text(), "slug")).toContain('aria-invalid="true"');

    const renamed = unique("renamed");
    const saved = await update(owner, {
      name: "Acme Renamed",
      slug: renamed,
      logo: "https://example.com/logo.png",
      metadata: '{"plan": "pro", "seats": 5}',
    });
    expect(saved.headers.get("location")).toBe(`/organizations/${renamed}/settings`);
    expect(await (await follow(owner, saved)).text()).toContain("Settings saved");
    const row = await app.prisma.organization.findUniqueOrThrow({ where: { id: organization.id } });
    expect(row).toMatchObject({ name: "Acme Renamed", slug: renamed, logo: "https://example.com/logo.png" });
    expect(JSON.parse(row.metadata!)).toEqual({ plan: "pro", seats: 5 });
    expect((await owner.get(`/organizations/${slug}`)).status).toBe(404);

    // Emptied fields clear the logo and the metadata.
    await update(owner, { name: "Acme Renamed", slug: renamed }, `/organizations/${renamed}/settings`);
    expect(await app.prisma.organization.findUniqueOrThrow({ where: { id: organization.id } })).toMatchObject({
      logo: null,
      metadata: null,
    });
  });

  it("changes a member's role; an admin cannot make an owner", async () => {
    const { owner, admin, member, slug, memberId } = await organizationWithMembers();
    const id = await memberId(member);
    const changed = await owner.post(`/organizations/${slug}/members`, {
      intent: "update-member-role",
      memberId: id,
      role: "admin",
    });
    expect(changed.headers.get("location")).toBe(`/organizations/${slug}/members`);
    expect(await (await follow(owner, changed)).text()).toContain("The role of Max Member was changed");
    expect((await app.prisma.member.findUniqueOrThrow({ where: { id } })).role).toBe("admin");

    const refused = await admin.post(`/organizations/${slug}/members`, {
      intent: "update-member-role",
      memberId: id,
      role: "owner",
    });
    expect(refused.status).toBe(403);
    expect(await refused.text()).toContain(errorText("en", "YOU_ARE_NOT_ALLOWED_TO_UPDATE_THIS_MEMBER"));
    expect((await app.prisma.member.findUniqueOrThrow({ where: { id } })).role).toBe("admin");

    const lastOwner = await owner.post(`/ja/organizations/${slug}/members`, {
      intent: "update-member-role",
      memberId: await memberId(owner),
      role: "member",
    });
    expect(lastOwner.status).toBe(400);
    expect(await lastOwner.text()).toContain(errorText("ja", "YOU_CANNOT_LEAVE_THE_ORGANIZATION_WITHOUT_AN_OWNER"));
  });

  it("removes a member through the confirmation page", async () => {
    const { owner, member, admin, slug, memberId } = await organizationWithMembers();
    const id = await memberId(member);
    const confirm = await owner.get(`/organizations/${slug}/members/${id}/remove`);
    expect(confirm.status).toBe(200);
    const html = await confirm.text();
    expect(html).toContain('data-testid="confirm-dialog"');
    expect(html).toContain(`Max Member (${member.email}) will no longer have access to Acme.`);
    // The organization page is still there behind the dialog.
    expect(html).toContain('data-section="members"');
    expect((await owner.get(`/organizations/${slug}/members/${unique("nobody")}/remove`)).status).toBe(404);

    const removed = await owner.post(`/organizations/${slug}/members/${id}/remove`, { intent: "remove-member" });
    expect(removed.headers.get("location")).toBe(`/organizations/${slug}/members`);
    expect(await (await follow(owner, removed)).text()).toContain("Max Member was removed");
    expect(await app.prisma.member.findUnique({ where: { id } })).toBeNull();

    // An admin may not remove the owner: said in the dialog.
    const refused = await admin.post(`/organizations/${slug}/members/${await memberId(owner)}/remove`, {
      intent: "remove-member",
    });
    expect(refused.status).toBe(403);
    expect(await refused.text()).toContain("You are not allowed to remove this member.");
  });

  it("leaves through the confirmation page; the only owner cannot", async () => {
    const { owner, member, organization, slug } = await organizationWithMembers();
    await member.post("/organizations", { intent: "set-active", organizationId: organization.id });
    expect((await member.get(`/organizations/${slug}/settings/leave`)).status).toBe(200);
    const left = await member.post(`/organizations/${slug}/settings/leave`, { intent: "leave-organization" });
    expect(left.headers.get("location")).toBe("/organizations");
    expect(await (await follow(member, left)).text()).toContain("You left Acme");
    expect(await app.prisma.member.count({ where: { userId: member.id } })).toBe(0);
    expect(await activeOrganizationId(member.id)).toBeNull();
    expect((await member.get(`/organizations/${slug}`)).status).toBe(404);

    const refused = await owner.post(`/fr/organizations/${slug}/settings/leave`, { intent: "leave-organization" });
    expect(refused.status).toBe(400);
    expect(await refused.text()).toContain(errorText("fr", "YOU_CANNOT_LEAVE_THE_ORGANIZATION_AS_THE_ONLY_OWNER"));
  });

  it("deletes through the confirmation page once the slug is typed; only the owner", async () => {
    const { owner, admin, organization, slug } = await organizationWithMembers();
    const confirm = await owner.get(`/organizations/${slug}/settings/delete`);
    expect(confirm.status).toBe(200);
    expect(await confirm.text()).toContain(`Type ${slug} to confirm`);

    const mismatch = await owner.post(`/organizations/${slug}/settings/delete`, {
      intent: "delete-organization",
      confirmSlug: "acme",
    });
    expect(mismatch.status).toBe(400);
    expect(await mismatch.text()).toContain("This is not the organization&#x27;s slug.");

    const refused = await admin.post(`/organizations/${slug}/settings/delete`, {
      intent: "delete-organization",
      confirmSlug: slug,
    });
    expect(refused.status).toBe(403);

    const deleted = await owner.post(`/organizations/${slug}/settings/delete`, {
      intent: "delete-organization",
      confirmSlug: slug,
    });
    expect(deleted.headers.get("location")).toBe("/organizations");
    expect(await (await follow(owner, deleted)).text()).toContain("Acme was deleted");
    expect(await app.prisma.organization.findUnique({ where: { id: organization.id } })).toBeNull();
    expect(await activeOrganizationId(owner.id)).toBeNull();
  });
});

describe("the invitation page", () => {
  /** An organization owned by a new person, with a pending invitation for `email`. */
  async function invited(email: string, role = "admin") {
    const owner = await person("Olivia Owner");
    const organization = await createOrganization({
      name: "Invited Org",
      members: [{ userId: owner.id, role: "owner" }],
    });
    const invitation = await app.prisma.invitation.create({
      data: {
        id: unique("invitation")
          .replace(/[^A-Za-z0-9]/g, "")
          .padEnd(32, "x"),
        organizationId: organization.id,
        email,
        role,
        inviterId: owner.id,
        expiresAt: new Date(Date.now() + 48 * 3600_000),
      },
    });
    return { owner, organization, invitation };
  }

  it("shows the recipient who invited them, and joining makes them a member with the organization active", async () => {
    const recipient = await person("Rita Recipient");
    const { owner, organization, invitation } = await invited(recipient.email);
    const page = await recipient.get(`/ja/invitations/${invitation.id}`);
    expect(page.status).toBe(200);
    const html = await page.text();
    expect(html).toContain('data-testid="invitation"');
    expect(html).toContain(owner.email);
    expect(html).toContain("Invited Org");
    expect(html).toContain("管理者"); // the role, in Japanese

    const joined = await recipient.post(`/ja/invitations/${invitation.id}`, { intent: "accept" });
    expect(joined.status).toBe(302);
    expect(joined.headers.get("location")).toBe(`/ja/organizations/${organization.slug}`);
    expect(
      await app.prisma.member.findFirst({ where: { organizationId: organization.id, userId: recipient.id } }),
    ).toMatchObject({
      role: "admin",
    });
    expect(await activeOrganizationId(recipient.id)).toBe(organization.id);
    // Answered: the link now says so.
    expect(await (await recipient.get(`/invitations/${invitation.id}`)).text()).toContain(
      'data-testid="invitation-closed"',
    );
  });

  it("lets the recipient decline", async () => {
    const recipient = await person();
    const { invitation } = await invited(recipient.email);
    const declined = await recipient.post(`/invitations/${invitation.id}`, { intent: "decline" });
    expect(declined.headers.get("location")).toBe("/organizations");
    expect((await app.prisma.invitation.findUniqueOrThrow({ where: { id: invitation.id } })).status).toBe("rejected");
  });

  it("tells someone else it is not theirs, without the details, and refuses their answer", async () => {
    const stranger = await person();
    const { invitation } = await invited(uniqueEmail("someone"));
    const html = await (await stranger.get(`/fr/invitations/${invitation.id}`)).text();
    expect(html).toContain('data-testid="invitation-other-recipient"');
    expect(html).not.toContain("Invited Org");
    await stranger.post(`/fr/invitations/${invitation.id}`, { intent: "accept" });
    expect((await app.prisma.invitation.findUniqueOrThrow({ where: { id: invitation.id } })).status).toBe("pending");
  });

  it("sends a visitor to sign in or sign up and back, and the sign-up's verification link returns here", async () => {
    const email = uniqueEmail("newcomer");
    const { invitation } = await invited(email);
    const visitor = await fetch(new URL(`/invitations/${invitation.id}`, app.base), {
      headers: { "User-Agent": BROWSER_UA },
    });
    const html = await visitor.text();
    const back = encodeURIComponent(`/invitations/${invitation.id}`);
    expect(html).toContain(`href="/signin?redirect=${back}"`);
    expect(html).toContain(`href="/signup?invitation=${invitation.id}&amp;redirect=${back}"`);
    expect(html).not.toContain("Invited Org");

    const signUp = await fetch(new URL(`/signup?redirect=${back}`, app.base), {
      method: "POST",
      redirect: "manual",
      headers: { "Content-Type": "application/x-www-form-urlencoded", Origin: app.base, "User-Agent": BROWSER_UA },
      body: new URLSearchParams({
        intent: "sign-up",
        name: "New Comer",
        email,
        newPassword: "newcomer-password-1",
        confirmPassword: "newcomer-password-1",
      }),
    });
    expect(signUp.status).toBe(302);
    const mail = await app.mailbox.waitFor(email, (m) => m.text.includes("/api/auth/verify-email"));
    const link = mail.text.match(/https?:\/\/\S+\/api\/auth\/verify-email\S+/)![0];
    const verified = await fetch(link, { redirect: "manual", headers: { "User-Agent": BROWSER_UA } });
    const landing = new URL(verified.headers.get("location")!, app.base);
    expect(landing.pathname).toBe("/verify-email");
    const cookies = verified.headers
      .getSetCookie()
      .map((line) => line.split(";")[0])
      .join("; ");
    const onward = await fetch(landing, { redirect: "manual", headers: { Cookie: cookies, "User-Agent": BROWSER_UA } });
    expect(onward.status).toBe(302);
    expect(onward.headers.get("location")).toBe(`/invitations/${invitation.id}`);
  });
});

/** A string of locales/<lng>/organization.json (HTML-escaped as React writes it). */
function organizationText(lng: string, path: string, values: Record<string, string> = {}): string {
  const file = new URL(`../../locales/${lng}/organization.json`, import.meta.url);
  let text: unknown = JSON.parse(readFileSync(file, "utf8"));
  for (const part of path.split(".")) text = (text as Record<string, unknown>)[part];
  return Object.entries(values)
    .reduce((result, [name, value]) => result.replaceAll(`{{${name}}}`, value), text as string)
    .replace(/&/g, "&amp;")
    .replace(/'/g, "&#x27;")
    .replace(/"/g, "&quot;");
}

describe("invitations on the organization page", () => {
  it("invites by email (the email arrives), resends and cancels", async () => {
    const { owner, organization, slug } = await organizationWithMembers();
    const email = uniqueEmail("invitee");
    const sent = await owner.post(`/organizations/${slug}/invitations`, {
      intent: "invite-member",
      email,
      role: "admin",
    });
    expect(sent.headers.get("location")).toBe(`/organizations/${slug}/invitations`);
    const html = await (await follow(owner, sent)).text();
    expect(html).toContain(`Invitation sent to ${email}`);
    expect(html).toMatch(new RegExp(`data-invitation="${email}"[\\s\\S]*?data-status="pending"`));
    const invitation = await app.prisma.invitation.findFirstOrThrow({
      where: { organizationId: organization.id, email },
    });
    expect(invitation.role).toBe("admin");
    const mail = await app.mailbox.waitFor(email);
    expect(mail.text).toContain(`/invitations/${invitation.id}`);

    // Inviting the same address again is refused next to the field, in the page's language.
    const again = await owner.post(`/ja/organizations/${slug}/invitations`, {
      intent: "invite-member",
      email,
      role: "member",
    });
    expect(again.status).toBe(400);
    const againHtml = await again.text();
    expect(againHtml).toContain(errorText("ja", "USER_IS_ALREADY_INVITED_TO_THIS_ORGANIZATION"));
    expect(inputNamed(againHtml, "email")).toContain('aria-invalid="true"');

    // A member already in is refused too.
    const member = await owner.post(`/fr/organizations/${slug}/invitations`, {
      intent: "invite-member",
      email: owner.email,
      role: "member",
    });
    expect(member.status).toBe(400);
    expect(await member.text()).toContain(errorText("fr", "USER_IS_ALREADY_A_MEMBER_OF_THIS_ORGANIZATION"));

    // Resend: a new expiry and a second email.
    const before = invitation.expiresAt.getTime();
    await new Promise((resolve) => setTimeout(resolve, 10));
    const resent = await owner.post(`/organizations/${slug}/invitations`, {
      intent: "resend-invitation",
      invitationId: invitation.id,
    });
    expect(await (await follow(owner, resent)).text()).toContain(`Invitation sent again to ${email}`);
    const renewed = await app.prisma.invitation.findUniqueOrThrow({ where: { id: invitation.id } });
    expect(renewed.expiresAt.getTime()).toBeGreaterThan(before);
    await app.mailbox.waitFor(email, (m) => m !== mail);

    const canceled = await owner.post(`/organizations/${slug}/invitations`, {
      intent: "cancel-invitation",
      invitationId: invitation.id,
    });
    const canceledHtml = await (await follow(owner, canceled)).text();
    expect(canceledHtml).toContain(`Invitation to ${email} canceled`);
    // Gone from the pending list, into the folded history.
    const [pendingPart, historyPart] = canceledHtml.split('data-testid="invitation-history"');
    expect(pendingPart).not.toContain(`data-invitation="${email}"`);
    expect(historyPart).toMatch(new RegExp(`data-invitation="${email}"[\\s\\S]*?data-status="canceled"`));
    expect((await app.prisma.invitation.findUniqueOrThrow({ where: { id: invitation.id } })).status).toBe("canceled");

    // A closed invitation cannot be resent.
    const closed = await owner.post(`/organizations/${slug}/invitations`, {
      intent: "resend-invitation",
      invitationId: invitation.id,
    });
    expect(closed.status).toBe(400);
    expect(await closed.text()).toContain(errorText("en", "INVITATION_NOT_FOUND"));
  });

  it("hides the invitations from a member and refuses their posts with 403", async () => {
    const { owner, member, admin, organization, slug } = await organizationWithMembers();
    const email = uniqueEmail("invitee");
    await owner.post(`/organizations/${slug}/invitations`, { intent: "invite-member", email, role: "member" });
    const invitation = await app.prisma.invitation.findFirstOrThrow({
      where: { organizationId: organization.id, email },
    });

    // No tab, and nothing at the address, for a member.
    const html = await (await member.get(`/organizations/${slug}`)).text();
    expect(html).not.toContain(`href="/organizations/${slug}/invitations"`);
    expect(html).not.toContain(email);
    expect((await member.get(`/organizations/${slug}/invitations`)).status).toBe(404);
    const refused = await member.post(`/organizations/${slug}/invitations`, {
      intent: "invite-member",
      email: uniqueEmail("other"),
      role: "member",
    });
    expect(refused.status).toBe(403);
    const cancel = await member.post(`/organizations/${slug}/invitations`, {
      intent: "cancel-invitation",
      invitationId: invitation.id,
    });
    expect(cancel.status).toBe(403);
    expect((await app.prisma.invitation.findUniqueOrThrow({ where: { id: invitation.id } })).status).toBe("pending");

    // An admin invites, but offers no owner role, and is refused one posted anyway.
    const adminHtml = await (await admin.get(`/organizations/${slug}/invitations`)).text();
    expect(adminHtml).toContain('data-section="invitations"');
    expect(adminHtml).toMatch(/<form[^>]*id="form-invite-member"/);
    const owned = await admin.post(`/organizations/${slug}/invitations`, {
      intent: "invite-member",
      email: uniqueEmail("boss"),
      role: "owner",
    });
    expect(owned.status).toBe(403);
    expect(await owned.text()).toContain(errorText("en", "YOU_ARE_NOT_ALLOWED_TO_INVITE_USER_WITH_THIS_ROLE"));
  });

  it("lists the pending invitations of the caller on /organizations", async () => {
    const { owner, slug } = await organizationWithMembers();
    const invitee = await person("Ivy Invitee");
    await owner.post(`/organizations/${slug}/invitations`, {
      intent: "invite-member",
      email: invitee.email,
      role: "member",
    });
    const invitation = await app.prisma.invitation.findFirstOrThrow({ where: { email: invitee.email } });
    const html = await (await invitee.get("/fr/organizations")).text();
    expect(html).toContain('data-testid="pending-invitations"');
    expect(html).toContain(`href="/fr/invitations/${invitation.id}"`);
    expect(html).toContain(organizationText("fr", "list.invitationLabel", { name: "Acme" }));
  });
});

describe("teams on the organization page", () => {
  it("creates, renames and removes a team with confirmation; the last one stays, said in the page's language", async () => {
    const { owner, member, organization, slug } = await organizationWithMembers();
    const created = await owner.post(`/organizations/${slug}/teams`, { intent: "create-team", name: "Design" });
    expect(await (await follow(owner, created)).text()).toContain("Team Design created");
    const team = await app.prisma.team.findFirstOrThrow({ where: { organizationId: organization.id, name: "Design" } });

    // A member sees the teams but cannot create one.
    const memberHtml = await (await member.get(`/organizations/${slug}/teams`)).text();
    expect(memberHtml).toContain('data-team="Design"');
    expect(memberHtml).not.toContain('id="form-create-team"');
    expect(memberHtml).not.toContain(`/teams/${team.id}/remove`);
    expect((await member.post(`/organizations/${slug}/teams`, { intent: "create-team", name: "Mine" })).status).toBe(
      403,
    );

    const renamed = await owner.post(`/organizations/${slug}/teams/${team.id}`, {
      intent: "rename-team",
      name: "Product Design",
    });
    expect(renamed.headers.get("location")).toBe(`/organizations/${slug}/teams/${team.id}`);
    expect(await (await follow(owner, renamed)).text()).toContain("Team renamed to Product Design");
    expect((await app.prisma.team.findUniqueOrThrow({ where: { id: team.id } })).name).toBe("Product Design");

    // The only team cannot go: the dialog says so in French.
    const confirm = await owner.get(`/fr/organizations/${slug}/teams/${team.id}/remove`);
    expect(confirm.status).toBe(200);
    const confirmHtml = await confirm.text();
    expect(confirmHtml).toContain('data-testid="confirm-dialog"');
    expect(confirmHtml).toContain('data-section="teams"');
    const last = await owner.post(`/fr/organizations/${slug}/teams/${team.id}/remove`, { intent: "remove-team" });
    expect(last.status).toBe(400);
    expect(await last.text()).toContain(errorText("fr", "UNABLE_TO_REMOVE_LAST_TEAM"));

    await owner.post(`/organizations/${slug}/teams`, { intent: "create-team", name: "Sales" });
    expect(
      (await member.post(`/organizations/${slug}/teams/${team.id}/remove`, { intent: "remove-team" })).status,
    ).toBe(403);
    const removed = await owner.post(`/organizations/${slug}/teams/${team.id}/remove`, { intent: "remove-team" });
    expect(removed.headers.get("location")).toBe(`/organizations/${slug}/teams`);
    expect(await (await follow(owner, removed)).text()).toContain("Team Product Design removed");
    expect(await app.prisma.team.findUnique({ where: { id: team.id } })).toBeNull();
    expect((await owner.get(`/organizations/${slug}/teams/${team.id}`)).status).toBe(404);
  });

  it("adds an organization member to a team and takes them out", async () => {
    const { owner, admin, member, organization, slug } = await organizationWithMembers();
    await owner.post(`/organizations/${slug}/teams`, { intent: "create-team", name: "Ops" });
    const team = await app.prisma.team.findFirstOrThrow({ where: { organizationId: organization.id } });
    const path = `/organizations/${slug}/teams/${team.id}`;

    const added = await admin.post(path, { intent: "add-team-member", userId: member.id });
    expect(added.headers.get("location")).toBe(path);
    const html = await (await follow(admin, added)).text();
    expect(html).toContain("Max Member was added to Ops");
    expect(html).toContain(`data-team-member="${member.email}"`);
    expect(await (await owner.get(`/organizations/${slug}/teams`)).text()).toContain(
      organizationText("en", "teams.memberCount_one", { count: "1" }),
    );

    // Someone outside the organization cannot be added; a member may not manage the team.
    const outsider = await person();
    const refused = await admin.post(`/ja${path}`, { intent: "add-team-member", userId: outsider.id });
    expect(refused.status).toBe(400);
    expect(await refused.text()).toContain(errorText("ja", "USER_IS_NOT_A_MEMBER_OF_THE_ORGANIZATION"));
    expect((await member.post(path, { intent: "remove-team-member", userId: member.id })).status).toBe(403);

    const out = await admin.post(path, { intent: "remove-team-member", userId: member.id });
    expect(await (await follow(admin, out)).text()).toContain("Max Member was removed from Ops");
    expect(await app.prisma.teamMember.count({ where: { teamId: team.id } })).toBe(0);
  });
});
