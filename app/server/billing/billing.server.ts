/**
 * Subscriptions: the verbs the pages and the JSON API share (docs/decisions/0012-billing.md).
 *
 * - The provider (`PAYMENT_PROVIDER`) is made on first use and only that one: the other
 *   provider's SDK is never loaded, so its configuration cannot break anything.
 * - A subscription belongs to a user or to an organization (`referenceId`); only the user
 *   themself, or an organization's owners and admins, may buy, cancel, restore or manage it.
 * - A user and an organization are each their own customer at the provider, so whoever
 *   buys an organization's plan, the organization pays. A provider's portal is opened in one
 *   place (openPortal), only for the caller's own customer or the customer of an
 *   organization whose billing they may manage.
 * - The `subscription` table follows the provider's webhooks: each event is applied once
 *   (webhook_event), and an event older than the last one applied to a subscription is
 *   ignored, so replays and out-of-order deliveries leave the newest state.
 * - Customers are made at the first checkout and remembered; a checkout that fails removes
 *   the customer it had just made, so a failure leaves nothing half-made behind.
 */
import { z } from "zod";
import { plans, type BillingInterval, type PlanId } from "~/config/plans";
import { isLocale } from "~/i18n/config";
import { audit } from "~/server/audit.server";
import { announceRevocation, cacheTrusted, COOKIE_CACHE_MAX_AGE } from "~/server/auth/revocation.server";
import type { AuthSession, RequestMeta } from "~/server/auth/session.server";
import { isUniqueViolation, prisma, type Subscription } from "~/server/db.server";
import { beforeDeletion } from "~/server/deletion.server";
import { loadEnv, missingPaymentVariables } from "~/server/env.server";
import { fail } from "~/server/errors.server";
import { can } from "~/server/organization/permissions.server";
import { roleTableOf } from "~/server/organization/organizations.server";
import {
  customerStateOf,
  polarSubscriptionOf,
  type PolarCustomerStateJson,
  type PolarSubscriptionJson,
} from "./polar-shapes.server";
import {
  ProviderNotConfiguredError,
  ProviderUnavailableError,
  WebhookSignatureError,
  type BillingReference,
  type CustomerType,
  type PaymentProvider,
  type ProviderEvent,
  type ProviderId,
  type ProviderSubscription,
} from "./provider.server";
import { logger } from "~/server/log.server";

const ACTIVE_STATUSES = ["active", "trialing"] as const;
const TRIAL_DAYS = 14;
const isActive = (status: string) => (ACTIVE_STATUSES as readonly string[]).includes(status);

// ---- the provider ----

let chosen: Promise<PaymentProvider> | undefined;

/**
 * The configured provider; only its module (and SDK) is ever loaded. Unconfigured (outside
 * production) it is unavailable, and asked again next time. With PAYMENT_PROVIDER=none there
 * is none: the call is refused before anything is loaded.
 */
function paymentProvider(): Promise<PaymentProvider> {
  const env = loadEnv();
  if (env.PAYMENT_PROVIDER === "none") fail("PAYMENTS_DISABLED");
  chosen ??= (async () => {
    if (env.PAYMENT_PROVIDER === "polar") return (await import("./polar.server")).createPolarProvider(env);
    return (await import("./stripe.server")).createStripeProvider(env);
  })();
  chosen.catch(() => (chosen = undefined));
  return chosen;
}

/** The provider in use, or null when this server sells nothing (PAYMENT_PROVIDER=none). */
export const activeProviderId = (): ProviderId | null => {
  const { PAYMENT_PROVIDER } = loadEnv();
  return PAYMENT_PROVIDER === "none" ? null : PAYMENT_PROVIDER;
};

/**
 * Whether this server can sell: "off" when it does not sell (PAYMENT_PROVIDER=none),
 * "unconfigured" while some of the provider's variables are missing (development without
 * keys; production refuses to start so), else "ready". `missing` names the variables for an
 * admin; `canCheckout` says whether a checkout of the plan asked for could still work (the
 * key and that plan's price are set).
 */
export type PaymentsState =
  { mode: "off" } | { mode: "unconfigured" | "ready"; provider: ProviderId; missing: string[]; canCheckout: boolean };

