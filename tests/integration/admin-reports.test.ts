/**
 * The admin console's reports, driven over HTTP like a browser without JavaScript: the
 * dashboard's figures and charts, subscriptions by status, the audit log and its CSV, the
 * database figures and integrity check, the migrations page and its data operation (against
 * the Stripe stand-in, with a provider failure). Rows are seeded with known figures and the
 * pages must show exactly those (read from data-* attributes). Runs on SQLite, and on
 * PostgreSQL when TEST_DATABASE_URL names one.
 */
import { readdirSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startStripeStandIn, type StripeStandIn } from "../support/stripe-stand-in";
import { signedInBrowser, type SignedInBrowser } from "./helpers/browser";
import { startTestApp, type TestApp } from "./helpers/app";
import { ROOT } from "./helpers/server";
import type { Organization, User } from "~/server/db.server";

const SECRET = "admin-reports-test-secret-0123456789abcdef";
const DAY = 86_400_000;
const postgres = /^postgres(ql)?:/.test(process.env.TEST_DATABASE_URL ?? "");

let app: TestApp;
let stripe: StripeStandIn;

beforeAll(async () => {
  stripe = await startStripeStandIn({ secretKey: "sk_test_reports", webhookSecret: "whsec_reports", prices: {} });
  app = await startTestApp({
    secret: SECRET,
    env: {
      PAYMENT_PROVIDER: "stripe",
      STRIPE_SECRET_KEY: "sk_test_reports",
      STRIPE_WEBHOOK_SECRET: "whsec_reports",
      STRIPE_API_BASE_URL: stripe.url,
    },
  });
}, 60_000);
afterAll(async () => {
  await app?.stop();
  await stripe?.close();
});

let counter = 0;
const unique = (tag: string) => `${tag}-${++counter}-${Date.now()}`;

/** A signed-in browser without JavaScript (helpers/browser.ts). */
const browser = (role: "admin" | "user") => signedInBrowser(app, { role, name: `The ${role}` });
type Browser = SignedInBrowser;

let admin: Browser;
let member: Browser;

/** A number a page shows in `data-<name>="…"` after `anchor`. */
function dataValue(html: string, anchor: string, name = "value"): number {
  const match = html.match(new RegExp(`${anchor}[^>]*? data-${name}="([^"]*)"`));
  expect(match, `${anchor} data-${name}`).not.toBeNull();
  return Number(match![1]);
}
const stat = (html: string, key: string) => dataValue(html, `data-stat="${key}"`);

/** RFC 4180, as a spreadsheet reads it. */
function parseCsv(text: string): string[][] {
  const rows: string[][] = [];
  let row: string[] = [];
  let field = "";
  let quoted = false;
  for (let i = 0; i < text.length; i++) {
    const c = text[i]!;
    if (quoted) {
      if (c !== '"') field += c;
      else if (text[i + 1] === '"') {
        field += '"';
        i++;
      } else quoted = false;
    } else if (c === '"') quoted = true;
    else if (c === ",") {
      row.push(field);
      field = "";
    } else if (c === "\r" && text[i + 1] === "\n") {
      row.push(field);
      rows.push(row);
      row = [];
      field = "";
      i++;
    } else field += c;
  }
  return rows;
}

// ---- the seed: known figures ----

const now = Date.now();
const ago = (days: number) => new Date(now - days * DAY);
const utcDay = (date: Date) => date.toISOString().slice(0, 10);

interface Seed {
  /** users as the dashboard counts them, including the ones the app and the test made */
  users: number;
  newUsers7: number;
  newUsers30: number;
  verified: number;
  activeSessions: number;
  payer: { id: string; email: string; name: string };
  organizationName: string;
  canceledOwner: string;
}
let seed: Seed;
/** The dashboard before the seed: nothing sold yet. */
let unsold: { en: string; ja: string };

const CHROME_ON_LINUX =
  "Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/126.0.0.0 Safari/537.36";

