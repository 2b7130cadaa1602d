import { expect, test } from "@playwright/test";
import { downloadedCsv, filterByCategory, ownerWhoInvited, reportsText } from "./support/audit-log";
import { signedInAccount } from "./support/auth";
import { addMember } from "./support/organizations";

// This file runs in the "no-js" project: the organization's audit log as plain pages. The
// filter is a GET form, the export a link; an owner finds the invitation they sent and
// downloads it, and a plain member of the organization has no such section.

for (const locale of ["fr", "zh-CN"]) {
  test(`the audit log filters and exports without JavaScript (${locale})`, async ({ page, browser }) => {
    test.setTimeout(180_000);
    const { owner, slug, invitee, P, t } = await ownerWhoInvited(page, locale);

    await page.goto(`${P}/organizations/${slug}/audit-log`);
    await expect(page.locator("html")).not.toHaveClass(/js/);
    await filterByCategory(page, locale, "organization");
    const row = page.getByTestId("audit-list").locator('tr[data-action="invite-member"]');
    await expect(row).toContainText(reportsText(locale, "auditLog.actions.invite-member"));
    await expect(row).toContainText(owner.name);
    // The person's name filters by them: a plain link.
    await row.locator("[data-actor]").click();
    await expect(page).toHaveURL(/[?&]member=/);
    await expect(page.getByTestId("audit-list").locator("tr[data-audit]")).not.toHaveCount(0);

    const { rows } = await downloadedCsv(page);
    const [header, ...records] = rows;
    const invited = records.find((record) => record[header!.indexOf("action")] === "invite-member")!;
    expect(invited[header!.indexOf("details")]).toContain(invitee);
    expect(records.every((record) => record[header!.indexOf("userEmail")] === owner.email)).toBe(true);

    // The section is not for a plain member: no tab, and nothing at its address.
    const other = await browser.newContext({ javaScriptEnabled: false });
    const memberPage = await other.newPage();
    const member = await signedInAccount(memberPage, locale, "Max Member");
    addMember(slug, member.email);
    await memberPage.goto(`${P}/organizations/${slug}`);
    await expect(memberPage.getByRole("link", { name: t("organization:nav.auditLog") })).toHaveCount(0);
    const refused = await memberPage.goto(`${P}/organizations/${slug}/audit-log`);
    expect(refused?.status()).toBe(404);
    await other.close();
  });
}
