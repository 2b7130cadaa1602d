import { expect, test } from "@playwright/test";
import { prefixOf, texts, toast } from "./support/auth";
import { nextProviderUser, sessionEmail } from "./support/social";

// Social sign-in through the OpenID Connect stand-in (Google and Microsoft point at it), with
// JavaScript; social.no-js.spec.ts does the same without.

for (const locale of ["en", "fr"] as const) {
  test(`signs in with Google from the sign-in page (${locale})`, async ({ page }) => {
    const t = texts(locale);
    const P = prefixOf(locale);
    const user = await nextProviderUser();
    await page.goto(`${P}/signin`);
    await expect(page.locator("html")).toHaveAttribute("data-hydrated", "true");
    const google = page.getByRole("button", { name: t("social.continueWith", { provider: "Google" }) });
    await expect(google).toBeVisible();
    await expect(google.locator("use")).toHaveAttribute("href", /#brand-google$/);
    await google.click();
    await expect(page).toHaveURL(locale === "en" ? /:\d+\/dashboard$/ : /:\d+\/fr\/dashboard$/);
    expect(await sessionEmail(page)).toBe(user.email);
  });
}

test("explains a refused social sign-in in the page's language", async ({ page }) => {
  const t = texts("fr");
  // First a user with this address signs up; then a provider that does not vouch for it comes.
  const owner = await nextProviderUser();
  await page.goto("/fr/signin");
  await page.getByRole("button", { name: t("social.continueWith", { provider: "Google" }) }).click();
  await expect.poll(() => sessionEmail(page)).toBe(owner.email);
  await page.context().clearCookies();

  await nextProviderUser({ email: owner.email, email_verified: false });
  await page.goto("/fr/signin");
  await page.getByRole("button", { name: t("social.continueWith", { provider: "Microsoft" }) }).click();
  await expect(page).toHaveURL(/\/fr\/signin\?error=account_not_linked$/);
  await expect(page.getByTestId("social-error")).toContainText(t("social.errors.account_not_linked"));
  expect(await sessionEmail(page)).toBeNull();
});

test("links and unlinks a provider in the security settings", async ({ page }) => {
  const t = texts("en");
  const user = await nextProviderUser();
  await page.goto("/signin");
  await page.getByRole("button", { name: t("social.continueWith", { provider: "Google" }) }).click();
  await expect.poll(() => sessionEmail(page)).toBe(user.email);

  await page.goto("/profile/security");
  await expect(page.locator("html")).toHaveAttribute("data-hydrated", "true");
  const accounts = page.getByTestId("account-list").getByRole("listitem");
  await expect(accounts).toHaveCount(1);
  await expect(accounts.first()).toHaveAttribute("data-provider", "google");
  await expect(page.getByText(t("profile.accounts.onlyOne"))).toBeVisible();

  await nextProviderUser({ email: user.email });
  const section = page.locator('[data-section="accounts"]');
  await section.getByRole("button", { name: t("social.continueWith", { provider: "Microsoft" }) }).click();
  await expect(page).toHaveURL(/\/profile\/security$/);
  await expect(toast(page, t("profile.accounts.linked"))).toBeVisible();
  await expect(accounts).toHaveCount(2);

  await section.getByRole("button", { name: t("profile.accounts.unlinkLabel", { provider: "Microsoft" }) }).click();
  await expect(toast(page, t("profile.accounts.unlinked"))).toBeVisible();
  await expect(accounts).toHaveCount(1);
  await expect(accounts.first()).toHaveAttribute("data-provider", "google");
});
