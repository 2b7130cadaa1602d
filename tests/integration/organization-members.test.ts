/**
 * A large organization's pages as a browser without JavaScript uses them: the members a
 * page at a time with the total and plain page links, the caller's role and actions when
 * they are not on the page shown, the remove dialog and role changes for a member on a
 * later page, and a team dialog that stays bounded (the first few people to add, or a
 * search). Runs on SQLite, or on PostgreSQL with TEST_DATABASE_URL.
 */
import { readFileSync } from "node:fs";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { signedInBrowser, type SignedInBrowser } from "./helpers/browser";
import { startTestApp, type TestApp } from "./helpers/app";
import { onPostgres } from "./helpers/instances";

const SECRET = "organization-members-test-secret-0123456789ab";
const PAGE_SIZE = 50;
/** Seeded members besides the owner: three pages with the two added last. */
const SEEDED = 119;

let app: TestApp;
let owner: SignedInBrowser;
let lateAdmin: SignedInBrowser;
let lateMember: SignedInBrowser;
let organizationId: string;
let slug: string;
let path: string;
/** The seeded people in the order the page lists them (after the owner). */
let seeded: { memberId: string; userId: string; name: string; email: string }[];

beforeAll(async () => {
  app = await startTestApp({ secret: SECRET });
  owner = await signedInBrowser(app, { name: "Olive Owner" });
  slug = `big-${Date.now()}`;
  path = `/organizations/${slug}/members`;
  expect((await owner.post("/organizations/new", { name: "Big Co", slug })).status).toBe(302);
  organizationId = (await app.prisma.organization.findUniqueOrThrow({ where: { slug } })).id;

  const start = Date.now() + 60_000;
  const stamp = Date.now().toString(36);
  const people = Array.from({ length: SEEDED }, (_, i) => {
    const n = String(i + 1).padStart(3, "0");
    return { id: `seeded${stamp}${n}`, name: `Person ${n}`, email: `person-${n}-${stamp}@example.com` };
  });
  await app.prisma.user.createMany({ data: people.map((p) => ({ ...p, emailVerified: true })) });
  await app.prisma.member.createMany({
    data: people.map((p, i) => ({
      id: `member${stamp}${String(i + 1).padStart(3, "0")}`,
      organizationId,
      userId: p.id,
      role: "member",
      createdAt: new Date(start + i * 1000),
    })),
  });
  seeded = people.map((p, i) => ({
    memberId: `member${stamp}${String(i + 1).padStart(3, "0")}`,
    userId: p.id,
    name: p.name,
    email: p.email,
  }));

  // The last two to join: on the third page.
  lateAdmin = await signedInBrowser(app, { name: "Late Admin" });
  lateMember = await signedInBrowser(app, { name: "Late Member" });
  await app.prisma.member.createMany({
    data: [
      { organizationId, userId: lateAdmin.id, role: "admin", createdAt: new Date(start + 500_000) },
      { organizationId, userId: lateMember.id, role: "member", createdAt: new Date(start + 501_000) },
    ],
  });
}, 60_000);
afterAll(() => app?.stop());

/** The members' rows of a page, by email, in order. */
const rows = (html: string) => [...html.matchAll(/<li data-member="([^"]+)"/g)].map((match) => match[1]);