beforeAll(async () => {
  admin = await browser("admin");
  member = await browser("user");
  unsold = { en: await admin.page("/admin/dashboard"), ja: await admin.page("/ja/admin/dashboard") };
  const db = app.prisma;
  // What exists before the seed (the demo admin, the two browsers), all made just now.
  const [baseUsers, baseVerified, baseSessions] = await Promise.all([
    db.user.count(),
    db.user.count({ where: { emailVerified: true } }),
    db.session.count({ where: { expiresAt: { gt: new Date() } } }),
  ]);

  const people = (tag: string, count: number, verified: number, createdAt: Date) =>
    Array.from({ length: count }, (_, i) => ({
      email: `${unique(tag)}@example.com`,
      name: `${tag} ${i}`,
      emailVerified: i < verified,
      createdAt,
    }));
  await db.user.createMany({
    data: [...people("recent", 5, 3, ago(2)), ...people("month", 4, 1, ago(20)), ...people("older", 6, 6, ago(60))],
  });
  const payers = await db.user.findMany({ where: { email: { startsWith: "recent-" } }, orderBy: { email: "asc" } });
  const older = await db.user.findMany({ where: { email: { startsWith: "older-" } }, orderBy: { email: "asc" } });
  const [a, b, c, d, e] = payers as [User, User, User, User, User];

  // Sessions: three live, two expired.
  await db.session.createMany({
    data: [1, 2, 3, -1, -2].map((days, i) => ({
      userId: older[i]!.id,
      token: unique("token"),
      expiresAt: new Date(now + days * DAY),
    })),
  });

  const organizations = await Promise.all(
    ["Umbrella", "Globex", "Initech"].map((name) =>
      db.organization.create({ data: { name, slug: unique(name.toLowerCase()) } }),
    ),
  );
  const [umbrella, globex, initech] = organizations as [Organization, Organization, Organization];

  const subscription = (
    referenceId: string,
    plan: string,
    status: string,
    extra: { billingInterval?: string; seats?: number; cancelAtPeriodEnd?: boolean; createdAt?: Date } = {},
  ) => ({
    referenceId,
    plan,
    status,
    provider: "stripe",
    billingInterval: "month",
    seats: plan === "team" ? 5 : 1,
    periodStart: ago(3),
    periodEnd: new Date(now + 27 * DAY),
    createdAt: ago(3),
    ...extra,
  });
  await db.subscription.createMany({
    data: [
      // Paying: 19 + 190/12 + 2 × 49 + 490/12 + 19 (a pending cancellation still pays).
      subscription(a.id, "pro", "active"),
      subscription(b.id, "pro", "active", { billingInterval: "year" }),
      subscription(umbrella.id, "team", "active", { seats: 10 }),
      subscription(globex.id, "team", "active", { billingInterval: "year" }),
      subscription(c.id, "pro", "active", { cancelAtPeriodEnd: true }),
      // In trial: 19 + 49, not paying yet.
      subscription(d.id, "pro", "trialing"),
      subscription(initech.id, "team", "trialing"),
      subscription(e.id, "pro", "past_due"),
      subscription(e.id, "pro", "incomplete"),
      // 24 canceled ones, older than a month, one of an account deleted since.
      ...Array.from({ length: 23 }, () => subscription(older[5]!.id, "pro", "canceled", { createdAt: ago(40) })),
      subscription("deleted-account-id", "pro", "canceled", { createdAt: ago(40) }),
    ],
  });

  // Audit rows: the payer's four, two failed sign-ins ten days ago, and one made to attack a spreadsheet.
  await db.auditLog.createMany({
    data: [
      ...[1, 2, 3].map(() => ({
        userId: a.id,
        category: "auth",
        action: "sign-in",
        status: "success",
        createdAt: ago(1),
      })),
      {
        userId: a.id,
        category: "payment",
        action: "checkout",
        status: "success",
        details: JSON.stringify({ plan: "pro" }),
        createdAt: ago(5),
      },
      ...[1, 2].map(() => ({
        userId: b.id,
        category: "auth",
        action: "sign-in",
        status: "failure",
        createdAt: ago(10),
      })),
      {
        userId: b.id,
        category: "organization",
        action: "update-organization",
        status: "success",
        ipAddress: "-2+3",
        userAgent: '=HYPERLINK("http://evil.example","click")',
        details: JSON.stringify({ name: "@SUM(1+1)*cmd|' /C calc'!A0", note: 'a, "quoted"\nsecond line' }),
        createdAt: ago(4),
      },
      {
        userId: c.id,
        category: "security",
        action: "two-factor-enabled",
        status: "success",
        ipAddress: "203.0.113.9",
        userAgent: CHROME_ON_LINUX,
        details: JSON.stringify({ method: "totp" }),
        createdAt: ago(6),
      },
    ],
  });

  seed = {
    users: baseUsers + 15,
    newUsers7: baseUsers + 5,
    newUsers30: baseUsers + 9,
    verified: baseVerified + 10,
    activeSessions: baseSessions + 3,
    payer: { id: a.id, email: a.email, name: a.name },
    organizationName: umbrella.name,
    canceledOwner: older[5]!.email,
  };
}, 60_000);

