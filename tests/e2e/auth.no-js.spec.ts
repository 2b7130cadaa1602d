import { expect, test } from "@playwright/test";
import { formWith, prefixOf, texts, toast, uniqueEmail } from "./support/auth";
import { mailsTo, waitForLink } from "./support/mail";

// This file runs in the "no-js" project: JavaScript is disabled in Chromium. Every form is a
// plain POST; the server validates, answers errors next to the fields, and redirects with a
// flashed toast on success.

for (const locale of ["en", "ja"] as const) {
  test(`account lifecycle without JavaScript (${locale})`, async ({ page }) => {
    test.slow();
    const t = texts(locale);
    const P = prefixOf(locale);
    const email = uniqueEmail(`nojs-${locale}`);
    const [first, second, third] = ["first-password-123", "second-password-456", "third-password-789"];

    // ---- sign up: the server's validation, shown next to the field ----
    await page.goto(`${P}/signup`);
    await expect(page.locator("html")).not.toHaveClass(/js/);
    const signUp = formWith(page, t("signUp.submit"));
    await signUp.getByLabel(t("form.name"), { exact: true }).fill("Alan Turing");
    await signUp.getByLabel(t("form.email"), { exact: true }).fill(email);
    await signUp.getByLabel(t("form.password"), { exact: true }).fill(first);
    await signUp.getByLabel(t("form.confirmPassword"), { exact: true }).fill(second);
    await signUp.getByRole("button", { name: t("signUp.submit") }).click();
    const confirm = signUp.getByLabel(t("form.confirmPassword"), { exact: true });
    await expect(confirm).toHaveAttribute("aria-invalid", "true");
    await expect(signUp.getByText(t("form.passwordMismatch"))).toBeVisible();
    // What was typed comes back, except the passwords.
    await expect(signUp.getByLabel(t("form.email"), { exact: true })).toHaveValue(email);
    await expect(signUp.getByLabel(t("form.password"), { exact: true })).toHaveValue("");

    await signUp.getByLabel(t("form.password"), { exact: true }).fill(first);
    await confirm.fill(first);
    await signUp.getByRole("button", { name: t("signUp.submit") }).click();
    await expect(page).toHaveURL(`${P}/signup?sent=1`);
    await expect(page.getByTestId("signup-sent")).toBeVisible();
    await expect(toast(page, t("signUp.sentToast"))).toContainText(email);

    // ---- sign in before verifying: refused, with a resend button ----
    await page.goto(`${P}/signin`);
    const signIn = formWith(page, t("signIn.submit"));
    await signIn.getByLabel(t("form.email"), { exact: true }).fill(email);
    await signIn.getByLabel(t("form.password"), { exact: true }).fill(first);
    await signIn.getByRole("button", { name: t("signIn.submit") }).click();
    await expect(page.getByTestId("unverified-notice")).toContainText(email);
    await page.getByRole("button", { name: t("signIn.resend") }).click();
    await expect(toast(page, t("signIn.resent"))).toBeVisible();

    // ---- the emailed link verifies and signs in ----
    const { url } = await waitForLink(email, "/api/auth/verify-email", 2);
    await page.goto(url);
    await expect(page).toHaveURL(`${P}/dashboard`);
    await expect(toast(page, t("verifyEmail.successTitle"))).toContainText(t("verifyEmail.successBody"));

    // ---- change password in the security settings ----
    await page.goto(`${P}/profile/email`);
    await expect(page.getByTestId("email-status")).toHaveText(t("profile.email.verified"));
    await page.goto(`${P}/profile/security`);
    const passwordSection = page.locator("[data-section=password]");
    await passwordSection.getByLabel(t("form.currentPassword"), { exact: true }).fill("not-my-password");
    await passwordSection.getByLabel(t("form.newPassword"), { exact: true }).fill(second);
    await passwordSection.getByLabel(t("form.confirmPassword"), { exact: true }).fill(second);
    await passwordSection.getByRole("button", { name: t("profile.password.submit") }).click();
    await expect(passwordSection.getByLabel(t("form.currentPassword"), { exact: true })).toHaveAttribute(
      "aria-invalid",
      "true",
    );
    await expect(passwordSection.getByText(t("errors.INVALID_PASSWORD"))).toBeVisible();
    await passwordSection.getByLabel(t("form.currentPassword"), { exact: true }).fill(first);
    await passwordSection.getByLabel(t("form.newPassword"), { exact: true }).fill(second);
    await passwordSection.getByLabel(t("form.confirmPassword"), { exact: true }).fill(second);
    await passwordSection.getByLabel(t("profile.password.revokeOthers")).check();
    await passwordSection.getByRole("button", { name: t("profile.password.submit") }).click();
    await expect(page).toHaveURL(`${P}/profile/security`);
    await expect(toast(page, t("profile.password.changed"))).toContainText(t("profile.password.changedOthers"));
    // Still signed in: the replacement session is this browser's.
    await page.goto(`${P}/profile/sessions`);
    await expect(page.getByTestId("session-list").locator("tr")).toHaveCount(1);

    // ---- profile name, shown in the page and the navbar after the redirect ----
    await page.goto(`${P}/profile`);
    const profile = page.locator("[data-section=profile]");
    await profile.getByLabel(t("profile.profile.name"), { exact: true }).fill("Alan M. Turing");
    await profile.getByRole("button", { name: t("profile.profile.submit") }).click();
    await expect(toast(page, t("profile.profile.saved"))).toBeVisible();
    await expect(page.locator("header")).toContainText("Alan M. Turing");

    // ---- sign out ----
    await page.getByRole("banner").getByLabel(t("common:nav.account")).click();
    await page.getByRole("button", { name: t("common:nav.signOut") }).click();
    await expect(page).toHaveURL(P || "/");
    await expect(toast(page, t("common:toast.signedOut"))).toBeVisible();

    // ---- reset the password through the emailed link ----
    await page.goto(`${P}/forgot-password`);
    const before = mailsTo(email).length;
    await formWith(page, t("forgotPassword.submit")).getByLabel(t("form.email"), { exact: true }).fill(email);
    await page.getByRole("button", { name: t("forgotPassword.submit") }).click();
    await expect(page.getByTestId("reset-sent")).toBeVisible();
    const reset = await waitForLink(email, "/api/auth/reset-password/", before);
    await page.goto(reset.url);
    await expect(page).toHaveURL(new RegExp(`${P}/reset-password\\?token=`));
    const resetForm = formWith(page, t("resetPassword.submit"));
    await resetForm.getByLabel(t("form.newPassword"), { exact: true }).fill(third);
    await resetForm.getByLabel(t("form.confirmPassword"), { exact: true }).fill(third);
    await resetForm.getByRole("button", { name: t("resetPassword.submit") }).click();
    await expect(page).toHaveURL(`${P}/signin`);
    await expect(toast(page, t("resetPassword.done"))).toBeVisible();

    // ---- sign in with the new password, back to the page asked for ----
    await page.goto(`${P}/profile`);
    await expect(page).toHaveURL(new RegExp(`${P}/signin\\?redirect=`));
    await signIn.getByLabel(t("form.email"), { exact: true }).fill(email);
    await signIn.getByLabel(t("form.password"), { exact: true }).fill(second);
    await signIn.getByRole("button", { name: t("signIn.submit") }).click();
    await expect(signIn.getByText(t("errors.INVALID_EMAIL_OR_PASSWORD"))).toBeVisible();
    await signIn.getByLabel(t("form.password"), { exact: true }).fill(third);
    await signIn.getByRole("button", { name: t("signIn.submit") }).click();
    await expect(page).toHaveURL(`${P}/profile`);
    await expect(toast(page, t("signIn.signedIn", { name: "Alan M. Turing" }))).toBeVisible();

    // ---- delete the account (the confirmation step is a native disclosure) ----
    await page.goto(`${P}/profile/data`);
    const danger = page.locator("[data-section=danger]");
    await danger.getByText(t("profile.danger.open")).click();
    await danger.getByLabel(t("profile.danger.confirmPassword")).fill(third);
    await danger.getByRole("button", { name: t("profile.danger.submit") }).click();
    await expect(page).toHaveURL(P || "/");
    await expect(toast(page, t("profile.danger.deleted"))).toBeVisible();
    await expect(page.getByRole("banner").getByRole("link", { name: t("common:nav.signIn") })).toBeVisible();
    await page.goto(`${P}/profile`);
    await expect(page).toHaveURL(new RegExp(`${P}/signin\\?redirect=`));
  });
}