export function paymentsState(wanted?: { plan: PaidPlanId; interval: BillingInterval }): PaymentsState {
  const env = loadEnv();
  const provider = activeProviderId();
  if (!provider) return { mode: "off" };
  const missing = missingPaymentVariables(provider, env as unknown as Record<string, string | undefined>);
  const prefix = provider === "polar" ? "POLAR_PRODUCT" : "STRIPE_PRICE";
  const needed = [
    provider === "polar" ? "POLAR_ACCESS_TOKEN" : "STRIPE_SECRET_KEY",
    ...(wanted ? [`${prefix}_${wanted.plan.toUpperCase()}_${wanted.interval.toUpperCase()}`] : []),
  ];
  return {
    mode: missing.length > 0 ? "unconfigured" : "ready",
    provider,
    missing,
    canCheckout: !needed.some((variable) => missing.includes(variable)),
  };
}

/** What an admin is told once in the log when a checkout finds payments not set up. */
let hintLogged = false;
function logSetupHint(reason: string): void {
  if (hintLogged) return;
  hintLogged = true;
  const state = paymentsState();
  const missing = state.mode === "off" ? [] : state.missing;
  logger().error(
    `Payments are not set up (${reason}). Set ${missing.join(", ")} ` +
      `(README: "Trying billing locally"), or PAYMENT_PROVIDER=none to show plans without selling them.`,
  );
}

/**
 * Runs a provider call; a failure or timeout becomes PAYMENT_PROVIDER_UNAVAILABLE (logged), a
 * missing configuration PAYMENT_PROVIDER_NOT_CONFIGURED (503: nothing to retry until it is set).
 */
async function viaProvider<T>(run: () => Promise<T>): Promise<T> {
  try {
    return await run();
  } catch (error) {
    if (error instanceof ProviderNotConfiguredError) {
      logSetupHint(error.message);
      fail("PAYMENT_PROVIDER_NOT_CONFIGURED");
    }
    if (!(error instanceof ProviderUnavailableError)) throw error;
    logger().error(error.message);
    fail("PAYMENT_PROVIDER_UNAVAILABLE");
  }
}

// ---- input ----

export const referenceInput = z.object({
  referenceId: z.string().min(1).max(128).optional(),
  customerType: z.enum(["user", "organization"]).optional(),
  subscriptionId: z.string().min(1).max(128).optional(),
});

export const upgradeInput = referenceInput.extend({
  plan: z.string().min(1).max(64),
  annual: z.boolean().optional(),
  seats: z.number().int().min(1).max(10_000).optional(),
  locale: z.string().max(16).optional(),
  successUrl: z.string().default("/"),
  cancelUrl: z.string().default("/"),
  returnUrl: z.string().optional(),
  disableRedirect: z.boolean().default(false),
});

type PaidPlanId = Exclude<PlanId, "free">;
const isPaidPlan = (id: string): id is PaidPlanId => plans.some((plan) => plan.id === id && plan.monthly > 0);

// ---- references ----

/**
 * Who the call is about. Without a referenceId (or with the caller's own id) it is the
 * caller; an organization needs customerType "organization" and a member allowed to manage
 * its billing (its active organization when no id is given).
 */
async function resolveReference(
  auth: AuthSession,
  input: { referenceId?: string; customerType?: CustomerType },
): Promise<BillingReference> {
  const { user } = auth;
  const base = { userId: user.id, email: user.email, name: user.name, userName: user.name };
  if (input.customerType !== "organization") {
    if (input.referenceId && input.referenceId !== user.id) fail("REFERENCE_ID_NOT_ALLOWED");
    return { ...base, referenceId: user.id, customerType: "user" };
  }
  const organizationId = input.referenceId ?? auth.session.activeOrganizationId;
  if (!organizationId) fail("ORGANIZATION_NOT_FOUND");
  const organization = await billingManagedBy(organizationId, user.id);
  return { ...base, name: organization.name, referenceId: organizationId, customerType: "organization" };
}

/**
 * The organization, when `userId` may manage its billing (a member whose role has
 * billing: manage); throws otherwise.
 */
