import { expect, test } from "@playwright/test";
import { signedInAccount } from "./support/auth";
import { CLIENT_SECRET, fitsPhone, requireSso, setUpOidcConnection, ssoTexts } from "./support/sso-setup";

// With JavaScript: an owner sets up an OpenID Connect connection against the OIDC stand-in,
// verifies its domain through the DNS stand-in and requires single sign-on, in two languages.

for (const locale of ["en", "ja"]) {
  test(`an owner connects an identity provider and verifies its domain (${locale})`, async ({ page, request }) => {
    test.setTimeout(120_000);
    const t = ssoTexts(locale);
    await signedInAccount(page, locale, "Olive Owner");
    const { base, connection, providerId } = await setUpOidcConnection(page, request, locale);
    await expect(page.locator("html")).toHaveClass(/js/);

    // With JavaScript the values to enter elsewhere get a Copy button.
    await expect(
      page.getByRole("button", { name: t("sso:copy.label", { label: t("sso:setup.redirectUri") }) }),
    ).toBeVisible();
    await fitsPhone(page);
    await page.setViewportSize({ width: 1280, height: 900 });

    // The list shows the connection and its verified domain; then SSO is required.
    await page.goto(`${base}/sso`);
    const row = page.getByTestId("connection-list").locator(`li[data-connection="${providerId}"]`);
    await expect(row.locator('[data-verified="true"]')).toBeVisible();
    await requireSso(page, locale, base);

    // Editing keeps the secret: saved without one, the connection still reads "stored".
    await page.goto(connection);
    await page.getByRole("button", { name: t("sso:edit.submit") }).click();
    await expect(page.getByText(t("sso:edit.saved"))).toBeVisible();
    await expect(page.getByTestId("connection-summary")).toContainText(t("sso:summary.secretStored"));
    expect(await page.content()).not.toContain(CLIENT_SECRET);
  });
}