/** How the page words an error code (HTML-escaped as React writes it). */
function errorText(code: string): string {
  const file = new URL("../../locales/en/auth.json", import.meta.url);
  const { errors } = JSON.parse(readFileSync(file, "utf8")) as { errors: Record<string, string> };
  return errors[code]!.replace(/'/g, "&#x27;");
}

describe("the members section", () => {
  it("lists one page of members with the total, and plain links to the others", async () => {
    const first = await owner.page(path);
    expect(rows(first)).toEqual([owner.email, ...seeded.slice(0, PAGE_SIZE - 1).map((p) => p.email)]);
    const total = first.match(/data-testid="members-total">(.*?)<\/p>/)?.[1]?.replace(/<!-- -->/g, "");
    expect(total).toBe("122 members · page 1 of 3");
    const nav = first.match(/<nav aria-label="Pages of members".*?<\/nav>/s)?.[0] ?? "";
    expect(nav).toMatch(/aria-label="Page 1" aria-current="page"/);
    expect(nav).toContain('rel="next"');
    expect(nav).toContain(`href="${path}?page=2#members-title"`);
    expect(nav).toContain(`href="${path}?page=3#members-title"`);
    expect(nav).not.toContain('rel="prev"');

    const second = await owner.page(`${path}?page=2`);
    expect(rows(second)).toEqual(seeded.slice(PAGE_SIZE - 1, 2 * PAGE_SIZE - 1).map((p) => p.email));
    expect(second).toMatch(/aria-label="Page 2" aria-current="page"/);
    expect(second).toContain(`href="${path}#members-title"`); // back to the first page

    const last = await owner.page(`${path}?page=3`);
    expect(rows(last)).toEqual([
      ...seeded.slice(2 * PAGE_SIZE - 1).map((p) => p.email),
      lateAdmin.email,
      lateMember.email,
    ]);
    expect(last).not.toContain('rel="next"');
    // Past the last page: the last one; nonsense: the first.
    expect(rows(await owner.page(`${path}?page=9`))).toEqual(rows(last));
    expect(rows(await owner.page(`${path}?page=abc`))).toEqual(rows(first));
  });

  it.skipIf(onPostgres)("reads a page in the order of an index, without sorting every member first", async () => {
    // The page's query as Prisma writes it (ORDER BY createdAt, id; LIMIT and OFFSET).
    const plan = await app.prisma.$queryRawUnsafe<{ detail: string }[]>(
      'EXPLAIN QUERY PLAN SELECT "id", "role" FROM "member" WHERE "organizationId" = ? ORDER BY "createdAt" ASC, "id" ASC LIMIT 50 OFFSET 50',
      organizationId,
    );
    const steps = plan.map((step) => step.detail).join(" | ");
    expect(steps).toContain("USING INDEX member_organizationId_createdAt_id_idx");
    expect(steps).not.toContain("TEMP B-TREE");
  });

  it("takes the caller's role and actions from their own membership, not from the page shown", async () => {
    const admin = await lateAdmin.page(path);
    expect(rows(admin)).not.toContain(lateAdmin.email);
    expect(admin).not.toContain("(you)");
    // Header: the caller's own role; the settings form and the members' role forms are theirs to use.
    expect(admin.match(/<h1[\s\S]*?data-role="([^"]+)"/)?.[1]).toBe("admin");
    expect(await lateAdmin.page(`/organizations/${slug}/settings`)).toContain('data-section="settings"');
    expect(admin).toContain(`Remove ${seeded[0]!.name}`);
    expect(admin).toContain(`id="role-${seeded[0]!.memberId}"`);
    // An admin does not touch the owner, nor makes one.
    expect(admin).not.toContain("Remove Olive Owner");
    expect(admin).not.toContain('<option value="owner"');
    expect(await lateAdmin.page(`${path}?page=3`)).toContain("(you)");

    const member = await lateMember.page(path);
    expect(member.match(/<h1[\s\S]*?data-role="([^"]+)"/)?.[1]).toBe("member");
    expect(await lateMember.page(`/organizations/${slug}/settings`)).not.toContain('data-section="settings"');
    expect(member).not.toContain('name="role"');
    expect(member).not.toContain('aria-label="Remove');
  });
});

describe("acting on a member of a later page", () => {
  it("removes them through the dialog, which comes back to their page", async () => {
    const target = seeded[60]!; // on page 2
    const second = await owner.page(`${path}?page=2`);
    const link = `${path}/${target.memberId}/remove?page=2`;
    expect(second).toContain(`href="${link}"`);

    const dialog = await owner.page(link);
    expect(dialog).toContain('data-testid="confirm-dialog"');
    expect(dialog).toContain(`${target.name} (${target.email}) will no longer have access to Big Co.`);
    expect(rows(dialog)).toContain(target.email); // page 2 behind the dialog
    expect(dialog).toContain(`href="${path}?page=2"`); // closing it

    const removed = await owner.post(link, { intent: "remove-member" });
    expect(removed.status).toBe(302);
    expect(removed.headers.get("location")).toBe(`${path}?page=2`);
    const after = await owner.page(removed.headers.get("location")!);
    expect(after).toContain(`${target.name} was removed`);
    expect(rows(after)).not.toContain(target.email);
    expect(await app.prisma.member.findUnique({ where: { id: target.memberId } })).toBeNull();
  });

  it("changes their role from their page and comes back to it; a refusal shows on their row", async () => {
    const target = seeded[70]!;
    const changed = await owner.post(`${path}?page=2`, {
      intent: "update-member-role",
      memberId: target.memberId,
      role: "admin",
    });
    expect(changed.status).toBe(302);
    expect(changed.headers.get("location")).toBe(`${path}?page=2`);
    expect(await owner.page(changed.headers.get("location")!)).toContain(`The role of ${target.name} was changed`);
    expect((await app.prisma.member.findUniqueOrThrow({ where: { id: target.memberId } })).role).toBe("admin");

    const refused = await lateAdmin.post(`${path}?page=2`, {
      intent: "update-member-role",
      memberId: target.memberId,
      role: "owner",
    });
    expect(refused.status).toBe(403);
    const html = await refused.text();
    const errors = html.match(new RegExp(`<div id="role-${target.memberId}-errors"[^>]*>.*?</div>`, "s"))?.[0];
    expect(errors).toContain(errorText("YOU_ARE_NOT_ALLOWED_TO_UPDATE_THIS_MEMBER"));
    expect(html).toMatch(new RegExp(`id="role-${target.memberId}"[^>]*aria-invalid="true"`));
  });
});

describe("the team dialog of a large organization", () => {
  it("offers the first few people outside the team, finds others by name or email, and adds them", async () => {
    await owner.post(`/organizations/${slug}/teams`, { intent: "create-team", name: "Ops" });
    const team = await app.prisma.team.findFirstOrThrow({ where: { organizationId, name: "Ops" } });
    const dialog = `/organizations/${slug}/teams/${team.id}`;

    const html = await owner.page(dialog);
    const candidates = [...html.matchAll(/data-team-candidate="([^"]+)"/g)].map((match) => match[1]);
    expect(candidates).toHaveLength(10);
    expect(candidates[0]).toBe(owner.email);
    expect(html).toContain("Only the first 10 are shown: search to find others.");
    expect(html).not.toContain(`<option value="${seeded[0]!.userId}"`); // no list of everyone

    const wanted = seeded[114]!; // on the third page
    const found = await owner.page(`${dialog}?q=${encodeURIComponent(wanted.name.toUpperCase())}`);
    expect([...found.matchAll(/data-team-candidate="([^"]+)"/g)].map((match) => match[1])).toEqual([wanted.email]);
    expect(found).not.toContain("Only the first");
    const byEmail = await owner.page(`${dialog}?q=${encodeURIComponent(wanted.email)}`);
    expect(byEmail).toContain(`data-team-candidate="${wanted.email}"`);

    const query = `?q=${encodeURIComponent(wanted.name)}`;
    const added = await owner.post(`${dialog}${query}`, { intent: "add-team-member", userId: wanted.userId });
    expect(added.status).toBe(302);
    expect(added.headers.get("location")).toBe(`${dialog}?q=Person+115`);
    const after = await owner.page(added.headers.get("location")!);
    expect(after).toContain(`${wanted.name} was added to Ops`);
    expect(after).toContain(`data-team-member="${wanted.email}"`);
    expect(after).not.toContain("data-team-candidate=");
    expect(after).toContain("No one outside the team matches.");
  });
});
