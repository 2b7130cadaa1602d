import { expect, test } from "@playwright/test";
import { prefixOf, texts } from "./support/auth";
import { nextProviderUser, sessionEmail } from "./support/social";
import { passwordAccount, ssoConnection } from "./support/sso";

// Single sign-on without JavaScript: every step is a plain link, form post or redirect.

for (const locale of ["ja", "zh-CN"] as const) {
  test(`a new employee signs in through the identity provider and lands in the organization (${locale})`, async ({
    page,
  }) => {
    const t = texts(locale);
    const P = prefixOf(locale);
    const connection = await ssoConnection({ verified: false });
    const employee = await nextProviderUser({ email: `katherine.${Date.now()}@${connection.domain}` });
    await page.goto(`${P}/signin`);
    await page.getByRole("link", { name: t("sso.continue") }).click();
    await expect(page).toHaveURL(new RegExp(`${P}/signin/sso$`));
    await page.getByLabel(t("sso.identifier")).fill(connection.organization.slug);
    await page.getByRole("button", { name: t("sso.submit") }).click();
    await expect(page).toHaveURL(new RegExp(`${P}/dashboard$`));
    await expect(page.getByTestId("dashboard-organization")).toContainText(connection.organization.name);
    expect(await sessionEmail(page)).toBe(employee.email);
  });

  test(`with single sign-on required, a password sign-in of the domain is sent to the provider (${locale})`, async ({
    page,
  }) => {
    const t = texts(locale);
    const P = prefixOf(locale);
    const connection = await ssoConnection({ verified: true, required: true });
    const account = await passwordAccount(page, locale, connection.domain);
    await nextProviderUser({ email: account.email });

    await page.goto(`${P}/signin`);
    await page.getByLabel(t("form.email")).fill(account.email);
    await page.getByLabel(t("form.password"), { exact: true }).fill(account.password);
    await page.getByRole("button", { name: t("signIn.submit"), exact: true }).click();
    await expect(page).toHaveURL(new RegExp(`${P}/signin/sso\\?`));
    await expect(page.getByTestId("sso-required")).toContainText(t("sso.requiredBody", { email: account.email }));
    await expect(page.getByLabel(t("sso.identifier"))).toHaveValue(account.email);

    await page.getByRole("button", { name: t("sso.submit") }).click();
    await expect(page).toHaveURL(new RegExp(`${P}/dashboard$`));
    await expect(page.getByTestId("dashboard-organization")).toContainText(connection.organization.name);
    expect(await sessionEmail(page)).toBe(account.email);
  });
}
