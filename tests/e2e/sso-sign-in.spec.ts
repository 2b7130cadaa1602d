import { expect, test } from "@playwright/test";
import { formWith, prefixOf, texts, toast } from "./support/auth";
import { nextProviderUser, sessionEmail } from "./support/social";
import { passwordAccount, requireSso, ssoConnection } from "./support/sso";

// Single sign-on through an organization's identity provider (the OpenID Connect stand-in with
// a client of the organization's own), with JavaScript; sso-sign-in.no-js.spec.ts does the same
// without.

for (const locale of ["en", "fr"] as const) {
  test(`a new employee signs in through the identity provider and lands in the organization (${locale})`, async ({
    page,
  }) => {
    const t = texts(locale);
    const P = prefixOf(locale);
    const connection = await ssoConnection({ verified: true });
    const employee = await nextProviderUser({
      email: `dorothy.${Date.now()}@${connection.domain}`,
      name: "Dorothy Vaughan",
    });
    await page.goto(`${P}/signin`);
    await expect(page.locator("html")).toHaveAttribute("data-hydrated", "true");
    await page.getByRole("link", { name: t("sso.continue") }).click();
    await expect(page).toHaveURL(new RegExp(`:\\d+${P}/signin/sso$`));
    await expect(page.getByRole("heading", { level: 1 })).toHaveText(t("sso.title"));
    await page.getByLabel(t("sso.identifier")).fill(employee.email!);
    await page.getByRole("button", { name: t("sso.submit") }).click();
    await expect(page).toHaveURL(new RegExp(`:\\d+${P}/dashboard$`));
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
    await nextProviderUser({ email: account.email, name: "Mary Jackson" });

    await page.goto(`${P}/signin`);
    await expect(page.locator("html")).toHaveAttribute("data-hydrated", "true");
    await page.getByLabel(t("form.email")).fill(account.email);
    await page.getByLabel(t("form.password"), { exact: true }).fill(account.password);
    await page.getByRole("button", { name: t("signIn.submit"), exact: true }).click();

    await expect(page).toHaveURL(new RegExp(`:\\d+${P}/signin/sso\\?`));
    await expect(page.getByTestId("sso-required")).toContainText(t("sso.requiredBody", { email: account.email }));
    await expect(page.getByLabel(t("sso.identifier"))).toHaveValue(account.email);
    expect(await sessionEmail(page)).toBeNull();

    await page.getByRole("button", { name: t("sso.submit") }).click();
    await expect(page).toHaveURL(new RegExp(`:\\d+${P}/dashboard$`));
    await expect(page.getByTestId("dashboard-organization")).toContainText(connection.organization.name);
    expect(await sessionEmail(page)).toBe(account.email);
  });
}

test("explains a failed single sign-on in the page's language", async ({ page }) => {
  const t = texts("ja");
  await page.goto("/ja/signin/sso?error=state_mismatch");
  await expect(page.getByTestId("sso-error")).toContainText(t("sso.errors.state_mismatch"));
  await page.getByLabel(t("sso.identifier")).fill("someone@nobody-here.example");
  await page.getByRole("button", { name: t("sso.submit") }).click();
  await expect(page.getByText(t("errors.NO_PROVIDER_FOUND"))).toBeVisible();
});

test("with single sign-on required, a passkey sign-in is sent to single sign-on, filled in", async ({ page }) => {
  const t = texts("en");
  const connection = await ssoConnection({ verified: true });
  const account = await passwordAccount(page, "en", connection.domain);
  // Chromium's virtual authenticator (DevTools protocol) holds the passkey.
  const cdp = await page.context().newCDPSession(page);
  await cdp.send("WebAuthn.enable");
  await cdp.send("WebAuthn.addVirtualAuthenticator", {
    options: {
      protocol: "ctap2",
      transport: "internal",
      hasResidentKey: true,
      hasUserVerification: true,
      isUserVerified: true,
    },
  });

  await page.goto("/signin");
  await expect(page.locator("html")).toHaveAttribute("data-hydrated", "true");
  const signIn = formWith(page, t("signIn.submit"));
  await signIn.getByLabel(t("form.email"), { exact: true }).fill(account.email);
  await signIn.getByLabel(t("form.password"), { exact: true }).fill(account.password);
  await signIn.getByRole("button", { name: t("signIn.submit") }).click();
  await expect(page).toHaveURL(/\/dashboard$/);
  await page.goto("/profile/security");
  await expect(page.locator("html")).toHaveAttribute("data-hydrated", "true");
  const section = page.locator("[data-section=passkeys]");
  await section.getByLabel(t("passkeys.addName"), { exact: true }).fill("Work laptop");
  await section.getByRole("button", { name: t("passkeys.add") }).click();
  await expect(toast(page, t("passkeys.added"))).toBeVisible();

  requireSso(connection.organization.id);
  await page.context().clearCookies();
  await page.goto("/signin");
  // Chromium's virtual authenticator may answer the email field's passkey suggestions (the
  // conditional request) before the button is pressed: either way the passkey signs in.
  const button = page.getByRole("button", { name: t("passkeys.signIn") });
  await button.click({ timeout: 5_000 }).catch(() => undefined);
  await expect(page).toHaveURL(/\/signin\/sso\?/);
  await expect(page.getByTestId("sso-required")).toContainText(t("sso.requiredBody", { email: account.email }));
  await expect(page.getByLabel(t("sso.identifier"))).toHaveValue(account.email);
  expect(await sessionEmail(page)).toBeNull();
});