async function billingManagedBy(organizationId: string, userId: string): Promise<{ name: string }> {
  const member = await prisma.member.findUnique({
    where: { organizationId_userId: { organizationId, userId } },
    select: { role: true, organization: { select: { name: true } } },
  });
  if (!member) fail("USER_IS_NOT_A_MEMBER_OF_THE_ORGANIZATION");
  if (!can({ role: member.role, roleTable: await roleTableOf(organizationId) }, "billing", ["manage"])) {
    fail("YOU_ARE_NOT_ALLOWED_TO_MANAGE_BILLING");
  }
  return member.organization;
}

/** A page form names who pays by id only: the user's own, else one of their organizations. */
export const referenceOf = (auth: AuthSession, referenceId: string) => ({
  referenceId,
  customerType: (referenceId === auth.user.id ? "user" : "organization") as CustomerType,
});

/** The organization a reference pays for (its audit rows show in that organization's log); null for a user. */
const organizationOf = (reference: Pick<BillingReference, "referenceId" | "customerType">) =>
  reference.customerType === "organization" ? reference.referenceId : null;

const customerColumn = (provider: ProviderId) => (provider === "polar" ? "polarCustomerId" : "stripeCustomerId");

/** The customer id remembered for a reference at the active provider, if any. */
async function storedCustomer(provider: ProviderId, reference: BillingReference): Promise<string | null> {
  const select = { stripeCustomerId: true, polarCustomerId: true };
  const row =
    reference.customerType === "organization"
      ? await prisma.organization.findUnique({ where: { id: reference.referenceId }, select })
      : await prisma.user.findUnique({ where: { id: reference.userId }, select });
  return row?.[customerColumn(provider)] ?? null;
}

/**
 * Remembers a new customer unless one was remembered meanwhile (a concurrent checkout);
 * false when one was.
 */
async function rememberCustomer(provider: ProviderId, reference: BillingReference, customerId: string) {
  const column = customerColumn(provider);
  const { count } =
    reference.customerType === "organization"
      ? await prisma.organization.updateMany({
          where: { id: reference.referenceId, [column]: null },
          data: { [column]: customerId },
        })
      : await prisma.user.updateMany({
          where: { id: reference.userId, [column]: null },
          data: { [column]: customerId },
        });
  return count > 0;
}

/** Whose customer `customerId` is at the provider: a user's or an organization's, or nobody's here. */
async function ownerOfCustomer(
  provider: ProviderId,
  customerId: string,
): Promise<{ customerType: CustomerType; id: string } | null> {
  const where = { [customerColumn(provider)]: customerId };
  const user = await prisma.user.findFirst({ where, select: { id: true } });
  if (user) return { customerType: "user", id: user.id };
  const organization = await prisma.organization.findFirst({ where, select: { id: true } });
  return organization ? { customerType: "organization", id: organization.id } : null;
}

/**
 * The one way to a provider's portal. A portal shows and changes everything its customer
 * pays for, so it is opened only for the caller's own customer, or for the customer of an
 * organization whose billing the caller may manage; a customer id found anywhere else (a
 * subscription paid by another member's own customer) is refused.
 */
async function openPortal(
  auth: AuthSession,
  provider: PaymentProvider,
  customerId: string,
  returnUrl: string,
): Promise<string> {
  const owner = await ownerOfCustomer(provider.id, customerId);
  if (!owner) fail("CUSTOMER_NOT_FOUND");
  if (owner.customerType === "user") {
    if (owner.id !== auth.user.id) fail("YOU_ARE_NOT_ALLOWED_TO_MANAGE_BILLING");
  } else {
    await billingManagedBy(owner.id, auth.user.id);
  }
  const { user } = auth;
  return viaProvider(() =>
    provider.createPortal({
      customerId,
      customerType: owner.customerType,
      user: { id: user.id, email: user.email, name: user.name },
      returnUrl,
    }),
  );
}

// ---- reading ----

export function activeSubscriptions(referenceIds: string[]): Promise<Subscription[]> {
  return prisma.subscription.findMany({
    where: { referenceId: { in: referenceIds }, status: { in: [...ACTIVE_STATUSES] } },
    orderBy: { createdAt: "asc" },
  });
}

const planOf = (id: string) => plans.find((plan) => plan.id === id);

