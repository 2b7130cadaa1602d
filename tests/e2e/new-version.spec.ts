import { expect, test } from "@playwright/test";
import { readFileSync, writeFileSync } from "node:fs";

const manifest = "build/client/builds/latest.json";

test("a new build announces itself with a reload toast", async ({ page }) => {
  const original = readFileSync(manifest, "utf8");
  const polls: string[] = [];
  page.on("request", (request) => {
    if (request.url().includes("/builds/latest.json")) polls.push(request.url());
  });
  try {
    await page.goto("/signin");
    // The same build: focusing the tab checks, and nothing is announced. (Focus again until
    // hydration has attached the listener.)
    const focus = () => page.evaluate(() => window.dispatchEvent(new Event("focus")));
    await expect
      .poll(async () => {
        await focus();
        return polls.length;
      })
      .toBeGreaterThan(0);
    expect(polls[0]).toMatch(/latest\.json\?t=\d+/);
    await expect(page.getByText("A new version is available")).toHaveCount(0);

    writeFileSync(manifest, JSON.stringify({ id: "a-newer-build", time: new Date().toISOString() }));
    await focus();
    const toast = page.locator("[data-toast]").filter({ hasText: "A new version is available" });
    await expect(toast).toBeVisible();
    await expect(toast.locator(".toast-progress")).toBeAttached();
    await expect(toast.getByRole("button", { name: "Reload" })).toBeVisible();

    // The close button removes it (after its 200 ms exit).
    await toast.getByRole("button", { name: "Close notification" }).click();
    await expect(toast).toHaveCount(0);
  } finally {
    writeFileSync(manifest, original);
  }
});
