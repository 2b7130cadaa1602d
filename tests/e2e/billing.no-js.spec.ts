import { expect, test } from "@playwright/test";
import { prefixOf, signedInAccount, texts, toast } from "./support/auth";

// Subscriptions without JavaScript: the pricing toggle is a link, the checkout form's
// redirect to the provider is allowed by the page's form-action, the success page refreshes
// itself until the webhook has arrived, and the billing area's buttons are plain forms.

for (const locale of ["en", "zh-CN"] as const) {
  test(`subscribes, cancels and restores without JavaScript (${locale})`, async ({ page }) => {
    const t = texts(locale);
    const P = prefixOf(locale);
    await signedInAccount(page, locale);

    await page.goto(`${P}/pricing`);
    await page.getByRole("link", { name: t("pricing:interval.yearly") }).click();
    await expect(page).toHaveURL(`${P}/pricing?interval=yearly`);
    await page.getByRole("link", { name: t("pricing:interval.monthly") }).click();
    const team = page.locator('[data-plan="team"]');
    await team.getByRole("link", { name: t("pricing:cta.paid") }).click();
    await expect(page).toHaveURL(`${P}/checkout?plan=team&interval=monthly`);

    await page.getByRole("button", { name: t("billing:checkout.submit") }).click();
    await expect(page).toHaveURL(/127\.0\.0\.1:\d+\/c\/pay\//);
    await page.getByRole("button", { name: "Subscribe" }).click();
    const plan = t("pricing:plans.team.name");
    await expect(page.getByRole("heading", { name: t("billing:success.title", { plan }) })).toBeVisible();

    await page.goto(`${P}/billing`);
    const mine = page.locator("section").filter({ hasText: t("billing:personal") });
    await mine.getByRole("button", { name: t("billing:cancel") }).click();
    await expect(toast(page, t("billing:toast.canceled").split("{{date}}")[0]!.trim())).toBeVisible();
    await expect(mine).toContainText(t("billing:endsOn"));
    await mine.getByRole("button", { name: t("billing:restore") }).click();
    await expect(toast(page, t("billing:toast.restored"))).toBeVisible();
    await expect(mine).toContainText(t("billing:renewsOn"));
  });
}
