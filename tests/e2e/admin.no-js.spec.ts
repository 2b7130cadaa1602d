import { test } from "@playwright/test";
import { adminJourney } from "./support/admin";

// The admin console without JavaScript (admin.spec.ts does the same with it): an admin bans a user, whose
// open session ends and whose sign-in is refused; creates a user; impersonates them and stops;
// finds each in the audit log; and reads the dashboard's figures, equal to the database's.

for (const locale of ["en", "zh-CN"] as const) {
  test(`bans, creates, impersonates and stops, then finds it all in the audit log and the dashboard (${locale})`, ({
    page,
    browser,
  }) => adminJourney(page, browser, locale));
}
