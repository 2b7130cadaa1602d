import { expect, type Page } from "@playwright/test";
import { readFileSync } from "node:fs";
import { waitForLink } from "./mail";

type Strings = Record<string, unknown>;

function load(locale: string, ns: string): Strings {
  return JSON.parse(readFileSync(new URL(`../../../locales/${locale}/${ns}.json`, import.meta.url), "utf8")) as Strings;
}

/**
 * The page texts of a locale, read from the translation files: tests find controls by the
 * accessible names a person of that language sees.
 */
export function texts(locale: string) {
  const files = {
    auth: load(locale, "auth"),
    common: load(locale, "common"),
    organization: load(locale, "organization"),
    billing: load(locale, "billing"),
    pricing: load(locale, "pricing"),
    admin: load(locale, "admin"),
    dashboard: load(locale, "dashboard"),
  };
  return (key: string, values: Record<string, string> = {}): string => {
    const [ns, path] = key.includes(":") ? (key.split(":") as [keyof typeof files, string]) : (["auth", key] as const);
    const text = path.split(".").reduce<unknown>((node, part) => (node as Strings)?.[part], files[ns]);
    if (typeof text !== "string") throw new Error(`no translation ${locale}:${key}`);
    return text.replace(/{{\s*(\w+)\s*}}/g, (whole, name: string) => values[name] ?? whole);
  };
}

export const prefixOf = (locale: string) => (locale === "en" ? "" : `/${locale}`);

export function uniqueEmail(tag: string): string {
  return `e2e-${tag}-${Date.now()}-${Math.random().toString(36).slice(2, 7)}@example.com`.toLowerCase();
}

export const toast = (page: Page, title: string) => page.locator("[data-toast]").filter({ hasText: title });

/** The form in <main> whose submit button reads `submit` (pages have several forms). */
export const formWith = (page: Page, submit: string) =>
  page.locator("main form").filter({ has: page.getByRole("button", { name: submit, exact: true }) });

/**
 * A verified, signed-in account made through the JSON API and the emailed link (quicker
 * than the sign-up page, for tests about something else).
 */
export async function signedInAccount(page: Page, locale: string, name = "Grace Hopper") {
  const email = uniqueEmail(`${locale}-api`);
  const password = "correct-horse-battery";
  const response = await page.request.post("/api/auth/sign-up/email", {
    data: { name, email, password, callbackURL: `${prefixOf(locale)}/verify-email` },
  });
  expect(response.status()).toBe(200);
  const { url } = await waitForLink(email, "/api/auth/verify-email");
  await page.goto(url);
  // Verified and signed in by the link: on to the dashboard.
  await expect(page).toHaveURL(new RegExp(`${prefixOf(locale)}/dashboard$`));
  return { email, password, name };
}