/** A row as /subscription/list shows it (better-auth's Stripe plugin's names, with limits). */
export function subscriptionOut(row: Subscription) {
  const plan = planOf(row.plan);
  const stripe = row.provider === "stripe";
  return {
    id: row.id,
    plan: row.plan,
    referenceId: row.referenceId,
    provider: row.provider,
    status: row.status,
    periodStart: row.periodStart,
    periodEnd: row.periodEnd,
    trialStart: row.trialStart,
    trialEnd: row.trialEnd,
    cancelAtPeriodEnd: row.cancelAtPeriodEnd,
    cancelAt: row.cancelAt,
    seats: row.seats,
    billingInterval: row.billingInterval,
    customerId: row.customerId,
    ...(stripe
      ? { stripeCustomerId: row.customerId, stripeSubscriptionId: row.providerSubscriptionId }
      : { polarCustomerId: row.customerId, polarSubscriptionId: row.providerSubscriptionId }),
    limits: plan ? { seats: plan.seats, features: [...plan.features] } : null,
    createdAt: row.createdAt,
    updatedAt: row.updatedAt,
  };
}
export type SubscriptionOut = ReturnType<typeof subscriptionOut>;

export async function listSubscriptions(
  auth: AuthSession,
  input: { referenceId?: string; customerType?: CustomerType },
): Promise<SubscriptionOut[]> {
  const reference = await resolveReference(auth, input);
  return (await activeSubscriptions([reference.referenceId])).map(subscriptionOut);
}

/**
 * A page of the reference's subscriptions, newest first (all, or only the active ones), as
 * Polar's subscription objects (polar-shapes.server.ts). A row recorded before Polar's object
 * was kept is left out until its next webhook brings it.
 */
export async function polarSubscriptionPage(
  auth: AuthSession,
  input: { referenceId?: string; customerType?: CustomerType; page: number; limit: number; active?: boolean },
): Promise<{ items: PolarSubscriptionJson[]; total: number }> {
  const reference = await resolveReference(auth, input);
  const where = {
    referenceId: reference.referenceId,
    provider: "polar",
    providerData: { not: null },
    ...(input.active ? { status: { in: [...ACTIVE_STATUSES] } } : {}),
  };
  const [rows, total] = await Promise.all([
    prisma.subscription.findMany({
      where,
      orderBy: { createdAt: "desc" },
      skip: (input.page - 1) * input.limit,
      take: input.limit,
      select: { provider: true, providerData: true },
    }),
    prisma.subscription.count({ where }),
  ]);
  return { items: rows.map(polarSubscriptionOf).filter((item) => item !== null), total };
}

/**
 * Polar's CustomerState of the caller's own Polar customer (what Polar's plugin answers),
 * from the subscriptions its webhooks recorded here. CUSTOMER_NOT_FOUND while the caller has
 * no customer, or none of whose subscriptions was ever recorded (Polar's state of it is not
 * known here).
 */
export async function customerState(auth: AuthSession): Promise<PolarCustomerStateJson> {
  const user = await prisma.user.findUnique({ where: { id: auth.user.id }, select: { polarCustomerId: true } });
  if (!user?.polarCustomerId) fail("CUSTOMER_NOT_FOUND");
  const rows = await prisma.subscription.findMany({
    where: { provider: "polar", customerId: user.polarCustomerId, providerData: { not: null } },
    orderBy: { updatedAt: "desc" },
    select: { provider: true, providerData: true, status: true, createdAt: true },
  });
  const active = rows.filter((row) => isActive(row.status)).sort((a, b) => +a.createdAt - +b.createdAt);
  const state = customerStateOf(
    rows[0] ? polarSubscriptionOf(rows[0]) : null,
    active.map(polarSubscriptionOf).filter((item) => item !== null),
  );
  if (!state) fail("CUSTOMER_NOT_FOUND");
  return state;
}

// The session's subscriptions (get-session, the user menu) are read often: they are kept a
// cookie-cache lifetime per reference, and not trusted for a user whose billing changed on
// any instance (the webhook announces it like a revocation, revocation.server.ts).
const MEMO_MAX = 10_000;
const memo = new Map<string, { rows: Subscription[]; until: number }>();

