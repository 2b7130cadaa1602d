import { expect, test } from "@playwright/test";
import { BASE_URL } from "../../playwright.config";
import { seriousViolations } from "./support/a11y";
import { prefixOf, signedInAccount, toast } from "./support/auth";
import { auditLayouts, expectNoLayoutProblems, layoutProblems } from "./support/layout";
import { addConnection, scimText } from "./support/scim";

// The SCIM page of a connection, with JavaScript: an owner generates a token (shown once, with
// a copy button), a directory uses it, the owner revokes it; the page holds at 390 and
// 1280 px in four languages, the new token's panel included.

test("an owner generates a token, copies it, and revokes it", async ({ page, context }) => {
  test.setTimeout(180_000);
  const locale = "fr";
  const P = prefixOf(locale);
  await signedInAccount(page, locale, "Olive Owner");
  const slug = `scim-${Date.now().toString(36)}`;
  const created = await page.request.post("/api/auth/organization/create", {
    data: { name: "Acme", slug },
    headers: { Origin: BASE_URL },
  });
  expect(created.status()).toBe(200);
  const providerId = addConnection(slug);
  const url = `${P}/organizations/${slug}/sso/${providerId}/scim`;

  await page.goto(url);
  await expect(page.locator("html")).toHaveClass(/js/);
  await expect(page.getByRole("heading", { name: scimText(locale, "title") })).toBeVisible();
  await expect(page.getByTestId("scim-base-url")).toHaveValue(/\/api\/auth\/scim\/v2$/);
  await expect(page.getByText(scimText(locale, "tokens.empty"))).toBeVisible();

  await page.getByRole("button", { name: scimText(locale, "generate.submit") }).click();
  const token = page.getByTestId("scim-token");
  await expect(token).toHaveValue(/^scim_/);
  const value = await token.inputValue();
  await expect(page.getByText(scimText(locale, "generate.copyHint"))).toBeVisible();
  // The list shows it by its first characters, without a reload.
  await expect(page.getByTestId("scim-token-list").locator("li")).toHaveCount(1);
  await expect(page.getByTestId("scim-token-list")).not.toContainText(value);

  await context.grantPermissions(["clipboard-read", "clipboard-write"]);
  await page.getByRole("button", { name: scimText(locale, "generate.copy"), exact: true }).click();
  await expect(page.getByRole("button", { name: scimText(locale, "generate.copied") })).toBeVisible();
  expect(await page.evaluate(() => navigator.clipboard.readText())).toBe(value);

  // The panel at a phone's width, then in both themes.
  await page.setViewportSize({ width: 390, height: 844 });
  const problems = await layoutProblems(page, `${url} with a new token at 390px`, []);
  problems.push(...(await seriousViolations(page, `${url} with a new token`)));
  await page.screenshot({ path: "test-results/pages/scim-new-token.fr.390.png", fullPage: true });

  const directory = await page.request.get("/api/auth/scim/v2/Users", {
    headers: { Authorization: `Bearer ${value}` },
  });
  expect(directory.status()).toBe(200);

  const start = value.slice(0, 11);
  await page.getByRole("button", { name: scimText(locale, "tokens.revokeLabel", { start }) }).click();
  await expect(toast(page, scimText(locale, "tokens.revoked"))).toBeVisible();
  await expect(page.getByText(scimText(locale, "tokens.empty"))).toBeVisible();
  const refused = await page.request.get("/api/auth/scim/v2/Users", { headers: { Authorization: `Bearer ${value}` } });
  expect(refused.status()).toBe(401);

  // A token in the list, in every language at both widths.
  await page.getByRole("button", { name: scimText(locale, "generate.submit") }).click();
  await expect(page.getByTestId("scim-token-list").locator("li")).toHaveCount(1);
  problems.push(
    ...(await auditLayouts(page, url, async (page) => expect(page.getByTestId("scim-base-url")).toBeVisible(), {
      name: "scim",
    })),
  );
  expectNoLayoutProblems(problems);
});
