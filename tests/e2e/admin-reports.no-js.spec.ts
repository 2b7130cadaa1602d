import { expect, test, type Page } from "@playwright/test";
import Database from "better-sqlite3";
import { readFileSync } from "node:fs";
import { formWith, prefixOf, texts, toast, uniqueEmail } from "./support/auth";

// The admin console's reports without JavaScript: the range, tabs and pages are links, the
// audit filter is a GET form, the CSV a plain download, the quick check and the data
// operation ask first (a link to the question) and then are plain posts, and the migrations
// page refreshes itself while the operation runs.

/** The `reports` namespace's strings (support/auth's texts() has the other areas'). */
function reports(locale: string) {
  const file = JSON.parse(readFileSync(new URL(`../../locales/${locale}/reports.json`, import.meta.url), "utf8"));
  return (key: string, values: Record<string, string> = {}) =>
    (key.split(".").reduce((node, part) => node[part], file) as string).replace(
      /{{\s*(\w+)\s*}}/g,
      (whole: string, name: string) => values[name] ?? whole,
    );
}

/** An administrator, signed in through the sign-in page (the role is set in the web server's database). */
async function signedInAdmin(page: Page, locale: string) {
  const t = texts(locale);
  const email = uniqueEmail("admin");
  const password = "correct-horse-battery";
  const response = await page.request.post("/api/auth/sign-up/email", { data: { name: "Ada Admin", email, password } });
  expect(response.status()).toBe(200);
  const db = new Database(process.env.E2E_DATABASE_URL!.replace(/^file:/, ""));
  try {
    db.pragma("busy_timeout = 5000");
    const updated = db.prepare(`UPDATE "user" SET "role" = 'admin', "emailVerified" = 1 WHERE "email" = ?`).run(email);
    expect(updated.changes).toBe(1);
  } finally {
    db.close();
  }
  await page.goto(`${prefixOf(locale)}/signin`);
  const form = formWith(page, t("signIn.submit"));
  await form.getByLabel(t("form.email"), { exact: true }).fill(email);
  await form.getByLabel(t("form.password"), { exact: true }).fill(password);
  await form.getByRole("button", { name: t("signIn.submit") }).click();
  await expect(page).not.toHaveURL(/\/signin/);
  return email;
}

for (const locale of ["en", "fr"] as const) {
  test(`reads the reports and runs maintenance without JavaScript (${locale})`, async ({ page }) => {
    const r = reports(locale);
    const P = prefixOf(locale);
    const email = await signedInAdmin(page, locale);

    // ---- dashboard: the range is a link; the charts are images with their numbers in a table ----
    await page.goto(`${P}/admin/dashboard`);
    await expect(page.locator("html")).not.toHaveClass(/js/);
    await page.getByRole("link", { name: r("dashboard.days", { days: "7" }) }).click();
    await expect(page).toHaveURL(`${P}/admin/dashboard?range=7`);
    await expect(page.getByRole("img", { name: r("dashboard.signUpsTitle", { days: "7" }) })).toBeVisible();
    await expect(page.getByRole("table", { name: r("dashboard.signUpsTitle", { days: "7" }) })).toHaveCount(1);
    expect(Number(await page.locator('[data-stat="users"]').getAttribute("data-value"))).toBeGreaterThan(0);

    // ---- subscriptions: tabs are links ----
    await page.goto(`${P}/admin/subscriptions`);
    await page.locator('[data-tab="trialing"]').click();
    await expect(page).toHaveURL(`${P}/admin/subscriptions?status=trialing`);
    await expect(page.locator('[data-tab="trialing"]')).toHaveAttribute("aria-current", "page");

    // ---- audit log: a GET form, then the CSV of that filter ----
    await page.goto(`${P}/admin/maintenance/audit-log`);
    await page.getByLabel(r("auditLog.user"), { exact: true }).fill(email);
    await page.getByRole("button", { name: r("auditLog.apply") }).click();
    await expect(page).toHaveURL(new RegExp(`user=${encodeURIComponent(email)}`));
    await expect(page.locator('tr[data-action="sign-in"]')).toHaveCount(1);
    const [download] = await Promise.all([
      page.waitForEvent("download"),
      page.getByRole("link", { name: r("auditLog.export") }).click(),
    ]);
    expect(download.suggestedFilename()).toMatch(/^audit-log-\d{8}-\d{6}\.csv$/);
    const csv = readFileSync(await download.path(), "utf8");
    expect(csv.split("\r\n")[0]).toContain('"id","createdAt","category","action"');
    expect(csv).toContain(`"sign-in","success"`);

    // ---- database: the quick check asks first, then is a plain post ----
    await page.goto(`${P}/admin/maintenance/database`);
    await page.getByRole("link", { name: r("database.runCheck") }).click();
    await expect(page).toHaveURL(`${P}/admin/maintenance/database?confirm=check`);
    await expect(page.getByText(r("database.confirmQuestion"))).toBeVisible();
    await page.getByRole("link", { name: r("database.cancel") }).click();
    await expect(page).toHaveURL(`${P}/admin/maintenance/database`);
    await expect(page.getByRole("status")).toHaveCount(0);
    await page.getByRole("link", { name: r("database.runCheck") }).click();
    await page.getByRole("button", { name: r("database.confirmRun") }).click();
    await expect(page).toHaveURL(`${P}/admin/maintenance/database`);
    await expect(page.getByRole("status")).toContainText(r("database.checkOk"));

    // ---- migrations: the data operation runs, and the page refreshes itself until it is done ----
    await page.goto(`${P}/admin/maintenance/migrations`);
    await expect(page.locator('[data-migration][data-state="applied"]').first()).toBeVisible();
    const name = r("operations.ensure-customers.title");
    const card = page.locator('[data-operation="ensure-customers"]');
    await card.getByRole("link", { name: r("operations.run") }).click();
    await expect(page).toHaveURL(`${P}/admin/maintenance/migrations?confirm=ensure-customers`);
    await expect(card.getByText(r("operations.confirmQuestion", { name }))).toBeVisible();
    await card.getByRole("button", { name: r("operations.confirmRun") }).click();
    await expect(toast(page, r("operations.started", { name }))).toBeVisible();
    // No reload from the test: the <noscript> refresh brings the outcome.
    await expect(card.locator("[data-run-status]").first()).toHaveAttribute("data-run-status", "succeeded", {
      timeout: 30_000,
    });
    await expect(card.locator("[data-run-status]").first()).toHaveAttribute("data-failed", "0");
  });
}
