import { test } from "@playwright/test";
import { twoFactorJourney } from "./support/two-factor";

for (const locale of ["en", "ja"] as const) {
  test(`two-factor: switch on, sign in with a code and with a backup code (${locale})`, async ({ page }) => {
    test.slow();
    await twoFactorJourney(page, locale);
  });
}
