import { expect, test } from "@playwright/test";
import { BASE_URL } from "../../playwright.config";
import { prefixOf, signedInAccount, texts, uniqueEmail } from "./support/auth";
import { waitForLink } from "./support/mail";

// An owner invites an address nobody has an account for; the invitee opens the email in
// another browser, signs up from the invitation page and lands in the organization.

for (const locale of ["en", "ja"] as const) {
  test(`an invited newcomer signs up from the email and joins (${locale})`, async ({ page, browser }) => {
    test.slow();
    const t = texts(locale);
    const P = prefixOf(locale);
    await signedInAccount(page, locale, "Olivia Owner");
    const slug = `invite-${locale}-${Date.now()}`;
    // The JSON API, as the owner's browser would call it (in the owner's language).
    const api = { Origin: BASE_URL, "Accept-Language": locale };
    expect(
      (
        await page.request.post("/api/auth/organization/create", { data: { name: "Invite Co", slug }, headers: api })
      ).status(),
    ).toBe(200);
    const email = uniqueEmail(`${locale}-invitee`);
    const invited = await page.request.post("/api/auth/organization/invite-member", {
      data: { email, role: "member" },
      headers: api,
    });
    expect(invited.status()).toBe(200);

    const invitee = await (await browser.newContext()).newPage();
    const invitation = await waitForLink(email, `${P}/invitations/`);
    await invitee.goto(invitation.url);
    await invitee.getByRole("link", { name: t("organization:invitation.signUp") }).click();
    await invitee.getByLabel(t("form.name"), { exact: true }).fill("Newton Comer");
    // The invitation's address, fixed: the account is made for it.
    const emailField = invitee.getByLabel(t("form.email"), { exact: true });
    await expect(emailField).toHaveValue(email);
    await expect(emailField).not.toBeEditable();
    await invitee.getByLabel(t("form.password"), { exact: true }).fill("newcomer-password-1");
    await invitee.getByLabel(t("form.confirmPassword"), { exact: true }).fill("newcomer-password-1");
    await invitee.getByRole("button", { name: t("signUp.submit") }).click();
    await expect(invitee.getByTestId("signup-sent")).toBeVisible();

    const verification = await waitForLink(email, "/api/auth/verify-email");
    await invitee.goto(verification.url);
    await expect(invitee).toHaveURL(new RegExp(`${P}/invitations/[^/]+$`));
    await expect(invitee.getByTestId("invitation")).toContainText("Invite Co");
    await expect(invitee.getByTestId("invitation-inviter")).toContainText("Olivia Owner");
    // The two answers side by side on one line each, whatever the language.
    for (const name of [t("organization:invitation.accept"), t("organization:invitation.decline")]) {
      expect((await invitee.getByRole("button", { name }).boundingBox())!.height).toBeLessThan(48);
    }
    await invitee.getByRole("button", { name: t("organization:invitation.accept") }).click();
    await expect(invitee).toHaveURL(new RegExp(`${P}/organizations/${slug}$`));
    await expect(invitee.locator("[data-toast]").filter({ hasText: "Invite Co" })).toBeVisible();
  });
}
