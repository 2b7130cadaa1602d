import { readFileSync } from "node:fs";
import { expect, type Page } from "@playwright/test";
import { BASE_URL } from "../../../playwright.config";
import type { WebhookReceiver } from "../../support/webhook-receiver";
import { prefixOf, signedInAccount, toast } from "./auth";

type Strings = { [key: string]: string | Strings };

/** A string of the webhook pages in `locale`, its placeholders filled ("events.team.changed": an event type's name). */
export function webhooksText(locale: string, key: string, values: Record<string, string> = {}): string {
  const file = JSON.parse(
    readFileSync(new URL(`../../../locales/${locale}/webhooks.json`, import.meta.url), "utf8"),
  ) as Strings;
  const eventType = /^events\.(.+)$/.exec(key)?.[1];
  const text = eventType
    ? (file.events as Strings)[eventType]
    : key.split(".").reduce<string | Strings | undefined>((node, part) => (node as Strings)?.[part], file);
  if (typeof text !== "string") throw new Error(`no translation ${locale}:webhooks:${key}`);
  return text.replace(/{{\s*(\w+)\s*}}/g, (whole, name: string) => values[name] ?? whole);
}

/** Registers an endpoint, sends a test event from its page and waits for the delivery to show. */
export async function registerAndTest(page: Page, locale: string, receiverOf: () => WebhookReceiver) {
  const t = (key: string, values?: Record<string, string>) => webhooksText(locale, key, values);
  const P = prefixOf(locale);
  await signedInAccount(page, locale, "Olive Owner");
  const slug = `hooks-${locale.toLowerCase()}-${Date.now().toString(36)}`;
  const created = await page.request.post("/api/auth/organization/create", {
    data: { name: "Acme", slug },
    headers: { Origin: BASE_URL },
  });
  expect(created.status()).toBe(200);

  await page.goto(`${P}/organizations/${slug}/webhooks`);
  const path = `/${slug}`;
  const url = `${receiverOf().origin}${path}`;
  await page.getByLabel(t("form.url")).fill(url);
  await page.getByLabel(t("events.team.changed")).check();
  await page.getByRole("button", { name: t("new.submit") }).click();
  const secret = page.getByLabel(t("new.secret", { url }));
  await expect(secret).toHaveValue(/^whsec_/);
  expect(page.url()).not.toContain("whsec_");
  receiverOf().register(path, await secret.inputValue());

  await page.getByRole("link", { name: t("new.open") }).click();
  await expect(page.getByTestId("endpoint-url")).toHaveText(url);
  await page.getByRole("button", { name: t("endpoint.test") }).click();
  await expect(toast(page, t("endpoint.testSent"))).toBeVisible();
  await expect
    .poll(
      async () => {
        await page.reload();
        return page.getByTestId("delivery-status").first().textContent();
      },
      { timeout: 20_000 },
    )
    .toBe(t("deliveries.statuses.succeeded"));
  await expect(page.getByTestId("delivery-attempts").first()).toHaveText("1");
  await expect(page.getByTestId("delivery-response").first()).toHaveText("200");
  const received = receiverOf().at(path);
  expect(received).toHaveLength(1);
  expect(received[0]).toMatchObject({ type: "webhook.test", verified: true, status: 200 });
}