/** The active subscriptions of the session's user and of its active organization. */
export async function sessionSubscriptions(auth: AuthSession): Promise<SubscriptionOut[]> {
  const ids = [auth.user.id, auth.session.activeOrganizationId].filter((id): id is string => Boolean(id));
  const now = Date.now();
  const trusted = cacheTrusted(auth.user.id);
  const missing = ids.filter((id) => !trusted || (memo.get(id)?.until ?? 0) <= now);
  if (missing.length > 0) {
    const rows = await activeSubscriptions(missing);
    if (memo.size + missing.length > MEMO_MAX) memo.clear();
    for (const id of missing) {
      memo.set(id, { rows: rows.filter((row) => row.referenceId === id), until: now + COOKIE_CACHE_MAX_AGE * 1000 });
    }
  }
  return ids.flatMap((id) => memo.get(id)!.rows).map(subscriptionOut);
}

/** Tells every instance that the subscriptions of `referenceId` changed. */
async function announceChange(referenceId: string): Promise<void> {
  memo.delete(referenceId);
  const members = await prisma.member.findMany({ where: { organizationId: referenceId }, select: { userId: true } });
  const userIds = members.length > 0 ? members.map((member) => member.userId) : [referenceId];
  for (const userId of userIds) await announceRevocation(prisma, userId);
}

// ---- checkout ----

/** A path (already checked by the redirect validator) as the absolute URL a provider needs. */
export function absolute(url: string): string {
  return new URL(url, loadEnv().BASE_URL).href;
}

/**
 * Starts a checkout for `plan`, or, when the reference already has an active subscription
 * to another plan, sends the user to the provider's portal to change it. Returns the
 * provider's checkout object (Stripe's contract spreads it) with `url` and `redirect`.
 */
export async function upgrade(
  auth: AuthSession,
  input: z.infer<typeof upgradeInput>,
  meta: RequestMeta,
): Promise<{ url: string; redirect: boolean; raw?: unknown }> {
  if (!isPaidPlan(input.plan)) fail("SUBSCRIPTION_PLAN_NOT_FOUND");
  const plan = input.plan;
  const interval: BillingInterval = input.annual ? "yearly" : "monthly";
  const reference = await resolveReference(auth, input);
  // Refused before any customer is made at the provider when the plan cannot be sold here.
  const state = paymentsState({ plan, interval });
  if (state.mode === "off") fail("PAYMENTS_DISABLED");
  if (!state.canCheckout) {
    logSetupHint(`no key or no ${plan} ${interval} price for ${state.provider}`);
    fail("PAYMENT_PROVIDER_NOT_CONFIGURED");
  }
  const provider = await viaProvider(paymentProvider);
  const redirect = !input.disableRedirect;

  const [current] = await activeSubscriptions([reference.referenceId]);
  if (current) {
    const sameInterval = current.billingInterval === (interval === "yearly" ? "year" : "month");
    if (current.plan === plan && sameInterval) fail("ALREADY_SUBSCRIBED_PLAN");
    if (!current.customerId) fail("CUSTOMER_NOT_FOUND");
    const url = await openPortal(auth, provider, current.customerId, absolute(input.returnUrl ?? input.successUrl));
    return { url, redirect };
  }

  const stored = await storedCustomer(provider.id, reference);
  const customerId = stored ?? (await viaProvider(() => provider.createCustomer(reference)));
  const hadTrial = await prisma.subscription.count({
    where: { referenceId: reference.referenceId, trialStart: { not: null } },
  });
  let checkout: Awaited<ReturnType<PaymentProvider["createCheckout"]>>;
  try {
    checkout = await viaProvider(() =>
      provider.createCheckout({
        customerId,
        reference,
        plan,
        interval,
        // Seats come in the plan's packs (Team: 5 each).
        quantity: Math.max(1, Math.ceil((input.seats ?? planOf(plan)!.seats) / planOf(plan)!.seats)),
        trialDays: hadTrial > 0 ? 0 : TRIAL_DAYS,
        successUrl: absolute(input.successUrl),
        cancelUrl: absolute(input.cancelUrl),
        locale: input.locale && isLocale(input.locale) ? input.locale : "en",
      }),
    );
  } catch (error) {
    if (!stored) {
      await provider.deleteCustomer(customerId).catch((cleanup: Error) => logger().error(cleanup.message));
    }
    await audit({
      userId: auth.user.id,
      category: "payment",
      action: "checkout",
      status: "failure",
      targetType: reference.customerType,
      targetId: reference.referenceId,
      organizationId: organizationOf(reference),
      details: { provider: provider.id, plan, interval },
      meta,
    });
    throw error;
  }
  if (!stored) await rememberCustomer(provider.id, reference, customerId);
  await audit({
    userId: auth.user.id,
    category: "payment",
    action: "checkout",
    status: "success",
    targetType: reference.customerType,
    targetId: reference.referenceId,
    organizationId: organizationOf(reference),
    details: { provider: provider.id, plan, interval, checkoutId: checkout.id },
    meta,
  });
  return { url: checkout.url, redirect, raw: checkout.raw };
}

