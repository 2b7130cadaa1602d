import { expect, test, type Page } from "@playwright/test";
import { formWith, prefixOf, signedInAccount, texts, toast, uniqueEmail } from "./support/auth";
import { mailsTo, waitForLink } from "./support/mail";

// The whole account life, with JavaScript, in two languages: sign up, open the emailed link,
// sign in, change the password, manage sessions, sign out, reset the password, delete.

/** Holds every POST to a page action for `ms`, so the pending state can be seen. */
async function slowActions(page: Page, ms = 600) {
  await page.route(/\.data(\?|$)/, async (route) => {
    if (route.request().method() === "POST") await new Promise((resolve) => setTimeout(resolve, ms));
    await route.continue();
  });
}

/**
 * The whole document is hydrated (the root marks it once React has taken over), and Conform
 * has marked its forms novalidate: from then on JavaScript validates.
 */
async function hydrated(page: Page) {
  await expect(page.locator("html")).toHaveAttribute("data-hydrated", "true");
  await expect(page.locator("main form[novalidate]").first()).toBeAttached();
}

for (const locale of ["en", "fr"] as const) {
  test(`account lifecycle with JavaScript (${locale})`, async ({ page, browser }) => {
    // Sign-up to deletion, through every settings section on its own page.
    test.setTimeout(180_000);
    const t = texts(locale);
    const P = prefixOf(locale);
    const email = uniqueEmail(locale);
    const [first, second, third] = ["first-password-123", "second-password-456", "third-password-789"];
    const actionPosts: string[] = [];
    page.on("request", (request) => {
      if (request.method() === "POST") actionPosts.push(new URL(request.url()).pathname);
    });

    // ---- sign up: the browser validates first, with the server's schema and messages ----
    await page.goto(`${P}/signup`);
    await hydrated(page);
    const signUp = formWith(page, t("signUp.submit"));
    await signUp.getByLabel(t("form.name"), { exact: true }).fill("Ada Lovelace");
    await signUp.getByLabel(t("form.email"), { exact: true }).fill(email);
    await signUp.getByLabel(t("form.password"), { exact: true }).fill("short");
    await signUp.getByLabel(t("form.confirmPassword"), { exact: true }).fill("different");
    await signUp.getByRole("button", { name: t("signUp.submit") }).click();
    const password = signUp.getByLabel(t("form.password"), { exact: true });
    const confirm = signUp.getByLabel(t("form.confirmPassword"), { exact: true });
    await expect(password).toHaveAttribute("aria-invalid", "true");
    await expect(signUp.getByText(t("errors.PASSWORD_TOO_SHORT"))).toBeVisible();
    await expect(confirm).toHaveAttribute("aria-invalid", "true");
    const confirmError = signUp.getByText(t("form.passwordMismatch"));
    await expect(confirmError).toBeVisible();
    // The error is the input's description, for screen readers.
    const describedBy = (await confirm.getAttribute("aria-describedby"))!.split(" ");
    expect(describedBy).toContain(await confirmError.locator("xpath=ancestor::div[@id][1]").getAttribute("id"));
    expect(actionPosts).toEqual([]); // nothing went to the server

    await password.fill(first);
    await confirm.fill(first);
    await expect(confirm).not.toHaveAttribute("aria-invalid", "true");
    await slowActions(page);
    await signUp.getByRole("button", { name: t("signUp.submit") }).click();
    // Pending: the button is disabled and says what is happening.
    const pendingButton = page.getByRole("button", { name: t("signUp.pending") });
    await expect(pendingButton).toBeDisabled();
    await expect(pendingButton).toHaveAttribute("aria-busy", "true");
    await expect(page.getByTestId("signup-sent")).toBeVisible();
    await expect(page).toHaveURL(`${P}/signup?sent=1`);
    await expect(toast(page, t("signUp.sentToast"))).toContainText(email);
    await page.unroute(/\.data(\?|$)/);
    const verification = await waitForLink(email, "/api/auth/verify-email");
    expect(verification.mail.subject).toBeTruthy();
    expect(new URL(verification.url).searchParams.get("callbackURL")).toBe(`${P}/verify-email`);

    // ---- sign in before verifying: refused, a new link goes out, and one more on request ----
    await page.goto(`${P}/signin`);
    await hydrated(page);
    const signIn = formWith(page, t("signIn.submit"));
    await expect(signIn.getByLabel(t("signIn.rememberMe"))).toBeChecked();
    await signIn.getByLabel(t("form.email"), { exact: true }).fill(email);
    await signIn.getByLabel(t("form.password"), { exact: true }).fill(first);
    await signIn.getByRole("button", { name: t("signIn.submit") }).click();
    await expect(page.getByTestId("unverified-notice")).toContainText(email);
    await waitForLink(email, "/api/auth/verify-email", 1);
    await page.getByRole("button", { name: t("signIn.resend") }).click();
    await expect(toast(page, t("signIn.resent"))).toBeVisible();
    const latest = await waitForLink(email, "/api/auth/verify-email", 2);

    // ---- the emailed link verifies the address and signs in ----
    await page.goto(latest.url);
    await expect(page).toHaveURL(`${P}/dashboard`);
    await expect(toast(page, t("verifyEmail.successTitle"))).toContainText(t("verifyEmail.successBody"));
    await expect(page.getByRole("banner").getByLabel(t("common:nav.account"))).toBeVisible();

    // ---- profile: fresh data after each action, with a toast ----
    await page
      .getByTestId("app-nav")
      .getByRole("link", { name: t("common:nav.settings") })
      .click();
    await expect(page).toHaveURL(`${P}/profile`);
    await hydrated(page);
    const settingsTabs = page.getByRole("navigation", { name: t("common:settings.label") });
    await settingsTabs.getByRole("link", { name: t("common:settings.email") }).click();
    await expect(page).toHaveURL(`${P}/profile/email`);
    await expect(page.getByTestId("profile-email")).toHaveText(email);
    await expect(page.getByTestId("email-status")).toHaveText(t("profile.email.verified"));
    await settingsTabs.getByRole("link", { name: t("common:settings.profile") }).click();
    await expect(page).toHaveURL(`${P}/profile`);
    const profile = page.locator("[data-section=profile]");
    await profile.getByLabel(t("profile.profile.name"), { exact: true }).fill("Ada King");
    await slowActions(page);
    await profile.getByRole("button", { name: t("profile.profile.submit") }).click();
    await expect(profile.getByRole("button", { name: t("profile.profile.pending") })).toBeDisabled();
    await expect(toast(page, t("profile.profile.saved"))).toBeVisible();
    await page.unroute(/\.data(\?|$)/);
    await page.getByRole("banner").getByLabel(t("common:nav.account")).click();
    await expect(page.locator("header")).toContainText("Ada King");
    await page.getByRole("banner").getByLabel(t("common:nav.account")).click();

    // ---- change password: a wrong current password is answered next to its field ----
    await settingsTabs.getByRole("link", { name: t("common:settings.security") }).click();
    await expect(page).toHaveURL(`${P}/profile/security`);
    const passwordSection = page.locator("[data-section=password]");
    const current = passwordSection.getByLabel(t("form.currentPassword"), { exact: true });
    await current.fill("not-my-password");
    await passwordSection.getByLabel(t("form.newPassword"), { exact: true }).fill(second);
    await passwordSection.getByLabel(t("form.confirmPassword"), { exact: true }).fill(second);
    await passwordSection.getByRole("button", { name: t("profile.password.submit") }).click();
    await expect(current).toHaveAttribute("aria-invalid", "true");
    await expect(passwordSection.getByText(t("errors.INVALID_PASSWORD"))).toBeVisible();
    await current.fill(first);
    await passwordSection.getByLabel(t("form.newPassword"), { exact: true }).fill(second);
    await passwordSection.getByLabel(t("form.confirmPassword"), { exact: true }).fill(second);
    await passwordSection.getByRole("button", { name: t("profile.password.submit") }).click();
    await expect(toast(page, t("profile.password.changed"))).toBeVisible();
    await expect(current).toHaveValue(""); // the form starts afresh

    // ---- sessions: a second device appears and can be signed out from here ----
    const other = await browser.newContext();
    const otherPage = await other.newPage();
    await otherPage.goto(`${P}/signin`);
    const otherSignIn = formWith(otherPage, t("signIn.submit"));
    await otherSignIn.getByLabel(t("form.email"), { exact: true }).fill(email);
    await otherSignIn.getByLabel(t("form.password"), { exact: true }).fill(second);
    await otherSignIn.getByRole("button", { name: t("signIn.submit") }).click();
    await expect(otherPage).toHaveURL(`${P}/dashboard`);
    await settingsTabs.getByRole("link", { name: t("common:settings.sessions") }).click();
    await expect(page).toHaveURL(`${P}/profile/sessions`);
    const sessions = page.getByTestId("session-list").locator("tr");
    await expect(sessions).toHaveCount(2);
    await expect(sessions.filter({ hasText: t("profile.sessions.current") })).toHaveCount(1);
    await sessions
      .and(page.locator(":not([data-current])"))
      .getByRole("button", { name: t("profile.sessions.revoke") })
      .click();
    await expect(toast(page, t("profile.sessions.revoked"))).toBeVisible();
    await expect(sessions).toHaveCount(1);
    // The other browser's signed cookie cache may vouch for it up to 60 s more (by design);
    // once that is gone the revoked session no longer opens anything.
    await other.clearCookies({ name: /session_data/ });
    await otherPage.goto(`${P}/profile`);
    await expect(otherPage).toHaveURL(new RegExp(`${P}/signin\\?redirect=`));
    await other.close();

    // ---- sign out ----
    await page.getByRole("banner").getByLabel(t("common:nav.account")).click();
    await page.getByRole("button", { name: t("common:nav.signOut") }).click();
    await expect(page).toHaveURL(P || "/");
    await expect(toast(page, t("common:toast.signedOut"))).toBeVisible();

    // ---- sign in again with the new password; `redirect` brings us back ----
    await page.goto(`${P}/profile`);
    await expect(page).toHaveURL(new RegExp(`${P}/signin\\?redirect=`));
    await hydrated(page);
    await signIn.getByLabel(t("form.email"), { exact: true }).fill(email);
    await signIn.getByLabel(t("form.password"), { exact: true }).fill(first);
    await signIn.getByRole("button", { name: t("signIn.submit") }).click();
    await expect(signIn.getByText(t("errors.INVALID_EMAIL_OR_PASSWORD"))).toBeVisible();
    await signIn.getByLabel(t("form.password"), { exact: true }).fill(second);
    await slowActions(page);
    await signIn.getByRole("button", { name: t("signIn.submit") }).click();
    await expect(page.getByRole("button", { name: t("signIn.pending") })).toBeDisabled();
    await expect(page).toHaveURL(`${P}/profile`);
    await expect(toast(page, t("signIn.signedIn", { name: "Ada King" }))).toBeVisible();
    await page.unroute(/\.data(\?|$)/);
    await page.getByRole("banner").getByLabel(t("common:nav.account")).click();
    await page.getByRole("button", { name: t("common:nav.signOut") }).click();
    await expect(page).toHaveURL(P || "/");

    // ---- forgot password → emailed link → new password ----
    await page.goto(`${P}/signin`);
    await page.getByRole("link", { name: t("signIn.forgotPassword") }).click();
    await expect(page).toHaveURL(`${P}/forgot-password`);
    await hydrated(page);
    const mailsBefore = mailsTo(email).length;
    const forgot = formWith(page, t("forgotPassword.submit"));
    await forgot.getByLabel(t("form.email"), { exact: true }).fill(email);
    await forgot.getByRole("button", { name: t("forgotPassword.submit") }).click();
    await expect(page.getByTestId("reset-sent")).toBeVisible();
    const reset = await waitForLink(email, "/api/auth/reset-password/", mailsBefore);
    await page.goto(reset.url);
    await expect(page).toHaveURL(new RegExp(`${P}/reset-password\\?token=`));
    await hydrated(page);
    const resetForm = formWith(page, t("resetPassword.submit"));
    await resetForm.getByLabel(t("form.newPassword"), { exact: true }).fill(third);
    await resetForm.getByLabel(t("form.confirmPassword"), { exact: true }).fill(third);
    await resetForm.getByRole("button", { name: t("resetPassword.submit") }).click();
    await expect(page).toHaveURL(`${P}/signin`);
    await expect(toast(page, t("resetPassword.done"))).toBeVisible();
    // The link is single use.
    await page.goto(reset.url);
    await expect(page.getByTestId("reset-invalid")).toBeVisible();

    await page.goto(`${P}/signin`);
    await hydrated(page);
    await signIn.getByLabel(t("form.email"), { exact: true }).fill(email);
    await signIn.getByLabel(t("form.password"), { exact: true }).fill(third);
    await signIn.getByRole("button", { name: t("signIn.submit") }).click();
    await expect(page).toHaveURL(`${P}/dashboard`);

    // ---- delete the account: confirmed with the password ----
    await page.goto(`${P}/profile/data`);
    await hydrated(page);
    const danger = page.locator("[data-section=danger]");
    await danger.getByText(t("profile.danger.open")).click();
    const confirmPassword = danger.getByLabel(t("profile.danger.confirmPassword"));
    await confirmPassword.fill(second);
    await danger.getByRole("button", { name: t("profile.danger.submit") }).click();
    await expect(confirmPassword).toHaveAttribute("aria-invalid", "true");
    await expect(danger.getByText(t("errors.INVALID_PASSWORD"))).toBeVisible();
    await confirmPassword.fill(third);
    await danger.getByRole("button", { name: t("profile.danger.submit") }).click();
    await expect(page).toHaveURL(P || "/");
    await expect(toast(page, t("profile.danger.deleted"))).toBeVisible();
    await expect(page.getByRole("banner").getByRole("link", { name: t("common:nav.signIn") })).toBeVisible();

    // The account is gone.
    await page.goto(`${P}/signin`);
    await hydrated(page);
    await signIn.getByLabel(t("form.email"), { exact: true }).fill(email);
    await signIn.getByLabel(t("form.password"), { exact: true }).fill(third);
    await signIn.getByRole("button", { name: t("signIn.submit") }).click();
    await expect(signIn.getByText(t("errors.INVALID_EMAIL_OR_PASSWORD"))).toBeVisible();
  });
}

