import { expect, test } from "@playwright/test";

// This file runs in the "no-js" project: JavaScript is disabled in Chromium.

test("home and pricing work without JavaScript", async ({ page }) => {
  await page.goto("/");
  await expect(page.getByRole("heading", { level: 1 })).toHaveText("Everything your SaaS needs, ready on day one");
  await page.getByRole("link", { name: "See pricing" }).click();
  await expect(page).toHaveURL(/\/pricing$/);
  await expect(page.locator("[data-plan=pro]")).toContainText("$19");

  await page.getByRole("link", { name: /Yearly/ }).click();
  await expect(page).toHaveURL(/\/pricing\?interval=yearly$/);
  await expect(page.locator("[data-plan=pro]")).toContainText("$190");
  // JavaScript-only controls are hidden rather than broken.
  await expect(page.getByRole("radiogroup", { name: "Theme" })).toBeHidden();
});

test("the locale switch works without JavaScript", async ({ page, context }) => {
  await page.goto("/pricing?interval=yearly");
  await page.getByLabel("Language").click();
  await page.getByRole("button", { name: "日本語" }).click();
  await expect(page).toHaveURL(/\/ja\/pricing\?interval=yearly$/);
  await expect(page.locator("html")).toHaveAttribute("lang", "ja");
  expect((await context.cookies()).find((c) => c.name === "lng")?.value).toBe("ja");
});

for (const scheme of ["light", "dark"] as const) {
  test(`without JavaScript the page follows the system ${scheme} theme`, async ({ page }) => {
    await page.emulateMedia({ colorScheme: scheme });
    await page.goto("/pricing");
    await expect(page.locator("html")).not.toHaveClass(/dark|light/);
    const background = await page.evaluate(() => getComputedStyle(document.documentElement).backgroundColor);
    if (scheme === "light") expect(background).toBe("rgb(255, 255, 255)");
    else expect(background).not.toBe("rgb(255, 255, 255)");
  });
}