describe("access", () => {
  const pages = [
    "/admin/dashboard",
    "/admin/subscriptions",
    "/admin/maintenance/database",
    "/admin/maintenance/audit-log",
    "/admin/maintenance/migrations",
  ];

  it("sends a non-admin to /403 from every page, form and the CSV, in their language", async () => {
    for (const prefix of ["", "/fr"]) {
      for (const path of [...pages, "/admin/maintenance/audit-log.csv"]) {
        const response = await member.get(`${prefix}${path}`);
        expect([response.status, response.headers.get("location")], path).toEqual([302, `${prefix}/403`]);
        expect(response.headers.get("content-type") ?? "").not.toContain("text/csv");
      }
    }
    for (const path of ["/admin/maintenance/database", "/admin/maintenance/migrations"]) {
      const response = await member.post(path, { operation: "ensure-customers" });
      expect([response.status, response.headers.get("location")], path).toEqual([302, "/403"]);
    }
    expect(await app.prisma.dataOperationRun.count()).toBe(0);
    // Guests are asked to sign in first.
    const guest = await fetch(`${app.base}/admin/maintenance/audit-log.csv`, { redirect: "manual" });
    expect(guest.headers.get("location")).toMatch(/^\/signin\?redirect=/);
  });

  it("opens every page for an admin, in every language, and redirects their short names", async () => {
    for (const prefix of ["", "/zh-CN", "/ja", "/fr"]) {
      for (const path of pages) expect((await admin.get(`${prefix}${path}`)).status, prefix + path).toBe(200);
    }
    expect(await admin.page("/ja/admin/maintenance/audit-log")).toContain("監査ログ");
    for (const [from, to] of [
      ["/admin/subscription?status=active", "/admin/subscriptions?status=active"],
      ["/admin/maintenance/db-stats", "/admin/maintenance/database"],
      ["/fr/admin/maintenance/migration", "/fr/admin/maintenance/migrations"],
    ]) {
      const response = await admin.get(from!);
      expect([response.status, response.headers.get("location")]).toEqual([302, to]);
    }
  });
});

describe("dashboard", () => {
  it("shows the seeded figures, and revenue from the plans' prices", async () => {
    const html = await admin.page("/admin/dashboard");
    expect(stat(html, "users")).toBe(seed.users);
    expect(stat(html, "newUsers7")).toBe(seed.newUsers7);
    expect(stat(html, "newUsers30")).toBe(seed.newUsers30);
    expect(stat(html, "verifiedUsers")).toBe(seed.verified);
    expect(stat(html, "verifiedShare")).toBeCloseTo(seed.verified / seed.users, 10);
    expect(stat(html, "activeSessions")).toBe(seed.activeSessions);
    expect(stat(html, "organizations")).toBe(3);
    expect(stat(html, "activeSubscriptions")).toBe(5);
    expect(stat(html, "trialingSubscriptions")).toBe(2);
    expect(stat(html, "monthlyRevenue")).toBeCloseTo(19 + 190 / 12 + 2 * 49 + 490 / 12 + 19, 6);
    expect(stat(html, "trialRevenue")).toBeCloseTo(19 + 49, 6);
    expect(html).toContain("$192.67");
  });

  it("charts sign-ups and new subscriptions per day over the chosen range, with the numbers as text", async () => {
    const chartRows = (html: string, chart: string) => {
      const table = html.match(new RegExp(`data-testid="${chart}-data"[\\s\\S]*?</table>`))![0];
      return [...table.matchAll(/<tr data-day="([^"]+)">([\s\S]*?)<\/tr>/g)].map(([, day, cells]) => ({
        day: day!,
        values: Object.fromEntries(
          [...cells!.matchAll(/data-series="([^"]+)">([^<]*)</g)].map(([, key, value]) => [key!, Number(value)]),
        ),
      }));
    };

    const week = await admin.page("/admin/dashboard?range=7");
    const signUps = chartRows(week, "sign-ups");
    expect(signUps.map((row) => row.day)).toEqual(Array.from({ length: 7 }, (_, i) => utcDay(ago(6 - i))));
    expect(signUps.find((row) => row.day === utcDay(ago(2)))!.values).toEqual({ signUps: 5 });
    const madeToday = await app.prisma.user.count({
      where: { createdAt: { gte: new Date(`${utcDay(ago(0))}T00:00:00Z`) } },
    });
    expect(signUps.at(-1)!.values).toEqual({ signUps: madeToday });
    expect(signUps.reduce((sum, row) => sum + row.values.signUps!, 0)).toBe(madeToday + 5);
    expect(week).toMatch(/<svg[^>]*role="img"[^>]*aria-labelledby="[^"]+"/);
    expect(week).toContain("Sign-ups per day, last 7 days");
    expect(week).toMatch(
      /<a[^>]*aria-current="true"[^>]*href="\/admin\/dashboard\?range=7"|href="\/admin\/dashboard\?range=7"[^>]*aria-current="true"/,
    );

    // Subscriptions by their status now, on the day they started.
    const month = await admin.page("/admin/dashboard?range=30");
    const started = chartRows(month, "subscriptions");
    expect(started).toHaveLength(30);
    expect(started.find((row) => row.day === utcDay(ago(3)))!.values).toEqual({
      active: 5,
      incomplete: 1,
      past_due: 1,
      trialing: 2,
    });
    // The canceled ones started 40 days ago: only the 90-day range has them.
    const quarter = chartRows(await admin.page("/admin/dashboard?range=90"), "subscriptions");
    expect(quarter).toHaveLength(90);
    expect(quarter.find((row) => row.day === utcDay(ago(40)))!.values.canceled).toBe(24);
    expect(
      chartRows(await admin.page("/admin/dashboard?range=90"), "sign-ups").find((row) => row.day === utcDay(ago(60)))!
        .values,
    ).toEqual({ signUps: 6 });

    // An unknown range is the default (30 days), not an error.
    expect(chartRows(await admin.page("/admin/dashboard?range=13"), "sign-ups")).toHaveLength(30);
  });
});

