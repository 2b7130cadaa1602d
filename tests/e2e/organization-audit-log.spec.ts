import { expect, test } from "@playwright/test";
import { downloadedCsv, filterByCategory, ownerWhoInvited, reportsText } from "./support/audit-log";
import { auditLayouts, expectNoLayoutProblems } from "./support/layout";

// The organization's audit log, with JavaScript: an owner invites a colleague, opens the audit
// log from the workspace's tabs, filters it by category, finds the invitation there in their
// language (who, what, when, from where) and downloads the same as CSV. The page holds at
// 390 and 1280 px in four languages, its table stacked into cards on the phone.

for (const locale of ["en", "ja"]) {
  test(`an owner finds their invitation in the audit log and exports it (${locale})`, async ({ page }) => {
    test.setTimeout(180_000);
    const { owner, slug, invitee, P, t } = await ownerWhoInvited(page, locale);

    await page.goto(`${P}/organizations/${slug}`);
    await expect(page.locator("html")).toHaveClass(/js/);
    await page
      .getByRole("navigation", { name: t("organization:nav.label", { name: "Acme" }) })
      .getByRole("link", { name: t("organization:nav.auditLog") })
      .click();
    await expect(page).toHaveURL(new RegExp(`${P}/organizations/${slug}/audit-log$`));
    await expect(page.getByRole("heading", { name: t("organization:auditLog.title") })).toBeVisible();

    await filterByCategory(page, locale, "organization");
    const row = page.getByTestId("audit-list").locator('tr[data-action="invite-member"]');
    await expect(row).toHaveCount(1);
    await expect(row).toContainText(reportsText(locale, "auditLog.actions.invite-member"));
    await expect(row).toContainText(reportsText(locale, "auditLog.categories.organization"));
    await expect(row).toContainText(reportsText(locale, "auditLog.statuses.success"));
    await expect(row).toContainText(owner.name);
    await expect(row.locator("[data-device]")).toContainText("Chrome");
    await expect(row.locator("time")).toBeVisible();
    // The raw facts fold away until asked for.
    await expect(row.locator("[data-raw-details]")).toBeHidden();
    await row.getByText(reportsText(locale, "auditLog.more"), { exact: true }).click();
    await expect(row.locator("[data-raw-details]")).toContainText(invitee);

    const csv = await downloadedCsv(page);
    expect(csv.name).toMatch(new RegExp(`^audit-log-${slug}-\\d{8}-\\d{6}\\.csv$`));
    const [header, ...records] = csv.rows;
    const column = (name: string) => header!.indexOf(name);
    expect(records.length).toBeGreaterThanOrEqual(2);
    expect(records.every((record) => record[column("category")] === "organization")).toBe(true);
    const invited = records.find((record) => record[column("action")] === "invite-member")!;
    expect(invited[column("userEmail")]).toBe(owner.email);
    expect(invited[column("details")]).toContain(invitee);
    expect(records.map((record) => record[column("action")])).toContain("create-organization");

    if (locale === "en") {
      expectNoLayoutProblems(
        await auditLayouts(
          page,
          `/organizations/${slug}/audit-log`,
          async (page) => expect(page.getByTestId("audit-list")).toBeVisible(),
          { name: "organization-audit-log" },
        ),
      );
    }
  });
}
