/**
 * An organization's own audit log, driven over HTTP like a browser without JavaScript: the
 * organization's verbs (members, invitations, teams, single sign-on, SCIM) write rows that
 * name it; its owners and admins read them in the workspace's audit-log section, filtered by
 * member, category, status and days, in their language, and download them as CSV; a plain
 * member and an outsider find nothing; another organization's rows never show. Runs on
 * SQLite, and on PostgreSQL when TEST_DATABASE_URL names one.
 */
import { readFileSync } from "node:fs";
import { join } from "node:path";
import Database from "better-sqlite3";
import pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { MIGRATIONS_DIR, readMigrations } from "~/server/db/migrate.server";
import type { RequestMeta } from "~/server/auth/session.server";
import { signedInBrowser, type SignedInBrowser } from "./helpers/browser";
import { startTestApp, type TestApp } from "./helpers/app";
import { createUser, sessionFor, unique, uniqueEmail } from "./helpers/factories";
import { createTestDatabase } from "./helpers/database";

const SECRET = "organization-audit-log-test-secret-0123456789";
const meta: RequestMeta = { ipAddress: "198.51.100.7", userAgent: "vitest", locale: "en" };
const CHROME_ON_LINUX =
  "Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.0.0 Safari/537.36";
const INJECTION_AGENT = '=HYPERLINK("http://evil.example","click")';

let app: TestApp;

beforeAll(async () => {
  app = await startTestApp({ secret: SECRET });
}, 60_000);
afterAll(() => app?.stop());

