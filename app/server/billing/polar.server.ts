/**
 * Polar, through the official SDK. POLAR_API_BASE_URL points it elsewhere (the test suite's
 * stand-in); every call has a 5 s timeout and no automatic retry. Webhooks are Standard
 * Webhooks, verified by the SDK's `validateEvent`.
 *
 * A user is an individual customer (external id = user id). An organization is a team
 * customer of its own (external id = organization id, no email of its own: Polar keeps one
 * customer per email, and the buyer's is their own customer's), whose owner member is the
 * buyer; so the organization pays, whoever bought, and a team customer's portal shows the
 * organization's subscriptions only. A portal session for a team customer is a member's
 * session: each billing manager of the organization opens it as their own member
 * (external id = user id, role billing_manager), made the first time.
 */
import { Polar } from "@polar-sh/sdk";
import type { Subscription } from "@polar-sh/sdk/models/components/subscription.js";
import { HTTPValidationError } from "@polar-sh/sdk/models/errors/httpvalidationerror.js";
import { SDKValidationError } from "@polar-sh/sdk/models/errors/sdkvalidationerror.js";
import { validateEvent } from "@polar-sh/sdk/webhooks.js";
import type { BillingInterval, PlanId } from "~/config/plans";
import type { Env } from "~/server/env.server";
import {
  PROVIDER_TIMEOUT_MS,
  ProviderNotConfiguredError,
  ProviderUnavailableError,
  WebhookSignatureError,
  type PaymentProvider,
  type ProviderSubscription,
} from "./provider.server";
import { logger } from "~/server/log.server";
import { traced } from "~/server/tracing.server";

type ProductIds = Partial<Record<`${Exclude<PlanId, "free">}:${BillingInterval}`, string>>;

async function call<T>(what: string, run: () => Promise<T>): Promise<T> {
  try {
    return await traced(`polar ${what}`, { "app.payment.provider": "polar" }, run);
  } catch (error) {
    throw new ProviderUnavailableError(`Polar ${what} failed: ${(error as Error).message}`, { cause: error });
  }
}

