import { expect, test } from "@playwright/test";
import { keysText } from "./support/api-keys";
import { prefixOf, signedInAccount, toast } from "./support/auth";

// API keys with JavaScript: a user creates a key in account settings, sees it once (with a
// copy button), calls the API with it and gets themselves; then disables it and is refused.
// In two languages.

for (const locale of ["en", "ja"] as const) {
  test(`a user creates an API key, sees it once and calls the API with it (${locale})`, async ({ page, context }) => {
    test.setTimeout(120_000);
    const P = prefixOf(locale);
    const { email } = await signedInAccount(page, locale, "Kim Keys");
    const url = `${P}/profile/api-keys`;
    await page.goto(url);
    await expect(page.locator("html")).toHaveClass(/js/);
    await expect(page.getByText(keysText(locale, "list.empty"))).toBeVisible();

    await page.getByLabel(keysText(locale, "create.name")).fill("ci-script");
    await page.getByLabel(keysText(locale, "create.expiry")).selectOption("30");
    await page.getByRole("button", { name: keysText(locale, "create.submit") }).click();
    const shown = page.getByLabel(keysText(locale, "created.label"), { exact: true });
    await expect(shown).toHaveValue(/^[A-Za-z]{64}$/);
    const key = await shown.inputValue();
    expect(page.url()).not.toContain(key);
    // Listed by its first characters, without a reload; never the key.
    await expect(page.getByTestId("api-key-list").locator("li")).toHaveCount(1);
    await expect(page.getByTestId("key-start")).toHaveText(`${key.slice(0, 6)}…`);
    await expect(page.getByTestId("api-key-list")).not.toContainText(key);

    await context.grantPermissions(["clipboard-read", "clipboard-write"]);
    await page.getByRole("button", { name: /copy|コピー/i }).click();
    expect(await page.evaluate(() => navigator.clipboard.readText())).toBe(key);

    const session = await page.request.get("/api/auth/get-session", { headers: { "x-api-key": key } });
    expect(session.status()).toBe(200);
    expect(((await session.json()) as { user: { email: string } }).user.email).toBe(email);

    // Shown once: a new visit has no trace of it.
    await page.goto(url);
    await expect(page.getByTestId("created-key")).toHaveCount(0);
    expect(await page.content()).not.toContain(key);

    await page.getByRole("button", { name: keysText(locale, "list.disableLabel", { name: "ci-script" }) }).click();
    await expect(toast(page, keysText(locale, "disabled", { name: "ci-script" }))).toBeVisible();
    const refused = await page.request.get("/api/auth/get-session", { headers: { "x-api-key": key } });
    expect(refused.status()).toBe(401);
    expect(await refused.json()).toMatchObject({ code: "KEY_DISABLED" });

    await page.getByText(keysText(locale, "list.delete"), { exact: true }).click();
    await page.getByRole("button", { name: keysText(locale, "list.deleteSubmit", { name: "ci-script" }) }).click();
    await expect(toast(page, keysText(locale, "deleted", { name: "ci-script" }))).toBeVisible();
    await expect(page.getByText(keysText(locale, "list.empty"))).toBeVisible();
  });
}
