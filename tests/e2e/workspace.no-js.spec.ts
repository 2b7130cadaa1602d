import { expect, test } from "@playwright/test";
import { prefixOf, signedInAccount, texts, toast, uniqueEmail } from "./support/auth";
import { workspaceWithMember } from "./support/workspace";

// This file runs in the "no-js" project: the organization's sections by their addresses, a
// plain form post in each, answered by a redirect back to that section with a toast.

test("walks the six sections of an organization by URL and posts a form in each, without JavaScript", async ({
  page,
  request,
}) => {
  test.setTimeout(180_000);
  const locale = "ja";
  const t = texts(locale);
  const P = prefixOf(locale);
  await signedInAccount(page, locale, "Olive Owner");
  const stamp = Date.now().toString(36);
  const name = `Plain ${stamp}`;
  const { base, member } = await workspaceWithMember(page, request, locale, name);
  await workspaceWithMember(page, request, locale, `Other ${stamp}`);
  await expect(page.locator("html")).not.toHaveClass(/js/);

  // ---- overview ----
  await page.goto(base);
  await page.getByRole("button", { name: t("organization:overview.makeActive") }).click();
  await expect(page).toHaveURL(base);
  await expect(toast(page, t("organization:switched", { name }))).toBeVisible();

  // ---- members ----
  await page.goto(`${base}/members`);
  const row = page.getByTestId("member-list").locator(`li[data-member="${member.email}"]`);
  await row
    .getByLabel(t("organization:members.roleLabel", { name: member.name }), { exact: true })
    .selectOption("admin");
  await row.getByRole("button", { name: t("organization:members.saveLabel", { name: member.name }) }).click();
  await expect(page).toHaveURL(`${base}/members`);
  await expect(toast(page, t("organization:members.roleSaved", { name: member.name }))).toBeVisible();

  // ---- invitations ----
  await page.goto(`${base}/invitations`);
  const email = uniqueEmail("invitee");
  await page.getByLabel(t("organization:invitations.email"), { exact: true }).fill(email);
  await page.getByRole("button", { name: t("organization:invitations.submit") }).click();
  await expect(page).toHaveURL(`${base}/invitations`);
  await expect(toast(page, t("organization:invitations.sent", { email }))).toBeVisible();
  await expect(page.getByTestId("invitation-list").locator(`[data-invitation="${email}"]`)).toBeVisible();

  // ---- teams ----
  await page.goto(`${base}/teams`);
  await page.getByLabel(t("organization:teams.name"), { exact: true }).fill("Design");
  await page.getByRole("button", { name: t("organization:teams.create") }).click();
  await expect(page).toHaveURL(`${base}/teams`);
  await expect(toast(page, t("organization:teams.created", { name: "Design" }))).toBeVisible();

  // ---- settings: a bad metadata opens the fold with its error; then a rename ----
  await page.goto(`${base}/settings`);
  await page.getByText(t("organization:settings.advanced"), { exact: true }).click();
  await page.getByLabel(t("organization:settings.metadata"), { exact: true }).fill("[1]");
  await page.getByRole("button", { name: t("organization:settings.submit") }).click();
  await expect(page.getByTestId("settings-advanced")).toHaveAttribute("open", "");
  await expect(page.getByText(t("organization:form.metadataInvalid"))).toBeVisible();
  await page.getByLabel(t("organization:settings.metadata"), { exact: true }).fill("");
  await page.getByLabel(t("organization:form.name"), { exact: true }).fill(`${name} 2`);
  await page.getByRole("button", { name: t("organization:settings.submit") }).click();
  await expect(page).toHaveURL(`${base}/settings`);
  await expect(toast(page, t("organization:settings.saved"))).toBeVisible();

  // ---- billing ----
  await page.goto(`${base}/billing`);
  await expect(page.getByTestId("organization-plan")).toHaveAttribute("data-plan", "free");
  await page.getByRole("link", { name: t("organization:billing.manage") }).click();
  await expect(page).toHaveURL(`${P}/billing`);
});

test("shows the current section's tab on a phone, scrolled into the row, without JavaScript", async ({
  page,
  request,
}) => {
  const locale = "fr";
  const t = texts(locale);
  await page.setViewportSize({ width: 390, height: 844 });
  await signedInAccount(page, locale, "Olive Owner");
  const name = `Tabs ${Date.now().toString(36)}`;
  const { base } = await workspaceWithMember(page, request, locale, name);
  await expect(page.locator("html")).not.toHaveClass(/js/);

  // The last tab of the row, far past a phone's right edge when the row starts at its beginning.
  await page.goto(`${base}/api-keys`);
  const row = page.getByRole("navigation", { name: t("organization:nav.label", { name }) });
  const current = row.getByRole("link", { name: t("organization:nav.apiKeys"), exact: true });
  await expect(current).toHaveAttribute("aria-current", "page");
  const [rowBox, tabBox] = [await row.boundingBox(), await current.boundingBox()];
  // Within the row, give or take the pixel that sub-pixel layout rounds.
  expect(tabBox!.x).toBeGreaterThanOrEqual(rowBox!.x - 1);
  expect(tabBox!.x + tabBox!.width).toBeLessThanOrEqual(rowBox!.x + rowBox!.width + 1);
});
