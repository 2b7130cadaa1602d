/**
 * Servers that do not sell: one whose payment provider has no keys (a development machine
 * without them) and one that sells nothing on purpose (PAYMENT_PROVIDER=none). Either says so
 * plainly, in the user's language, with a status that is no outage's, and calls no provider.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startTestApp, type TestApp } from "./helpers/app";
import { createUser, sessionTokenCookie } from "./helpers/factories";
import { get, post } from "./helpers/http";
import { startServer, type RunningServer } from "./helpers/server";

let app: TestApp;
let none: RunningServer;

beforeAll(async () => {
  // No payment variables at all: Stripe by default, with nothing to reach it with.
  app = await startTestApp({ secret: "billing-setup-secret-0123456789abcdefghij" });
  const { PORT: _port, BASE_URL: _base, HOST: _host, ...env } = app.server.env;
  none = await startServer({ ...env, PAYMENT_PROVIDER: "none" });
}, 120_000);
afterAll(async () => {
  await none?.stop();
  await app?.stop();
});

const checkoutForm = (referenceId: string) => ({ intent: "checkout", plan: "pro", interval: "monthly", referenceId });

describe("payments not set up (no keys)", () => {
  it("says so on the checkout page before the click: to an admin with the variables to set, to a user plainly", async () => {
    const user = await createUser();
    const admin = await createUser({ role: "admin" });
    const page = await (
      await get(`${app.base}/checkout?plan=pro`, { cookie: await sessionTokenCookie(user.id) })
    ).text();
    expect(page).toContain("Payments are not set up on this server yet");
    expect(page).toContain("Upgrades are not available yet");
    expect(page).not.toContain("STRIPE_SECRET_KEY");
    expect(page).not.toContain("Continue to payment");
    // The way there stays (a user is told at the checkout).
    const userBilling = await (await get(`${app.base}/billing`, { cookie: await sessionTokenCookie(user.id) })).text();
    expect(userBilling).toContain(">Upgrade</a>");

    const adminPage = await (
      await get(`${app.base}/checkout?plan=pro`, { cookie: await sessionTokenCookie(admin.id) })
    ).text();
    expect(adminPage).toContain("STRIPE_SECRET_KEY STRIPE_WEBHOOK_SECRET STRIPE_PRICE_PRO_MONTHLY");
    const billing = await (await get(`${app.base}/ja/billing`, { cookie: await sessionTokenCookie(admin.id) })).text();
    expect(billing).toContain("このサーバーでは決済がまだ設定されていません");
    expect(billing).toContain("STRIPE_SECRET_KEY");
  });

  it("answers a checkout with 503 and a clear message in the user's language, not the outage's 502", async () => {
    const user = await createUser();
    const cookie = await sessionTokenCookie(user.id);
    const headers = { cookie, origin: app.base };
    const english = await post(`${app.base}/checkout?plan=pro`, checkoutForm(user.id), headers);
    expect(english.status).toBe(503);
    const englishText = await english.text();
    expect(englishText).toContain("Payments are not set up on this server yet, so upgrades are not available.");
    expect(englishText).not.toContain("could not be reached");
    const japanese = await post(`${app.base}/ja/checkout?plan=pro`, checkoutForm(user.id), headers);
    expect(japanese.status).toBe(503);
    expect(await japanese.text()).toContain("このサーバーでは決済がまだ設定されていないため");

    const api = await fetch(`${app.base}/api/auth/subscription/upgrade`, {
      method: "POST",
      headers: { ...headers, "content-type": "application/json" },
      body: JSON.stringify({ plan: "pro" }),
    });
    expect(api.status).toBe(503);
    expect(await api.json()).toMatchObject({ code: "PAYMENT_PROVIDER_NOT_CONFIGURED" });
    // Nothing was made on the way.
    const row = await app.prisma.user.findUniqueOrThrow({ where: { id: user.id } });
    expect([row.stripeCustomerId, row.polarCustomerId]).toEqual([null, null]);
    // The server log tells the operator what to set, once.
    expect(app.server.stdout()).toContain("Payments are not set up");
    expect(app.server.stdout().match(/Payments are not set up/g)).toHaveLength(1);
  });
});

describe("PAYMENT_PROVIDER=none", () => {
  it("shows the plans without any way to buy them", async () => {
    const guest = await (await get(`${none.url}/pricing`)).text();
    expect(guest).toContain("Plans are not on sale yet.");
    expect(guest).toContain("Not on sale yet");
    expect(guest).not.toContain("checkout");
    const fr = await (await get(`${none.url}/fr/pricing`)).text();
    expect(fr).toContain("Les offres ne sont pas encore en vente.");

    const user = await createUser();
    const cookie = await sessionTokenCookie(user.id);
    const signedIn = await (await get(`${none.url}/pricing`, { cookie })).text();
    expect(signedIn).not.toContain("/checkout");
    expect(signedIn).toContain('data-testid="current-plan"');

    const billing = await (await get(`${none.url}/billing`, { cookie })).text();
    expect(billing).toContain("Plans are not on sale yet");
    expect(billing).not.toContain(">Upgrade</a>");
    expect(billing).not.toContain('name="intent"');

    const checkout = await (await get(`${none.url}/checkout?plan=pro`, { cookie })).text();
    expect(checkout).toContain("Plans are not on sale yet");
    expect(checkout).not.toContain("Continue to payment");
  });

  it("refuses every way to buy with a clear code, and has no webhook endpoints", async () => {
    const user = await createUser();
    const cookie = await sessionTokenCookie(user.id);
    const headers = { cookie, origin: none.url };
    const form = await post(`${none.url}/checkout?plan=pro`, checkoutForm(user.id), headers);
    expect(form.status).toBe(403);
    expect(await form.text()).toContain("Plans are not on sale yet, so upgrades are not available.");
    const billingForm = await post(`${none.url}/billing`, { intent: "portal", referenceId: user.id }, headers);
    expect(billingForm.status).toBe(302); // back to the page with the refusal as a toast

    for (const [method, path] of [
      ["POST", "/subscription/upgrade"],
      ["GET", "/subscription/list"],
      ["POST", "/subscription/cancel"],
      ["POST", "/subscription/restore"],
      ["POST", "/subscription/billing-portal"],
    ] as const) {
      const response = await fetch(`${none.url}/api/auth${path}`, {
        method,
        headers: { ...headers, ...(method === "POST" && { "content-type": "application/json" }) },
        ...(method === "POST" && { body: JSON.stringify({ plan: "pro", returnUrl: "/billing" }) }),
      });
      expect(response.status, path).toBe(403);
      expect(await response.json(), path).toMatchObject({ code: "PAYMENTS_DISABLED" });
    }
    for (const path of ["/stripe/webhook", "/polar/webhooks", "/checkout"]) {
      const response = await fetch(`${none.url}/api/auth${path}`, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: "{}",
      });
      expect(response.status, path).toBe(404);
    }
    const row = await app.prisma.user.findUniqueOrThrow({ where: { id: user.id } });
    expect([row.stripeCustomerId, row.polarCustomerId]).toEqual([null, null]);
  });
});
