/**
 * The Stripe and Polar stand-ins, driven by the official SDKs configured as the app configures
 * them: every call the app makes answers with objects the SDKs accept (Polar's validates each
 * with zod), errors come in each provider's shape and class, and webhooks reach a small
 * receiver that verifies them the way the app will (stripe.webhooks.constructEvent, Polar's
 * validateEvent). The hosted pages are driven with plain fetch, as a browser without
 * JavaScript would.
 */
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { Polar } from "@polar-sh/sdk";
import { AlreadyCanceledSubscription } from "@polar-sh/sdk/models/errors/alreadycanceledsubscription.js";
import { RequestTimeoutError } from "@polar-sh/sdk/models/errors/httpclienterrors.js";
import { HTTPValidationError } from "@polar-sh/sdk/models/errors/httpvalidationerror.js";
import { ResourceNotFound } from "@polar-sh/sdk/models/errors/resourcenotfound.js";
import { SDKError } from "@polar-sh/sdk/models/errors/sdkerror.js";
import { validateEvent, WebhookVerificationError } from "@polar-sh/sdk/webhooks";
import Stripe from "stripe";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { startPolarStandIn, type PolarStandIn } from "./polar-stand-in";
import { startStripeStandIn, type StripeStandIn } from "./stripe-stand-in";

// Nothing listens there: pages only redirect to it.
const APP = "http://127.0.0.1:9";
const DAY = 86_400;
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

const PRODUCTS = {
  pro_monthly: { plan: "pro", interval: "month", amount: 1900 },
  team_yearly: { plan: "team", interval: "year", amount: 49000 },
} as const;

interface Received {
  event?: { type: string; id?: string; data: Record<string, unknown> };
  error?: unknown;
}

