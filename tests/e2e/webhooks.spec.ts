import { test } from "@playwright/test";
import { startWebhookReceiver, type WebhookReceiver } from "../support/webhook-receiver";
import { registerAndTest } from "./support/webhooks";

// An owner registers a webhook on a loopback receiver this test starts (the receiver verifies
// every signature with the standardwebhooks library), sends a test event and sees the
// delivery, in two languages. webhooks.no-js.spec.ts does the same without JavaScript.

let receiver: WebhookReceiver;
test.beforeAll(async () => {
  receiver = await startWebhookReceiver(Number(process.env.E2E_WEBHOOK_PORT));
});
test.afterAll(() => receiver?.close());

for (const locale of ["en", "ja"]) {
  test(`an owner registers a webhook, sends a test event and sees the delivery (${locale})`, async ({ page }) => {
    test.setTimeout(90_000);
    await registerAndTest(page, locale, () => receiver);
  });
}
