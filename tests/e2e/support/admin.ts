import { expect, type Browser, type Page } from "@playwright/test";
import Database from "better-sqlite3";
import { prefixOf, signedInAccount, texts, toast, uniqueEmail } from "./auth";

/** The demo admin the e2e server ensures (outside production, without ADMIN_*). */
export const ADMIN = { email: "admin@example.com", password: "demo-admin-1234" };

/** Reads the web server's database (playwright.config.ts shares its path), to check a page against it. */
function fromDatabase<T>(read: (db: Database.Database) => T): T {
  const db = new Database(process.env.E2E_DATABASE_URL!.replace(/^file:/, ""), { readonly: true });
  try {
    return read(db);
  } finally {
    db.close();
  }
}

export async function signInAs(page: Page, locale: string, email: string, password: string) {
  const t = texts(locale);
  await page.goto(`${prefixOf(locale)}/signin`);
  await page.getByLabel(t("form.email")).fill(email);
  await page.getByLabel(t("form.password"), { exact: true }).fill(password);
  await page.getByRole("button", { name: t("signIn.submit"), exact: true }).click();
  await expect(page).not.toHaveURL(/\/signin/);
}

/** The row menu of the user with `email` in the users table, opened. */
export async function rowMenu(page: Page, locale: string, email: string) {
  const t = texts(locale);
  await page.goto(`${prefixOf(locale)}/admin/users?q=${encodeURIComponent(email)}`);
  const row = page.locator(`tr[data-user="${email}"]`);
  await row.locator("summary").click();
  return { row, t };
}

/**
 * What both admin specs walk through, with or without JavaScript: a ban (the user's open
 * session ends, their sign-in is refused), a created user, impersonating them and stopping,
 * each found in the audit log; and the dashboard's figures, equal to the database's.
 */
export async function adminJourney(page: Page, browser: Browser, locale: string) {
  const t = texts(locale);
  const P = prefixOf(locale);

  // ---- the user to ban, signed in elsewhere ----
  const victimContext = await browser.newContext();
  const victimPage = await victimContext.newPage();
  const victim = await signedInAccount(victimPage, locale, "Mallory");
  await victimPage.goto(`${P}/profile`);
  await expect(victimPage).toHaveURL(`${P}/profile`);

  // ---- the admin bans them for 7 days ----
  await signInAs(page, locale, ADMIN.email, ADMIN.password);
  const { row } = await rowMenu(page, locale, victim.email);
  await row.getByRole("link", { name: t("admin:users.actions.ban") }).click();
  await expect(page).toHaveURL(new RegExp(`${P}/admin/users/[^/]+/ban\\?q=`));
  const dialog = page.getByTestId("confirm-dialog");
  await dialog.getByLabel(t("admin:ban.reason")).fill("Spam");
  await dialog.getByLabel(t("admin:ban.duration")).selectOption("7");
  await dialog.getByRole("button", { name: t("admin:ban.submit") }).click();
  await expect(toast(page, t("admin:ban.done", { name: "Mallory" }))).toBeVisible();
  await expect(page.locator(`tr[data-user="${victim.email}"]`)).toHaveAttribute("data-banned", "true");

  // ---- their open session has ended, and they cannot sign in ----
  await victimPage.goto(`${P}/profile`);
  await expect(victimPage).toHaveURL(new RegExp(`${P}/signin`));
  await victimPage.getByLabel(t("form.email")).fill(victim.email);
  await victimPage.getByLabel(t("form.password"), { exact: true }).fill(victim.password);
  await victimPage.getByRole("button", { name: t("signIn.submit"), exact: true }).click();
  await expect(victimPage.getByTestId("form-errors")).toHaveText(t("errors.BANNED_USER"));
  await victimContext.close();

  // ---- the admin creates a user ----
  const email = uniqueEmail(`${locale}-created`);
  await page.goto(`${P}/admin/users`);
  await page.getByRole("link", { name: t("admin:users.create") }).click();
  const create = page.getByTestId("confirm-dialog");
  await create.getByLabel(t("form.name")).fill("Created Person");
  await create.getByLabel(t("form.email")).fill(email);
  await create.getByLabel(t("form.password"), { exact: true }).fill("correct-horse-battery");
  await create.getByRole("button", { name: t("admin:users.createSubmit") }).click();
  await expect(toast(page, t("admin:users.created", { email }))).toBeVisible();

  // ---- impersonates them, and stops ----
  const menu = await rowMenu(page, locale, email);
  await menu.row.getByRole("button", { name: t("admin:users.actions.impersonate") }).click();
  const banner = page.getByTestId("impersonation-banner");
  await expect(banner).toContainText("Created Person");
  await banner.getByRole("button", { name: t("common:impersonation.stop") }).click();
  await expect(page).toHaveURL(`${P}/admin/users`);
  await expect(page.getByTestId("impersonation-banner")).toHaveCount(0);

  // ---- each action is in the audit log, naming the admin and the target ----
  const ids = fromDatabase((db) => ({
    victim: (db.prepare(`SELECT "id" FROM "user" WHERE "email" = ?`).get(victim.email) as { id: string }).id,
    created: (db.prepare(`SELECT "id" FROM "user" WHERE "email" = ?`).get(email) as { id: string }).id,
  }));
  await page.goto(`${P}/admin/maintenance/audit-log?category=admin&user=${encodeURIComponent(ADMIN.email)}`);
  for (const [action, target] of [
    ["ban-user", ids.victim],
    ["create-user", ids.created],
    ["impersonate-user", ids.created],
    ["stop-impersonating", ids.created],
  ] as const) {
    const row = page.locator(`tr[data-action="${action}"]`).filter({ hasText: `user:${target}` });
    await expect(row, action).toHaveCount(1);
    await expect(row).toContainText(ADMIN.email);
  }

  // ---- the dashboard's figures are the database's ----
  const counts = fromDatabase((db) => ({
    users: (db.prepare(`SELECT count(*) AS n FROM "user"`).get() as { n: number }).n,
    organizations: (db.prepare(`SELECT count(*) AS n FROM "organization"`).get() as { n: number }).n,
  }));
  await page.goto(`${P}/admin/dashboard`);
  for (const [stat, value] of Object.entries(counts)) {
    await expect(page.locator(`dd[data-stat="${stat}"]`), stat).toHaveAttribute("data-value", String(value));
  }
}
