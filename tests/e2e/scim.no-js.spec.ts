import { expect, test } from "@playwright/test";
import { BASE_URL } from "../../playwright.config";
import { prefixOf, signedInAccount, toast } from "./support/auth";
import { addConnection, scimText } from "./support/scim";

// This file runs in the "no-js" project: the SCIM page's two forms as plain posts. Generate
// answers with the page and the token in it (never in a URL); Revoke goes back with a toast.

test("generates a token and revokes it without JavaScript", async ({ page }) => {
  test.setTimeout(120_000);
  const locale = "ja";
  const P = prefixOf(locale);
  await signedInAccount(page, locale, "Olive Owner");
  const slug = `scim-plain-${Date.now().toString(36)}`;
  const created = await page.request.post("/api/auth/organization/create", {
    data: { name: "Acme", slug },
    headers: { Origin: BASE_URL },
  });
  expect(created.status()).toBe(200);
  const url = `${P}/organizations/${slug}/sso/${addConnection(slug)}/scim`;

  await page.goto(url);
  await expect(page.locator("html")).not.toHaveClass(/js/);
  await page.getByRole("button", { name: scimText(locale, "generate.submit") }).click();
  const token = page.getByTestId("scim-token");
  await expect(token).toHaveValue(/^scim_/);
  expect(page.url()).not.toContain("scim_");
  const value = await token.inputValue();
  // Without JavaScript there is nothing to copy with: the text is there to select.
  await expect(page.getByRole("button", { name: scimText(locale, "generate.copy"), exact: true })).toHaveCount(0);
  expect(
    (await page.request.get("/api/auth/scim/v2/Users", { headers: { Authorization: `Bearer ${value}` } })).status(),
  ).toBe(200);

  await page.goto(url);
  await expect(page.getByTestId("scim-token")).toHaveCount(0);
  await page
    .getByRole("button", { name: scimText(locale, "tokens.revokeLabel", { start: value.slice(0, 11) }) })
    .click();
  await expect(page).toHaveURL(url);
  await expect(toast(page, scimText(locale, "tokens.revoked"))).toBeVisible();
  expect(
    (await page.request.get("/api/auth/scim/v2/Users", { headers: { Authorization: `Bearer ${value}` } })).status(),
  ).toBe(401);
});
