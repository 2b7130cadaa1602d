import { expect, test } from "@playwright/test";
import { startWebhookReceiver, type WebhookReceiver } from "../support/webhook-receiver";
import { registerAndTest } from "./support/webhooks";

// This file runs in the "no-js" project: registering a webhook (the secret comes back in the
// page, never in a URL), the test event (a plain post, back with a toast) and the delivery
// list, as plain HTML forms and links.

let receiver: WebhookReceiver;
test.beforeAll(async () => {
  receiver = await startWebhookReceiver(Number(process.env.E2E_WEBHOOK_PORT));
});
test.afterAll(() => receiver?.close());

for (const locale of ["fr", "zh-CN"]) {
  test(`an owner registers a webhook, sends a test event and sees the delivery without JavaScript (${locale})`, async ({
    page,
  }) => {
    test.setTimeout(90_000);
    await page.goto("/");
    await expect(page.locator("html")).not.toHaveClass(/js/);
    await registerAndTest(page, locale, () => receiver);
  });
}