describe("dashboard charts", () => {
  const figure = (html: string, chart: string) =>
    html.match(new RegExp(`<figure[^>]*data-chart="${chart}"[\\s\\S]*?</figure>`))![0];

  it("says there is nothing yet instead of drawing an empty chart, in the reader's language", () => {
    for (const [html, nothing, sentence] of [
      [unsold.en, "Nothing yet", "No subscriptions started in the last 30 days."],
      [unsold.ja, "まだデータがありません", "直近 30 日間に開始したサブスクリプションはありません。"],
    ] as const) {
      const chart = figure(html, "subscriptions");
      expect(chart).toContain("data-chart-empty");
      expect(chart).toContain(nothing);
      expect(chart).toContain(sentence);
      expect(chart).not.toContain('role="img"');
      expect(chart).not.toContain("data-legend");
      // The chart with something in it (the sign-ups of the test's own users) is drawn.
      expect(figure(html, "sign-ups")).toMatch(/<svg[^>]*role="img"/);
    }
  });

  it("names every colour of the subscriptions chart in a legend", async () => {
    for (const [prefix, labels] of [
      ["", { active: "Active", trialing: "Trial", past_due: "Past due", incomplete: "Incomplete" }],
      ["/ja", { active: "有効", trialing: "トライアル", past_due: "支払い遅延", incomplete: "未完了" }],
    ] as const) {
      const chart = figure(await admin.page(`${prefix}/admin/dashboard?range=30`), "subscriptions");
      expect(chart).not.toContain("data-chart-empty");
      const legend = chart.match(/<ul[^>]*data-legend[\s\S]*?<\/ul>/)![0];
      const items = [...legend.matchAll(/data-legend-item="([^"]+)"[^>]*>[\s\S]*?<\/svg>([^<]+)<\/li>/g)];
      expect(Object.fromEntries(items.map(([, key, label]) => [key, label]))).toEqual(labels);
    }
  });
});

