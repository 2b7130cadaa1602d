import { test } from "@playwright/test";
import { settingsJourney } from "./support/settings";

// The same walk without JavaScript: every form is a plain post answered by a redirect back to
// its section (or, refused, by that section again with the error next to its field).
for (const locale of ["en", "fr"] as const) {
  test(`walks the settings sections by their addresses without JavaScript (${locale})`, async ({ page, browser }) => {
    test.setTimeout(120_000);
    await settingsJourney(page, browser, locale, false);
  });
}
