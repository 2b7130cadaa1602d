import { expect, type Browser, type Page } from "@playwright/test";
import { BASE_URL } from "../../../playwright.config";
import { formWith, prefixOf, signedInAccount, texts, toast } from "./auth";

/**
 * Account settings from a person's side, the same with JavaScript on or off: each of the five
 * sections opened by its own address (the tab bar marks it), and one form used in each, its
 * answer coming back to that same address.
 */
export async function settingsJourney(page: Page, browser: Browser, locale: string, scripted: boolean) {
  const t = texts(locale);
  const P = prefixOf(locale);
  const { email, password } = await signedInAccount(page, locale);
  const tabs = page.getByRole("navigation", { name: t("common:settings.label") });
  const open = async (path: string, section: string) => {
    await page.goto(`${P}${path}`);
    await expect(tabs.getByRole("link", { name: t(`common:settings.${section}`) })).toHaveAttribute(
      "aria-current",
      "page",
    );
    await expect(page).toHaveTitle(
      new RegExp(`^${t("common:meta.settings.sectionTitle", { section: t(`common:settings.${section}`) })} · `),
    );
    // With scripts on, forms are used once React has taken over (Conform's checks are live).
    if (scripted) await expect(page.locator("html")).toHaveAttribute("data-hydrated", "true");
  };

  // ---- profile: the name ----
  await open("/profile", "profile");
  const profile = formWith(page, t("profile.profile.submit"));
  await profile.getByLabel(t("profile.profile.name"), { exact: true }).fill("Grace B. Hopper");
  await profile.getByRole("button", { name: t("profile.profile.submit") }).click();
  await expect(toast(page, t("profile.profile.saved"))).toBeVisible();
  await expect(page).toHaveURL(`${P}/profile`);
  await expect(profile.getByLabel(t("profile.profile.name"), { exact: true })).toHaveValue("Grace B. Hopper");

  // ---- email: the address, verified; a change is confirmed by the old address ----
  await open("/profile/email", "email");
  await expect(page.getByTestId("profile-email")).toHaveText(email);
  await expect(page.getByTestId("email-status")).toHaveText(t("profile.email.verified"));
  const change = formWith(page, t("profile.email.submit"));
  const newEmail = `moved-${email}`;
  await change.getByLabel(t("profile.email.newEmail"), { exact: true }).fill(newEmail);
  await change.getByRole("button", { name: t("profile.email.submit") }).click();
  await expect(toast(page, t("profile.email.confirmSent"))).toBeVisible();
  await expect(page).toHaveURL(`${P}/profile/email`);

  // ---- security: a wrong current password is answered next to its field ----
  await open("/profile/security", "security");
  await expect(page.getByTestId("two-factor-state")).toContainText(t("twoFactor.section.off"));
  const passwordForm = formWith(page, t("profile.password.submit"));
  const current = passwordForm.getByLabel(t("form.currentPassword"), { exact: true });
  await current.fill("not-my-password");
  await passwordForm.getByLabel(t("form.newPassword"), { exact: true }).fill("a-new-password-2");
  await passwordForm.getByLabel(t("form.confirmPassword"), { exact: true }).fill("a-new-password-2");
  await passwordForm.getByRole("button", { name: t("profile.password.submit") }).click();
  await expect(current).toHaveAttribute("aria-invalid", "true");
  await expect(page).toHaveURL(`${P}/profile/security`);
  await current.fill(password);
  await passwordForm.getByLabel(t("form.newPassword"), { exact: true }).fill("a-new-password-2");
  await passwordForm.getByLabel(t("form.confirmPassword"), { exact: true }).fill("a-new-password-2");
  await passwordForm.getByRole("button", { name: t("profile.password.submit") }).click();
  await expect(toast(page, t("profile.password.changed"))).toBeVisible();
  await expect(page).toHaveURL(`${P}/profile/security`);

  // ---- sessions: another device, in the table, signed out from here ----
  const other = await browser.newContext();
  const signedIn = await other.request.post("/api/auth/sign-in/email", {
    data: { email, password: "a-new-password-2" },
    headers: { Origin: BASE_URL, "User-Agent": "Mozilla/5.0 (iPhone; CPU iPhone OS 17_4 like Mac OS X)" },
  });
  expect(signedIn.status()).toBe(200);
  await open("/profile/sessions", "sessions");
  const rows = page.getByTestId("session-list").locator("tr");
  await expect(rows).toHaveCount(2);
  await expect(rows.filter({ hasText: t("profile.sessions.current") })).toHaveCount(1);
  await rows
    .and(page.locator(":not([data-current])"))
    .getByRole("button", { name: t("profile.sessions.revoke") })
    .click();
  await expect(toast(page, t("profile.sessions.revoked"))).toBeVisible();
  await expect(page).toHaveURL(`${P}/profile/sessions`);
  await expect(rows).toHaveCount(1);
  await other.close();

  // ---- your data: the download link, then the account's deletion ----
  await open("/profile/data", "data");
  await expect(page.getByRole("link", { name: t("profile.data.download") })).toHaveAttribute(
    "href",
    `${P}/profile/data.json`,
  );
  const danger = page.locator("[data-section=danger]");
  await danger.getByText(t("profile.danger.open")).click();
  const confirm = danger.getByLabel(t("profile.danger.confirmPassword"));
  await confirm.fill("not-my-password");
  await danger.getByRole("button", { name: t("profile.danger.submit") }).click();
  await expect(confirm).toHaveAttribute("aria-invalid", "true");
  await expect(page).toHaveURL(`${P}/profile/data`);
  await confirm.fill("a-new-password-2");
  await danger.getByRole("button", { name: t("profile.danger.submit") }).click();
  await expect(toast(page, t("profile.danger.deleted"))).toBeVisible();
  await expect(page).toHaveURL(P || "/");
}
