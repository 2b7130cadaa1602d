import { expect, type Page } from "@playwright/test";
import { stepAt, totp } from "../../support/totp";
import { formWith, prefixOf, signedInAccount, texts, toast } from "./auth";

/**
 * Two-factor from a person's side, the same with JavaScript on or off: switch it on from the
 * security settings (the code is computed from the secret the page shows), sign out, sign in with an
 * authenticator code, sign out, sign in with a backup code.
 */
export async function twoFactorJourney(page: Page, locale: string) {
  const t = texts(locale);
  const P = prefixOf(locale);
  const { email, password } = await signedInAccount(page, locale);

  await page.goto(`${P}/profile/security`);
  await expect(page.getByTestId("two-factor-state")).toContainText(t("twoFactor.section.off"));
  await page.getByTestId("two-factor-manage").click();
  await expect(page).toHaveURL(`${P}/profile/two-factor`);

  // A wrong password is refused next to the field.
  const enable = formWith(page, t("twoFactor.settings.enable"));
  await enable.getByLabel(t("form.password"), { exact: true }).fill("not-my-password");
  await enable.getByRole("button", { name: t("twoFactor.settings.enable") }).click();
  await expect(page.getByText(t("errors.INVALID_PASSWORD"))).toBeVisible();
  await enable.getByLabel(t("form.password"), { exact: true }).fill(password);
  await enable.getByRole("button", { name: t("twoFactor.settings.enable") }).click();

  // The QR code is an SVG drawn by the server; the secret and ten backup codes are text.
  await expect(page.getByTestId("totp-qr").locator("svg")).toBeVisible();
  const secret = (await page.getByTestId("totp-secret").textContent())!.trim();
  const backupCodes = await page.getByTestId("backup-codes").locator("li").allTextContents();
  expect(backupCodes).toHaveLength(10);
  await expect(page.getByTestId("backup-codes-download")).toHaveAttribute("download", "backup-codes.txt");

  const verify = formWith(page, t("twoFactor.settings.verify"));
  await verify.getByLabel(t("twoFactor.settings.firstCode"), { exact: true }).fill(totp(secret, stepAt() - 20));
  await verify.getByRole("button", { name: t("twoFactor.settings.verify") }).click();
  await expect(page.getByText(t("errors.INVALID_CODE"))).toBeVisible();
  // After a wrong code the secret is shown again only to someone who gives the password.
  await expect(page.getByTestId("totp-secret")).toHaveCount(0);
  const reveal = formWith(page, t("twoFactor.settings.reveal"));
  await reveal.getByLabel(t("form.password"), { exact: true }).fill(password);
  await reveal.getByRole("button", { name: t("twoFactor.settings.reveal") }).click();
  await expect(page.getByTestId("totp-secret")).toHaveText(secret);
  expect(await page.getByTestId("backup-codes").locator("li").allTextContents()).toEqual(backupCodes);
  await verify.getByLabel(t("twoFactor.settings.firstCode"), { exact: true }).fill(totp(secret));
  await verify.getByRole("button", { name: t("twoFactor.settings.verify") }).click();
  await expect(toast(page, t("twoFactor.settings.enabled"))).toBeVisible();
  await expect(page.getByTestId("backup-codes-left")).toHaveText("10");

  // ---- sign out, sign in with the authenticator ----
  await signOut(page, locale);
  await signInWithPassword(page, locale, email, password);
  await expect(page).toHaveURL(new RegExp(`${P}/signin/two-factor`));
  const second = formWith(page, t("twoFactor.signIn.submit"));
  // The code that switched it on is spent: the next step's code is the one that works now.
  await second.getByLabel(t("twoFactor.signIn.totp.label"), { exact: true }).fill(totp(secret, stepAt() + 1));
  await second.getByRole("button", { name: t("twoFactor.signIn.submit") }).click();
  await expect(toast(page, t("signIn.signedIn", { name: "Grace Hopper" }))).toBeVisible();

  // ---- sign out, sign in with a backup code ----
  await signOut(page, locale);
  await signInWithPassword(page, locale, email, password);
  await page.getByTestId("two-factor-use-backup-code").click();
  const backup = formWith(page, t("twoFactor.signIn.submit"));
  await backup.getByLabel(t("twoFactor.signIn.backup-code.label"), { exact: true }).fill(backupCodes[0]!);
  await backup.getByRole("button", { name: t("twoFactor.signIn.submit") }).click();
  await expect(toast(page, t("signIn.signedIn", { name: "Grace Hopper" }))).toBeVisible();
  await page.goto(`${P}/profile/security`);
  await expect(page.getByTestId("two-factor-state")).toContainText(t("twoFactor.section.codesLeft", { count: "9" }));
}

export async function signOut(page: Page, locale: string) {
  const t = texts(locale);
  await page.getByRole("banner").getByLabel(t("common:nav.account")).click();
  await page.getByRole("button", { name: t("common:nav.signOut") }).click();
  await expect(toast(page, t("common:toast.signedOut"))).toBeVisible();
}

export async function signInWithPassword(page: Page, locale: string, email: string, password: string) {
  const t = texts(locale);
  await page.goto(`${prefixOf(locale)}/signin`);
  const form = formWith(page, t("signIn.submit"));
  await form.getByLabel(t("form.email"), { exact: true }).fill(email);
  await form.getByLabel(t("form.password"), { exact: true }).fill(password);
  await form.getByRole("button", { name: t("signIn.submit") }).click();
}
