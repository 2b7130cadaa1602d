import { expect, test } from "@playwright/test";
import { keysText } from "./support/api-keys";
import { prefixOf, signedInAccount, toast } from "./support/auth";

// This file runs in the "no-js" project: the API key page's forms as plain posts. Create
// answers with the page and the key in it (never in a URL or a cookie); the others go back
// with a toast. In two languages.

for (const locale of ["fr", "zh-CN"] as const) {
  test(`creates an API key without JavaScript, sees it once and calls the API with it (${locale})`, async ({
    page,
    context,
  }) => {
    test.setTimeout(120_000);
    const P = prefixOf(locale);
    const { email } = await signedInAccount(page, locale, "Noé Script");
    const url = `${P}/profile/api-keys`;
    await page.goto(url);
    await expect(page.locator("html")).not.toHaveClass(/js/);

    await page.getByLabel(keysText(locale, "create.name")).fill("cron");
    await page.getByRole("button", { name: keysText(locale, "create.submit") }).click();
    const shown = page.getByLabel(keysText(locale, "created.label"), { exact: true });
    await expect(shown).toHaveValue(/^[A-Za-z]{64}$/);
    const key = await shown.inputValue();
    expect(page.url()).not.toContain(key);
    expect((await context.cookies()).some((cookie) => cookie.value.includes(key))).toBe(false);
    await expect(page.getByTestId("key-start")).toHaveText(`${key.slice(0, 6)}…`);

    const session = await page.request.get("/api/auth/get-session", { headers: { "x-api-key": key } });
    expect(session.status()).toBe(200);
    expect(((await session.json()) as { user: { email: string } }).user.email).toBe(email);

    await page.goto(url);
    await expect(page.getByTestId("created-key")).toHaveCount(0);

    // Rename, then delete through the confirmation (a disclosure, no script needed).
    const rename = page.getByLabel(keysText(locale, "list.newName", { name: "cron" }));
    await rename.fill("nightly");
    await page.getByRole("button", { name: keysText(locale, "list.rename") }).click();
    await expect(toast(page, keysText(locale, "renamed", { name: "nightly" }))).toBeVisible();
    await page.getByText(keysText(locale, "list.delete"), { exact: true }).click();
    await page.getByRole("button", { name: keysText(locale, "list.deleteSubmit", { name: "nightly" }) }).click();
    await expect(toast(page, keysText(locale, "deleted", { name: "nightly" }))).toBeVisible();
    const refused = await page.request.get("/api/auth/get-session", { headers: { "x-api-key": key } });
    expect(refused.status()).toBe(401);
    expect(await refused.json()).toMatchObject({ code: "INVALID_API_KEY" });
  });
}
