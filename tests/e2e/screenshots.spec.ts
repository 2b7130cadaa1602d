import { expect, test } from "@playwright/test";

// Screenshots of what a person sees, kept as test artifacts (tests/artifacts/screenshots).
for (const locale of ["", "/ja"]) {
  for (const scheme of ["light", "dark"] as const) {
    for (const page of ["/", "/pricing"]) {
      const url = locale + (page === "/" ? "" : page) || "/";
      test(`screenshot ${url} (${scheme})`, async ({ page: tab }, testInfo) => {
        await tab.emulateMedia({ colorScheme: scheme });
        await tab.goto(url);
        await expect(tab.locator("html")).toHaveClass(new RegExp(scheme));
        const name = `${(locale || "/en").slice(1)}-${page === "/" ? "home" : "pricing"}-${scheme}.png`;
        const path = `tests/artifacts/screenshots/${name}`;
        await tab.screenshot({ path, fullPage: true });
        await testInfo.attach(name, { path, contentType: "image/png" });
      });
    }
  }
}
