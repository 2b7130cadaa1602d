import { expect, test } from "@playwright/test";

test("the search palette opens with the keyboard and navigates", async ({ page }) => {
  await page.goto("/signin");
  await expect(page.locator("html")).toHaveAttribute("data-hydrated", "true"); // the shortcut needs React
  await expect(page.getByRole("dialog")).toBeHidden();
  await page.keyboard.press("Control+k");
  const dialog = page.getByRole("dialog", { name: "Search pages" });
  await expect(dialog).toBeVisible();
  const input = dialog.getByRole("combobox");
  await expect(input).toBeFocused();

  // Guests are offered public and guest pages, never the profile or the admin console.
  const options = dialog.getByRole("option");
  await expect(options.filter({ hasText: "Pricing" })).toHaveCount(1);
  await expect(options.filter({ hasText: "Profile" })).toHaveCount(0);
  await expect(options.filter({ hasText: "Admin dashboard" })).toHaveCount(0);

  await input.fill("pri");
  await expect(options).toHaveCount(1);
  await expect(options.first()).toHaveAttribute("aria-selected", "true");
  await page.keyboard.press("Enter");
  await expect(page).toHaveURL(/\/pricing$/);
  await expect(dialog).toBeHidden();

  // Pricing's own document is not hydrated (decision 0020); reached from a live page it is
  // drawn by React, and the palette stays at hand.
  await expect(page.getByRole("heading", { level: 1, name: "Simple, transparent pricing" })).toBeVisible();
  // Arrow keys move the selection; Escape closes.
  await page.keyboard.press("Control+k");
  await expect(dialog).toBeVisible();
  await page.keyboard.press("ArrowDown");
  await expect(options.nth(1)).toHaveAttribute("aria-selected", "true");
  await expect(input).toHaveAttribute("aria-activedescendant", (await options.nth(1).getAttribute("id"))!);
  await page.keyboard.press("Escape");
  await expect(dialog).toBeHidden();
});

test("the search palette speaks the page language", async ({ page }) => {
  await page.goto("/ja/signin");
  await expect(page.locator("html")).toHaveAttribute("data-hydrated", "true");
  await page.keyboard.press("Control+k");
  const dialog = page.getByRole("dialog");
  await expect(dialog).toBeVisible();
  await page.keyboard.press("Enter");
  await expect(page).toHaveURL(/\/ja$/);
});

test("the shortcut pressed while a navigation is being drawn opens the new page's palette", async ({ page }) => {
  await page.goto("/signin");
  await expect(page.locator("html")).toHaveAttribute("data-hydrated", "true");
  // The shortcut arrives at the one moment a fast hand can hit: the address has changed and
  // React has not yet drawn the page, whose Navbar brings a palette of its own.
  await page.evaluate(() => {
    const push = history.pushState.bind(history);
    history.pushState = (...args: Parameters<History["pushState"]>) => {
      push(...args);
      history.pushState = push;
      window.dispatchEvent(new KeyboardEvent("keydown", { key: "k", ctrlKey: true }));
    };
  });
  await page.getByRole("navigation", { name: "Main" }).getByRole("link", { name: "Pricing" }).click();
  await expect(page).toHaveURL(/\/pricing$/);
  await expect(page.getByRole("heading", { level: 1, name: "Simple, transparent pricing" })).toBeVisible();
  const dialog = page.getByRole("dialog", { name: "Search pages" });
  await expect(dialog).toBeVisible();
  await expect(dialog.getByRole("combobox")).toBeFocused();
  await page.keyboard.press("Escape");
  await expect(dialog).toBeHidden();
});
