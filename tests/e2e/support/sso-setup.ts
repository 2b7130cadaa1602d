import { expect, type APIRequestContext, type Page } from "@playwright/test";
import { readFileSync } from "node:fs";
import { DNS_CONTROL_URL, OIDC_ISSUER } from "../../../playwright.config";
import { dnsControl } from "../../support/dns-stand-in";
import { formWith, texts, toast } from "./auth";
import { openSection, overflowOf, workspaceWithMember } from "./workspace";

/** The words of the single sign-on pages (the sso namespace), and every other namespace's through `texts`. */
export function ssoTexts(locale: string) {
  const sso = JSON.parse(readFileSync(new URL(`../../../locales/${locale}/sso.json`, import.meta.url), "utf8"));
  const others = texts(locale);
  return (key: string, values: Record<string, string> = {}): string => {
    if (!key.startsWith("sso:")) return others(key, values);
    const text = key
      .slice(4)
      .split(".")
      .reduce<unknown>((node, part) => (node as Record<string, unknown>)?.[part], sso);
    if (typeof text !== "string") throw new Error(`no translation ${locale}:${key}`);
    return text.replace(/{{\s*(\w+)\s*}}/g, (whole, name: string) => values[name] ?? whole);
  };
}

/** The DNS stand-in the web server resolves through (playwright.config.ts). */
export const dns = dnsControl(DNS_CONTROL_URL);

export const CLIENT_SECRET = "e2e-client-secret-never-shown-0123456789";

/**
 * An owner's journey: an organization, its single sign-on tab, an OpenID Connect connection
 * discovered from the OIDC stand-in, and its domain verified through the DNS stand-in (first
 * refused while the record is missing). Ends on the connection's page.
 */
export async function setUpOidcConnection(page: Page, request: APIRequestContext, locale: string) {
  const t = ssoTexts(locale);
  const stamp = Date.now().toString(36);
  const name = `Sso ${stamp}`;
  const { base } = await workspaceWithMember(page, request, locale, name);
  await openSection(page, locale, name, "sso");
  await expect(page).toHaveURL(`${base}/sso`);
  await expect(page.getByText(t("sso:list.empty"))).toBeVisible();

  await page.getByRole("link", { name: t("sso:list.add") }).click();
  await expect(page).toHaveURL(`${base}/sso/new`);
  const providerId = `okta-${stamp}`;
  const domain = `corp-${stamp}.example.com`;
  const form = formWith(page, t("sso:new.submit"));
  await form.getByLabel(t("sso:form.providerId"), { exact: true }).fill(providerId);
  await form.getByLabel(t("sso:form.domain"), { exact: true }).fill(domain);
  await form.getByLabel(t("sso:form.issuer"), { exact: true }).fill(OIDC_ISSUER);
  await form.getByLabel(t("sso:form.clientId"), { exact: true }).fill("e2e-client-1234");
  await form.getByLabel(t("sso:form.clientSecret"), { exact: true }).fill(CLIENT_SECRET);
  await form.getByRole("button", { name: t("sso:new.submit") }).click();

  const connection = `${base}/sso/${providerId}`;
  await expect(page).toHaveURL(connection);
  await expect(toast(page, t("sso:new.added", { provider: providerId }))).toBeVisible();
  await expect(page.getByLabel(t("sso:setup.redirectUri"), { exact: true })).toHaveValue(
    new RegExp(`/api/auth/sso/callback/${providerId}$`),
  );
  await expect(page.getByTestId("connection-summary")).toContainText("1234");
  expect(await page.content()).not.toContain(CLIENT_SECRET);

  // The domain's record, as the page gives it.
  const row = page.getByTestId("domain-list").locator(`li[data-domain="${domain}"]`);
  const recordName = await row.getByLabel(t("sso:domains.recordName"), { exact: true }).inputValue();
  const recordValue = await row.getByLabel(t("sso:domains.recordValue"), { exact: true }).inputValue();
  expect(recordName).toBe(`_acme-sso.${domain}`);
  expect(recordValue).toMatch(/^acme-domain-verification=/);
  const verify = row.getByRole("button", { name: t("sso:domains.verifyLabel", { domain }) });

  // Before the record is published: refused, and said so next to the domain.
  await dns.clear(recordName);
  await verify.click();
  await expect(row.getByTestId("form-errors")).toContainText(t("auth:errors.DOMAIN_VERIFICATION_FAILED"));

  await dns.setTxt(recordName, [recordValue]);
  await row.getByRole("button", { name: t("sso:domains.verifyLabel", { domain }) }).click();
  await expect(toast(page, t("sso:domains.verifiedToast", { domain }))).toBeVisible();
  await expect(
    page.getByTestId("domain-list").locator(`li[data-domain="${domain}"] [data-verified="true"]`),
  ).toBeVisible();
  return { base, name, providerId, domain, connection };
}

/** Requires single sign-on on the organization's SSO page and checks it says so. */
export async function requireSso(page: Page, locale: string, base: string) {
  const t = ssoTexts(locale);
  await page.goto(`${base}/sso`);
  await expect(page.getByTestId("sso-required")).toHaveAttribute("data-required", "false");
  await page.getByRole("button", { name: t("sso:require.turnOn") }).click();
  await expect(toast(page, t("sso:require.enabled"))).toBeVisible();
  await expect(page.getByTestId("sso-required")).toHaveAttribute("data-required", "true");
  await expect(page.getByTestId("sso-required")).toContainText(t("sso:require.on"));
}

/** The page fits a 390 px wide phone: nothing wider than the screen. */
export async function fitsPhone(page: Page) {
  await page.setViewportSize({ width: 390, height: 844 });
  const { document } = await overflowOf(page, page.locator("main"));
  expect(document.scroll).toBeLessThanOrEqual(document.client);
}
