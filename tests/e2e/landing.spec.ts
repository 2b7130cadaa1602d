import { test } from "@playwright/test";
import { landingJourney } from "./support/landing";

for (const locale of ["en", "zh-CN", "ja", "fr"] as const) {
  test(`sign-up, sign-in and the second step land on the dashboard in the organization last used (${locale})`, async ({
    page,
  }) => {
    test.slow();
    await landingJourney(page, locale);
  });
}
