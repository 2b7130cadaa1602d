import { expect, test } from "@playwright/test";

// React Router reloads the page when a route's chunk fails to load (say, a deploy removed it),
// so the browser picks up the current build instead of showing an error.
test("a lazy chunk that fails to load reloads the page once", async ({ page }) => {
  await page.goto("/signin");
  await expect(page.locator("html")).toHaveClass(/js/);
  await expect(page.locator("html")).toHaveAttribute("data-hydrated", "true"); // links navigate client-side
  let attempts = 0;
  await page.route(/\/assets\/pricing-[\w-]+\.js$/, (route) => (attempts++ === 0 ? route.abort() : route.continue()));
  const documents: string[] = [];
  page.on("request", (request) => {
    if (request.resourceType() === "document") documents.push(new URL(request.url()).pathname);
  });

  await page.getByRole("banner").getByRole("link", { name: "Pricing" }).click();
  await expect.poll(() => documents).toEqual(["/signin"]);
  await page.waitForLoadState("load");
  await expect(page.locator("html")).toHaveAttribute("data-hydrated", "true");

  // After the one reload the chunk loads and navigation works; nothing reloads again.
  await page.getByRole("banner").getByRole("link", { name: "Pricing" }).click();
  await expect(page).toHaveURL(/\/pricing$/);
  await expect(page.getByRole("heading", { level: 1 })).toHaveText("Simple, transparent pricing");
  expect(attempts).toBeGreaterThanOrEqual(2);
  expect(documents).toEqual(["/signin"]);
});
