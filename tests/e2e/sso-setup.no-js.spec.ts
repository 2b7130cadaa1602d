import { expect, test } from "@playwright/test";
import { signedInAccount } from "./support/auth";
import { fitsPhone, requireSso, setUpOidcConnection, ssoTexts } from "./support/sso-setup";

// This file runs in the "no-js" project: the same set-up with plain form posts, in English and
// French, then the connection's removal through its confirmation page.

for (const locale of ["en", "fr"]) {
  test(`an owner connects an identity provider and verifies its domain without JavaScript (${locale})`, async ({
    page,
    request,
  }) => {
    test.setTimeout(120_000);
    const t = ssoTexts(locale);
    await signedInAccount(page, locale, "Olive Owner");
    const { base, connection, providerId } = await setUpOidcConnection(page, request, locale);
    await expect(page.locator("html")).not.toHaveClass(/js/);
    // Without JavaScript there is no clipboard: the fields are there to select.
    await expect(
      page.getByRole("button", { name: t("sso:copy.label", { label: t("sso:setup.redirectUri") }) }),
    ).toHaveCount(0);
    await fitsPhone(page);
    await page.setViewportSize({ width: 1280, height: 900 });

    await requireSso(page, locale, base);

    await page.goto(connection);
    await page.getByRole("link", { name: t("sso:remove.open") }).click();
    await expect(page).toHaveURL(`${connection}/remove`);
    await page.getByRole("button", { name: t("sso:remove.submit"), exact: true }).click();
    await expect(page).toHaveURL(`${base}/sso`);
    await expect(page.getByText(t("sso:remove.removed", { provider: providerId }))).toBeVisible();
    // The verified domain went with it, and so did the requirement.
    await expect(page.getByTestId("sso-required")).toHaveAttribute("data-required", "false");
  });
}