// ---- managing a subscription ----

/** The reference's active subscription (the one named, else its first). */
async function findActive(reference: BillingReference, subscriptionId: string | undefined): Promise<Subscription> {
  const rows = await activeSubscriptions([reference.referenceId]);
  const row = subscriptionId
    ? rows.find((candidate) => candidate.id === subscriptionId || candidate.providerSubscriptionId === subscriptionId)
    : rows[0];
  if (!row?.providerSubscriptionId) fail("SUBSCRIPTION_NOT_FOUND");
  return row;
}

type ManageInput = z.infer<typeof referenceInput>;

async function setCancellation(
  auth: AuthSession,
  input: ManageInput,
  cancel: boolean,
  meta: RequestMeta,
): Promise<{ row: Subscription; raw: unknown }> {
  const reference = await resolveReference(auth, input);
  const row = await findActive(reference, input.subscriptionId);
  if (!cancel && !row.cancelAtPeriodEnd) fail("SUBSCRIPTION_NOT_SCHEDULED_FOR_CANCELLATION");
  const provider = await viaProvider(paymentProvider);
  const readAt = new Date();
  const { subscription, raw } = await viaProvider(() =>
    provider.setCancelAtPeriodEnd(row.providerSubscriptionId!, cancel),
  );
  // The provider's answer is the newest state: show it at once (its webhook confirms it).
  await prisma.subscription.updateMany({
    where: { id: row.id, OR: [{ syncedAt: null }, { syncedAt: { lte: readAt } }] },
    data: { ...stateOf(subscription, row.plan), syncedAt: readAt },
  });
  const updated = (await prisma.subscription.findUnique({ where: { id: row.id } }))!;
  await announceChange(row.referenceId);
  await audit({
    userId: auth.user.id,
    category: "payment",
    action: cancel ? "cancel-subscription" : "restore-subscription",
    status: "success",
    targetType: "subscription",
    targetId: row.id,
    organizationId: organizationOf(reference),
    details: { provider: provider.id, referenceId: row.referenceId, plan: row.plan },
    meta,
  });
  return { row: updated, raw };
}

/** Cancels at the end of the period (the subscription stays active until then). */
export const cancelSubscription = (auth: AuthSession, input: ManageInput, meta: RequestMeta) =>
  setCancellation(auth, input, true, meta);

/** Undoes a pending cancellation (POST /subscription/restore, the billing page's Restore). */
export const restoreSubscription = (auth: AuthSession, input: ManageInput, meta: RequestMeta) =>
  setCancellation(auth, input, false, meta);

/**
 * Before a user or an organization is deleted: its subscriptions end at their period end, so
 * nobody goes on paying for an account that no longer exists. Throws
 * PAYMENT_PROVIDER_UNAVAILABLE when the provider cannot be reached, and the deletion waits.
 */
async function endSubscriptionsOf(
  reference: Pick<BillingReference, "referenceId" | "customerType">,
  userId: string,
  meta: RequestMeta,
): Promise<void> {
  const { referenceId } = reference;
  const rows = (await activeSubscriptions([referenceId])).filter(
    (row) => !row.cancelAtPeriodEnd && row.providerSubscriptionId && row.provider === activeProviderId(),
  );
  if (rows.length === 0) return;
  const provider = await viaProvider(paymentProvider);
  for (const row of rows) {
    const { subscription } = await viaProvider(() => provider.setCancelAtPeriodEnd(row.providerSubscriptionId!, true));
    await prisma.subscription.update({ where: { id: row.id }, data: stateOf(subscription, row.plan) });
    await audit({
      userId,
      category: "payment",
      action: "cancel-subscription",
      status: "success",
      targetType: "subscription",
      targetId: row.id,
      organizationId: organizationOf(reference),
      details: { provider: provider.id, referenceId, plan: row.plan, reason: "deleted" },
      meta,
    });
  }
}