/** A string of locales/<lng>/<namespace>.json (HTML-escaped as React writes it). */
function text(lng: string, namespace: string, path: string): string {
  let value: unknown = JSON.parse(
    readFileSync(new URL(`../../locales/${lng}/${namespace}.json`, import.meta.url), "utf8"),
  );
  for (const part of path.split(".")) value = (value as Record<string, unknown>)[part];
  return (value as string).replace(/&/g, "&amp;").replace(/'/g, "&#x27;").replace(/"/g, "&quot;");
}

/** RFC 4180, as a spreadsheet reads it. */
function parseCsv(csv: string): string[][] {
  const rows: string[][] = [];
  let row: string[] = [];
  let field = "";
  let quoted = false;
  for (let i = 0; i < csv.length; i++) {
    const c = csv[i]!;
    if (quoted) {
      if (c !== '"') field += c;
      else if (csv[i + 1] === '"') {
        field += '"';
        i++;
      } else quoted = false;
    } else if (c === '"') quoted = true;
    else if (c === ",") {
      row.push(field);
      field = "";
    } else if (c === "\r" && csv[i + 1] === "\n") {
      row.push(field);
      rows.push(row);
      row = [];
      field = "";
      i++;
    } else field += c;
  }
  return rows;
}

/** The rows a page lists: [id, action]. */
const rowsOf = (html: string) =>
  [...html.matchAll(/<tr data-audit="([^"]+)" data-action="([^"]+)"/g)].map((m) => [m[1]!, m[2]!] as const);

/** An organization made through the create form by `owner`. */
async function organizationOf(owner: SignedInBrowser, name: string) {
  const slug = unique(name.toLowerCase());
  expect((await owner.post("/organizations/new", { name, slug })).status).toBe(302);
  return app.prisma.organization.findUniqueOrThrow({ where: { slug } });
}

/** Two organizations, each with rows of its own written by their verbs, and old rows to filter. */
async function world() {
  const organizations = await import("~/server/organization/organizations.server");
  const invitations = await import("~/server/organization/invitations.server");
  const teams = await import("~/server/organization/teams.server");
  const domains = await import("~/server/sso/domains.server");
  const scimTokens = await import("~/server/sso/scim/tokens.server");
  const scimUsers = await import("~/server/sso/scim/users.server");

  const owner = await signedInBrowser(app, { name: "Olive Owner" });
  const admin = await signedInBrowser(app, { name: "Ada Admin" });
  const member = await signedInBrowser(app, { name: "Max Member" });
  const stranger = await signedInBrowser(app, { name: "Gus Globex" });
  const acme = await organizationOf(owner, "Acme");
  const globex = await organizationOf(stranger, "Globex");
  const as = (who: SignedInBrowser) => sessionFor(who.id);
  const [olive, ada, max, gus] = await Promise.all([owner, admin, member, stranger].map(as));

  // Acme: members join, change role, work in teams, are invited and answer, leave.
  await organizations.addMember({ userId: admin.id, role: "member", organizationId: acme.id }, meta);
  await organizations.addMember({ userId: member.id, role: "member", organizationId: acme.id }, meta);
  const adaMember = await app.prisma.member.findFirstOrThrow({ where: { userId: admin.id, organizationId: acme.id } });
  await organizations.updateMemberRole(
    olive!,
    { memberId: adaMember.id, role: "admin", organizationId: acme.id },
    meta,
  );
  await organizations.updateOrganization(olive!, { organizationId: acme.id, data: { name: "Acme" } }, meta);
  const team = await teams.createTeam(ada!, { name: "Core", organizationId: acme.id }, meta);
  await teams.updateTeam(ada!, { teamId: team.id, data: { name: "Core team", organizationId: acme.id } }, meta);
  await teams.addTeamMember(ada!, { teamId: team.id, userId: member.id, organizationId: acme.id }, meta);
  await teams.removeTeamMember(ada!, { teamId: team.id, userId: member.id, organizationId: acme.id }, meta);
  const invitee = await createUser({ email: uniqueEmail("invitee"), name: "Ivy Invitee" });
  const declined = await createUser({ email: uniqueEmail("declined"), name: "Dan Declined" });
  const ivy = await invitations.inviteMember(
    olive!,
    { email: invitee.email, role: "member", organizationId: acme.id },
    meta,
  );
  await invitations.acceptInvitation(await sessionFor(invitee.id), ivy.id, meta);
  const dan = await invitations.inviteMember(
    olive!,
    { email: declined.email, role: "member", organizationId: acme.id },
    meta,
  );
  await invitations.rejectInvitation(await sessionFor(declined.id), dan.id, meta);
  const withdrawn = await invitations.inviteMember(
    ada!,
    { email: uniqueEmail("later"), role: "member", organizationId: acme.id },
    meta,
  );
  await invitations.cancelInvitation(ada!, withdrawn.id, meta);
  await organizations.removeMember(olive!, { memberIdOrEmail: invitee.email, organizationId: acme.id }, meta);

  // Acme's single sign-on: a verified domain, the requirement, a SCIM token and a provisioned user.
  const provider = await app.prisma.ssoProvider.create({
    data: {
      providerId: unique("acme-idp"),
      issuer: "https://idp.acme.example",
      domain: "acme.example",
      organizationId: acme.id,
      samlConfig: JSON.stringify({ entryPoint: "https://idp.acme.example/sso", certs: ["unused"] }),
      domains: { create: { domain: "acme.example", token: "token", verifiedAt: new Date() } },
    },
  });
  await domains.setSsoRequired(olive!, { organizationId: acme.id, required: true }, meta);
  await domains.setSsoRequired(olive!, { organizationId: acme.id, required: false }, meta);
  await scimTokens.generateScimToken(ada!, { providerId: provider.providerId, organizationId: acme.id }, meta);
  const token = await app.prisma.scimToken.findFirstOrThrow({ where: { organizationId: acme.id } });
  const caller = {
    tokenId: token.id,
    organizationId: acme.id,
    providerRowId: provider.id,
    providerId: provider.providerId,
  };
  await scimUsers.createUser(
    caller,
    {
      schemas: ["urn:ietf:params:scim:schemas:core:2.0:User"],
      userName: `${unique("sam")}@acme.example`,
      emails: [{ value: `${unique("sam")}@acme.example`, primary: true }],
      active: true,
    },
    meta,
  );
  await scimTokens.revokeScimToken(olive!, { tokenId: token.id }, meta);

  // Globex: its own events, some on the same days and of the same kinds as Acme's.
  await teams.createTeam(gus!, { name: "Globex team", organizationId: globex.id }, meta);
  await invitations.inviteMember(
    gus!,
    { email: uniqueEmail("globex"), role: "member", organizationId: globex.id },
    meta,
  );

  // Max leaves Acme last: he is a former member from here on.
  await organizations.leaveOrganization(max!, acme.id, meta);
  await app.prisma.member.create({ data: { organizationId: acme.id, userId: member.id, role: "member" } });

  // Old rows on known days: Acme's (one with what a spreadsheet would run), Globex's on the same day.
  const old = await Promise.all([
    app.prisma.auditLog.create({
      data: {
        organizationId: acme.id,
        userId: owner.id,
        category: "security",
        action: "two-factor-enabled",
        status: "success",
        ipAddress: "203.0.113.9",
        userAgent: CHROME_ON_LINUX,
        createdAt: new Date("2026-01-10T08:00:00.000Z"),
      },
    }),
    app.prisma.auditLog.create({
      data: {
        organizationId: acme.id,
        userId: admin.id,
        category: "organization",
        action: "update-organization",
        status: "failure",
        ipAddress: "-2+3",
        userAgent: INJECTION_AGENT,
        details: JSON.stringify({ name: "@SUM(1+1)*cmd|' /C calc'!A0", note: 'a, "quoted"\nsecond line' }),
        createdAt: new Date("2026-01-20T23:59:59.000Z"),
      },
    }),
    app.prisma.auditLog.create({
      data: {
        organizationId: globex.id,
        userId: stranger.id,
        category: "organization",
        action: "update-organization",
        status: "failure",
        createdAt: new Date("2026-01-20T12:00:00.000Z"),
      },
    }),
  ]);
  const rowsOfOrganization = (organizationId: string) =>
    app.prisma.auditLog.findMany({ where: { organizationId }, orderBy: [{ createdAt: "desc" }, { id: "desc" }] });
  return {
    owner,
    admin,
    member,
    stranger,
    acme,
    globex,
    base: `/organizations/${acme.slug}/audit-log`,
    acmeRows: await rowsOfOrganization(acme.id),
    globexRows: await rowsOfOrganization(globex.id),
    old: { security: old[0], injection: old[1], globex: old[2] },
  };
}

let w: Awaited<ReturnType<typeof world>>;

beforeAll(async () => {
  w = await world();
}, 60_000);

describe("the rows of an organization's events", () => {
  it("name the organization at every verb: members, invitations, teams, single sign-on, SCIM", async () => {
    const actions = new Set(w.acmeRows.map((row) => row.action));
    for (const action of [
      "create-organization",
      "update-organization",
      "add-member",
      "update-member-role",
      "remove-member",
      "leave-organization",
      "invite-member",
      "accept-invitation",
      "reject-invitation",
      "cancel-invitation",
      "create-team",
      "update-team",
      "add-team-member",
      "remove-team-member",
      "require-sso",
      "generate-scim-token",
      "scim-create-user",
      "revoke-scim-token",
    ]) {
      expect(actions, action).toContain(action);
    }
    // Nothing of those kinds was written without its organization.
    const unnamed = await app.prisma.auditLog.findMany({
      where: { category: { in: ["organization", "sso", "scim"] }, organizationId: null },
      select: { action: true },
    });
    expect(unnamed).toEqual([]);
    expect(new Set(w.globexRows.map((row) => row.action))).toEqual(
      new Set(["create-organization", "create-team", "invite-member", "update-organization"]),
    );
  });
});

describe("the audit log section", () => {
  const list = (who: SignedInBrowser, query: Record<string, string> = {}) =>
    who.page(`${w.base}?${new URLSearchParams({ size: "100", ...query })}`).then(rowsOf);

  it("shows an owner and an admin their organization's rows, newest first, and none of another's", async () => {
    const expected = w.acmeRows.map((row) => [row.id, row.action] as const);
    expect(await list(w.owner)).toEqual(expected);
    expect(await list(w.admin)).toEqual(expected);
    const globexIds = w.globexRows.map((row) => row.id);
    const html = await w.owner.page(`${w.base}?size=100`);
    for (const id of globexIds) expect(html).not.toContain(id);
    expect(html).not.toContain("Globex");
    // Globex's owner sees Globex's only.
    const globex = rowsOf(await w.stranger.page(`/organizations/${w.globex.slug}/audit-log?size=100`));
    expect(globex).toEqual(w.globexRows.map((row) => [row.id, row.action] as const));
  });

  it("filters by member, category, status and days, together; a filter that does not parse is no filter", async () => {
    const adaRows = w.acmeRows.filter((row) => row.userId === w.admin.id).map((row) => row.action);
    expect(adaRows.length).toBeGreaterThan(3);
    expect((await list(w.owner, { member: w.admin.email })).map(([, action]) => action)).toEqual(adaRows);
    // Part of the name or the email, in any case.
    expect((await list(w.owner, { member: "ADA ADM" })).map(([, action]) => action)).toEqual(adaRows);
    expect((await list(w.owner, { member: w.admin.email.split("@")[0]!.toUpperCase() })).length).toBe(adaRows.length);
    expect((await list(w.owner, { category: "scim" })).map(([, action]) => action)).toEqual([
      "revoke-scim-token",
      "scim-create-user",
      "generate-scim-token",
    ]);
    expect((await list(w.owner, { category: "sso" })).map(([, action]) => action)).toEqual([
      "require-sso",
      "require-sso",
    ]);
    expect(await list(w.owner, { status: "failure" })).toEqual([[w.old.injection.id, "update-organization"]]);
    expect(await list(w.owner, { from: "2026-01-10", to: "2026-01-20" })).toEqual([
      [w.old.injection.id, "update-organization"],
      [w.old.security.id, "two-factor-enabled"],
    ]);
    expect(await list(w.owner, { from: "2026-01-11", to: "2026-01-20" })).toEqual([
      [w.old.injection.id, "update-organization"],
    ]);
    expect(await list(w.owner, { to: "2026-01-19" })).toEqual([[w.old.security.id, "two-factor-enabled"]]);
    expect(await list(w.owner, { member: "ada", category: "organization", status: "failure" })).toEqual([
      [w.old.injection.id, "update-organization"],
    ]);
    // Another organization's person finds nothing here, by email or by name.
    expect(await list(w.owner, { member: w.stranger.email })).toEqual([]);
    expect(await list(w.owner, { member: "Gus Globex" })).toEqual([]);
    // Unparsable values are ignored, never an error.
    for (const query of [
      { from: "2026-02-31", status: "maybe", category: "<script>", to: "" },
      { page: "-3", size: "7" },
      { member: "x".repeat(5000) },
      { page: "abc", to: "yesterday" },
    ] as Record<string, string>[]) {
      const response = await w.owner.get(`${w.base}?${new URLSearchParams(query)}`);
      expect(response.status, JSON.stringify(query).slice(0, 80)).toBe(200);
    }
    expect(await list(w.owner, { from: "2026-02-31", status: "maybe" })).toHaveLength(w.acmeRows.length);
  });

  it("links each person to their own events, a former member's too", async () => {
    const html = await w.owner.page(`${w.base}?category=organization&size=100`);
    const email = encodeURIComponent(w.admin.email);
    expect(html).toContain(`href="${w.base}?category=organization&amp;size=100&amp;member=${email}"`);
    // Ivy was invited, accepted, and was removed: her rows stay, and she is found by name.
    const filtered = await w.owner.page(`${w.base}?member=ivy`);
    expect(rowsOf(filtered).map(([, action]) => action)).toEqual(["accept-invitation"]);
    expect(filtered).toContain('value="ivy"');
  });

  it("names categories and actions in the reader's language, with the device and address of each row", async () => {
    for (const lng of ["en", "ja"]) {
      const prefix = lng === "en" ? "" : `/${lng}`;
      const html = await w.owner.page(`${prefix}${w.base}?category=security`);
      const rows = [...html.matchAll(/<tr data-audit="[^"]+" data-action="([^"]+)"[\s\S]*?<\/tr>/g)];
      expect(rows.map((row) => row[1])).toEqual(["two-factor-enabled"]);
      const [glance] = rows[0]![0].split("<details");
      expect(glance).toContain(`>${text(lng, "reports", "auditLog.categories.security")}<`);
      expect(glance).toContain(`>${text(lng, "reports", "auditLog.actions.two-factor-enabled")}<`);
      expect(glance).toContain(lng === "en" ? ">Chrome on Linux<" : ">Linux の Chrome<");
      expect(glance).toContain(">203.0.113.9<");
      expect(glance).toContain(`data-actor="${w.owner.id}"`);
      expect(html).toContain(text(lng, "organization", "auditLog.title"));
      expect(html).toMatch(
        new RegExp(`<title>${text(lng, "common", "meta.organizationAuditLog.title").replace("{{name}}", "Acme")}`),
      );
      // The SCIM rows' actor is the directory, in words.
      const scim = await w.owner.page(`${prefix}${w.base}?category=scim`);
      expect(scim).toContain(text(lng, "organization", "auditLog.actor.directory"));
    }
  });

  it("is a tab for those who may read it, and a 404 for a plain member and an outsider", async () => {
    const tab = `href="/organizations/${w.acme.slug}/audit-log"`;
    expect(await w.owner.page(`/organizations/${w.acme.slug}`)).toContain(tab);
    expect(await w.admin.page(`/organizations/${w.acme.slug}`)).toContain(tab);
    expect(await w.member.page(`/organizations/${w.acme.slug}`)).not.toContain(tab);
    for (const who of [w.member, w.stranger]) {
      for (const path of [w.base, `/fr${w.base}`, `${w.base}.csv`]) {
        const response = await who.get(path);
        expect(response.status, `${who.name} ${path}`).toBe(404);
        expect(await response.text()).not.toContain(w.old.injection.id);
      }
    }
    const guest = await fetch(`${app.base}${w.base}.csv`, { redirect: "manual" });
    expect(guest.status).toBe(302);
    expect(guest.headers.get("location")).toMatch(/^\/signin\?redirect=/);
  });
});

describe("the CSV export", () => {
  it("downloads the applied filter, the organization's rows only, with formulas kept as text", async () => {
    const page = await w.owner.page(`${w.base}?category=organization&status=failure&page=1&size=50`);
    expect(page).toContain(`href="${w.base}.csv?category=organization&amp;status=failure"`);

    const response = await w.owner.get(`${w.base}.csv?category=organization&status=failure`);
    expect(response.status).toBe(200);
    expect(response.headers.get("content-type")).toBe("text/csv; charset=utf-8");
    expect(response.headers.get("cache-control")).toBe("no-store");
    expect(response.headers.get("content-disposition")).toMatch(
      new RegExp(`^attachment; filename="audit-log-${w.acme.slug}-\\d{8}-\\d{6}\\.csv"$`),
    );
    const bytes = new Uint8Array(await response.arrayBuffer());
    expect([...bytes.slice(0, 3)]).toEqual([0xef, 0xbb, 0xbf]);
    const csv = new TextDecoder().decode(bytes);
    const [header, ...rows] = parseCsv(csv);
    expect(header).toEqual([
      "id",
      "createdAt",
      "category",
      "action",
      "status",
      "userId",
      "userEmail",
      "byAdministrator",
      "targetType",
      "targetId",
      "ipAddress",
      "userAgent",
      "details",
    ]);
    expect(rows).toHaveLength(1);
    expect(Object.fromEntries(header!.map((name, i) => [name, rows[0]![i]]))).toMatchObject({
      id: w.old.injection.id,
      createdAt: "2026-01-20T23:59:59.000Z",
      userEmail: w.admin.email,
      byAdministrator: "false",
      ipAddress: "'-2+3",
      userAgent: `'${INJECTION_AGENT}`,
      details: JSON.stringify({ name: "@SUM(1+1)*cmd|' /C calc'!A0", note: 'a, "quoted"\nsecond line' }),
    });
    expect(csv).not.toMatch(/(^|,|\r\n)[=+\-@]/);
    expect(csv).not.toContain(w.old.globex.id);

    // Unfiltered: every row of the organization, newest first, and nothing of another's.
    const all = parseCsv(new TextDecoder().decode(await (await w.admin.get(`${w.base}.csv`)).arrayBuffer()));
    expect(all.slice(1).map((row) => row[0])).toEqual(w.acmeRows.map((row) => row.id));
    const member = parseCsv(await (await w.owner.get(`${w.base}.csv?member=${w.admin.id}`)).text());
    expect(member.slice(1).every((row) => row[6] === w.admin.email)).toBe(true);
  });
});

describe("the service", () => {
  it("refuses a plain member (403) and an outsider before reading anything", async () => {
    const { organizationAuditLog, organizationAuditLogCsv } = await import("~/server/organization/audit-log.server");
    const member = await sessionFor(w.member.id);
    const outsider = await sessionFor(w.stranger.id);
    await expect(organizationAuditLog(member, w.acme.id, { page: 1, size: 20 })).rejects.toMatchObject({
      code: "YOU_ARE_NOT_ALLOWED_TO_READ_THE_AUDIT_LOG",
      status: 403,
    });
    await expect(organizationAuditLogCsv(member, w.acme.id, {})).rejects.toMatchObject({
      code: "YOU_ARE_NOT_ALLOWED_TO_READ_THE_AUDIT_LOG",
    });
    await expect(organizationAuditLog(outsider, w.acme.id, { page: 1, size: 20 })).rejects.toMatchObject({
      code: "USER_IS_NOT_A_MEMBER_OF_THE_ORGANIZATION",
    });
  });

  it("pages the log: a page past the last shows the last", async () => {
    const { organizationAuditLog } = await import("~/server/organization/audit-log.server");
    const owner = await sessionFor(w.owner.id);
    const first = await organizationAuditLog(owner, w.acme.id, { page: 1, size: 20 });
    expect(first.total).toBe(w.acmeRows.length);
    expect(first.pages).toBe(Math.ceil(w.acmeRows.length / 20));
    expect(first.pages).toBeGreaterThan(1);
    const last = await organizationAuditLog(owner, w.acme.id, { page: 99, size: 20 });
    expect(last.page).toBe(first.pages);
    const pages = [first];
    for (let page = 2; page <= first.pages; page++) {
      pages.push(await organizationAuditLog(owner, w.acme.id, { page, size: 20 }));
    }
    expect(pages.flatMap((log) => log.rows.map((row) => row.id))).toEqual(w.acmeRows.map((row) => row.id));
    expect(last.rows.map((row) => row.id)).toEqual(pages.at(-1)!.rows.map((row) => row.id));
    expect(first.categories).toEqual(["organization", "scim", "security", "sso"]);
  });
});

describe("the migration that adds the column", () => {
  const MIGRATION = "audit_log_organization";
  // Rows from before it, as the code of then wrote them, and the organization each must get.
  const rows: [
    id: string,
    category: string,
    targetType: string | null,
    targetId: string | null,
    details: string | null,
    expected: string | null,
  ][] = [
    ["created", "organization", "organization", "org1", '{"slug":"acme"}', "org1"],
    ["invited", "organization", "invitation", "inv1", '{"organizationId":"org1","email":"a@b.example"}', "org1"],
    ["paid", "payment", "subscription", "s1", '{"provider":"stripe","referenceId":"org1"}', "org1"],
    ["paid-by-user", "payment", "subscription", "s2", '{"provider":"stripe","referenceId":"user1"}', null],
    ["sso-refused", "sso", null, null, '{"providerId":"idp1","reason":"state_mismatch"}', "org1"],
    ["scim", "scim", "user", "u1", '{"organizationId":"org1","providerId":"idp1","tokenId":"t1"}', "org1"],
    ["sign-in", "auth", null, null, '{"organizationId":"org1"}', null],
    ["not-json", "sso", "sso-domain", "d1", "not json", null],
    ["in-a-value", "organization", "team", "t1", JSON.stringify({ name: '"organizationId":"org9"' }), null],
  ];

  /** Applies the migrations before it, the rows, then it; answers each row's organizationId. */
  async function backFill(
    dir: string,
    run: (sql: string) => Promise<unknown>,
    read: () => Promise<Record<string, string | null>>,
  ) {
    const migrations = readMigrations(join(process.cwd(), dir));
    const index = migrations.findIndex((migration) => migration.name.endsWith(`_${MIGRATION}`));
    expect(index).toBeGreaterThan(0);
    for (const migration of migrations.slice(0, index)) await run(migration.sql);
    await run(
      `INSERT INTO "organization" ("id", "name", "slug", "createdAt") VALUES ('org1', 'Acme', 'acme', CURRENT_TIMESTAMP)`,
    );
    await run(
      `INSERT INTO "sso_provider" ("id", "providerId", "issuer", "domain", "organizationId", "createdAt", "updatedAt") VALUES ('p1', 'idp1', 'https://idp.example', 'acme.example', 'org1', CURRENT_TIMESTAMP, CURRENT_TIMESTAMP)`,
    );
    const literal = (value: string | null) => (value === null ? "NULL" : `'${value.replaceAll("'", "''")}'`);
    for (const [id, category, targetType, targetId, details] of rows) {
      await run(
        `INSERT INTO "audit_log" ("id", "category", "action", "status", "targetType", "targetId", "details", "createdAt") VALUES (${[id, category, "x", "success", targetType, targetId, details].map(literal).join(", ")}, CURRENT_TIMESTAMP)`,
      );
    }
    await run(migrations[index]!.sql);
    return read();
  }
  const expected = Object.fromEntries(rows.map(([id, , , , , organizationId]) => [id, organizationId]));
  const byId = (list: { id: string; organizationId: string | null }[]) =>
    Object.fromEntries(list.map((row) => [row.id, row.organizationId]));

  it("names the organization of earlier rows from their details, target, payment or connection (SQLite)", async () => {
    const db = new Database(":memory:");
    const found = await backFill(
      MIGRATIONS_DIR.sqlite,
      async (sql) => db.exec(sql),
      async () => byId(db.prepare('SELECT "id", "organizationId" FROM "audit_log"').all() as never),
    );
    db.close();
    expect(found).toEqual(expected);
  });

  it.runIf(/^postgres(ql)?:/.test(process.env.TEST_DATABASE_URL ?? ""))("does the same on PostgreSQL", async () => {
    const database = await createTestDatabase();
    const client = new pg.Client({ connectionString: database.url });
    await client.connect();
    try {
      const found = await backFill(
        MIGRATIONS_DIR.postgresql,
        (sql) => client.query(sql),
        async () => byId((await client.query('SELECT "id", "organizationId" FROM "audit_log"')).rows),
      );
      expect(found).toEqual(expected);
    } finally {
      await client.end();
      await database.drop();
    }
  });
});