export function createPolarProvider(env: Env): PaymentProvider {
  if (!env.POLAR_ACCESS_TOKEN) throw new ProviderNotConfiguredError("Polar is not configured: set POLAR_ACCESS_TOKEN");
  const polar = new Polar({
    accessToken: env.POLAR_ACCESS_TOKEN,
    serverURL: env.POLAR_API_BASE_URL ?? "https://api.polar.sh",
    timeoutMs: PROVIDER_TIMEOUT_MS,
    retryConfig: { strategy: "none" },
  });
  const products: ProductIds = {
    "pro:monthly": env.POLAR_PRODUCT_PRO_MONTHLY,
    "pro:yearly": env.POLAR_PRODUCT_PRO_YEARLY,
    "team:monthly": env.POLAR_PRODUCT_TEAM_MONTHLY,
    "team:yearly": env.POLAR_PRODUCT_TEAM_YEARLY,
  };
  const planOfProduct = new Map(
    Object.entries(products)
      .filter(([, id]) => id)
      .map(([key, id]) => [id!, key.split(":")[0] as PlanId]),
  );

  function normalize(subscription: Subscription): ProviderSubscription {
    const interval = subscription.recurringInterval;
    const referenceId = subscription.metadata?.referenceId;
    return {
      providerSubscriptionId: subscription.id,
      customerId: subscription.customerId,
      productId: subscription.productId,
      data: JSON.stringify(subscription),
      referenceId: typeof referenceId === "string" && referenceId ? referenceId : null,
      plan: planOfProduct.get(subscription.productId) ?? null,
      billingInterval: interval === "month" ? "month" : interval === "year" ? "year" : null,
      status: subscription.status,
      periodStart: subscription.currentPeriodStart,
      periodEnd: subscription.currentPeriodEnd,
      trialStart: subscription.trialStart,
      trialEnd: subscription.trialEnd,
      cancelAtPeriodEnd: subscription.cancelAtPeriodEnd,
      cancelAt: subscription.endsAt ?? subscription.endedAt,
      quantity: 1,
    };
  }

  return {
    id: "polar",

    async createCustomer(reference) {
      const customer = await call("customer creation", () =>
        reference.customerType === "organization"
          ? polar.customers.create({
              type: "team",
              externalId: reference.referenceId,
              name: reference.name,
              owner: { email: reference.email, name: reference.userName, externalId: reference.userId },
            })
          : polar.customers.create({ email: reference.email, name: reference.name, externalId: reference.userId }),
      );
      return customer.id;
    },

    async deleteCustomer(customerId) {
      await call("customer deletion", () => polar.customers.delete({ id: customerId }));
    },

    async createCheckout(request) {
      const product = products[`${request.plan}:${request.interval}`];
      if (!product)
        throw new ProviderNotConfiguredError(`No Polar product is configured for ${request.plan} ${request.interval}`);
      const checkout = await call("checkout", () =>
        polar.checkouts.create({
          products: [product],
          customerId: request.customerId,
          successUrl: request.successUrl,
          returnUrl: request.cancelUrl,
          locale: request.locale,
          metadata: {
            referenceId: request.reference.referenceId,
            customerType: request.reference.customerType,
            plan: request.plan,
            userId: request.reference.userId,
          },
          ...(request.trialDays > 0 ? { trialInterval: "day", trialIntervalCount: request.trialDays } : {}),
        }),
      );
      return { id: checkout.id, url: checkout.url, raw: checkout };
    },

    async createPortal({ customerId, customerType, user, returnUrl }) {
      if (customerType === "user") {
        const session = await call("customer portal", () => polar.customerSessions.create({ customerId, returnUrl }));
        return session.customerPortalUrl;
      }
      // A team customer's session must name a member: the user's own (see the header).
      const open = () => polar.customerSessions.create({ customerId, externalMemberId: user.id, returnUrl });
      const session = await call("customer portal", async () => {
        try {
          return await open();
        } catch (error) {
          const unknownMember =
            error instanceof HTTPValidationError &&
            (error.detail ?? []).some((detail) => detail.loc.includes("external_member_id"));
          if (!unknownMember) throw error;
          await polar.customers.members.create({
            id: customerId,
            memberCreateFromCustomer: {
              email: user.email,
              name: user.name,
              externalId: user.id,
              role: "billing_manager",
            },
          });
          return open();
        }
      });
      return session.customerPortalUrl;
    },

    async getSubscription(providerSubscriptionId) {
      return normalize(await call("subscription read", () => polar.subscriptions.get({ id: providerSubscriptionId })));
    },

    async setCancelAtPeriodEnd(providerSubscriptionId, cancel) {
      const subscription = await call("subscription update", () =>
        polar.subscriptions.update({ id: providerSubscriptionId, subscriptionUpdate: { cancelAtPeriodEnd: cancel } }),
      );
      return { subscription: normalize(subscription), raw: subscription };
    },

    parseWebhook(payload, headers) {
      if (!env.POLAR_WEBHOOK_SECRET) throw new WebhookSignatureError("no webhook secret is configured");
      const id = headers.get("webhook-id");
      let event: ReturnType<typeof validateEvent>;
      try {
        event = validateEvent(payload, Object.fromEntries(headers), env.POLAR_WEBHOOK_SECRET);
      } catch (error) {
        // The signature passed but the SDK cannot read the event (a type newer than the SDK):
        // genuine, acknowledged, ignored.
        if (error instanceof SDKValidationError && id) {
          logger().warn(`Polar webhook ${id} ignored: ${error.message}`);
          return { id, type: "unknown", subscriptionId: null };
        }
        throw new WebhookSignatureError((error as Error).message);
      }
      return {
        id: id ?? "",
        type: event.type,
        subscriptionId: event.type.startsWith("subscription.") ? (event.data as Subscription).id : null,
      };
    },
  };
}
