import { test } from "@playwright/test";
import { settingsJourney } from "./support/settings";

// The five account settings sections, each at its own address, one form used in each.
for (const locale of ["en", "ja"] as const) {
  test(`walks the settings sections by their addresses (${locale})`, async ({ page, browser }) => {
    test.setTimeout(120_000);
    await settingsJourney(page, browser, locale, true);
  });
}
