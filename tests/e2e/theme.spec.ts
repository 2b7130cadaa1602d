import { expect, test } from "@playwright/test";

test("the theme choice survives a reload and is applied before first paint", async ({ page }) => {
  // Record <html>'s classes at the moment <body> starts: anything set later would flash.
  await page.addInitScript(() => {
    new MutationObserver((_, observer) => {
      if (document.body) {
        (window as unknown as { classAtBody: string }).classAtBody = document.documentElement.className;
        observer.disconnect();
      }
    }).observe(document, { childList: true, subtree: true });
  });
  await page.emulateMedia({ colorScheme: "light" });
  // Pricing is plain HTML (decision 0020): the inline theme script alone runs the switcher.
  await page.goto("/pricing");
  await expect(page.locator("html")).toHaveAttribute("data-static");
  await expect(page.locator("html")).toHaveClass(/light/);

  await page.getByRole("radio", { name: "Dark theme" }).click();
  await expect(page.locator("html")).toHaveClass(/dark/);
  expect(await page.evaluate(() => localStorage.getItem("theme"))).toBe("dark");

  await page.reload();
  expect(await page.evaluate(() => (window as unknown as { classAtBody: string }).classAtBody)).toContain("dark");
  await expect(page.getByRole("radio", { name: "Dark theme" })).toHaveAttribute("aria-checked", "true");
  const background = await page.evaluate(() => getComputedStyle(document.documentElement).backgroundColor);
  expect(background).not.toBe("rgb(255, 255, 255)");

  // "System" follows the operating system again.
  await page.getByRole("radio", { name: "System theme" }).click();
  await expect(page.locator("html")).toHaveClass(/light/);
  await page.emulateMedia({ colorScheme: "dark" });
  await expect(page.locator("html")).toHaveClass(/dark/);
});

test("on a page React takes over, the switcher shows the stored choice, also after a client-side navigation", async ({
  page,
}) => {
  await page.emulateMedia({ colorScheme: "light" });
  await page.goto("/signin");
  await page.getByRole("radio", { name: "Dark theme" }).click();
  await page.reload();
  await expect(page.locator("html")).toHaveAttribute("data-hydrated", "true");
  await expect(page.locator("html")).toHaveClass(/dark/);
  await expect(page.getByRole("radio", { name: "Dark theme" })).toHaveAttribute("aria-checked", "true");
  await expect(page.getByRole("radio", { name: "System theme" })).toHaveAttribute("aria-checked", "false");

  await page.getByRole("radio", { name: "Light theme" }).click();
  await expect(page.locator("html")).toHaveClass(/light/);
  await expect(page.getByRole("radio", { name: "Light theme" })).toHaveAttribute("aria-checked", "true");
  await expect(page.getByRole("radio", { name: "Dark theme" })).toHaveAttribute("aria-checked", "false");

  // Pricing draws its own navbar: a new switcher, drawn by React in the browser.
  const documents: string[] = [];
  page.on("request", (request) => {
    if (request.resourceType() === "document") documents.push(request.url());
  });
  await page.getByRole("banner").getByRole("link", { name: "Pricing" }).click();
  await expect(page).toHaveURL(/\/pricing$/);
  await expect(page.getByRole("radio", { name: "Light theme" })).toHaveAttribute("aria-checked", "true");
  expect(documents).toEqual([]);
});
