import { expect, test } from "@playwright/test";
import { prefixOf, signedInAccount, texts, toast, uniqueEmail } from "./support/auth";
import { openSection, overflowOf, workspaceWithMember } from "./support/workspace";

// The organization's sections with JavaScript: each tab opens its own address, and a form of
// each section does its work there. Then the members list on a phone: nothing wider than the
// screen, no control cut short. workspace.no-js.spec.ts walks the same sections without.

test("walks the six sections of an organization by their tabs and uses a form in each", async ({ page, request }) => {
  test.setTimeout(180_000);
  const locale = "en";
  const t = texts(locale);
  const P = prefixOf(locale);
  await signedInAccount(page, locale, "Olive Owner");
  const stamp = Date.now().toString(36);
  const name = `Walk ${stamp}`;
  const { base, member } = await workspaceWithMember(page, request, locale, name);
  // A second organization becomes the active one, so the first's overview offers to switch back.
  const other = await workspaceWithMember(page, request, locale, `Other ${stamp}`);
  await expect(page.getByTestId("active-organization")).toHaveText(`Other ${stamp}`);
  await page.goto(base);
  await expect(page.locator("html")).toHaveAttribute("data-hydrated", "true");

  // ---- overview: the counts, and making it the active organization ----
  await expect(page.locator('[data-count="members"]')).toContainText("2");
  await page.getByRole("button", { name: t("organization:overview.makeActive") }).click();
  await expect(toast(page, t("organization:switched", { name }))).toBeVisible();
  await expect(page).toHaveURL(base);
  await expect(page.getByTestId("active-organization")).toHaveText(name);

  // ---- members: one role control per row, with its own Save ----
  await openSection(page, locale, name, "members");
  await expect(page).toHaveURL(`${base}/members`);
  // The rows' plain forms and links work in the page: no new document is loaded.
  const stayed = () => page.evaluate(() => (window as { stayed?: boolean }).stayed === true);
  await page.evaluate(() => ((window as { stayed?: boolean }).stayed = true));
  const row = page.getByTestId("member-list").locator(`li[data-member="${member.email}"]`);
  await row
    .getByLabel(t("organization:members.roleLabel", { name: member.name }), { exact: true })
    .selectOption("admin");
  await row.getByRole("button", { name: t("organization:members.saveLabel", { name: member.name }) }).click();
  await expect(toast(page, t("organization:members.roleSaved", { name: member.name }))).toBeVisible();
  await expect(page).toHaveURL(`${base}/members`);
  expect(await stayed()).toBe(true);
  // Remove opens its confirmation over the list; Escape closes it.
  await row.getByRole("link", { name: t("organization:members.removeLabel", { name: member.name }) }).click();
  await expect(page.getByTestId("confirm-dialog")).toBeVisible();
  await expect(page).toHaveURL(new RegExp(`${base}/members/[^/]+/remove$`));
  expect(await stayed()).toBe(true);
  await page.keyboard.press("Escape");
  await expect(page.getByTestId("confirm-dialog")).toHaveCount(0);
  await expect(page).toHaveURL(`${base}/members`);

  // ---- invitations: invite, cancel; the canceled one goes to the history ----
  await openSection(page, locale, name, "invitations");
  await expect(page).toHaveURL(`${base}/invitations`);
  const email = uniqueEmail("invitee");
  await page.getByLabel(t("organization:invitations.email"), { exact: true }).fill(email);
  await page.getByRole("button", { name: t("organization:invitations.submit") }).click();
  await expect(toast(page, t("organization:invitations.sent", { email }))).toBeVisible();
  await expect(page.getByTestId("invitation-list").locator(`[data-invitation="${email}"]`)).toBeVisible();
  await page.getByRole("button", { name: t("organization:invitations.cancelLabel", { email }) }).click();
  await expect(toast(page, t("organization:invitations.canceled", { email }))).toBeVisible();
  await expect(page.getByTestId("invitation-list")).toHaveCount(0);
  const history = page.getByTestId("invitation-history");
  await expect(history.locator(`[data-invitation="${email}"]`)).toBeHidden();
  await history.locator("summary").click();
  await expect(history.locator(`[data-invitation="${email}"]`)).toBeVisible();

  // ---- teams: create one ----
  await openSection(page, locale, name, "teams");
  await expect(page).toHaveURL(`${base}/teams`);
  await page.getByLabel(t("organization:teams.name"), { exact: true }).fill("Design");
  await page.getByRole("button", { name: t("organization:teams.create") }).click();
  await expect(toast(page, t("organization:teams.created", { name: "Design" }))).toBeVisible();
  await expect(page.getByTestId("team-list").locator('[data-team="Design"]')).toBeVisible();

  // ---- settings: the metadata is folded away; rename ----
  await openSection(page, locale, name, "settings");
  await expect(page).toHaveURL(`${base}/settings`);
  const metadata = page.getByLabel(t("organization:settings.metadata"), { exact: true });
  await expect(metadata).toBeHidden();
  await page.getByText(t("organization:settings.advanced"), { exact: true }).click();
  await expect(metadata).toBeVisible();
  await page.getByLabel(t("organization:form.name"), { exact: true }).fill(`${name} Renamed`);
  await page.getByRole("button", { name: t("organization:settings.submit") }).click();
  await expect(toast(page, t("organization:settings.saved"))).toBeVisible();
  await expect(page.getByTestId("organization-name")).toHaveText(`${name} Renamed`);
  // The only owner is told why they cannot leave.
  await expect(page.getByTestId("leave-sole-owner")).toHaveText(t("organization:leave.soleOwner"));

  // ---- billing: the free plan, and the way to choose one ----
  await openSection(page, locale, `${name} Renamed`, "billing");
  await expect(page).toHaveURL(`${base}/billing`);
  await expect(page.getByTestId("organization-plan")).toHaveAttribute("data-plan", "free");
  await page.getByRole("link", { name: t("organization:billing.choosePlan") }).click();
  await expect(page).toHaveURL(new RegExp(`${P}/pricing\\?for=`));
  expect(other.slug).not.toBe("");
});

