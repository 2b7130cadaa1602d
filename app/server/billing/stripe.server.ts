/**
 * Stripe, through the official SDK. STRIPE_API_BASE_URL points it elsewhere (the test suite's
 * stand-in); every call has a 5 s timeout and no automatic retry, so a checkout either gets
 * its URL quickly or a clear error the user can act on.
 */
import Stripe from "stripe";
import type { BillingInterval, PlanId } from "~/config/plans";
import type { Env } from "~/server/env.server";
import {
  PROVIDER_TIMEOUT_MS,
  ProviderNotConfiguredError,
  ProviderUnavailableError,
  WebhookSignatureError,
  type PaymentProvider,
  type ProviderEvent,
  type ProviderSubscription,
} from "./provider.server";
import { traced } from "~/server/tracing.server";

type PriceIds = Partial<Record<`${Exclude<PlanId, "free">}:${BillingInterval}`, string>>;

const SUBSCRIPTION_EVENTS = new Set([
  "customer.subscription.created",
  "customer.subscription.updated",
  "customer.subscription.deleted",
  "customer.subscription.paused",
  "customer.subscription.resumed",
]);

const fromSeconds = (value: number | null | undefined) => (value ? new Date(value * 1000) : null);

/** Any SDK failure becomes ProviderUnavailableError, carrying Stripe's message for the log. */
async function call<T>(what: string, run: () => Promise<T>): Promise<T> {
  try {
    return await traced(`stripe ${what}`, { "app.payment.provider": "stripe" }, run);
  } catch (error) {
    throw new ProviderUnavailableError(`Stripe ${what} failed: ${(error as Error).message}`, { cause: error });
  }
}

export function createStripeProvider(env: Env): PaymentProvider {
  if (!env.STRIPE_SECRET_KEY) throw new ProviderNotConfiguredError("Stripe is not configured: set STRIPE_SECRET_KEY");
  const base = new URL(env.STRIPE_API_BASE_URL ?? "https://api.stripe.com");
  const stripe = new Stripe(env.STRIPE_SECRET_KEY, {
    host: base.hostname,
    port: base.port || (base.protocol === "https:" ? 443 : 80),
    protocol: base.protocol === "https:" ? "https" : "http",
    maxNetworkRetries: 0,
    timeout: PROVIDER_TIMEOUT_MS,
    appInfo: { name: "saas-app" },
  });
  const prices: PriceIds = {
    "pro:monthly": env.STRIPE_PRICE_PRO_MONTHLY,
    "pro:yearly": env.STRIPE_PRICE_PRO_YEARLY,
    "team:monthly": env.STRIPE_PRICE_TEAM_MONTHLY,
    "team:yearly": env.STRIPE_PRICE_TEAM_YEARLY,
  };
  const planOfPrice = new Map(
    Object.entries(prices)
      .filter(([, id]) => id)
      .map(([key, id]) => [id!, key.split(":")[0] as PlanId]),
  );

  function normalize(subscription: Stripe.Subscription): ProviderSubscription {
    const item = subscription.items.data[0];
    const price = item?.price;
    const interval = price?.recurring?.interval;
    const metadata = subscription.metadata ?? {};
    return {
      providerSubscriptionId: subscription.id,
      customerId: typeof subscription.customer === "string" ? subscription.customer : subscription.customer.id,
      productId: price?.id ?? null,
      data: null,
      referenceId: metadata.referenceId || null,
      plan: (price && planOfPrice.get(price.id)) ?? null,
      billingInterval: interval === "month" ? "month" : interval === "year" ? "year" : null,
      status: subscription.status,
      periodStart: fromSeconds(item?.current_period_start),
      periodEnd: fromSeconds(item?.current_period_end),
      trialStart: fromSeconds(subscription.trial_start),
      trialEnd: fromSeconds(subscription.trial_end),
      cancelAtPeriodEnd: subscription.cancel_at_period_end,
      cancelAt: fromSeconds(subscription.cancel_at ?? subscription.ended_at),
      quantity: item?.quantity ?? 1,
    };
  }

  return {
    id: "stripe",

    async createCustomer(reference) {
      const customer = await call("customer creation", () =>
        stripe.customers.create({
          email: reference.email,
          name: reference.name,
          metadata: {
            referenceId: reference.referenceId,
            customerType: reference.customerType,
            userId: reference.userId,
          },
        }),
      );
      return customer.id;
    },

    async deleteCustomer(customerId) {
      await call("customer deletion", () => stripe.customers.del(customerId));
    },

    async createCheckout(request) {
      const price = prices[`${request.plan}:${request.interval}`];
      if (!price)
        throw new ProviderNotConfiguredError(`No Stripe price is configured for ${request.plan} ${request.interval}`);
      const metadata = {
        referenceId: request.reference.referenceId,
        customerType: request.reference.customerType,
        plan: request.plan,
        userId: request.reference.userId,
      };
      const session = await call("checkout", () =>
        stripe.checkout.sessions.create({
          mode: "subscription",
          customer: request.customerId,
          line_items: [{ price, quantity: request.quantity }],
          success_url: request.successUrl,
          cancel_url: request.cancelUrl,
          client_reference_id: request.reference.referenceId,
          locale: checkoutLocale(request.locale),
          metadata,
          subscription_data: {
            ...(request.trialDays > 0 ? { trial_period_days: request.trialDays } : {}),
            metadata,
          },
        }),
      );
      if (!session.url) throw new ProviderUnavailableError("Stripe returned a checkout session without a URL");
      return { id: session.id, url: session.url, raw: session };
    },

    async createPortal({ customerId, returnUrl }) {
      const portal = await call("billing portal", () =>
        stripe.billingPortal.sessions.create({ customer: customerId, return_url: returnUrl }),
      );
      return portal.url;
    },

    async getSubscription(providerSubscriptionId) {
      return normalize(await call("subscription read", () => stripe.subscriptions.retrieve(providerSubscriptionId)));
    },

    async setCancelAtPeriodEnd(providerSubscriptionId, cancel) {
      const subscription = await call("subscription update", () =>
        stripe.subscriptions.update(providerSubscriptionId, { cancel_at_period_end: cancel }),
      );
      return { subscription: normalize(subscription), raw: subscription };
    },

    parseWebhook(payload, headers) {
      const signature = headers.get("stripe-signature");
      if (!signature || !env.STRIPE_WEBHOOK_SECRET) throw new WebhookSignatureError("missing signature or secret");
      let event: Stripe.Event;
      try {
        event = stripe.webhooks.constructEvent(payload, signature, env.STRIPE_WEBHOOK_SECRET);
      } catch (error) {
        throw new WebhookSignatureError((error as Error).message);
      }
      return {
        id: event.id,
        type: event.type,
        subscriptionId: SUBSCRIPTION_EVENTS.has(event.type) ? (event.data.object as Stripe.Subscription).id : null,
      } satisfies ProviderEvent;
    },
  };
}

/** Stripe Checkout's locale for ours ("zh-CN" → "zh"; it has no zh-CN). */
function checkoutLocale(locale: string): Stripe.Checkout.SessionCreateParams.Locale {
  return (locale === "zh-CN" ? "zh" : locale) as Stripe.Checkout.SessionCreateParams.Locale;
}
