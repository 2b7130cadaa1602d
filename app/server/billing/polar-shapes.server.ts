/**
 * Polar's own shapes, for the routes of Polar's better-auth plugin: what its SDK's objects
 * look like as JSON (the SDK's field names, dates as ISO strings), built from the
 * subscriptions recorded here. Each Polar row keeps the subscription object as Polar last
 * gave it (providerData, written with the row's state from the same read), so an answer
 * carries Polar's ids, product, amounts and metadata, never our own row ids or plan names.
 * Only types are taken from the SDK: nothing here loads it.
 */
import type { CustomerState } from "@polar-sh/sdk/models/components/customerstate.js";
import type { CustomerStateSubscription } from "@polar-sh/sdk/models/components/customerstatesubscription.js";
import type { Subscription as PolarSubscription } from "@polar-sh/sdk/models/components/subscription.js";
import type { Subscription } from "~/server/db.server";

/** A value as JSON carries it: dates become ISO strings. */
export type Json<T> = T extends Date
  ? string
  : T extends (infer U)[]
    ? Json<U>[]
    : T extends object
      ? { [K in keyof T]: Json<T[K]> }
      : T;

export type PolarSubscriptionJson = Json<PolarSubscription>;
export type PolarCustomerStateJson = Json<CustomerState>;

/** Polar's object of a row; null for a row of the other provider, or recorded before it was kept. */
export function polarSubscriptionOf(
  row: Pick<Subscription, "provider" | "providerData">,
): PolarSubscriptionJson | null {
  if (row.provider !== "polar" || !row.providerData) return null;
  return JSON.parse(row.providerData) as PolarSubscriptionJson;
}

/** A subscription as Polar's customer state lists it. */
function stateSubscription(subscription: PolarSubscriptionJson): Json<CustomerStateSubscription> {
  return {
    id: subscription.id,
    createdAt: subscription.createdAt,
    modifiedAt: subscription.modifiedAt,
    ...(subscription.customFieldData ? { customFieldData: subscription.customFieldData } : {}),
    metadata: subscription.metadata,
    // Only active and trialing subscriptions are listed (the caller's filter).
    status: subscription.status as CustomerStateSubscription["status"],
    amount: subscription.amount,
    currency: subscription.currency,
    recurringInterval: subscription.recurringInterval,
    currentPeriodStart: subscription.currentPeriodStart,
    currentPeriodEnd: subscription.currentPeriodEnd,
    trialStart: subscription.trialStart,
    trialEnd: subscription.trialEnd,
    cancelAtPeriodEnd: subscription.cancelAtPeriodEnd,
    canceledAt: subscription.canceledAt,
    startedAt: subscription.startedAt,
    endsAt: subscription.endsAt,
    productId: subscription.productId,
    discountId: subscription.discountId,
    meters: subscription.meters.map((meter) => ({
      createdAt: meter.createdAt,
      modifiedAt: meter.modifiedAt,
      id: meter.id,
      consumedUnits: meter.consumedUnits,
      creditedUnits: meter.creditedUnits,
      amount: meter.amount,
      meterId: meter.meterId,
    })),
  };
}

/**
 * Polar's CustomerState of one customer: the customer as its newest recorded subscription
 * names it, with its active subscriptions. Benefits and meters are not recorded here, so
 * they are empty. Null when no subscription of the customer was ever recorded.
 */
export function customerStateOf(
  newest: PolarSubscriptionJson | null,
  active: PolarSubscriptionJson[],
): PolarCustomerStateJson | null {
  if (!newest) return null;
  return {
    ...newest.customer,
    activeSubscriptions: active.map(stateSubscription),
    grantedBenefits: [],
    activeMeters: [],
  } as PolarCustomerStateJson;
}
