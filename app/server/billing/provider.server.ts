/**
 * What the product needs of a payment provider. `PAYMENT_PROVIDER` picks one implementation
 * at start (stripe.server.ts, polar.server.ts, both on the provider's official SDK); nothing
 * outside app/server/billing knows which one it is, and the other is never constructed.
 */
import type { BillingInterval, PlanId } from "~/config/plans";

export type ProviderId = "stripe" | "polar";
export type CustomerType = "user" | "organization";

/** Who a subscription is for: a user, or an organization (bought by one of its owners or admins). */
export interface BillingReference {
  referenceId: string;
  customerType: CustomerType;
  /** The signed-in user acting, and their email. */
  userId: string;
  email: string;
  /** The organization's name, or the user's. */
  name: string;
  /** The acting user's own name. */
  userName: string;
}

/** A portal to open: whose customer it is, and the user it is opened for. */
export interface PortalRequest {
  customerId: string;
  /** Whether the customer is a user's or an organization's. */
  customerType: CustomerType;
  /** The signed-in user the portal is opened for (one of the organization's billing managers). */
  user: { id: string; email: string; name: string };
  returnUrl: string;
}

/** A subscription as the provider reports it, in the product's terms. */
export interface ProviderSubscription {
  providerSubscriptionId: string;
  customerId: string;
  /** The provider's product (Polar) or price (Stripe) id. */
  productId: string | null;
  /**
   * The provider's subscription object as JSON with its SDK's field names, kept to answer
   * the provider's own shapes (Polar); null where nothing answers them (Stripe).
   */
  data: string | null;
  /** From the metadata the checkout attached; null for a subscription made elsewhere. */
  referenceId: string | null;
  /** The plan of the subscribed price or product; null when it is none of ours. */
  plan: PlanId | null;
  billingInterval: "month" | "year" | null;
  status: string;
  periodStart: Date | null;
  periodEnd: Date | null;
  trialStart: Date | null;
  trialEnd: Date | null;
  cancelAtPeriodEnd: boolean;
  cancelAt: Date | null;
  /** How many of the plan the subscription holds (Stripe's quantity; Polar sells one). */
  quantity: number;
}

/** A verified webhook delivery. */
export interface ProviderEvent {
  /** The provider's event id (replays carry the same one). */
  id: string;
  type: string;
  /** The id of the subscription the event is about, or null for an event the product ignores. */
  subscriptionId: string | null;
}

export interface CheckoutRequest {
  customerId: string;
  reference: BillingReference;
  plan: Exclude<PlanId, "free">;
  interval: BillingInterval;
  /** How many of the plan (each brings the plan's seats). */
  quantity: number;
  /** Days of free trial, 0 for none (a reference gets one trial only). */
  trialDays: number;
  successUrl: string;
  cancelUrl: string;
  locale: string;
}

export interface PaymentProvider {
  readonly id: ProviderId;
  /**
   * Makes the customer a checkout needs, the user's or the organization's own (never the
   * buyer's for an organization); its id is remembered on the user or organization.
   */
  createCustomer(reference: BillingReference): Promise<string>;
  /** Undoes createCustomer when the checkout that needed it failed. */
  deleteCustomer(customerId: string): Promise<void>;
  /** A hosted checkout; `raw` is the provider's own object (the Stripe contract returns it). */
  createCheckout(request: CheckoutRequest): Promise<{ id: string; url: string; raw: unknown }>;
  /**
   * The provider's customer portal for one customer. Only billing.server.ts's portal check
   * calls it, once it has made sure the customer is the user's or their organization's.
   */
  createPortal(request: PortalRequest): Promise<string>;
  /** The subscription as the provider holds it now. */
  getSubscription(providerSubscriptionId: string): Promise<ProviderSubscription>;
  /** Schedules (true) or undoes (false) the end of a subscription at its period end. */
  setCancelAtPeriodEnd(
    providerSubscriptionId: string,
    cancel: boolean,
  ): Promise<{ subscription: ProviderSubscription; raw: unknown }>;
  /**
   * Verifies a webhook delivery against the configured secret and reads it. Throws
   * WebhookSignatureError when the signature (or the payload it covers) is not genuine.
   */
  parseWebhook(payload: string, headers: Headers): ProviderEvent;
}

export class WebhookSignatureError extends Error {}

/** Thrown (wrapped) when the provider cannot be reached or refuses a call. */
export class ProviderUnavailableError extends Error {}

/**
 * Thrown when the provider's own configuration is missing (its key, or the price of the plan
 * asked for): trying again cannot help, someone has to set it up first.
 */
export class ProviderNotConfiguredError extends ProviderUnavailableError {}

/** Timeout for every call to a provider: a checkout must not hang on a slow API. */
export const PROVIDER_TIMEOUT_MS = 5_000;