for (const locale of ["en", "ja"] as const) {
  test(`the members list fits a phone: no overflow, no control cut short (${locale})`, async ({ page, request }) => {
    const t = texts(locale);
    await page.setViewportSize({ width: 390, height: 844 });
    await signedInAccount(page, locale, "Olive Owner");
    const name = `Phone ${Date.now().toString(36)}`;
    const { base, member } = await workspaceWithMember(page, request, locale, name);
    await page.goto(`${base}/members`);
    const row = page.getByTestId("member-list").locator(`li[data-member="${member.email}"]`);
    const select = row.getByLabel(t("organization:members.roleLabel", { name: member.name }), { exact: true });
    const save = row.getByRole("button", { name: t("organization:members.saveLabel", { name: member.name }) });
    const remove = row.getByRole("link", { name: t("organization:members.removeLabel", { name: member.name }) });
    await expect(select).toBeVisible();

    // The tabs above scroll sideways inside their own row; the list's controls must all show.
    const { document, each } = await overflowOf(page, page.getByTestId("member-list").locator("select, button, a"));
    expect(document.scroll, "the page scrolls sideways").toBeLessThanOrEqual(document.client);
    expect(each.filter((control) => control.clipped || control.offscreen)).toEqual([]);
    // The role control is a real select, wide enough for its text; Save and Remove on one line.
    expect((await select.boundingBox())!.width).toBeGreaterThan(120);
    for (const control of [save, remove]) {
      const box = (await control.boundingBox())!;
      expect(box.height, await control.innerText()).toBeLessThan(44);
      expect(box.x + box.width).toBeLessThanOrEqual(390);
    }
    await expect(save).toHaveText(t("organization:members.save"));
    // The owner's own row: no select, the reason instead.
    await expect(page.getByTestId("sole-owner-note")).toHaveText(t("organization:members.soleOwner"));
  });
}