// A user or an organization being deleted stops paying first (see deletion.server.ts).
beforeDeletion("end subscriptions", ({ kind, id, actorId, meta }) =>
  endSubscriptionsOf({ referenceId: id, customerType: kind }, actorId, meta),
);

/** The provider's billing portal for the reference's customer. */
export async function billingPortal(
  auth: AuthSession,
  input: { referenceId?: string; customerType?: CustomerType; returnUrl?: string },
): Promise<string> {
  const reference = await resolveReference(auth, input);
  const provider = await viaProvider(paymentProvider);
  const [current] = await activeSubscriptions([reference.referenceId]);
  const customerId = current?.customerId ?? (await storedCustomer(provider.id, reference));
  if (!customerId) fail("CUSTOMER_NOT_FOUND");
  return openPortal(auth, provider, customerId, absolute(input.returnUrl ?? "/"));
}

// ---- customers for every user (an admin data operation) ----

export interface CustomerBackfill {
  provider: ProviderId;
  /** Users when the run began. */
  total: number;
  created: number;
  /** Users who had a customer already (or got one from a checkout meanwhile). */
  skipped: number;
  /** Users the provider refused or did not answer for; running again retries exactly these. */
  failed: number;
}

/** Users read from the database at once, and of those, calls to the provider at once. */
const BACKFILL_BATCH = 100;
const BACKFILL_CONCURRENCY = 4;

/**
 * Gives every user who exists when the call begins a customer at the active provider, made
 * and stored as a first checkout would make it. Users are read in batches, in id order, and
 * `onProgress` is awaited after each batch with the counts so far. A provider failure for one
 * user is counted and the run goes on; only an unavailable provider (not configured) or a
 * database failure ends it, with an error. A user who got a customer from a checkout while
 * theirs was being made keeps that one, and the spare is deleted at the provider again.
 */
export async function ensureUserCustomers(
  onProgress: (counts: CustomerBackfill) => Promise<void>,
): Promise<CustomerBackfill> {
  const provider = await viaProvider(paymentProvider);
  const column = customerColumn(provider.id);
  // Users who sign up during the run get their customer at their first checkout, as usual.
  const existing = { createdAt: { lte: new Date() } };
  const [total, skipped] = await Promise.all([
    prisma.user.count({ where: existing }),
    prisma.user.count({ where: { ...existing, [column]: { not: null } } }),
  ]);
  const counts: CustomerBackfill = { provider: provider.id, total, created: 0, skipped, failed: 0 };
  await onProgress({ ...counts });
  // Keyset pagination by id: users who failed keep a null column, so "the next batch without a
  // customer" would return them again.
  let after = "";
  for (;;) {
    const batch = await prisma.user.findMany({
      where: { ...existing, [column]: null, id: { gt: after } },
      orderBy: { id: "asc" },
      take: BACKFILL_BATCH,
      select: { id: true, email: true, name: true },
    });
    if (batch.length === 0) return counts;
    for (let i = 0; i < batch.length; i += BACKFILL_CONCURRENCY) {
      const outcomes = await Promise.all(
        batch.slice(i, i + BACKFILL_CONCURRENCY).map((user) => ensureUserCustomer(provider, user)),
      );
      for (const outcome of outcomes) counts[outcome] += 1;
    }
    after = batch.at(-1)!.id;
    await onProgress({ ...counts });
  }
}

async function ensureUserCustomer(
  provider: PaymentProvider,
  user: { id: string; email: string; name: string },
): Promise<"created" | "skipped" | "failed"> {
  const reference: BillingReference = {
    referenceId: user.id,
    customerType: "user",
    userId: user.id,
    email: user.email,
    name: user.name,
    userName: user.name,
  };
  let customerId: string;
  try {
    customerId = await provider.createCustomer(reference);
  } catch (error) {
    if (!(error instanceof ProviderUnavailableError)) throw error;
    logger().error(`${error.message} (user ${user.id})`);
    return "failed";
  }
  if (await rememberCustomer(provider.id, reference, customerId)) return "created";
  await provider.deleteCustomer(customerId).catch((cleanup: Error) => logger().error(cleanup.message));
  return "skipped";
}

// ---- webhooks ----

