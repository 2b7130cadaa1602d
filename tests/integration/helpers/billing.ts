/**
 * Subscriptions end to end for one payment provider: the built server with PAYMENT_PROVIDER
 * set, both providers' stand-ins running (tests/support), driven through the official SDKs,
 * with webhooks signed by the SDKs' own helpers. The same suite runs for Stripe and for
 * Polar (billing-stripe.test.ts, billing-polar.test.ts), each in its own process, since a
 * test process holds one database connection.
 */
import { CustomerState$inboundSchema } from "@polar-sh/sdk/models/components/customerstate.js";
import { ListResourceSubscription$inboundSchema } from "@polar-sh/sdk/models/components/listresourcesubscription.js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startPolarStandIn, type PolarStandIn } from "../../support/polar-stand-in";
import { startStripeStandIn, type StripeStandIn } from "../../support/stripe-stand-in";
import { startWebhookReceiver, type WebhookReceiver } from "../../support/webhook-receiver";
import { startTestApp, type TestApp } from "./app";
import { applySetCookies, makeTestClient, type TestClient } from "./auth-client";
import { PASSWORD } from "./factories";
import { get, post } from "./http";
import { expectPolarShape } from "./polar-shapes";

type ProviderId = "stripe" | "polar";
const DAY = 86_400_000;

const PLANS = {
  PRO_MONTHLY: { plan: "pro", interval: "month", amount: 1900 },
  PRO_YEARLY: { plan: "pro", interval: "year", amount: 19000 },
  TEAM_MONTHLY: { plan: "team", interval: "month", amount: 4900 },
  TEAM_YEARLY: { plan: "team", interval: "year", amount: 49000 },
} as const;
const stripeIds = Object.fromEntries(Object.entries(PLANS).map(([key, plan]) => [`price_${key.toLowerCase()}`, plan]));
const polarIds = Object.fromEntries(
  Object.values(PLANS).map((plan, i) => [`0b5e1c2a-7d3f-4e8a-9c6b-00000000000${i}`, plan]),
);
const idOf = (ids: Record<string, unknown>, key: keyof typeof PLANS) =>
  Object.keys(ids)[Object.keys(PLANS).indexOf(key)]!;

/** What a provider's own test file gets to add tests of its own to the suite (see billingSuite). */
export interface BillingSuiteTools {
  app(): TestApp;
  polar(): PolarStandIn;
  stripe(): StripeStandIn;
  password: string;
  person(): Promise<TestClient & { id: string; email: string }>;
  submit(c: TestClient, path: string, form: Record<string, string>): Promise<Response>;
  startCheckout(
    c: TestClient,
    plan: string,
    options?: { referenceId?: string; annual?: boolean },
  ): Promise<{ data: { url: string; redirect: boolean } | null; error: unknown }>;
  pay(checkoutUrl: string): Promise<string>;
  subscriptionOf(referenceId: string): ReturnType<TestApp["prisma"]["subscription"]["findFirstOrThrow"]>;
}

