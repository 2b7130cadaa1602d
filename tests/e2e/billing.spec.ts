import { expect, test, type Browser, type Page } from "@playwright/test";
import { prefixOf, signedInAccount, texts, toast } from "./support/auth";

// Subscriptions with JavaScript, against the Stripe stand-in (playwright.config.ts): the
// pricing toggle, a guest's way through sign-in to the provider's checkout and back, and the
// billing area (cancel, restore). billing.no-js.spec.ts does the same without JavaScript.

/** A verified account made in another browser context, so this page stays a guest's. */
async function accountElsewhere(browser: Browser, locale: string) {
  const context = await browser.newContext();
  const account = await signedInAccount(await context.newPage(), locale, "Ada Lovelace");
  await context.close();
  return account;
}

const money = (locale: string, amount: number) =>
  new Intl.NumberFormat(locale, { style: "currency", currency: "USD", maximumFractionDigits: 0 }).format(amount);

async function hydrated(page: Page) {
  await expect(page.locator("html")).toHaveAttribute("data-hydrated", "true");
}

for (const locale of ["en", "zh-CN"] as const) {
  test(`pricing toggle, guest to checkout and back, then cancel and restore (${locale})`, async ({ page, browser }) => {
    const t = texts(locale);
    const P = prefixOf(locale);
    const account = await accountElsewhere(browser, locale);

    // ---- pricing (plain HTML, never hydrated): the interval toggle is a link ----
    await page.goto(`${P}/pricing`);
    const pro = page.locator('[data-plan="pro"]');
    await expect(pro).toContainText(money(locale, 19));
    await page.getByRole("link", { name: t("pricing:interval.yearly") }).click();
    await expect(page).toHaveURL(`${P}/pricing?interval=yearly`);
    await expect(pro).toContainText(money(locale, 190));
    await expect(pro).toContainText(t("pricing:perYear"));

    // ---- a guest is sent to sign in, and comes back to the checkout ----
    await pro.getByRole("link", { name: t("pricing:cta.paid") }).click();
    await expect(page).toHaveURL(new RegExp(`${P}/signin\\?redirect=`));
    await hydrated(page);
    await page.getByLabel(t("form.email")).fill(account.email);
    await page.getByLabel(t("form.password"), { exact: true }).fill(account.password);
    await page.getByRole("button", { name: t("signIn.submit"), exact: true }).click();
    await expect(page).toHaveURL(`${P}/checkout?plan=pro&interval=yearly`);
    await expect(page.getByTestId("checkout-price")).toHaveText(money(locale, 190));

    // ---- off to the provider's hosted checkout, and back once it has told us ----
    await page.getByRole("button", { name: t("billing:checkout.submit") }).click();
    await expect(page).toHaveURL(/127\.0\.0\.1:\d+\/c\/pay\//);
    await page.getByRole("button", { name: "Subscribe" }).click();
    await expect(page).toHaveURL(new RegExp(`${P}/billing/success\\?reference=`));
    const plan = t("pricing:plans.pro.name");
    await expect(page.getByRole("heading", { name: t("billing:success.title", { plan }) })).toBeVisible();
    await expect(page.getByTestId("plan-badge")).toHaveText(t("common:plans.pro"), { useInnerText: false });

    // ---- the billing area: trial, cancel at period end, restore ----
    await page.getByRole("link", { name: t("billing:success.toBilling") }).click();
    await expect(page).toHaveURL(`${P}/billing`);
    const mine = page.locator("section").filter({ hasText: t("billing:personal") });
    await expect(mine.getByTestId("subscription")).toContainText(plan);
    await expect(mine.getByTestId("subscription")).toContainText(t("billing:status.trialing"));
    await mine.getByRole("button", { name: t("billing:cancel") }).click();
    await expect(toast(page, t("billing:toast.canceled").split("{{date}}")[0]!.trim())).toBeVisible();
    await mine.getByRole("button", { name: t("billing:restore") }).click();
    await expect(toast(page, t("billing:toast.restored"))).toBeVisible();
    await expect(mine.getByRole("button", { name: t("billing:cancel") })).toBeVisible();

    // ---- pricing now marks the plan as the current one ----
    await page.goto(`${P}/pricing`);
    await expect(pro.getByTestId("current-plan")).toHaveText(t("pricing:cta.current"));
  });
}

test("pricing cards keep their prices and buttons on one line side by side, whatever the language", async ({
  page,
}) => {
  await page.setViewportSize({ width: 1280, height: 800 });
  for (const P of ["", "/fr", "/ja"]) {
    await page.goto(`${P}/pricing`);
    // The row of each card's price, and of its call to action (the element after the price).
    const rows = await page.locator("li[data-plan]").evaluateAll((cards) =>
      cards.map((card) => {
        const price = card.querySelector("p.mt-6")!;
        return [price.getBoundingClientRect().top, price.nextElementSibling!.getBoundingClientRect().top];
      }),
    );
    expect(rows, P).toHaveLength(3);
    expect(new Set(rows.map(([price]) => Math.round(price!))).size, `${P}: prices`).toBe(1);
    expect(new Set(rows.map(([, action]) => Math.round(action!))).size, `${P}: buttons`).toBe(1);
  }
});