function stateOf(subscription: ProviderSubscription, plan: string) {
  return {
    status: subscription.status,
    periodStart: subscription.periodStart,
    periodEnd: subscription.periodEnd,
    trialStart: subscription.trialStart,
    trialEnd: subscription.trialEnd,
    cancelAtPeriodEnd: subscription.cancelAtPeriodEnd,
    cancelAt: subscription.cancelAt,
    seats: (planOf(plan)?.seats ?? 1) * subscription.quantity,
    billingInterval: subscription.billingInterval,
    customerId: subscription.customerId,
    productId: subscription.productId,
    providerData: subscription.data,
  };
}

export type WebhookOutcome = "applied" | "duplicate" | "stale" | "ignored";

/**
 * Verifies and applies one delivery for `providerId`'s webhook URL. A delivery to the URL of
 * the provider not in use is refused like a bad signature (nothing of it is trusted).
 */
export async function receiveWebhook(providerId: ProviderId, payload: string, headers: Headers) {
  if (activeProviderId() !== providerId) fail("INVALID_WEBHOOK_SIGNATURE");
  const provider = await viaProvider(paymentProvider);
  let event: ProviderEvent;
  try {
    event = provider.parseWebhook(payload, headers);
  } catch (error) {
    if (error instanceof WebhookSignatureError) fail("INVALID_WEBHOOK_SIGNATURE");
    throw error;
  }
  return applyEvent(provider, event);
}

/**
 * Applies one verified event. The event only says which subscription changed: its state is
 * read from the provider, so a late or replayed delivery can only bring the newest state, and
 * of two concurrent reads the one that started later wins (syncedAt). The provider retries a
 * delivery we could not apply (it gets a 502 when its API could not be read).
 */
async function applyEvent(provider: PaymentProvider, event: ProviderEvent): Promise<WebhookOutcome> {
  const key = `${provider.id}:${event.id}`;
  if (await prisma.webhookEvent.findUnique({ where: { id: key }, select: { id: true } })) return "duplicate";
  const readAt = new Date();
  const incoming = event.subscriptionId
    ? await viaProvider(() => provider.getSubscription(event.subscriptionId!))
    : null;
  const existing = incoming
    ? await prisma.subscription.findUnique({ where: { providerSubscriptionId: incoming.providerSubscriptionId } })
    : null;
  const referenceId =
    existing?.referenceId ??
    incoming?.referenceId ??
    (incoming ? ((await ownerOfCustomer(provider.id, incoming.customerId))?.id ?? null) : null);
  const plan = incoming?.plan ?? existing?.plan ?? null;

  let outcome: WebhookOutcome;
  try {
    outcome = await prisma.$transaction(async (tx) => {
      // The event's row first: of two concurrent deliveries, the second fails here.
      await tx.webhookEvent.create({ data: { id: key, type: event.type } });
      if (!incoming || !referenceId || !plan) return "ignored";
      const data = { ...stateOf(incoming, plan), plan, syncedAt: readAt };
      if (!existing) {
        await tx.subscription.create({
          data: {
            ...data,
            referenceId,
            provider: provider.id,
            providerSubscriptionId: incoming.providerSubscriptionId,
          },
        });
        return "applied";
      }
      const { count } = await tx.subscription.updateMany({
        where: { id: existing.id, OR: [{ syncedAt: null }, { syncedAt: { lte: readAt } }] },
        data,
      });
      return count > 0 ? "applied" : "stale";
    });
  } catch (error) {
    if (isUniqueViolation(error)) return "duplicate";
    throw error;
  }

  if (outcome === "applied" && referenceId && incoming) {
    await announceChange(referenceId);
    // A subscription's reference is a user's id or an organization's: the event is in the
    // organization's log when it is one.
    const organization = await prisma.organization.findUnique({ where: { id: referenceId }, select: { id: true } });
    await audit({
      userId: null,
      category: "payment",
      action: "webhook",
      status: "success",
      targetType: "subscription",
      targetId: incoming.providerSubscriptionId,
      organizationId: organization?.id ?? null,
      details: {
        provider: provider.id,
        event: event.type,
        eventId: event.id,
        referenceId,
        plan,
        status: incoming.status,
        cancelAtPeriodEnd: incoming.cancelAtPeriodEnd,
      },
      meta: { ipAddress: null, userAgent: null },
    });
  }
  return outcome;
}
