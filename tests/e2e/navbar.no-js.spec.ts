import { expect, test } from "@playwright/test";

// At a phone's width the navbar keeps one line in every language; its links, switchers and
// account actions sit behind a menu button that works without JavaScript.
test.use({ viewport: { width: 390, height: 844 } });

for (const prefix of ["", "/zh-CN", "/ja", "/fr"]) {
  test(`the navbar fits a phone and opens its menu without JavaScript (${prefix || "/en"})`, async ({ page }) => {
    await page.goto(`${prefix}/pricing`);
    const nav = page.getByRole("navigation").first();
    expect((await nav.boundingBox())!.height).toBeLessThanOrEqual(56);
    const menu = page.getByTestId("nav-menu");
    await expect(menu).toBeHidden();
    await page.locator("nav label[for]").click();
    await expect(menu).toBeVisible();
    await expect(menu.getByRole("link", { name: /.+/ }).first()).toBeVisible();
    await expect(menu.locator('a[href$="/signup"]')).toBeVisible();
    // Its links work as links: sign in.
    await menu.locator('a[href$="/signin"]').click();
    await expect(page).toHaveURL(new RegExp(`${prefix}/signin$`));
  });
}

test("from the small breakpoint up, the items sit in the bar with no menu button", async ({ page }) => {
  await page.setViewportSize({ width: 1024, height: 768 });
  await page.goto("/zh-CN");
  await expect(page.locator("nav label[for]")).toBeHidden();
  await expect(page.getByTestId("nav-menu").locator('a[href="/zh-CN/signup"]')).toBeVisible();
  expect((await page.getByRole("navigation").first().boundingBox())!.height).toBeLessThanOrEqual(56);
});
