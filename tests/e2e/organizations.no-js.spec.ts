import { expect, test } from "@playwright/test";
import { formWith, prefixOf, signedInAccount, texts, toast } from "./support/auth";
import { addMember, otherAccount } from "./support/organizations";

// This file runs in the "no-js" project: every form is a plain POST, and the confirmation
// dialogs are pages of their own.

for (const locale of ["en", "ja"] as const) {
  test(`creates an organization and removes a member without JavaScript (${locale})`, async ({ page, request }) => {
    const t = texts(locale);
    const P = prefixOf(locale);
    await signedInAccount(page, locale, "Olive Owner");

    // ---- create: no slug typed, so the server makes one from the name ----
    await page.goto(`${P}/organizations`);
    await expect(page.locator("html")).not.toHaveClass(/js/);
    await page
      .getByRole("main")
      .getByRole("link", { name: t("organization:list.create") })
      .click();
    await expect(page).toHaveURL(`${P}/organizations/new`);
    const name = `Acme ${Date.now()}`;
    const create = formWith(page, t("organization:new.submit"));
    await create.getByLabel(t("organization:form.name"), { exact: true }).fill(name);
    await create.getByRole("button", { name: t("organization:new.submit") }).click();
    const slug = `acme-${name.slice(5)}`;
    await expect(page).toHaveURL(`${P}/organizations/${slug}`);
    await expect(toast(page, t("organization:new.created", { name }))).toBeVisible();
    await expect(page.getByTestId("active-organization")).toHaveText(name);

    // ---- remove a member, confirmed on the dialog's own page ----
    const member = await otherAccount(request, "Max Member");
    addMember(slug, member.email);
    // The members have a section of their own, a tab of the organization.
    await page
      .getByRole("navigation", { name: t("organization:nav.label", { name }) })
      .getByRole("link", { name: t("organization:nav.members"), exact: true })
      .click();
    await expect(page).toHaveURL(`${P}/organizations/${slug}/members`);
    const row = page.getByTestId("member-list").locator(`li[data-member="${member.email}"]`);
    await row.getByRole("link", { name: t("organization:members.removeLabel", { name: member.name }) }).click();
    await expect(page).toHaveURL(new RegExp(`${P}/organizations/${slug}/members/[^/]+/remove$`));
    const dialog = page.getByRole("dialog", { name: t("organization:members.removeTitle", { name: member.name }) });
    await expect(dialog).toContainText(member.email);
    // Cancel goes back; the way in again, and remove.
    await dialog.getByRole("link", { name: t("organization:cancel") }).click();
    await expect(page).toHaveURL(`${P}/organizations/${slug}/members`);
    await row.getByRole("link", { name: t("organization:members.removeLabel", { name: member.name }) }).click();
    await dialog.getByRole("button", { name: t("organization:members.removeSubmit") }).click();
    await expect(page).toHaveURL(`${P}/organizations/${slug}/members`);
    await expect(toast(page, t("organization:members.removed", { name: member.name }))).toBeVisible();
    await expect(row).toHaveCount(0);
  });
}