test("the verify-email landing explains each failure and offers a way on (ja)", async ({ page }) => {
  const t = texts("ja");
  for (const error of ["token_expired", "invalid_token", "user_not_found", "unauthorized"]) {
    await page.goto(`/ja/verify-email?error=${error}`);
    await expect(page.getByTestId("verify-error")).toContainText(t(`verifyEmail.errors.${error}.body`));
    await expect(page.getByRole("heading", { level: 1 })).toHaveText(t(`verifyEmail.errors.${error}.title`));
  }
  // An expired link: ask for a new one from the page.
  await page.goto(`/ja/verify-email?error=token_expired`);
  await hydrated(page);
  const form = formWith(page, t("verifyEmail.resendSubmit"));
  await form.getByLabel(t("form.email"), { exact: true }).fill("nobody@example.com");
  await form.getByRole("button", { name: t("verifyEmail.resendSubmit") }).click();
  await expect(toast(page, t("verifyEmail.resent"))).toBeVisible();
});

// ---- screenshots of what a person sees (tests/artifacts/screenshots) ----
for (const locale of ["en", "ja"] as const) {
  for (const scheme of ["light", "dark"] as const) {
    for (const name of ["signin", "signup", "profile"] as const) {
      test(`screenshot ${locale} ${name} (${scheme})`, async ({ page }, testInfo) => {
        await page.emulateMedia({ colorScheme: scheme });
        if (name === "profile") await signedInAccount(page, locale);
        await page.goto(`${prefixOf(locale)}/${name}`);
        await expect(page.locator("html")).toHaveClass(new RegExp(scheme));
        await hydrated(page);
        const path = `tests/artifacts/screenshots/${locale}-${name}-${scheme}.png`;
        await page.screenshot({ path, fullPage: true });
        await testInfo.attach(`${locale}-${name}-${scheme}.png`, { path, contentType: "image/png" });
      });
    }
  }
}