/** The app's webhook endpoint in small: verifies each delivery, answers 200, or 400 when it does not verify. */
async function startReceiver(verify: (body: string, headers: Record<string, string>) => unknown) {
  const received: Received[] = [];
  const server = createServer((req, res) => {
    let body = "";
    req.on("data", (chunk: Buffer) => (body += chunk.toString()));
    req.on("end", () => {
      try {
        received.push({ event: verify(body, req.headers as Record<string, string>) as Received["event"] });
        res.writeHead(200).end();
      } catch (error) {
        received.push({ error });
        res.writeHead(400).end();
      }
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/api/billing/webhook`,
    received,
    types: () => received.map((r) => r.event?.type ?? "unverified"),
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

const form = (fields: Record<string, string>) => ({
  method: "POST",
  body: new URLSearchParams(fields),
  redirect: "manual" as const,
});

describe("Stripe stand-in", () => {
  const SECRET_KEY = "sk_test_stand_in_0123456789";
  const WEBHOOK_SECRET = "whsec_stand_in_secret";
  let standIn: StripeStandIn;
  let receiver: Awaited<ReturnType<typeof startReceiver>>;
  let stripe: Stripe;

  /** A client as the app makes it, from the stand-in's URL. */
  function client(key = SECRET_KEY, timeout = 5000) {
    const { hostname, port } = new URL(standIn.url);
    return new Stripe(key, { host: hostname, port, protocol: "http", maxNetworkRetries: 0, timeout });
  }

  const createCustomer = () =>
    stripe.customers.create({
      email: "ada@example.com",
      name: "Ada Lovelace",
      metadata: { referenceId: "user-1", customerType: "user", userId: "user-1" },
    });

  async function createSession(customer: string, { price = "pro_monthly", quantity = 1, trialDays = 0 } = {}) {
    return stripe.checkout.sessions.create({
      mode: "subscription",
      customer,
      line_items: [{ price, quantity }],
      success_url: `${APP}/billing?checkout=success&session={CHECKOUT_SESSION_ID}`,
      cancel_url: `${APP}/billing`,
      client_reference_id: "user-1",
      locale: "fr",
      metadata: { referenceId: "user-1", plan: "pro" },
      subscription_data: {
        ...(trialDays ? { trial_period_days: trialDays } : {}),
        metadata: { referenceId: "user-1", customerType: "user", plan: "pro", userId: "user-1" },
      },
    });
  }

  /** A customer with a completed checkout; records and deliveries forgotten. */
  async function subscribe(options: { trialDays?: number } = {}) {
    const customer = await createCustomer();
    const subscription = await standIn.completeCheckout((await createSession(customer.id, options)).id);
    standIn.reset();
    receiver.received.length = 0;
    return subscription;
  }

  beforeAll(async () => {
    receiver = await startReceiver((body, headers) =>
      stripe.webhooks.constructEvent(body, headers["stripe-signature"] ?? "", WEBHOOK_SECRET),
    );
    standIn = await startStripeStandIn({
      secretKey: SECRET_KEY,
      webhookSecret: WEBHOOK_SECRET,
      webhookUrl: receiver.url,
      prices: PRODUCTS,
    });
    stripe = client();
  });

  afterAll(async () => {
    await standIn.close();
    await receiver.close();
  });

  beforeEach(() => {
    standIn.reset();
    receiver.received.length = 0;
  });

  it("creates, retrieves and deletes customers from form-encoded requests", async () => {
    const customer = await createCustomer();
    expect(customer.id).toMatch(/^cus_[0-9A-Za-z]{14}$/);
    expect(customer).toMatchObject({
      object: "customer",
      email: "ada@example.com",
      name: "Ada Lovelace",
      metadata: { referenceId: "user-1", customerType: "user", userId: "user-1" },
      livemode: false,
    });
    expect(await stripe.customers.retrieve(customer.id)).toMatchObject({ id: customer.id, email: "ada@example.com" });
    expect(await stripe.customers.del(customer.id)).toMatchObject({ id: customer.id, deleted: true });
    // Stripe still answers for a deleted customer, with a stub, but refuses to delete it again.
    expect(await stripe.customers.retrieve(customer.id)).toMatchObject({ id: customer.id, deleted: true });
    await expect(stripe.customers.del(customer.id)).rejects.toMatchObject({
      type: "StripeInvalidRequestError",
      statusCode: 404,
      code: "resource_missing",
      message: `No such customer: '${customer.id}'`,
    });

    expect(standIn.calls.map(({ method, path }) => `${method} ${path}`)).toEqual([
      "POST /v1/customers",
      `GET /v1/customers/${customer.id}`,
      `DELETE /v1/customers/${customer.id}`,
      `GET /v1/customers/${customer.id}`,
      `DELETE /v1/customers/${customer.id}`,
    ]);
    expect(standIn.calls[0]!.params).toEqual({
      email: "ada@example.com",
      name: "Ada Lovelace",
      metadata: { referenceId: "user-1", customerType: "user", userId: "user-1" },
    });
  });

  it("refuses a checkout for an unknown price with Stripe's error", async () => {
    const customer = await createCustomer();
    await expect(createSession(customer.id, { price: "price_unknown" })).rejects.toMatchObject({
      type: "StripeInvalidRequestError",
      rawType: "invalid_request_error",
      statusCode: 400,
      code: "resource_missing",
      param: "line_items[0][price]",
      message: "No such price: 'price_unknown'",
    });
  });

  it("completes a checkout with a trial: a trialing subscription, then the webhooks, verified", async () => {
    const customer = await createCustomer();
    const session = await createSession(customer.id, { price: "team_yearly", quantity: 3, trialDays: 14 });
    expect(session.id).toMatch(/^cs_test_[0-9A-Za-z]{58}$/);
    expect(session).toMatchObject({
      object: "checkout.session",
      url: `${standIn.url}/c/pay/${session.id}`,
      status: "open",
      mode: "subscription",
      customer: customer.id,
      client_reference_id: "user-1",
      locale: "fr",
      amount_total: 0,
      // Stripe keeps the placeholder: it is filled in on the redirect.
      success_url: `${APP}/billing?checkout=success&session={CHECKOUT_SESSION_ID}`,
    });
    expect(standIn.calls.at(-1)!.params).toMatchObject({
      line_items: { "0": { price: "team_yearly", quantity: "3" } },
      subscription_data: { trial_period_days: "14", metadata: { referenceId: "user-1" } },
    });

    const subscription = await standIn.completeCheckout(session.id);
    expect(subscription.id).toMatch(/^sub_/);
    expect(subscription).toMatchObject({
      status: "trialing",
      customer: customer.id,
      cancel_at_period_end: false,
      cancel_at: null,
      metadata: { referenceId: "user-1", customerType: "user", plan: "pro", userId: "user-1" },
    });
    expect(subscription.trial_end! - subscription.trial_start!).toBe(14 * DAY);
    const [item] = subscription.items.data;
    expect(item).toMatchObject({
      quantity: 3,
      price: { id: "team_yearly", unit_amount: 49000, recurring: { interval: "year" } },
      // In a trial, the current period is the trial.
      current_period_start: subscription.trial_start,
      current_period_end: subscription.trial_end,
    });

    expect(receiver.types()).toEqual(["customer.subscription.created", "checkout.session.completed"]);
    expect(standIn.webhooks.map((webhook) => webhook.status)).toEqual([200, 200]);
    const [created, completed] = receiver.received.map((r) => r.event!);
    expect(created!.id).toMatch(/^evt_/);
    expect(created).toMatchObject({ object: "event", api_version: Stripe.API_VERSION, livemode: false });
    expect(created!.data.object).toMatchObject({ id: subscription.id, status: "trialing" });
    expect(completed!.data.object).toMatchObject({
      id: session.id,
      status: "complete",
      payment_status: "no_payment_required",
      subscription: subscription.id,
      customer_details: { email: "ada@example.com" },
    });

    // Through the SDK the decimal strings of the wire become its Decimal.
    const retrieved = await stripe.subscriptions.retrieve(subscription.id);
    expect(retrieved).toMatchObject({ id: subscription.id, status: "trialing" });
    expect(String(retrieved.items.data[0]!.price.unit_amount_decimal)).toBe("49000");
    await expect(stripe.subscriptions.retrieve("sub_unknown")).rejects.toMatchObject({ statusCode: 404 });
  });

  it("serves a checkout page whose Subscribe button works without JavaScript", async () => {
    const customer = await createCustomer();
    const session = await createSession(customer.id);
    expect(session.amount_total).toBe(1900);
    const html = await (await fetch(session.url!)).text();
    expect(html).toContain("Subscribe to pro");
    expect(html).toContain("$19.00 per month");
    expect(html).toContain('<form method="post"><button type="submit">Subscribe</button></form>');
    expect(html).toContain(`<a href="${APP}/billing">Back</a>`);

    const response = await fetch(session.url!, { method: "POST", redirect: "manual" });
    expect(response.status).toBe(303);
    expect(response.headers.get("location")).toBe(`${APP}/billing?checkout=success&session=${session.id}`);
    expect(receiver.types()).toEqual(["customer.subscription.created", "checkout.session.completed"]);

    const subscriptionId = (receiver.received[0]!.event!.data.object as Stripe.Subscription).id;
    const subscription = await stripe.subscriptions.retrieve(subscriptionId);
    expect(subscription).toMatchObject({ status: "active", trial_end: null });
    const { current_period_start: start, current_period_end: end } = subscription.items.data[0]!;
    const nextMonth = new Date(start * 1000);
    nextMonth.setUTCMonth(nextMonth.getUTCMonth() + 1);
    expect(end).toBe(nextMonth.getTime() / 1000);

    expect((await fetch(session.url!, { method: "POST", redirect: "manual" })).status).toBe(410);
    // Pages are not API calls.
    expect(standIn.calls.map(({ path }) => path)).toEqual([
      "/v1/customers",
      "/v1/checkout/sessions",
      `/v1/subscriptions/${subscriptionId}`,
    ]);
  });

  it("schedules and undoes the end of a subscription, each followed by customer.subscription.updated", async () => {
    const { id } = await subscribe();
    const canceled = await stripe.subscriptions.update(id, { cancel_at_period_end: true });
    expect(canceled).toMatchObject({
      cancel_at_period_end: true,
      cancel_at: canceled.items.data[0]!.current_period_end,
      canceled_at: expect.any(Number),
      cancellation_details: { reason: "cancellation_requested" },
      status: "active",
    });
    expect(standIn.calls).toEqual([
      { method: "POST", path: `/v1/subscriptions/${id}`, params: { cancel_at_period_end: "true" } },
    ]);
    await standIn.settled();
    expect(receiver.types()).toEqual(["customer.subscription.updated"]);
    expect(receiver.received[0]!.event!.data).toMatchObject({
      object: { id, cancel_at_period_end: true },
      previous_attributes: { cancel_at_period_end: false, cancel_at: null, canceled_at: null },
    });

    const renewed = await stripe.subscriptions.update(id, { cancel_at_period_end: false });
    expect(renewed).toMatchObject({ cancel_at_period_end: false, cancel_at: null, canceled_at: null });
    await standIn.settled();
    expect(receiver.received[1]!.event!.data.previous_attributes).toMatchObject({ cancel_at_period_end: true });
  });

  it("serves a portal page whose buttons cancel at period end and renew", async () => {
    const subscription = await subscribe();
    const customer = subscription.customer as string;
    const portal = await stripe.billingPortal.sessions.create({ customer, return_url: `${APP}/billing` });
    expect(portal.id).toMatch(/^bps_/);
    expect(portal).toMatchObject({
      object: "billing_portal.session",
      customer,
      return_url: `${APP}/billing`,
      url: `${standIn.url}/p/session/${portal.id}`,
    });

    let html = await (await fetch(portal.url)).text();
    expect(html).toContain("Cancel at period end");
    expect(html).toContain(`<a href="${APP}/billing">Return</a>`);
    const fields = { subscription: subscription.id, cancel_at_period_end: "true" };
    const response = await fetch(portal.url, form(fields));
    expect(response.status).toBe(303);
    expect(response.headers.get("location")).toBe(portal.url);
    expect(receiver.types()).toEqual(["customer.subscription.updated"]);
    expect((await stripe.subscriptions.retrieve(subscription.id)).cancel_at_period_end).toBe(true);

    html = await (await fetch(portal.url)).text();
    expect(html).toContain("Renew");
    await fetch(portal.url, form({ ...fields, cancel_at_period_end: "false" }));
    expect((await stripe.subscriptions.retrieve(subscription.id)).cancel_at_period_end).toBe(false);

    await expect(stripe.billingPortal.sessions.create({ customer: "cus_unknown" })).rejects.toMatchObject({
      statusCode: 400,
      param: "customer",
    });
  });

  it("ends periods: a trial becomes active, a renewal moves the period, a scheduled end cancels", async () => {
    const subscription = await subscribe({ trialDays: 7 });
    const active = await standIn.endPeriod(subscription.id);
    const item = active.items.data[0]!;
    expect(active.status).toBe("active");
    expect(item.current_period_start).toBe(subscription.trial_end);
    expect(receiver.received[0]!.event).toMatchObject({
      type: "customer.subscription.updated",
      data: { previous_attributes: { status: "trialing" } },
    });

    const renewed = await standIn.endPeriod(subscription.id);
    expect(renewed.items.data[0]!.current_period_start).toBe(item.current_period_end);

    await stripe.subscriptions.update(subscription.id, { cancel_at_period_end: true });
    await standIn.settled();
    const ended = await standIn.endPeriod(subscription.id);
    expect(ended).toMatchObject({ status: "canceled", ended_at: renewed.items.data[0]!.current_period_end });
    expect(receiver.types()).toEqual([
      "customer.subscription.updated",
      "customer.subscription.updated",
      "customer.subscription.updated",
      "customer.subscription.deleted",
    ]);
    await expect(stripe.subscriptions.update(subscription.id, { cancel_at_period_end: false })).rejects.toMatchObject({
      statusCode: 400,
    });
  });

  it("makes signed deliveries to replay, and a tampered one does not verify", async () => {
    const subscription = await subscribe();
    const delivery = standIn.event("customer.subscription.updated", { ...subscription, status: "past_due" });
    expect((await standIn.deliver(delivery)).status).toBe(200);
    expect((await standIn.deliver(delivery)).status).toBe(200);
    const [first, replay] = receiver.received.map((r) => r.event!);
    expect(replay!.id).toBe(first!.id);
    expect(first!.data.object).toMatchObject({ id: subscription.id, status: "past_due" });

    const tampered = { ...delivery, body: delivery.body.replace('"past_due"', '"active"') };
    expect((await standIn.deliver(tampered)).status).toBe(400);
    expect(receiver.received[2]!.error).toBeInstanceOf(Stripe.errors.StripeSignatureVerificationError);
  });

  it("fails on demand with a 500 or a timeout, and refuses a wrong key with a 401", async () => {
    standIn.failNext("error", 2);
    await expect(createCustomer()).rejects.toMatchObject({ type: "StripeAPIError", statusCode: 500 });
    await expect(createCustomer()).rejects.toMatchObject({ type: "StripeAPIError", statusCode: 500 });
    standIn.failNext("timeout");
    await expect(client(SECRET_KEY, 300).customers.create({ email: "ada@example.com" })).rejects.toMatchObject({
      type: "StripeConnectionError",
    });
    expect((await createCustomer()).id).toMatch(/^cus_/);

    await expect(client("sk_test_wrong_key_0000").customers.create({})).rejects.toMatchObject({
      type: "StripeAuthenticationError",
      statusCode: 401,
      message: expect.stringContaining("Invalid API Key provided"),
    });
    expect(standIn.calls).toHaveLength(5);
  });

  it("records the events it cannot deliver, and sends to a webhook URL set later", async () => {
    const customer = await createCustomer();
    standIn.setWebhookUrl(`${APP}/api/billing/webhook`);
    try {
      await standIn.completeCheckout((await createSession(customer.id)).id);
    } finally {
      standIn.setWebhookUrl(receiver.url);
    }
    expect(standIn.webhooks.map(({ type, status }) => [type, status])).toEqual([
      ["customer.subscription.created", null],
      ["checkout.session.completed", null],
    ]);
    // A redelivery, as Stripe's retries would make, now reaches the app.
    expect((await standIn.deliver(standIn.webhooks[0]!.delivery)).status).toBe(200);
    expect(receiver.types()).toEqual(["customer.subscription.created"]);
  });
});

describe("Polar stand-in", () => {
  const ACCESS_TOKEN = "polar_oat_stand_in_0123456789";
  const WEBHOOK_SECRET = "polar_whs_stand_in_secret";
  let standIn: PolarStandIn;
  let receiver: Awaited<ReturnType<typeof startReceiver>>;
  let polar: Polar;

  /** A client as the app makes it. */
  const client = (accessToken = ACCESS_TOKEN, timeoutMs = 5000) =>
    new Polar({ accessToken, serverURL: standIn.url, timeoutMs, retryConfig: { strategy: "none" } });

  let emails = 0;
  const createCustomer = () => {
    emails++;
    return polar.customers.create({
      email: `ada${emails}@example.com`,
      name: "Ada Lovelace",
      externalId: `user-${emails}`,
    });
  };

  async function createCheckout(customerId: string, { product = "pro_monthly", trialDays = 0 } = {}) {
    return polar.checkouts.create({
      products: [product],
      customerId,
      successUrl: `${APP}/billing?checkout=success&id={CHECKOUT_ID}`,
      returnUrl: `${APP}/billing`,
      metadata: { referenceId: "user-1", customerType: "user", plan: "pro", userId: "user-1" },
      locale: "fr",
      ...(trialDays ? { trialInterval: "day" as const, trialIntervalCount: trialDays } : {}),
    });
  }

  async function subscribe(options: { trialDays?: number } = {}) {
    const customer = await createCustomer();
    const subscription = await standIn.completeCheckout((await createCheckout(customer.id, options)).id);
    standIn.reset();
    receiver.received.length = 0;
    return subscription;
  }

  beforeAll(async () => {
    receiver = await startReceiver((body, headers) => validateEvent(body, headers, WEBHOOK_SECRET));
    standIn = await startPolarStandIn({
      accessToken: ACCESS_TOKEN,
      webhookSecret: WEBHOOK_SECRET,
      webhookUrl: receiver.url,
      products: PRODUCTS,
    });
    polar = client();
  });

  afterAll(async () => {
    await standIn.close();
    await receiver.close();
  });

  beforeEach(() => {
    standIn.reset();
    receiver.received.length = 0;
  });

  it("creates customers, refuses a taken email or external id with a 422, deletes them", async () => {
    const email = "grace@example.com";
    const customer = await polar.customers.create({ email, name: "Grace Hopper", externalId: "user-grace" });
    expect(customer.id).toMatch(UUID);
    expect(customer).toMatchObject({
      email,
      name: "Grace Hopper",
      externalId: "user-grace",
      type: "individual",
      deletedAt: null,
    });
    expect(customer.createdAt).toBeInstanceOf(Date);
    expect(standIn.calls[0]).toEqual({
      method: "POST",
      path: "/v1/customers/",
      body: { email, name: "Grace Hopper", external_id: "user-grace", type: "individual" },
    });

    const taken = polar.customers.create({ email: "GRACE@example.com", externalId: "user-grace" });
    await expect(taken).rejects.toBeInstanceOf(HTTPValidationError);
    await expect(taken).rejects.toMatchObject({
      statusCode: 422,
      detail: [
        { loc: ["body", "email"], msg: "A customer with this email address already exists." },
        { loc: ["body", "external_id"], msg: "A customer with this external ID already exists." },
      ],
    });

    expect(await polar.customers.getState({ id: customer.id })).toMatchObject({
      id: customer.id,
      activeSubscriptions: [],
      grantedBenefits: [],
    });
    await expect(polar.customers.delete({ id: customer.id })).resolves.toBeUndefined();
    await expect(polar.customers.getState({ id: customer.id })).rejects.toBeInstanceOf(ResourceNotFound);
    // A deleted customer's email is free again.
    expect((await polar.customers.create({ email })).id).not.toBe(customer.id);
    expect(standIn.calls.map(({ method, path }) => `${method} ${path}`).slice(2, 5)).toEqual([
      `GET /v1/customers/${customer.id}/state`,
      `DELETE /v1/customers/${customer.id}`,
      `GET /v1/customers/${customer.id}/state`,
    ]);
  });

  it("refuses a checkout for an unknown product or customer with a 422", async () => {
    const customer = await createCustomer();
    await expect(createCheckout(customer.id, { product: "unknown" })).rejects.toMatchObject({
      statusCode: 422,
      detail: [{ loc: ["body", "products", 0], msg: "Product does not exist.", input: "unknown" }],
    });
    await expect(createCheckout("00000000-0000-4000-8000-000000000000")).rejects.toBeInstanceOf(HTTPValidationError);
  });

  it("completes a checkout with a trial: a trialing subscription, then the webhooks, verified", async () => {
    const customer = await createCustomer();
    const checkout = await createCheckout(customer.id, { product: "team_yearly", trialDays: 14 });
    expect(checkout.id).toMatch(UUID);
    expect(checkout.clientSecret).toMatch(/^polar_c_/);
    expect(checkout).toMatchObject({
      status: "open",
      url: `${standIn.url}/checkout/${checkout.clientSecret}`,
      // Polar fills in the placeholder at once.
      successUrl: `${APP}/billing?checkout=success&id=${checkout.id}`,
      returnUrl: `${APP}/billing`,
      customerId: customer.id,
      productId: "team_yearly",
      amount: 49000,
      trialInterval: "day",
      trialIntervalCount: 14,
      locale: "fr",
      metadata: { referenceId: "user-1", plan: "pro" },
    });
    expect(checkout.trialEnd!.getTime() - checkout.createdAt.getTime()).toBe(14 * DAY * 1000);
    expect(standIn.calls.at(-1)!.body).toMatchObject({ trial_interval: "day", trial_interval_count: 14 });

    const subscription = await standIn.completeCheckout(checkout.id);
    expect(subscription.id).toMatch(UUID);
    expect(subscription).toMatchObject({
      status: "trialing",
      customerId: customer.id,
      productId: "team_yearly",
      checkoutId: checkout.id,
      recurringInterval: "year",
      amount: 49000,
      cancelAtPeriodEnd: false,
      metadata: { referenceId: "user-1", customerType: "user", plan: "pro", userId: "user-1" },
      // In a trial, the current period is the trial.
      currentPeriodEnd: checkout.trialEnd,
      trialEnd: checkout.trialEnd,
    });

    expect(receiver.types()).toEqual(["subscription.created", "subscription.active", "checkout.updated"]);
    expect(standIn.webhooks.map((webhook) => webhook.status)).toEqual([200, 200, 200]);
    const [created, , updated] = receiver.received.map((r) => r.event!);
    expect(created!.data).toMatchObject({ id: subscription.id, status: "trialing", customer: { id: customer.id } });
    expect(updated!.data).toMatchObject({ id: checkout.id, status: "succeeded" });

    expect(await polar.subscriptions.get({ id: subscription.id })).toMatchObject({ id: subscription.id });
    expect(await polar.customers.getState({ id: customer.id })).toMatchObject({
      activeSubscriptions: [{ id: subscription.id, status: "trialing", productId: "team_yearly" }],
    });
    await expect(polar.subscriptions.get({ id: checkout.id })).rejects.toBeInstanceOf(ResourceNotFound);
  });

  it("serves a checkout page whose Subscribe button works without JavaScript", async () => {
    const customer = await createCustomer();
    const checkout = await createCheckout(customer.id);
    const html = await (await fetch(checkout.url)).text();
    expect(html).toContain("Subscribe to Pro (monthly)");
    expect(html).toContain("$19.00 per month");
    expect(html).toContain('<form method="post"><button type="submit">Subscribe</button></form>');
    expect(html).toContain(`<a href="${APP}/billing">Back</a>`);

    const response = await fetch(checkout.url, { method: "POST", redirect: "manual" });
    expect(response.status).toBe(303);
    expect(response.headers.get("location")).toBe(checkout.successUrl);
    expect(receiver.types()).toEqual(["subscription.created", "subscription.active", "checkout.updated"]);
    expect(receiver.received[0]!.event!.data).toMatchObject({ status: "active", trialEnd: null });
    expect((await fetch(checkout.url, { method: "POST", redirect: "manual" })).status).toBe(410);
  });

  it("schedules and undoes the end of a subscription, with Polar's webhooks and refusals", async () => {
    const { id, currentPeriodEnd } = await subscribe();
    const canceled = await polar.subscriptions.update({ id, subscriptionUpdate: { cancelAtPeriodEnd: true } });
    expect(canceled).toMatchObject({ cancelAtPeriodEnd: true, endsAt: currentPeriodEnd, status: "active" });
    expect(canceled.canceledAt).toBeInstanceOf(Date);
    expect(standIn.calls).toEqual([
      { method: "PATCH", path: `/v1/subscriptions/${id}`, body: { cancel_at_period_end: true } },
    ]);
    await standIn.settled();
    expect(receiver.types()).toEqual(["subscription.updated", "subscription.canceled"]);
    await expect(
      polar.subscriptions.update({ id, subscriptionUpdate: { cancelAtPeriodEnd: true } }),
    ).rejects.toBeInstanceOf(AlreadyCanceledSubscription);

    const renewed = await polar.subscriptions.update({ id, subscriptionUpdate: { cancelAtPeriodEnd: false } });
    expect(renewed).toMatchObject({ cancelAtPeriodEnd: false, endsAt: null, canceledAt: null });
    await standIn.settled();
    expect(receiver.types().slice(2)).toEqual(["subscription.updated", "subscription.uncanceled"]);
    await expect(
      polar.subscriptions.update({ id, subscriptionUpdate: { cancelAtPeriodEnd: false } }),
    ).rejects.toMatchObject({ statusCode: 400 });
  });

  it("makes team customers with an owner member, and opens their portal only for a member", async () => {
    // A team customer needs an email of its own or an owner's.
    await expect(polar.customers.create({ type: "team", externalId: "org-none" })).rejects.toMatchObject({
      statusCode: 422,
      detail: [{ loc: ["body"], msg: expect.stringContaining("An owner with an email address is required") }],
    });
    const buyer = await createCustomer();
    const team = await polar.customers.create({
      type: "team",
      externalId: "org-1",
      name: "Analytical Engines",
      owner: { email: buyer.email!, name: "Ada Lovelace", externalId: buyer.externalId! },
    });
    // No email of its own (the owner's stays the owner's own customer's), and an owner member.
    expect(team).toMatchObject({ type: "team", externalId: "org-1", email: null, name: "Analytical Engines" });
    expect(standIn.customer(team.id)!.members).toEqual([
      expect.objectContaining({ role: "owner", email: buyer.email, externalId: buyer.externalId }),
    ]);
    // External ids are unique across both kinds.
    await expect(
      polar.customers.create({ type: "team", externalId: buyer.externalId!, owner: { email: "x@example.com" } }),
    ).rejects.toMatchObject({ statusCode: 422, detail: [{ loc: ["body", "external_id"] }] });

    // A team customer's session names a member, one of its own.
    await expect(polar.customerSessions.create({ customerId: team.id })).rejects.toMatchObject({
      statusCode: 422,
      detail: [{ loc: ["body", "member_id"], msg: "member_id is required for team customers." }],
    });
    await expect(
      polar.customerSessions.create({ customerId: team.id, externalMemberId: "user-stranger" }),
    ).rejects.toMatchObject({
      statusCode: 422,
      detail: [{ loc: ["body", "external_member_id"], msg: "Member does not exist for this customer." }],
    });
    const manager = await polar.customers.members.create({
      id: team.id,
      memberCreateFromCustomer: { email: "charles@example.com", externalId: "user-charles", role: "billing_manager" },
    });
    expect(manager).toMatchObject({ customerId: team.id, role: "billing_manager", externalId: "user-charles" });
    await expect(
      polar.customers.members.create({
        id: team.id,
        memberCreateFromCustomer: { email: "CHARLES@example.com", externalId: "user-charles" },
      }),
    ).rejects.toMatchObject({ statusCode: 422 });
    // Only team customers take members.
    await expect(
      polar.customers.members.create({ id: buyer.id, memberCreateFromCustomer: { email: "c@example.com" } }),
    ).rejects.toMatchObject({ statusCode: 403 });

    const session = await polar.customerSessions.create({ customerId: team.id, externalMemberId: "user-charles" });
    expect(session).toMatchObject({ customerId: team.id, customer: { id: team.id, type: "team" } });
    expect(standIn.portalSession(session.customerPortalUrl)).toEqual({ customerId: team.id, memberId: manager.id });
    // An individual's session needs no member: it is its owner's.
    const own = await polar.customerSessions.create({ customerId: buyer.id });
    expect(standIn.portalSession(own.customerPortalUrl)).toEqual({
      customerId: buyer.id,
      memberId: standIn.customer(buyer.id)!.members[0]!.id,
    });

    // The team's subscription is in its own state and portal, not in the owner's.
    const subscription = await standIn.completeCheckout((await createCheckout(team.id)).id);
    expect((await polar.customers.getState({ id: team.id })).activeSubscriptions).toEqual([
      expect.objectContaining({ id: subscription.id }),
    ]);
    expect((await polar.customers.getState({ id: buyer.id })).activeSubscriptions).toEqual([]);
    const products = (html: string) => html.match(/<li>[^(]*/g) ?? [];
    expect(products(await (await fetch(session.customerPortalUrl)).text())).toHaveLength(1);
    expect(products(await (await fetch(own.customerPortalUrl)).text())).toEqual([]);
  });

  it("serves a portal page whose buttons cancel at period end and renew", async () => {
    const subscription = await subscribe();
    const session = await polar.customerSessions.create({
      customerId: subscription.customerId,
      returnUrl: `${APP}/billing`,
    });
    expect(session.token).toMatch(/^polar_cst_/);
    expect(session).toMatchObject({
      customerId: subscription.customerId,
      returnUrl: `${APP}/billing`,
      customerPortalUrl: `${standIn.url}/portal?customer_session_token=${session.token}`,
      customer: { id: subscription.customerId },
    });

    const portal = session.customerPortalUrl;
    let html = await (await fetch(portal)).text();
    expect(html).toContain("Cancel at period end");
    expect(html).toContain(`<a href="${APP}/billing">Return</a>`);
    const fields = { subscription: subscription.id, cancel_at_period_end: "true" };
    const response = await fetch(portal, form(fields));
    expect(response.status).toBe(303);
    expect(response.headers.get("location")).toBe(portal);
    expect(receiver.types()).toEqual(["subscription.updated", "subscription.canceled"]);

    html = await (await fetch(portal)).text();
    expect(html).toContain("Renew");
    await fetch(portal, form({ ...fields, cancel_at_period_end: "false" }));
    expect((await polar.subscriptions.get({ id: subscription.id })).cancelAtPeriodEnd).toBe(false);
    expect(receiver.types().slice(2)).toEqual(["subscription.updated", "subscription.uncanceled"]);
  });

  it("ends periods: a trial becomes active, a renewal moves the period, a scheduled end revokes", async () => {
    const subscription = await subscribe({ trialDays: 7 });
    const active = await standIn.endPeriod(subscription.id);
    expect(active).toMatchObject({ status: "active", currentPeriodStart: subscription.trialEnd });
    const renewed = await standIn.endPeriod(subscription.id);
    expect(renewed.currentPeriodStart).toEqual(active.currentPeriodEnd);

    await polar.subscriptions.update({ id: subscription.id, subscriptionUpdate: { cancelAtPeriodEnd: true } });
    await standIn.settled();
    const ended = await standIn.endPeriod(subscription.id);
    expect(ended).toMatchObject({ status: "canceled", endedAt: renewed.currentPeriodEnd });
    expect(receiver.types()).toEqual([
      "subscription.updated",
      "subscription.updated",
      "subscription.updated",
      "subscription.canceled",
      "subscription.updated",
      "subscription.canceled",
      "subscription.revoked",
    ]);
    expect((await polar.customers.getState({ id: subscription.customerId })).activeSubscriptions).toEqual([]);
  });

  it("makes signed deliveries to replay, and a tampered one does not verify", async () => {
    const subscription = await subscribe();
    const delivery = standIn.event("subscription.updated", { ...subscription, status: "past_due" });
    expect((await standIn.deliver(delivery)).status).toBe(200);
    expect((await standIn.deliver(delivery)).status).toBe(200);
    expect(receiver.received[0]!.event!.data).toMatchObject({ id: subscription.id, status: "past_due" });

    const tampered = { ...delivery, body: delivery.body.replace('"past_due"', '"active"') };
    expect((await standIn.deliver(tampered)).status).toBe(400);
    expect(receiver.received[2]!.error).toBeInstanceOf(WebhookVerificationError);
  });

  it("fails on demand with a 500 or a timeout, and refuses a wrong token with a 401", async () => {
    standIn.failNext("error");
    await expect(createCustomer()).rejects.toMatchObject({ statusCode: 500 });
    standIn.failNext("timeout");
    await expect(client(ACCESS_TOKEN, 300).customers.create({ email: "late@example.com" })).rejects.toBeInstanceOf(
      RequestTimeoutError,
    );
    expect((await createCustomer()).id).toMatch(UUID);

    const refused = client("polar_oat_wrong").customers.create({ email: "nobody@example.com" });
    await expect(refused).rejects.toBeInstanceOf(SDKError);
    await expect(refused).rejects.toMatchObject({ statusCode: 401 });
    expect(standIn.calls).toHaveLength(4);
  });
});
