import { expect, type Page } from "@playwright/test";
import { BASE_URL } from "../../../playwright.config";
import { secretOfURI, stepAt, totp } from "../../support/totp";
import { formWith, prefixOf, texts, toast, uniqueEmail } from "./auth";
import { signInWithPassword, signOut } from "./two-factor";
import { waitForLink } from "./mail";

/**
 * Where a person lands, the same with JavaScript on or off: a new sign-up's verified link,
 * a returning sign-in and a sign-in through the second step all end on the dashboard, with
 * the organization they last used active in the switcher; the shell's sections are pages of
 * their own.
 */
export async function landingJourney(page: Page, locale: string) {
  const t = texts(locale);
  const P = prefixOf(locale);
  const email = uniqueEmail(`landing-${locale}`);
  const password = "landing-password-123";
  const name = "Katherine Johnson";
  const active = page.getByTestId("active-organization");

  // ---- a new sign-up: the verified link lands on the dashboard, with no organization yet ----
  await page.goto(`${P}/signup`);
  const signUp = formWith(page, t("signUp.submit"));
  await signUp.getByLabel(t("form.name"), { exact: true }).fill(name);
  await signUp.getByLabel(t("form.email"), { exact: true }).fill(email);
  await signUp.getByLabel(t("form.password"), { exact: true }).fill(password);
  await signUp.getByLabel(t("form.confirmPassword"), { exact: true }).fill(password);
  await signUp.getByRole("button", { name: t("signUp.submit") }).click();
  await expect(page).toHaveURL(`${P}/signup?sent=1`);
  await page.goto((await waitForLink(email, "/api/auth/verify-email")).url);
  await expect(page).toHaveURL(`${P}/dashboard`);
  await expect(toast(page, t("verifyEmail.successTitle"))).toBeVisible();
  await expect(page.getByRole("heading", { level: 1 })).toHaveText(t("dashboard:title", { name }));
  await expect(active).toHaveText(t("common:organizations.none"));

  // ---- an organization of their own ----
  const organization = `Landing ${locale} ${Date.now().toString(36)}`;
  await page.goto(`${P}/organizations/new`);
  const create = formWith(page, t("organization:new.submit"));
  await create.getByLabel(t("organization:form.name"), { exact: true }).fill(organization);
  await create.getByRole("button", { name: t("organization:new.submit") }).click();
  await expect(toast(page, t("organization:new.created", { name: organization }))).toBeVisible();

  // ---- a returning sign-in: the dashboard, in the organization last used ----
  await signOut(page, locale);
  await signInWithPassword(page, locale, email, password);
  await expect(page).toHaveURL(`${P}/dashboard`);
  await expect(active).toHaveText(organization);
  await expect(page.getByTestId("dashboard-organization")).toContainText(organization);

  // The shell's sections are addresses of their own.
  for (const path of ["/profile", "/organizations", "/billing", "/dashboard"]) {
    await page.goto(`${P}${path}`);
    await expect(page).toHaveURL(`${P}${path}`);
    const nav = page.getByRole("navigation", { name: t("common:nav.app") });
    await expect(nav.locator(`a[href="${P}${path}"]`)).toHaveAttribute("aria-current", "page");
  }

  await page.goto(`${P}/profile/security`);
  await expect(page.locator(`main a[href="${P}/profile/security"]`)).toHaveAttribute("aria-current", "page");

  // ---- two-factor on: the second step also lands on the dashboard, in the same organization ----
  const enabled = await page.request.post("/api/auth/two-factor/enable", {
    data: { password },
    headers: { Origin: BASE_URL },
  });
  expect(enabled.status()).toBe(200);
  const secret = secretOfURI(((await enabled.json()) as { totpURI: string }).totpURI);
  const verified = await page.request.post("/api/auth/two-factor/verify-totp", {
    data: { code: totp(secret) },
    headers: { Origin: BASE_URL },
  });
  expect(verified.status()).toBe(200);
  await page.goto(`${P}/dashboard`);
  await expect(active).toHaveText(organization);
  await signOut(page, locale);
  await signInWithPassword(page, locale, email, password);
  await expect(page).toHaveURL(new RegExp(`${P}/signin/two-factor`));
  const second = formWith(page, t("twoFactor.signIn.submit"));
  await second.getByLabel(t("twoFactor.signIn.totp.label"), { exact: true }).fill(totp(secret, stepAt() + 1));
  await second.getByRole("button", { name: t("twoFactor.signIn.submit") }).click();
  await expect(page).toHaveURL(`${P}/dashboard`);
  await expect(active).toHaveText(organization);
}
