import { expect, test, type Page } from "@playwright/test";
import { formWith, prefixOf, signedInAccount, texts, toast } from "./support/auth";

// Passkeys in Chromium with its virtual authenticator (DevTools protocol): sign in with the
// password, add a passkey from the profile, rename it with JavaScript off, sign out, and
// sign in again with the passkey button, in two languages.

/** A platform authenticator that holds discoverable credentials and verifies its user. */
async function virtualAuthenticator(page: Page) {
  const cdp = await page.context().newCDPSession(page);
  await cdp.send("WebAuthn.enable");
  const { authenticatorId } = await cdp.send("WebAuthn.addVirtualAuthenticator", {
    options: {
      protocol: "ctap2",
      transport: "internal",
      hasResidentKey: true,
      hasUserVerification: true,
      isUserVerified: true,
    },
  });
  return { credentials: async () => (await cdp.send("WebAuthn.getCredentials", { authenticatorId })).credentials };
}

async function hydrated(page: Page) {
  await expect(page.locator("html")).toHaveAttribute("data-hydrated", "true");
}

for (const locale of ["en", "ja"] as const) {
  test(`passkeys: add, rename without JavaScript, sign in with one (${locale})`, async ({ page, browser }) => {
    test.slow();
    const t = texts(locale);
    const P = prefixOf(locale);
    const authenticator = await virtualAuthenticator(page);
    const { email, password, name } = await signedInAccount(page, locale);

    // ---- sign in with the password ----
    await page.context().clearCookies();
    await page.goto(`${P}/signin`);
    await hydrated(page);
    const signIn = formWith(page, t("signIn.submit"));
    await signIn.getByLabel(t("form.email"), { exact: true }).fill(email);
    await signIn.getByLabel(t("form.password"), { exact: true }).fill(password);
    await signIn.getByRole("button", { name: t("signIn.submit") }).click();
    await expect(toast(page, t("signIn.signedIn", { name }))).toBeVisible();

    // ---- add a passkey from the security settings ----
    await page.goto(`${P}/profile/security`);
    await hydrated(page);
    const section = page.locator("[data-section=passkeys]");
    await expect(section.getByTestId("passkey-empty")).toHaveText(t("passkeys.empty"));
    await section.getByLabel(t("passkeys.addName"), { exact: true }).fill("Work laptop");
    await section.getByRole("button", { name: t("passkeys.add") }).click();
    await expect(toast(page, t("passkeys.added"))).toBeVisible();
    const rows = section.getByTestId("passkey-list").locator("li");
    await expect(rows).toHaveCount(1);
    await expect(rows.getByTestId("passkey-name")).toHaveText("Work laptop");
    await expect(rows).toContainText(t("passkeys.deviceTypes.singleDevice"));
    expect(await authenticator.credentials()).toHaveLength(1);

    // ---- rename it in a browser without JavaScript (same session): no "add" there ----
    const plain = await browser.newContext({
      javaScriptEnabled: false,
      storageState: await page.context().storageState(),
    });
    const plainPage = await plain.newPage();
    await plainPage.goto(`${P}/profile/security`);
    const plainSection = plainPage.locator("[data-section=passkeys]");
    await expect(plainSection.getByTestId("passkey-name")).toHaveText("Work laptop");
    await expect(plainSection.getByTestId("add-passkey")).toHaveCount(0);
    await plainSection.getByText(t("passkeys.rename"), { exact: true }).click();
    await plainSection.getByLabel(t("passkeys.newName"), { exact: true }).fill("  Home laptop ");
    await plainSection.getByRole("button", { name: t("passkeys.save") }).click();
    await expect(plainPage).toHaveURL(`${P}/profile/security#passkeys`);
    await expect(toast(plainPage, t("passkeys.renamed"))).toBeVisible();
    await expect(plainSection.getByTestId("passkey-name")).toHaveText("Home laptop");
    await plain.close();

    // Without JavaScript the sign-in page has no passkey button.
    const anonymous = await browser.newContext({ javaScriptEnabled: false });
    const anonymousPage = await anonymous.newPage();
    await anonymousPage.goto(`${P}/signin`);
    await expect(formWith(anonymousPage, t("signIn.submit"))).toBeVisible();
    await expect(anonymousPage.getByRole("button", { name: t("passkeys.signIn") })).toHaveCount(0);
    await anonymous.close();

    // ---- sign out; the email field offers the passkey (conditional UI) ----
    // Chromium's virtual authenticator answers a conditional request at once, as if the
    // person had picked the passkey among the field's suggestions.
    const signOut = async () => {
      await page.getByRole("banner").getByLabel(t("common:nav.account")).click();
      await page
        .getByRole("banner")
        .getByRole("button", { name: t("common:nav.signOut") })
        .click();
      await expect(toast(page, t("common:toast.signedOut"))).toBeVisible();
    };
    await page.reload();
    await expect(rows.getByTestId("passkey-name")).toHaveText("Home laptop");
    await signOut();
    await page.goto(`${P}/signin?redirect=${encodeURIComponent(`${P}/profile/email`)}`);
    await expect(page).toHaveURL(`${P}/profile/email`);
    await expect(page.getByTestId("profile-email")).toHaveText(email);

    // ---- sign out, then sign in with the button; `redirect` brings us back ----
    await page.addInitScript(() => {
      // No conditional request this time, so that the button's own ceremony is the one used.
      PublicKeyCredential.isConditionalMediationAvailable = () => Promise.resolve(false);
    });
    await signOut();
    await page.goto(`${P}/profile/email`);
    await expect(page).toHaveURL(new RegExp(`${P}/signin\\?redirect=`));
    await hydrated(page);
    const emailField = formWith(page, t("signIn.submit")).getByLabel(t("form.email"), { exact: true });
    await expect(emailField).toHaveAttribute("autocomplete", "username webauthn");
    await page.getByRole("button", { name: t("passkeys.signIn") }).click();
    await expect(page).toHaveURL(`${P}/profile/email`);
    await expect(page.getByRole("banner").getByLabel(t("common:nav.account"))).toBeVisible();
    await expect(page.getByTestId("profile-email")).toHaveText(email);
  });
}
