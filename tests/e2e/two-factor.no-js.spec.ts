import { test } from "@playwright/test";
import { twoFactorJourney } from "./support/two-factor";

// The "no-js" project: every step is a plain form post and a server redirect.

for (const locale of ["en", "ja"] as const) {
  test(`two-factor without JavaScript: switch on, sign in with a code and with a backup code (${locale})`, async ({
    page,
  }) => {
    test.slow();
    await twoFactorJourney(page, locale);
  });
}
