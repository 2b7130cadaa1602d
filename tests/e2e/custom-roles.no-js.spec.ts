import { expect, test } from "@playwright/test";
import { ownerGivesInviterRole } from "./support/custom-roles";

// This file runs in the "no-js" project: the custom-role story of custom-roles.spec.ts as
// plain form posts, in two languages.

for (const locale of ["ja", "zh-CN"]) {
  test(`a member with a custom role can do exactly what it grants, without JavaScript (${locale})`, async ({
    page,
    browser,
  }) => {
    test.setTimeout(120_000);
    await ownerGivesInviterRole(page, browser, locale, false);
    await expect(page.locator("html")).not.toHaveClass(/js/);
  });
}
