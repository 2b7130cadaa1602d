import { expect, type Browser, type Page } from "@playwright/test";
import { BASE_URL } from "../../../playwright.config";
import { formWith, prefixOf, signedInAccount, texts, toast, uniqueEmail } from "./auth";
import { addMember } from "./organizations";
import { openSection } from "./workspace";

/**
 * The story both custom-role files tell, with JavaScript or without: an owner creates a role
 * that may only invite, on the roles page, and gives it to a member on the members page; the
 * member then finds the invitations section and invites someone, but may not remove members.
 */
export async function ownerGivesInviterRole(page: Page, browser: Browser, locale: string, javaScriptEnabled: boolean) {
  const t = texts(locale);
  const P = prefixOf(locale);
  const owner = await signedInAccount(page, locale, "Olive Owner");
  // A new context does not take the project's options: the member browses as the owner does.
  const memberContext = await browser.newContext({ javaScriptEnabled });
  const memberPage = await memberContext.newPage();
  const member = await signedInAccount(memberPage, locale, "Ivy Inviter");
  const name = `Roles ${Date.now().toString(36)}`;
  const slug = name.toLowerCase().replace(/\s+/g, "-");
  const created = await page.request.post("/api/auth/organization/create", {
    data: { name, slug },
    headers: { Origin: BASE_URL },
  });
  expect(created.status()).toBe(200);
  addMember(slug, member.email);
  const base = `${P}/organizations/${slug}`;

  // The owner's roles section: a role that may create invitations, and nothing else.
  await page.goto(base);
  await openSection(page, locale, name, "roles");
  await expect(page).toHaveURL(`${base}/roles`);
  const create = formWith(page, t("organization:customRoles.create"));
  await create.getByLabel(t("organization:customRoles.name"), { exact: true }).fill("Recruiter");
  await create
    .locator('fieldset[data-resource="invitation"]')
    .getByLabel(t("organization:customRoles.actions.create"), { exact: true })
    .check();
  await create.getByRole("button", { name: t("organization:customRoles.create") }).click();
  await expect(page).toHaveURL(`${base}/roles`);
  await expect(toast(page, t("organization:customRoles.created", { name: "recruiter" }))).toBeVisible();
  await expect(page.getByTestId("role-list").locator('[data-role-name="recruiter"]')).toBeVisible();

  // Given to the member on the members page.
  await page.goto(`${base}/members`);
  const row = page.getByTestId("member-list").locator(`li[data-member="${member.email}"]`);
  await row
    .getByLabel(t("organization:members.roleLabel", { name: member.name }), { exact: true })
    .selectOption("recruiter");
  await row.getByRole("button", { name: t("organization:members.saveLabel", { name: member.name }) }).click();
  await expect(page).toHaveURL(`${base}/members`);
  await expect(toast(page, t("organization:members.roleSaved", { name: member.name }))).toBeVisible();

  // The member: the invitations section is theirs now, and inviting works.
  await memberPage.goto(base);
  if (!javaScriptEnabled) await expect(memberPage.locator("html")).not.toHaveClass(/js/);
  await openSection(memberPage, locale, name, "invitations");
  await expect(memberPage).toHaveURL(`${base}/invitations`);
  const email = uniqueEmail("recruited");
  await memberPage.getByLabel(t("organization:invitations.email"), { exact: true }).fill(email);
  await memberPage.getByRole("button", { name: t("organization:invitations.submit") }).click();
  await expect(memberPage).toHaveURL(`${base}/invitations`);
  await expect(toast(memberPage, t("organization:invitations.sent", { email }))).toBeVisible();

  // But no one can be removed by them: no Remove on the members page, and the API refuses.
  await memberPage.goto(`${base}/members`);
  await expect(memberPage.getByTestId("member-list").locator(`li[data-member="${owner.email}"]`)).toBeVisible();
  await expect(
    memberPage.getByRole("link", { name: t("organization:members.removeLabel", { name: owner.name }) }),
  ).toHaveCount(0);
  const removal = await memberPage.request.post("/api/auth/organization/remove-member", {
    data: { memberIdOrEmail: owner.email, organizationId: JSON.parse(await created.text()).id },
    headers: { Origin: BASE_URL },
  });
  expect(removal.status()).toBe(403);
  // Nor do they see the roles section.
  await expect(
    memberPage
      .getByRole("navigation", { name: t("organization:nav.label", { name }) })
      .getByRole("link", { name: t("organization:nav.roles"), exact: true }),
  ).toHaveCount(0);
  await memberContext.close();
}
