import { expect, test } from "@playwright/test";
import { prefixOf, signedInAccount, texts, toast } from "./support/auth";

// Organizations with JavaScript: the slug follows the name and is checked as it is typed,
// and the menu's switcher changes the active organization. organizations.no-js.spec.ts does
// the same without.

for (const locale of ["en", "ja"] as const) {
  test(`creates organizations with the live slug check, and switches between them (${locale})`, async ({ page }) => {
    const t = texts(locale);
    const P = prefixOf(locale);
    await signedInAccount(page, locale);
    const stamp = Date.now().toString(36);
    const nameInput = page.getByLabel(t("organization:form.name"), { exact: true });
    const slugInput = page.getByLabel(t("organization:form.slug"), { exact: true });
    const status = page.getByTestId("slug-status");

    // ---- the first: slug suggested from the name, and free ----
    await page.goto(`${P}/organizations/new`);
    await expect(page.locator("html")).toHaveAttribute("data-hydrated", "true");
    await nameInput.fill(`Acme Labs ${stamp}`);
    await expect(slugInput).toHaveValue(`acme-labs-${stamp}`);
    await expect(status).toHaveText(t("organization:new.slugAvailable"));
    await page.getByRole("button", { name: t("organization:new.submit") }).click();
    await expect(page).toHaveURL(`${P}/organizations/acme-labs-${stamp}`);
    await expect(toast(page, t("organization:new.created", { name: `Acme Labs ${stamp}` }))).toBeVisible();
    await expect(page.getByTestId("active-organization")).toHaveText(`Acme Labs ${stamp}`);

    // ---- the second: the same name's slug is taken; a slug of one's own stays ----
    await page
      .getByTestId("app-nav")
      .getByRole("link", { name: t("common:pages.organizations"), exact: true })
      .click();
    await page
      .getByRole("main")
      .getByRole("link", { name: t("organization:list.create") })
      .click();
    await expect(page).toHaveURL(`${P}/organizations/new`);
    await nameInput.fill(`Acme Labs ${stamp}`);
    await expect(status).toHaveText(t("errors.ORGANIZATION_SLUG_ALREADY_TAKEN"));
    await slugInput.fill(`beta-${stamp}`);
    await expect(status).toHaveText(t("organization:new.slugAvailable"));
    await nameInput.fill(`Beta ${stamp}`);
    await expect(slugInput).toHaveValue(`beta-${stamp}`);
    await page.getByRole("button", { name: t("organization:new.submit") }).click();
    await expect(page).toHaveURL(`${P}/organizations/beta-${stamp}`);
    const active = page.getByTestId("active-organization");
    await expect(active).toHaveText(`Beta ${stamp}`);

    // ---- switch back to the first from the menu, staying on the page ----
    await page.getByTestId("organization-switcher").getByLabel(t("common:organizations.switcher")).click();
    await page.getByRole("button", { name: `Acme Labs ${stamp}` }).click();
    await expect(toast(page, t("organization:switched", { name: `Acme Labs ${stamp}` }))).toBeVisible();
    await expect(page).toHaveURL(`${P}/organizations/beta-${stamp}`);
    await expect(active).toHaveText(`Acme Labs ${stamp}`);

    // ---- the list says which one is active, and loads only the strings it uses ----
    const loaded: string[] = [];
    page.on("request", (request) => {
      const match = new URL(request.url()).pathname.match(/^\/assets\/locales\/([^/]+)\/([a-z]+)-[\w-]+\.js$/);
      if (match) loaded.push(`${match[1]}/${match[2]}`);
    });
    await page.goto(`${P}/organizations`);
    // Hydrated means its namespaces have loaded (the network going quiet alone is no proof).
    await expect(page.locator("html")).toHaveAttribute("data-hydrated", "true");
    await page.waitForLoadState("networkidle");
    await expect(page.getByTestId("organization-list").locator("li[data-active]")).toHaveAttribute(
      "data-slug",
      `acme-labs-${stamp}`,
    );
    expect([...new Set(loaded)].sort()).toEqual([`${locale}/common`, `${locale}/organization`]);
  });
}
