import { expect, test } from "@playwright/test";
import { ADMIN, adminJourney, signInAs } from "./support/admin";
import { texts } from "./support/auth";

// The admin console with JavaScript (admin.no-js.spec.ts does the same without): an admin bans a user, whose
// open session ends and whose sign-in is refused; creates a user; impersonates them and stops;
// finds each in the audit log; and reads the dashboard's figures, equal to the database's.

for (const locale of ["en", "ja"] as const) {
  test(`bans, creates, impersonates and stops, then finds it all in the audit log and the dashboard (${locale})`, ({
    page,
    browser,
  }) => adminJourney(page, browser, locale));
}

test("the console works on a phone: nothing wider than the screen, and the menu starts folded", async ({ page }) => {
  await page.setViewportSize({ width: 390, height: 844 });
  await signInAs(page, "en", ADMIN.email, ADMIN.password);
  for (const path of ["/admin/users", "/admin/dashboard", "/admin/subscriptions", "/admin/maintenance/audit-log"]) {
    await page.goto(path);
    const width = await page.evaluate(() => document.documentElement.scrollWidth);
    expect(width, path).toBeLessThanOrEqual(390);
  }
  // The shell's navigation starts folded on a phone, opens from the menu button, and lists the console.
  const menu = page.getByTestId("app-nav");
  await expect(menu).toBeHidden();
  await page.getByTestId("shell-menu-button").click();
  await expect(menu.getByRole("link", { name: texts("en")("common:pages.adminAuditLog") })).toBeVisible();
  await page.getByTestId("shell-menu-button").click();
  await expect(menu).toBeHidden();
  await page.screenshot({ path: "tests/artifacts/screenshots/admin-phone.png", fullPage: true });
});
