import { expect, type Download, type Page } from "@playwright/test";
import { readFileSync } from "node:fs";
import { BASE_URL } from "../../../playwright.config";
import { formWith, prefixOf, signedInAccount, texts, toast, uniqueEmail } from "./auth";

/** A string of locales/<locale>/reports.json (the audit log's labels), its placeholders filled. */
export function reportsText(locale: string, path: string): string {
  const file = new URL(`../../../locales/${locale}/reports.json`, import.meta.url);
  const value = path
    .split(".")
    .reduce<unknown>((node, part) => (node as Record<string, unknown>)[part], JSON.parse(readFileSync(file, "utf8")));
  if (typeof value !== "string") throw new Error(`no translation ${locale}:reports.${path}`);
  return value;
}

/**
 * An owner signed in, with an organization, who invites a colleague through the invitations
 * section's form: an event of the organization's audit log. Answers where things are.
 */
export async function ownerWhoInvited(page: Page, locale: string) {
  const t = texts(locale);
  const P = prefixOf(locale);
  const owner = await signedInAccount(page, locale, "Olive Owner");
  const slug = `audit-${locale.toLowerCase()}-${Date.now().toString(36)}`;
  const created = await page.request.post("/api/auth/organization/create", {
    data: { name: "Acme", slug },
    headers: { Origin: BASE_URL },
  });
  expect(created.status()).toBe(200);
  const invitee = uniqueEmail(`${locale}-audit`);
  await page.goto(`${P}/organizations/${slug}/invitations`);
  const form = formWith(page, t("organization:invitations.submit"));
  await form.getByLabel(t("organization:invitations.email"), { exact: true }).fill(invitee);
  await form.getByRole("button", { name: t("organization:invitations.submit"), exact: true }).click();
  await expect(toast(page, t("organization:invitations.sent", { email: invitee }))).toBeVisible();
  return { owner, slug, invitee, P, t };
}

/** Filters the audit log by category with its form, as a person would. */
export async function filterByCategory(page: Page, locale: string, category: string) {
  const search = page.getByRole("search", { name: reportsText(locale, "auditLog.filters") });
  await search
    .getByLabel(reportsText(locale, "auditLog.category"), { exact: true })
    .selectOption({ label: reportsText(locale, `auditLog.categories.${category}`) });
  await search.getByRole("button", { name: reportsText(locale, "auditLog.apply"), exact: true }).click();
  await expect(page).toHaveURL(new RegExp(`[?&]category=${category}(&|$)`));
}

/** The export link's download, read as a spreadsheet would: records of fields (RFC 4180). */
export async function downloadedCsv(page: Page): Promise<{ name: string; rows: string[][] }> {
  const [download]: [Download, unknown] = await Promise.all([
    page.waitForEvent("download"),
    page.getByTestId("export-csv").click(),
  ]);
  const text = readFileSync((await download.path())!, "utf8").replace(/^\uFEFF/, "");
  const rows: string[][] = [];
  let row: string[] = [];
  let field = "";
  let quoted = false;
  for (let i = 0; i < text.length; i++) {
    const c = text[i]!;
    if (quoted) {
      if (c !== '"') field += c;
      else if (text[i + 1] === '"') {
        field += '"';
        i++;
      } else quoted = false;
    } else if (c === '"') quoted = true;
    else if (c === ",") {
      row.push(field);
      field = "";
    } else if (c === "\r" && text[i + 1] === "\n") {
      row.push(field);
      rows.push(row);
      row = [];
      field = "";
      i++;
    } else field += c;
  }
  return { name: download.suggestedFilename(), rows };
}