/** The suite for `provider`; `more` adds tests of that provider's own, run with the same app. */
export function billingSuite(provider: ProviderId, more?: (tools: BillingSuiteTools) => void) {
  let app: TestApp;
  let stripe: StripeStandIn;
  let polar: PolarStandIn;
  let receiver: WebhookReceiver;
  const secret = `billing-${provider}-secret-0123456789abcdefghij`;
  const active = () => (provider === "stripe" ? stripe : polar);
  const unused = () => (provider === "stripe" ? polar : stripe);
  const webhookPath = provider === "stripe" ? "/api/auth/stripe/webhook" : "/api/auth/polar/webhooks";

  beforeAll(async () => {
    receiver = await startWebhookReceiver();
    stripe = await startStripeStandIn({ secretKey: "sk_test_suite", webhookSecret: "whsec_suite", prices: stripeIds });
    polar = await startPolarStandIn({
      accessToken: "polar_oat_suite",
      webhookSecret: "polar_whs_suite",
      products: polarIds,
    });
    const env: Record<string, string> = {
      PAYMENT_PROVIDER: provider,
      // Both configured: only the chosen one may ever be called.
      STRIPE_SECRET_KEY: "sk_test_suite",
      STRIPE_WEBHOOK_SECRET: "whsec_suite",
      STRIPE_API_BASE_URL: stripe.url,
      POLAR_ACCESS_TOKEN: "polar_oat_suite",
      POLAR_WEBHOOK_SECRET: "polar_whs_suite",
      POLAR_API_BASE_URL: polar.url,
      // The organization's own outgoing webhooks reach the tests' receiver on loopback.
      WEBHOOK_PRIVATE_ORIGINS: receiver.origin,
      JOB_POLL_INTERVAL_MS: "500",
    };
    for (const key of Object.keys(PLANS) as (keyof typeof PLANS)[]) {
      env[`STRIPE_PRICE_${key}`] = idOf(stripeIds, key);
      env[`POLAR_PRODUCT_${key}`] = idOf(polarIds, key);
    }
    app = await startTestApp({ secret, env });
    active().setWebhookUrl(app.base + webhookPath);
    unused().setWebhookUrl(app.base + webhookPath);
  }, 60_000);
  afterAll(async () => {
    await app?.stop();
    await stripe?.close();
    await polar?.close();
    await receiver?.close();
  });

  let counter = 0;
  /** A verified user with a password, signed in through the API, with a client of their own. */
  async function person(): Promise<TestClient & { id: string; email: string }> {
    const email = `payer${++counter}.${provider}.${Date.now()}@example.com`;
    const c = makeTestClient(app.base);
    const { data } = await c.client.signUp.email({ email, password: PASSWORD, name: `Payer ${counter}` });
    await app.prisma.user.update({ where: { id: data!.user.id }, data: { emailVerified: true } });
    await c.client.signIn.email({ email, password: PASSWORD });
    return Object.assign(c, { id: data!.user.id, email });
  }

  const headers = (c: TestClient) => ({ cookie: c.cookieHeader(), origin: app.base });
  /** A page form post as the signed-in browser sends it; keeps the cookies it sets. */
  async function submit(c: TestClient, path: string, form: Record<string, string>) {
    const response = await post(app.base + path, form, headers(c));
    applySetCookies(c.jar, response.headers.getSetCookie());
    return response;
  }

  /** The provider plugin's checkout call: Stripe's upgrade or Polar's checkout. */
  function startCheckout(c: TestClient, plan: string, options: { referenceId?: string; annual?: boolean } = {}) {
    const organization = options.referenceId && options.referenceId !== (c as { id?: string }).id;
    return provider === "stripe"
      ? c.client.$fetch<{ url: string; id: string; redirect: boolean }>("/subscription/upgrade", {
          method: "POST",
          body: {
            plan,
            annual: options.annual,
            referenceId: options.referenceId,
            customerType: organization ? "organization" : undefined,
            successUrl: "/billing",
            cancelUrl: "/pricing",
          },
        })
      : c.client.$fetch<{ url: string; redirect: boolean }>("/checkout", {
          method: "POST",
          body: {
            slug: options.annual ? `${plan}-yearly` : plan,
            referenceId: options.referenceId,
            successUrl: "/billing",
            returnUrl: "/pricing",
          },
        });
  }

  /** The active subscriptions of a reference through the provider's list call. */
  async function listed(c: TestClient, referenceId?: string) {
    if (provider === "stripe") {
      const { data } = await c.client.$fetch<{ plan: string; status: string }[]>("/subscription/list", {
        query: referenceId ? { referenceId, customerType: "organization" } : {},
      });
      return data ?? [];
    }
    // Polar's subscription objects name the product, whose plan the test knows.
    const { data } = await c.client.$fetch<{ result: { items: { productId: string; status: string }[] } }>(
      "/customer/subscriptions/list",
      { query: { active: true, ...(referenceId ? { referenceId } : {}) } },
    );
    return (data?.result.items ?? []).map((item) => ({ plan: polarIds[item.productId]?.plan, status: item.status }));
  }

  async function sessionSubscriptions(c: TestClient) {
    const { data } = await c.client.$fetch<{ subscriptions: { plan: string; status: string }[] } | null>(
      "/get-session",
    );
    return data?.subscriptions ?? [];
  }

  /** The hosted checkout's "Subscribe" button; returns where the provider sends the browser. */
  async function pay(checkoutUrl: string) {
    expect(checkoutUrl.startsWith(active().url)).toBe(true);
    const response = await fetch(checkoutUrl, { method: "POST", redirect: "manual" });
    expect(response.status).toBe(303);
    return response.headers.get("location")!;
  }

  const subscriptionOf = (referenceId: string) =>
    app.prisma.subscription.findFirstOrThrow({ where: { referenceId }, orderBy: { createdAt: "desc" } });

  describe(`subscriptions with ${provider}`, () => {
    it("guest on pricing → sign in → checkout → webhook → active → cancel → restore → period end → inactive", async () => {
      // The guest's call to action: sign in, then back to the checkout of that plan.
      const pricing = await (await get(`${app.base}/pricing?interval=yearly`)).text();
      const checkoutPath = "/checkout?plan=pro&interval=yearly";
      expect(pricing).toContain(`href="/signin?redirect=${encodeURIComponent(checkoutPath).replaceAll("&", "&amp;")}"`);

      const c = await person();
      c.jar.clear(); // signed out again: the page sign-in below is the one that counts
      const signIn = await submit(c, `/signin?redirect=${encodeURIComponent(checkoutPath)}`, {
        intent: "sign-in",
        email: c.email,
        password: PASSWORD,
      });
      expect(signIn.status).toBe(302);
      expect(signIn.headers.get("location")).toBe(checkoutPath);
      expect((await get(app.base + checkoutPath, headers(c))).status).toBe(200);

      // The checkout form: off to the provider's hosted checkout.
      const checkout = await submit(c, checkoutPath, {
        intent: "checkout",
        plan: "pro",
        interval: "yearly",
        referenceId: c.id,
      });
      expect(checkout.status).toBe(302);
      // Back before the webhook has arrived, the success page waits (and refreshes without JS).
      const waiting = await (await get(`${app.base}/billing/success?reference=${c.id}`, headers(c))).text();
      expect(waiting).toContain("Confirming your payment");
      expect(waiting).toMatch(/<noscript><meta http-equiv="refresh" content="2"\/?><\/noscript>/);
      const back = await pay(checkout.headers.get("location")!);
      expect(back).toBe(`${app.base}/billing/success?reference=${c.id}`);

      // The webhook recorded it: a 14-day trial of Pro, billed yearly.
      const row = await subscriptionOf(c.id);
      expect(row).toMatchObject({ plan: "pro", status: "trialing", provider, billingInterval: "year" });
      expect(row.trialEnd!.getTime() - Date.now()).toBeGreaterThan(13.9 * DAY);
      const customer = await app.prisma.user.findUniqueOrThrow({ where: { id: c.id } });
      expect(provider === "stripe" ? customer.stripeCustomerId : customer.polarCustomerId).toBe(row.customerId);
      expect(await sessionSubscriptions(c)).toEqual([expect.objectContaining({ plan: "pro", status: "trialing" })]);
      expect(await listed(c)).toEqual([expect.objectContaining({ plan: "pro", status: "trialing" })]);
      expect(await (await get(back, headers(c))).text()).toContain('data-testid="checkout-success"');

      // Cancel at period end, then restore, from the billing page.
      expect((await submit(c, "/billing", { intent: "cancel", referenceId: c.id })).status).toBe(302);
      expect(await subscriptionOf(c.id)).toMatchObject({ cancelAtPeriodEnd: true, status: "trialing" });
      expect(await (await get(`${app.base}/billing`, headers(c))).text()).toContain("ends on");
      expect((await submit(c, "/billing", { intent: "restore", referenceId: c.id })).status).toBe(302);
      expect(await subscriptionOf(c.id)).toMatchObject({ cancelAtPeriodEnd: false });

      // Cancelled again, the period ends: no longer active anywhere.
      await submit(c, "/billing", { intent: "cancel", referenceId: c.id });
      await active().settled();
      await active().endPeriod(row.providerSubscriptionId!);
      expect((await subscriptionOf(c.id)).status).toBe("canceled");
      expect(await sessionSubscriptions(c)).toEqual([]);
      expect(await listed(c)).toEqual([]);

      const actions = await app.prisma.auditLog.findMany({
        where: { category: "payment", OR: [{ userId: c.id }, { targetId: row.providerSubscriptionId }] },
        select: { action: true },
      });
      expect(new Set(actions.map((a) => a.action))).toEqual(
        new Set(["checkout", "webhook", "cancel-subscription", "restore-subscription"]),
      );
      // Every webhook the provider sent was acknowledged, those about checkouts too.
      expect(active().webhooks.every((w) => w.status === 200)).toBe(true);
    });

    it("gives no second trial, and sends a subscriber who asks for another plan to the portal", async () => {
      const c = await person();
      await pay((await startCheckout(c, "pro")).data!.url);
      const first = await subscriptionOf(c.id);
      expect(first.status).toBe("trialing");
      // Same plan again: refused; another plan: the provider's portal changes it.
      const again = await startCheckout(c, "pro");
      expect(again.error).toMatchObject({ status: 400, code: "ALREADY_SUBSCRIBED_PLAN" });
      const other = await startCheckout(c, "team");
      expect(other.data!.url).toContain(active().url);
      expect(other.data!.url).toMatch(provider === "stripe" ? /\/p\/session\// : /\/portal\?/);

      await submit(c, "/billing", { intent: "cancel", referenceId: c.id });
      await active().settled();
      await active().endPeriod(first.providerSubscriptionId!);
      // A second subscription starts at once, without a trial.
      await pay((await startCheckout(c, "pro")).data!.url);
      const second = await subscriptionOf(c.id);
      expect(second.id).not.toBe(first.id);
      expect(second).toMatchObject({ status: "active", trialStart: null });
    });

    it("lets an organization's owner subscribe it, and refuses a plain member", async () => {
      const owner = await person();
      const member = await person();
      const { data: org } = await owner.client.organization.create({ name: "Paying Org", slug: `pay-${Date.now()}` });
      const { addMember } = await import("~/server/organization/organizations.server");
      await addMember(
        { userId: member.id, role: "member", organizationId: org!.id },
        { ipAddress: null, userAgent: null, locale: "en" },
      );

      const refused = await startCheckout(member, "team", { referenceId: org!.id });
      expect(refused.error).toMatchObject({ status: 403, code: "YOU_ARE_NOT_ALLOWED_TO_MANAGE_BILLING" });
      const refusedForm = await submit(member, "/checkout?plan=team", {
        intent: "checkout",
        plan: "team",
        interval: "monthly",
        referenceId: org!.id,
      });
      expect(refusedForm.status).toBe(403);
      // The organization's webhook endpoint for subscription changes (with a known secret).
      const { encryptSecret } = await import("~/server/crypto.server");
      const signing = `whsec_${Buffer.from(`${provider}-subscription-hook-secret`).toString("base64")}`;
      const hookPath = `/subscription-${provider}-${Date.now()}`;
      await app.prisma.webhookEndpoint.create({
        data: {
          organizationId: org!.id,
          url: receiver.register(hookPath, signing),
          eventTypes: "subscription.changed",
          secret: encryptSecret(secret, signing),
        },
      });

      await pay((await startCheckout(owner, "team", { referenceId: org!.id })).data!.url);
      expect(await subscriptionOf(org!.id)).toMatchObject({ plan: "team", status: "trialing", seats: 5 });
      // The provider's webhook changed the organization's subscription: its endpoint hears of it, signed.
      const deadline = Date.now() + 20_000;
      while (!receiver.at(hookPath).length && Date.now() < deadline) await new Promise((r) => setTimeout(r, 100));
      expect(receiver.at(hookPath)[0]).toMatchObject({ type: "subscription.changed", verified: true, status: 200 });
      expect(await listed(owner, org!.id)).toEqual([expect.objectContaining({ plan: "team" })]);
      // The member sees the organization's plan (active organization) but cannot cancel it.
      await member.client.organization.setActive({ organizationId: org!.id });
      expect(await sessionSubscriptions(member)).toEqual([expect.objectContaining({ plan: "team" })]);
      await submit(member, "/billing", { intent: "cancel", referenceId: org!.id });
      expect((await subscriptionOf(org!.id)).cancelAtPeriodEnd).toBe(false);
      // The organization is its own customer at either provider.
      const organization = await app.prisma.organization.findUniqueOrThrow({ where: { id: org!.id } });
      expect(provider === "stripe" ? organization.stripeCustomerId : organization.polarCustomerId).toBe(
        (await subscriptionOf(org!.id)).customerId,
      );
    });

    it("applies a webhook once: bad signatures, replays, concurrent and out-of-order deliveries", async () => {
      const c = await person();
      const { data } = await startCheckout(c, "pro");
      await pay(data!.url);
      const row = await subscriptionOf(c.id);
      const created = active().webhooks.findLast((w) => /subscription\.created$/.test(w.type))!;
      expect(created.delivery.body).toContain(c.id);
      const events = () => app.prisma.webhookEvent.count();
      const webhookAudits = () => app.prisma.auditLog.count({ where: { action: "webhook" } });

      // A tampered body: 400 with a code, nothing recorded.
      const before = await events();
      const tampered = await fetch(app.base + webhookPath, {
        method: "POST",
        headers: created.delivery.headers,
        body: created.delivery.body.replace(c.id, "someone-else"),
      });
      expect(tampered.status).toBe(400);
      expect(await tampered.json()).toMatchObject({ code: "INVALID_WEBHOOK_SIGNATURE" });
      expect(await events()).toBe(before);

      // The same event again, twice at once: acknowledged, applied never.
      const audits = await webhookAudits();
      const replays = await Promise.all([1, 2].map(() => active().deliver(created.delivery)));
      expect(replays.map((r) => r.status)).toEqual([200, 200]);
      expect(await events()).toBe(before);
      expect(await webhookAudits()).toBe(audits);

      // Cancelled; then the creation event arrives late, under a new id: the state stays.
      await submit(c, "/billing", { intent: "cancel", referenceId: c.id });
      await active().settled();
      const late =
        provider === "stripe"
          ? stripe.event("customer.subscription.created", JSON.parse(created.delivery.body).data.object)
          : polar.event("subscription.created", await polarSubscription(row.providerSubscriptionId!));
      expect((await active().deliver(late)).status).toBe(200);
      expect(await subscriptionOf(c.id)).toMatchObject({ cancelAtPeriodEnd: true });

      // Ten new deliveries of one event at once (a provider retrying, several instances):
      // every one acknowledged, applied once. (Two instances: instances.test.ts.)
      const fresh =
        provider === "stripe"
          ? stripe.event("customer.subscription.updated", JSON.parse(created.delivery.body).data.object)
          : polar.event("subscription.updated", await polarSubscription(row.providerSubscriptionId!));
      const auditsBefore = await webhookAudits();
      const eventsBefore = await events();
      const all = await Promise.all(Array.from({ length: 10 }, () => active().deliver(fresh)));
      expect(all.map((r) => r.status)).toEqual(Array(10).fill(200));
      expect((await webhookAudits()) - auditsBefore).toBe(1);
      expect((await events()) - eventsBefore).toBe(1);
      expect(await app.prisma.subscription.count({ where: { referenceId: c.id } })).toBe(1);
    });

    it("reports a provider failure or timeout clearly, in the user's language, and leaves nothing half-made", async () => {
      const c = await person();
      const checkoutPath = provider === "stripe" ? "/v1/checkout/sessions" : "/v1/checkouts/";
      active().reset();
      active().failNext("error", 1, checkoutPath);
      const failed = await startCheckout(c, "pro");
      expect(failed.error).toMatchObject({ status: 502, code: "PAYMENT_PROVIDER_UNAVAILABLE" });
      // The customer made for the failed checkout was removed again, and not remembered.
      const calls = active().calls.map((call) => `${call.method} ${call.path}`);
      expect(calls[0]).toMatch(/^POST \/v1\/customers\/?$/);
      expect(calls.at(-1)).toMatch(/^DELETE \/v1\/customers\/[^/]+$/);
      const user = await app.prisma.user.findUniqueOrThrow({ where: { id: c.id } });
      expect([user.stripeCustomerId, user.polarCustomerId]).toEqual([null, null]);
      expect(await app.prisma.subscription.count({ where: { referenceId: c.id } })).toBe(0);

      // The page says so in French, with the error's status.
      active().failNext("timeout", 1, "/v1/customers");
      const started = Date.now();
      const page = await submit(c, "/fr/checkout?plan=pro", {
        intent: "checkout",
        plan: "pro",
        interval: "monthly",
        referenceId: c.id,
      });
      expect(page.status).toBe(502);
      expect(Date.now() - started).toBeLessThan(15_000);
      expect(await page.text()).toContain("Le prestataire de paiement est injoignable");
      expect(await app.prisma.subscription.count({ where: { referenceId: c.id } })).toBe(0);

      // And it works once the provider is back.
      const ok = await startCheckout(c, "pro");
      expect(ok.data!.url).toContain(active().url);
    }, 30_000);

    it("ends the subscription of a deleted account or organization, and waits while the provider is down", async () => {
      const c = await person();
      await pay((await startCheckout(c, "pro")).data!.url);
      const mine = await subscriptionOf(c.id);
      const { data: org } = await c.client.organization.create({ name: "Closing Org", slug: `close-${Date.now()}` });
      await pay((await startCheckout(c, "team", { referenceId: org!.id })).data!.url);
      const theirs = await subscriptionOf(org!.id);

      // The provider is down: nothing is deleted, and nothing is cancelled.
      active().failNext("error", 1);
      const refused = await c.client.organization.delete({ organizationId: org!.id });
      expect(refused.error).toMatchObject({ status: 502, code: "PAYMENT_PROVIDER_UNAVAILABLE" });
      expect(await app.prisma.organization.count({ where: { id: org!.id } })).toBe(1);

      expect((await c.client.organization.delete({ organizationId: org!.id })).error).toBeNull();
      expect(await app.prisma.subscription.findUniqueOrThrow({ where: { id: theirs.id } })).toMatchObject({
        cancelAtPeriodEnd: true,
      });
      expect((await c.client.deleteUser({ password: PASSWORD })).error).toBeNull();
      expect(await app.prisma.user.count({ where: { id: c.id } })).toBe(0);
      expect(await app.prisma.subscription.findUniqueOrThrow({ where: { id: mine.id } })).toMatchObject({
        cancelAtPeriodEnd: true,
      });
      // The provider was told too: its webhooks agree.
      await active().settled();
      expect((await app.prisma.subscription.findUniqueOrThrow({ where: { id: mine.id } })).cancelAtPeriodEnd).toBe(
        true,
      );
    });

    it("speaks the plugin's wire contract, refusing guests and foreign URLs", async () => {
      const c = await person();
      const guest = makeTestClient(app.base);
      expect((await startCheckout(guest, "pro")).error).toMatchObject({ status: 401, code: "UNAUTHORIZED" });
      expect((await startCheckout(c, "enterprise")).error).toMatchObject({
        status: 400,
        code: "SUBSCRIPTION_PLAN_NOT_FOUND",
      });
      const foreign = await c.client.$fetch(provider === "stripe" ? "/subscription/upgrade" : "/checkout", {
        method: "POST",
        body: { plan: "pro", slug: "pro", successUrl: "https://evil.example/thanks" },
      });
      expect(foreign.error).toMatchObject({ status: 403, code: "INVALID_REDIRECT_URL" });

      const { data: checkout } = await startCheckout(c, "pro");
      expect(checkout).toMatchObject({ url: expect.stringContaining(active().url), redirect: true });
      if (provider === "stripe") {
        // The Checkout Session itself, spread with redirect.
        expect(checkout).toMatchObject({ object: "checkout.session", mode: "subscription", id: expect.any(String) });
        await pay(checkout!.url);
        const cancel = await c.client.$fetch("/subscription/cancel", {
          method: "POST",
          body: { returnUrl: "/billing" },
        });
        expect(cancel.data).toEqual({ url: `${app.base}/billing`, redirect: true });
        const restore = await c.client.$fetch("/subscription/restore", { method: "POST", body: {} });
        expect(restore.data).toMatchObject({ object: "subscription", cancel_at_period_end: false });
        const again = await c.client.$fetch("/subscription/restore", { method: "POST", body: {} });
        expect(again.error).toMatchObject({ status: 400, code: "SUBSCRIPTION_NOT_SCHEDULED_FOR_CANCELLATION" });
        const portal = await c.client.$fetch("/subscription/billing-portal", {
          method: "POST",
          body: { returnUrl: "/billing" },
        });
        expect(portal.data).toEqual({ url: expect.stringContaining(`${stripe.url}/p/session/`), redirect: true });
        const success = await get(`${app.base}/api/auth/subscription/success?callbackURL=%2Fbilling`, headers(c));
        expect([success.status, success.headers.get("location")]).toEqual([302, "/billing"]);
        const evil = await get(
          `${app.base}/api/auth/subscription/success?callbackURL=https://evil.example`,
          headers(c),
        );
        expect(evil.status).toBe(403);
      } else {
        await pay(checkout!.url);
        const portal = await c.client.$fetch("/customer/portal", { method: "GET" });
        expect(portal.data).toEqual({ url: expect.stringContaining(`${polar.url}/portal?`), redirect: true });
        // Polar's own shapes, field by field against its SDK's types, carrying Polar's ids.
        const row = await subscriptionOf(c.id);
        const { polarCustomerId } = await app.prisma.user.findUniqueOrThrow({ where: { id: c.id } });
        const polarSubscription = {
          id: row.providerSubscriptionId,
          productId: idOf(polarIds, "PRO_MONTHLY"),
          status: "trialing",
          amount: 1900,
          currency: "usd",
          recurringInterval: "month",
          cancelAtPeriodEnd: false,
          metadata: expect.objectContaining({ referenceId: c.id, plan: "pro" }),
        };
        // Read as sent (the browser client would turn the dates into Date objects).
        const stateAnswer = await get(`${app.base}/api/auth/customer/state`, headers(c));
        expect(stateAnswer.status).toBe(200);
        const state: unknown = await stateAnswer.json();
        expectPolarShape(CustomerState$inboundSchema, state);
        expect(state).toMatchObject({
          id: polarCustomerId,
          type: "individual",
          externalId: c.id,
          email: c.email,
          activeSubscriptions: [polarSubscription],
          grantedBenefits: [],
          activeMeters: [],
        });
        expect(state).not.toHaveProperty("activeSubscriptions.0.plan");
        const list = await get(`${app.base}/api/auth/customer/subscriptions/list?page=1&limit=1`, headers(c));
        expect(list.status).toBe(200);
        const page = (await list.json()) as { result: unknown };
        expectPolarShape(ListResourceSubscription$inboundSchema, page.result);
        expect(page.result).toMatchObject({
          items: [{ ...polarSubscription, customerId: polarCustomerId, customer: { id: polarCustomerId } }],
          pagination: { totalCount: 1, maxPage: 1 },
        });
        // A user who never bought has no Polar customer, hence no state.
        const { error: none } = await (await person()).client.$fetch("/customer/state");
        expect(none).toMatchObject({ status: 400, code: "CUSTOMER_NOT_FOUND" });
      }
    });

    more?.({
      app: () => app,
      polar: () => polar,
      stripe: () => stripe,
      password: PASSWORD,
      person,
      submit,
      startCheckout,
      pay,
      subscriptionOf,
    });

    it("never calls the other provider, whose routes do not exist here", async () => {
      expect(unused().calls).toEqual([]);
      const c = await person();
      const otherRoutes =
        provider === "stripe"
          ? ["/checkout", "/customer/portal", "/polar/webhooks"]
          : ["/subscription/upgrade", "/subscription/cancel", "/stripe/webhook"];
      for (const path of otherRoutes) {
        const response = await fetch(`${app.base}/api/auth${path}`, {
          method: "POST",
          headers: { ...headers(c), "content-type": "application/json" },
          body: "{}",
        });
        expect(response.status, path).toBe(404);
      }
    });
  });

  /** Polar's subscription object as the stand-in holds it now, read through the SDK. */
  async function polarSubscription(id: string) {
    const { Polar } = await import("@polar-sh/sdk");
    const sdk = new Polar({ accessToken: "polar_oat_suite", serverURL: polar.url });
    const subscription = await sdk.subscriptions.get({ id });
    polar.reset(); // the read above is the test's, not the app's
    return subscription;
  }
}