describe("subscriptions", () => {
  const tabCount = (html: string, tab: string) => dataValue(html, `data-tab="${tab}"[^>]*>[\\s\\S]*?<span`, "count");

  it("counts every status in its tab and lists a tab's rows with their owners", async () => {
    const html = await admin.page("/admin/subscriptions");
    expect(tabCount(html, "all")).toBe(33);
    for (const [status, count] of Object.entries({
      active: 5,
      trialing: 2,
      past_due: 1,
      canceled: 24,
      incomplete: 1,
    })) {
      expect(tabCount(html, status), status).toBe(count);
    }

    const active = await admin.page("/admin/subscriptions?status=active");
    const rows = [...active.matchAll(/<tr data-subscription="[^"]+" data-status="([^"]+)"[^>]*>([\s\S]*?)<\/tr>/g)];
    expect(rows).toHaveLength(5);
    expect(rows.every(([, status]) => status === "active")).toBe(true);
    const payerRow = rows.find(([, , cells]) => cells!.includes(seed.payer.email))![2]!;
    expect(payerRow).toContain(seed.payer.name);
    expect(payerRow).toContain('data-plan="pro"');
    const organizationRow = rows.find(([, , cells]) => cells!.includes(seed.organizationName))![2]!;
    expect(organizationRow).toContain('data-owner="organization"');
    expect(organizationRow).toContain(">10<"); // seats
    expect(rows.filter(([, , cells]) => cells!.includes('data-cancel-at-period-end="true"'))).toHaveLength(1);
    expect(active).toMatch(/data-tab="active"[^>]*aria-current="page"|aria-current="page"[^>]*data-tab="active"/);
  });

  it("pages on the server, keeping the tab, with 20, 50 or 100 rows a page", async () => {
    const rowsOf = (html: string) => [...html.matchAll(/<tr data-subscription="/g)].length;
    const first = await admin.page("/admin/subscriptions?status=canceled");
    expect(rowsOf(first)).toBe(20);
    expect(first).toContain('href="/admin/subscriptions?status=canceled&amp;page=2"');
    const second = await admin.page("/admin/subscriptions?status=canceled&page=2");
    expect(rowsOf(second)).toBe(4);
    expect(second).toContain(seed.canceledOwner);
    const all = await admin.page("/admin/subscriptions?status=canceled&size=50");
    expect(rowsOf(all)).toBe(24);
    expect(all).toContain("Deleted account (deleted-account-id)");
    expect(rowsOf(await admin.page("/admin/subscriptions?size=20&page=2"))).toBe(13);
    // Past the end: the last page; a size that is not offered: 20.
    expect(rowsOf(await admin.page("/admin/subscriptions?status=canceled&page=9"))).toBe(4);
    expect(rowsOf(await admin.page("/admin/subscriptions?size=7"))).toBe(20);
  });
});

describe("audit log", () => {
  const rowsOf = (html: string) => [...html.matchAll(/<tr data-audit="[^"]+" data-action="([^"]+)"/g)].map((m) => m[1]);
  const list = (query: Record<string, string>) =>
    admin.page(`/admin/maintenance/audit-log?${new URLSearchParams(query)}`).then(rowsOf);

  it("filters by category, status, user, dates and text, together", async () => {
    expect(await list({ user: seed.payer.email })).toEqual(["sign-in", "sign-in", "sign-in", "checkout"]);
    expect(await list({ user: seed.payer.email.slice(0, 12).toUpperCase() })).toHaveLength(4);
    expect(await list({ user: seed.payer.email, category: "payment" })).toEqual(["checkout"]);
    expect(await list({ category: "auth", status: "failure" })).toEqual(["sign-in", "sign-in"]);
    const day = utcDay(ago(10));
    expect(await list({ from: day, to: day })).toEqual(["sign-in", "sign-in"]);
    expect(await list({ from: utcDay(ago(5)), to: utcDay(ago(4)) })).toEqual(["update-organization", "checkout"]);
    expect(await list({ q: "CHECKOUT" })).toEqual(["checkout"]);
    expect(await list({ q: '"plan":"pro"' })).toEqual(["checkout"]);
    expect(await list({ q: "nothing like this" })).toEqual([]);
    // Filters that do not parse are not applied (and are no error).
    expect((await list({ user: seed.payer.email, from: "2026-02-31", status: "maybe" })).length).toBe(4);
    expect((await list({ user: seed.payer.email, to: "yesterday" })).length).toBe(4);
  });

  it("shows every column and pages the log", async () => {
    const html = await admin.page(`/admin/maintenance/audit-log?category=organization`);
    expect(html).toContain("-2+3");
    expect(html).toContain("=HYPERLINK(&quot;http://evil.example&quot;,&quot;click&quot;)");
    expect(html).toContain("update-organization");
    const paged = await admin.page(`/admin/maintenance/audit-log?category=auth&size=20`);
    expect(rowsOf(paged)).toHaveLength(5);
    expect(paged).toContain('data-testid="pager"');
  });

  it("names categories and actions in the reader's language, and folds each row's long details", async () => {
    for (const [prefix, words] of [
      [
        "",
        {
          category: "Two-factor and passkeys",
          action: "Two-factor authentication turned on",
          device: "Chrome on Linux",
          checkout: "Checkout",
          payment: "Payments",
        },
      ],
      [
        "/ja",
        {
          category: "2 段階認証とパスキー",
          action: "2 段階認証の有効化",
          device: "Linux の Chrome",
          checkout: "購入手続き",
          payment: "支払い",
        },
      ],
    ] as const) {
      const html = await admin.page(`${prefix}/admin/maintenance/audit-log?category=security`);
      const rows = [...html.matchAll(/<tr data-audit="[^"]+" data-action="([^"]+)"[\s\S]*?<\/tr>/g)];
      expect(rows.map((row) => row[1])).toEqual(["two-factor-enabled"]);
      const row = rows[0]![0];
      // What the row shows at a glance: labels, not keys, and the device by name.
      const [glance, folded] = row.split("<details");
      expect(glance).toContain(`>${words.category}<`);
      expect(glance).toContain(`>${words.action}<`);
      expect(glance).toContain(`>${words.device}<`);
      expect(glance).toContain(">203.0.113.9<");
      expect(glance).not.toMatch(/>(security|two-factor-enabled)</);
      // (The full user agent is the device name's tooltip, not text.)
      const text = glance!.replace(/<[^>]+>/g, " ");
      expect(text).not.toContain("Mozilla/5.0");
      expect(text).not.toContain("totp");
      // Folded: the full user agent and the raw details, closed until opened.
      expect(folded).toMatch(/^[^>]*data-details[^>]*>/);
      expect(folded).not.toMatch(/^[^>]*\bopen\b/);
      expect(folded).toContain(`>${CHROME_ON_LINUX}<`);
      expect(folded).toContain("{&quot;method&quot;:&quot;totp&quot;}");
      // The category filter offers the label too.
      expect(html).toMatch(new RegExp(`<option value="security"[^>]*>${words.category}</option>`));

      const payer = await admin.page(`${prefix}/admin/maintenance/audit-log?category=payment`);
      expect(payer).toContain(`>${words.checkout}<`);
      expect(payer).toContain(`>${words.payment}<`);
    }
    // The export keeps the raw values.
    const csv = parseCsv(await (await admin.get("/admin/maintenance/audit-log.csv?category=security")).text());
    expect(csv[1]!.slice(2, 4)).toEqual(["security", "two-factor-enabled"]);
    expect(csv[1]![10]).toBe(CHROME_ON_LINUX);
  });

  it("exports the current filter as CSV that a spreadsheet cannot be attacked with", async () => {
    const page = await admin.page(`/admin/maintenance/audit-log?category=organization&size=50&page=1`);
    expect(page).toContain('href="/admin/maintenance/audit-log.csv?category=organization"');

    const response = await admin.get("/admin/maintenance/audit-log.csv?category=organization");
    expect(response.status).toBe(200);
    expect(response.headers.get("content-type")).toBe("text/csv; charset=utf-8");
    expect(response.headers.get("content-disposition")).toMatch(/^attachment; filename="audit-log-\d{8}-\d{6}\.csv"$/);
    const bytes = new Uint8Array(await response.arrayBuffer());
    expect([...bytes.slice(0, 3)]).toEqual([0xef, 0xbb, 0xbf]); // the byte order mark spreadsheets need
    const text = new TextDecoder().decode(bytes); // drops the mark
    const [header, ...rows] = parseCsv(text);
    expect(header).toEqual([
      "id",
      "createdAt",
      "category",
      "action",
      "status",
      "userId",
      "userEmail",
      "targetType",
      "targetId",
      "ipAddress",
      "userAgent",
      "details",
      "impersonatedBy",
      "impersonatedByEmail",
    ]);
    expect(rows).toHaveLength(1);
    const row = Object.fromEntries(header!.map((name, i) => [name, rows[0]![i]]));
    expect(row).toMatchObject({
      category: "organization",
      action: "update-organization",
      // Formula starts are text now; quotes, commas and the line break survive as they were.
      ipAddress: "'-2+3",
      userAgent: `'=HYPERLINK("http://evil.example","click")`,
      details: JSON.stringify({ name: "@SUM(1+1)*cmd|' /C calc'!A0", note: 'a, "quoted"\nsecond line' }),
      targetType: "",
    });
    expect(row.createdAt).toBe(ago(4).toISOString());
    // Every raw field is quoted: nothing in the file starts a cell with a formula character.
    expect(text).not.toMatch(/(^|,|\r\n)[=+\-@]/);

    const payer = parseCsv(await (await admin.get(`/admin/maintenance/audit-log.csv?user=${seed.payer.email}`)).text());
    expect(payer.slice(1).map((r) => r[3])).toEqual(["sign-in", "sign-in", "sign-in", "checkout"]);
    expect(payer.slice(1).every((r) => r[6] === seed.payer.email)).toBe(true);
  });
});

describe("database", () => {
  it.skipIf(postgres)("shows SQLite's figures and row counts, and runs the quick check on request", async () => {
    const html = await admin.page("/admin/maintenance/database");
    const [pageSize] = await app.prisma.$queryRawUnsafe<{ page_size: number }[]>("PRAGMA page_size");
    expect(dataValue(html, 'data-figure="pageSize"')).toBe(Number(pageSize!.page_size));
    expect(dataValue(html, 'data-figure="pageCount"')).toBeGreaterThan(0);
    expect(dataValue(html, 'data-figure="fileSize"')).toBeGreaterThan(0);
    expect(html).toMatch(/data-figure="journalMode" data-value="wal"/);
    expect(html).toMatch(/data-figure="walSize" data-value="\d*"/);
    expect(dataValue(html, 'data-table="user"[\\s\\S]*?<td', "rows")).toBe(await app.prisma.user.count());
    expect(dataValue(html, 'data-table="subscription"[\\s\\S]*?<td', "rows")).toBe(33);
    expect(dataValue(html, 'data-table="audit_log"[\\s\\S]*?<td', "rows")).toBe(await app.prisma.auditLog.count());
    expect(html).not.toContain("data-integrity");

    // "Run" asks first: a link to the question, whose button posts the confirmation.
    expect(html).toContain('data-confirm-open="check"');
    expect(html).not.toContain('name="confirmed"');
    for (const [prefix, run] of [
      ["", "Run now"],
      ["/ja", "今すぐ実行"],
    ] as const) {
      const asking = await admin.page(`${prefix}/admin/maintenance/database?confirm=check`);
      expect(asking).toContain('data-confirm="check"');
      expect(asking).toMatch(/<input type="hidden" name="confirmed" value="yes"\/?>/);
      expect(asking).toContain(run);
    }
    // A post without the confirmation runs nothing.
    const unconfirmed = await admin.post("/admin/maintenance/database", {});
    expect(unconfirmed.status).toBe(400);
    const refused = await unconfirmed.text();
    expect(refused).toContain("The check did not run. Confirm it first.");
    expect(refused).toContain('data-confirm="check"');
    expect(refused).not.toContain("data-integrity");
    expect(await app.prisma.auditLog.count({ where: { action: "integrity-check" } })).toBe(0);

    const checked = await admin.post("/admin/maintenance/database", { confirmed: "yes" });
    expect(checked.status).toBe(200);
    expect(await checked.text()).toContain('data-integrity="ok"');
    expect(
      await app.prisma.auditLog.findFirst({
        where: { userId: admin.id, category: "admin", action: "integrity-check", status: "success" },
      }),
    ).not.toBeNull();
  });

  it.runIf(postgres)("shows PostgreSQL's statistics and table sizes; there is no quick check", async () => {
    const html = await admin.page("/admin/maintenance/database");
    expect(dataValue(html, 'data-figure="connections"')).toBeGreaterThan(0);
    expect(dataValue(html, 'data-figure="commits"')).toBeGreaterThan(0);
    expect(dataValue(html, 'data-figure="databaseSize"')).toBeGreaterThan(0);
    const ratio = dataValue(html, 'data-figure="cacheHitRatio"');
    expect(ratio).toBeGreaterThan(0);
    expect(ratio).toBeLessThanOrEqual(1);
    expect(dataValue(html, 'data-table="user"[\\s\\S]*?<td[\\s\\S]*?<td', "bytes")).toBeGreaterThan(0);
    expect(html).toContain('data-table="audit_log"');
    expect(html).not.toContain("Run quick check");
    for (const [prefix, reason] of [
      ["", "this database is PostgreSQL, so nothing was run"],
      ["/ja", "このデータベースは PostgreSQL のため、何も実行していません"],
    ] as const) {
      const refused = await admin.post(`${prefix}/admin/maintenance/database`, { confirmed: "yes" });
      expect(refused.status).toBe(400);
      expect(await refused.text()).toContain(reason);
    }
    expect(await app.prisma.auditLog.count({ where: { action: "integrity-check" } })).toBe(0);
  });
});

describe("migrations", () => {
  it("lists every checked-in migration as applied, none pending", async () => {
    const html = await admin.page("/admin/maintenance/migrations");
    const folder = join(ROOT, postgres ? "prisma/postgres/migrations" : "prisma/migrations");
    const names = readdirSync(folder, { withFileTypes: true })
      .filter((entry) => entry.isDirectory())
      .map((entry) => entry.name);
    expect(names.length).toBeGreaterThan(2);
    for (const name of names) expect(html).toContain(`data-migration="${name}" data-state="applied"`);
    expect(html).toContain('data-testid="no-pending-migrations"');
  });

  it("shows a migration as one compact row: its name, when it was applied, its state", async () => {
    for (const [prefix, applied] of [
      ["", "Applied"],
      ["/ja", "適用済み"],
    ] as const) {
      const html = await admin.page(`${prefix}/admin/maintenance/migrations`);
      const rows = [...html.matchAll(/<tr data-migration="([^"]+)"[^>]*>([\s\S]*?)<\/tr>/g)];
      expect(rows.length).toBeGreaterThan(2);
      for (const [, name, cells] of rows) {
        const texts = [...cells!.matchAll(/<td[^>]*>([\s\S]*?)<\/td>/g)].map(([, text]) =>
          text!.replace(/<[^>]+>/g, ""),
        );
        expect(texts).toHaveLength(3);
        expect(texts[0]).toBe(name);
        expect(texts[1]).toMatch(/\d/);
        expect(texts[2]).toBe(applied);
        // The checksum is the name's tooltip, not a column of its own.
        expect(cells).toMatch(/data-checksum="[0-9a-f]{64}"/);
        expect(texts.join(" ")).not.toMatch(/[0-9a-f]{64}/);
      }
    }
  });

  it("gives every user a Stripe customer through the provider, counting a failure, with visible progress", async () => {
    // Two users have a customer already; the first call to the provider will never be answered.
    const already = await app.prisma.user.findMany({ where: { email: { startsWith: "month-" } }, take: 2 });
    for (const [i, user] of already.entries()) {
      await app.prisma.user.update({ where: { id: user.id }, data: { stripeCustomerId: `cus_existing${i}` } });
    }
    const users = await app.prisma.user.count();
    const without = await app.prisma.user.findMany({ where: { stripeCustomerId: null }, select: { email: true } });
    stripe.reset();
    stripe.failNext("timeout", 1, "/v1/customers");

    // "Run" asks first: without the confirmation nothing starts, and the page asks again.
    for (const [prefix, question] of [
      ["", "Run “Ensure every user has a customer at the payment provider” now?"],
      ["/ja", "今すぐ実行しますか？"],
    ] as const) {
      const asking = await admin.page(`${prefix}/admin/maintenance/migrations?confirm=ensure-customers`);
      expect(asking).toContain('data-confirm="ensure-customers"');
      expect(asking).toContain(question);
      expect(asking).toMatch(/<input type="hidden" name="confirmed" value="yes"\/?>/);
    }
    const unconfirmed = await admin.post("/admin/maintenance/migrations", { operation: "ensure-customers" });
    expect(unconfirmed.status).toBe(400);
    const refused = await unconfirmed.text();
    expect(refused).toContain("not started. Confirm the run first.");
    expect(refused).toContain('data-confirm="ensure-customers"');
    expect(await app.prisma.dataOperationRun.count()).toBe(0);

    const start = { operation: "ensure-customers", confirmed: "yes" };
    const started = await admin.post("/admin/maintenance/migrations", start);
    expect([started.status, started.headers.get("location")]).toEqual([302, "/admin/maintenance/migrations"]);
    // While it runs (the unanswered call takes the provider's 5 s timeout), the page shows it and refreshes itself.
    const running = await admin.page("/admin/maintenance/migrations");
    expect(running).toContain("Ensure every user has a customer at the payment provider: started.");
    expect(running).toContain('data-run-status="running"');
    expect(running).toMatch(/<noscript><meta http-equiv="refresh" content="2"\/?><\/noscript>/);
    expect(running).toMatch(/<progress[^>]*max="\d+"/);
    // A second start meanwhile is refused: an error with its reason, no toast saying it started.
    const second = await admin.post("/admin/maintenance/migrations", start);
    expect([second.status, second.headers.get("location")]).toEqual([409, null]);
    const secondPage = await second.text();
    expect(secondPage).toMatch(/role="alert"[^>]*>[^<]*already running, so nothing new was started/);
    expect(secondPage).not.toContain(": started.");
    expect(await admin.page("/admin/maintenance/migrations")).not.toContain(": started.");
    const japanese = await admin.post("/ja/admin/maintenance/migrations", start);
    expect(japanese.status).toBe(409);
    expect(await japanese.text()).toContain("すでに実行中のため、新しい実行は開始していません。");
    expect(await app.prisma.dataOperationRun.count()).toBe(1);

    const deadline = Date.now() + 30_000;
    while ((await app.prisma.dataOperationRun.findFirstOrThrow()).status === "running") {
      expect(Date.now()).toBeLessThan(deadline);
      await new Promise((resolve) => setTimeout(resolve, 250));
    }
    const done = await admin.page("/admin/maintenance/migrations");
    expect(done).not.toContain('http-equiv="refresh"');
    const summary = (name: string) => dataValue(done, `data-run-status="succeeded"`, name);
    expect(summary("total")).toBe(users);
    expect(summary("skipped")).toBe(2);
    expect(summary("failed")).toBe(1);
    expect(summary("created")).toBe(users - 3);
    expect(done).toContain(`${users - 3} created, 2 skipped, 1 failed, of ${users} users`);

    // Through the provider: one customer call per user without one, each stored on its user.
    const creations = stripe.calls.filter((call) => call.method === "POST" && call.path === "/v1/customers");
    expect(creations.map((call) => call.params.email).sort()).toEqual(without.map((user) => user.email).sort());
    expect(await app.prisma.user.count({ where: { stripeCustomerId: { startsWith: "cus_" } } })).toBe(users - 1);

    // Audited with category admin: the start and the outcome with its counts.
    const audits = await app.prisma.auditLog.findMany({
      where: { category: "admin", userId: admin.id, targetType: "data-operation" },
      orderBy: { createdAt: "asc" },
    });
    expect(audits.map((row) => [row.action, row.status])).toEqual([
      ["start-data-operation", "success"],
      ["data-operation", "success"],
    ]);
    expect(JSON.parse(audits[1]!.details!)).toMatchObject({
      operation: "ensure-customers",
      created: users - 3,
      skipped: 2,
      failed: 1,
    });

    // Again: only the one that failed is left, and now it works.
    expect((await admin.post("/admin/maintenance/migrations", start)).status).toBe(302);
    while (
      (await app.prisma.dataOperationRun.findFirstOrThrow({ orderBy: { startedAt: "desc" } })).status === "running"
    ) {
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    const again = await admin.page("/admin/maintenance/migrations");
    expect(dataValue(again, 'data-run-status="succeeded"', "created")).toBe(1);
    expect(await app.prisma.user.count({ where: { stripeCustomerId: null } })).toBe(0);
    expect(again).toContain("Earlier runs");
  }, 60_000);
});
