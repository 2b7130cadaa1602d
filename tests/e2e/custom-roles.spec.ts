import { test } from "@playwright/test";
import { ownerGivesInviterRole } from "./support/custom-roles";

// An owner creates a custom role that may invite and gives it to a member, who can then invite
// and cannot remove members: with JavaScript, in two languages (custom-roles.no-js.spec.ts
// walks the same story without).

for (const locale of ["en", "fr"]) {
  test(`a member with a custom role can do exactly what it grants (${locale})`, async ({ page, browser }) => {
    test.setTimeout(120_000);
    await ownerGivesInviterRole(page, browser, locale, true);
  });
}
