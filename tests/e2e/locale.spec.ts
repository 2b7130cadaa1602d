import { expect, test } from "@playwright/test";

test("the locale switcher changes URL, text and cookie and keeps the page and query", async ({ page, context }) => {
  await page.goto("/pricing?interval=yearly");
  await expect(page.locator("html")).toHaveAttribute("lang", "en");
  await expect(page.getByRole("heading", { level: 1 })).toHaveText("Simple, transparent pricing");

  await page.getByLabel("Language").click();
  await page.getByRole("button", { name: "Français" }).click();

  await expect(page).toHaveURL(/\/fr\/pricing\?interval=yearly$/);
  await expect(page.locator("html")).toHaveAttribute("lang", "fr");
  await expect(page.getByRole("heading", { level: 1 })).not.toHaveText("Simple, transparent pricing");
  await expect(page).toHaveTitle(/Acme Cloud/);
  const cookie = (await context.cookies()).find((c) => c.name === "lng");
  expect(cookie?.value).toBe("fr");
  expect(cookie?.sameSite).toBe("Lax");
  expect(cookie?.path).toBe("/");
  // About a year from now.
  expect(cookie!.expires * 1000 - Date.now()).toBeGreaterThan(364 * 24 * 3600 * 1000);

  // The bare root now remembers French.
  await page.goto("/");
  await expect(page).toHaveURL(/\/fr$/);
});
