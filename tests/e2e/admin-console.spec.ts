import { expect, test } from "@playwright/test";
import { ADMIN, rowMenu, signInAs } from "./support/admin";
import { prefixOf, signedInAccount, toast } from "./support/auth";

// The admin console reads well, with JavaScript: a row's menu closes once its action is done,
// and every page fits a phone (390 px) without the page scrolling sideways.

test("a user row's menu closes after its action, a post or a dialog", async ({ page, browser }) => {
  const other = await browser.newContext();
  const target = await signedInAccount(await other.newPage(), "en", "Menu Target");
  await other.close();

  await signInAs(page, "en", ADMIN.email, ADMIN.password);
  const { row, t } = await rowMenu(page, "en", target.email);
  const menu = row.locator("details[data-menu]");
  await expect(menu).toHaveAttribute("open", "");

  // A post: the page is revalidated in place (no new document), and the menu is closed over the result.
  await page.evaluate(() => ((window as { stayed?: boolean }).stayed = true));
  await row.getByRole("button", { name: t("admin:users.actions.makeAdmin") }).click();
  await expect(toast(page, t("admin:users.done.set-role"))).toBeVisible();
  await expect(row.locator("td").filter({ hasText: t("admin:users.roles.admin") })).toHaveCount(1);
  await expect(menu).not.toHaveAttribute("open", "");
  await expect(row.getByRole("button", { name: t("admin:users.actions.makeUser") })).toBeHidden();
  expect(await page.evaluate(() => (window as { stayed?: boolean }).stayed)).toBe(true);

  // Again, back to a user.
  await row.locator("summary").click();
  await row.getByRole("button", { name: t("admin:users.actions.makeUser") }).click();
  await expect(row.locator("td").filter({ hasText: t("admin:users.roles.user") })).toHaveCount(1);
  await expect(menu).not.toHaveAttribute("open", "");

  // A dialog: the menu closes behind it, and stays closed once the dialog is dismissed.
  await row.locator("summary").click();
  await row.getByRole("link", { name: t("admin:users.actions.setPassword") }).click();
  await expect(page.getByTestId("confirm-dialog")).toBeVisible();
  await expect(menu).not.toHaveAttribute("open", "");
});

for (const locale of ["en", "ja"] as const) {
  test(`the console's pages fit a phone, without sideways scrolling (${locale})`, async ({ page }) => {
    await page.setViewportSize({ width: 390, height: 844 });
    await signInAs(page, locale, ADMIN.email, ADMIN.password);
    const P = prefixOf(locale);
    for (const path of [
      "/admin/maintenance/audit-log",
      "/admin/dashboard",
      "/admin/maintenance/migrations",
      "/admin/maintenance/migrations?confirm=ensure-customers",
      "/admin/maintenance/database?confirm=check",
      "/admin/users",
      "/admin/subscriptions",
    ]) {
      await page.goto(`${P}${path}`);
      const overflow = await page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth);
      expect(overflow, path).toBeLessThanOrEqual(0);
    }

    // The audit log's rows are cards, their details folded; opened, they still fit.
    await page.goto(`${P}/admin/maintenance/audit-log`);
    const first = page.locator("tr[data-audit]").first();
    await expect(first).toBeVisible();
    await expect(page.locator("[data-testid=audit-list] thead")).toBeHidden();
    await first.locator("summary").click();
    await expect(first.locator("[data-raw-details]")).toBeVisible();
    expect(await page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth)).toBeLessThanOrEqual(0);

    // Every control of a user row is on the screen: the row menu opens within it.
    await page.goto(`${P}/admin/users?q=${encodeURIComponent(ADMIN.email)}`);
    const row = page.locator(`tr[data-user="${ADMIN.email}"]`);
    await row.locator("summary").click();
    for (const item of await row.locator("form[method=post] > button, form[method=post] > a").all()) {
      const box = (await item.boundingBox())!;
      expect(box.x).toBeGreaterThanOrEqual(0);
      expect(box.x + box.width).toBeLessThanOrEqual(390);
    }
  });
}
