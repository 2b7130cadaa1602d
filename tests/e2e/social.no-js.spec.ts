import { expect, test } from "@playwright/test";
import { prefixOf, texts, toast } from "./support/auth";
import { nextProviderUser, sessionEmail } from "./support/social";

// The social buttons are plain form posts: the same flows work without JavaScript.

for (const locale of ["en", "fr"] as const) {
  test(`signs in with Google without JavaScript (${locale})`, async ({ page }) => {
    const t = texts(locale);
    const user = await nextProviderUser();
    await page.goto(`${prefixOf(locale)}/signin`);
    await page.getByRole("button", { name: t("social.continueWith", { provider: "Google" }) }).click();
    await expect(page).toHaveURL(locale === "en" ? /:\d+\/dashboard$/ : /:\d+\/fr\/dashboard$/);
    expect(await sessionEmail(page)).toBe(user.email);
  });
}

test("links and unlinks a provider in the security settings without JavaScript", async ({ page }) => {
  const t = texts("en");
  const user = await nextProviderUser();
  await page.goto("/signin");
  await page.getByRole("button", { name: t("social.continueWith", { provider: "Google" }) }).click();
  await expect.poll(() => sessionEmail(page)).toBe(user.email);

  await page.goto("/profile/security");
  const accounts = page.getByTestId("account-list").getByRole("listitem");
  await expect(accounts).toHaveCount(1);
  await nextProviderUser({ email: user.email });
  const section = page.locator('[data-section="accounts"]');
  await section.getByRole("button", { name: t("social.continueWith", { provider: "Microsoft" }) }).click();
  await expect(toast(page, t("profile.accounts.linked"))).toBeVisible();
  await expect(page).toHaveURL(/\/profile\/security$/);
  await expect(accounts).toHaveCount(2);
  await section.getByRole("button", { name: t("profile.accounts.unlinkLabel", { provider: "Microsoft" }) }).click();
  await expect(toast(page, t("profile.accounts.unlinked"))).toBeVisible();
  await expect(accounts).toHaveCount(1);
});
