/**
 * A stand-in for the part of Polar's API the app uses, on loopback, for the real
 * `@polar-sh/sdk` pointed at it (serverURL): customers (individual and team) and their
 * state, members, checkouts, customer portal sessions and subscriptions, answered as Polar
 * answers (JSON, Bearer access token, FastAPI's 422 validation errors, `{ error, detail }`
 * for the others, UUIDs).
 *
 * As at Polar with its member model on: every customer gets an owner member when it is made
 * (the `owner` given, else the customer's own email, name and external id); only team
 * customers take more members; a portal session for a team customer must name one of its
 * members (member_id or external_member_id), and the portal then shows that customer only.
 *
 * The SDK validates every answer with zod, so objects are built with the SDK's own types
 * (camelCase, Dates) and sent through its serializers (subscriptionToJSON…), which give
 * Polar's wire form: a field the SDK requires is a type error here, not a failed parse there.
 *
 * Nothing is paid: the hosted checkout page's "Subscribe" button (or completeCheckout) makes
 * the subscription at once, and endPeriod plays the end of its period. Both, and the portal's
 * buttons, send the webhooks Polar sends, in its order, as Standard Webhooks signed the way
 * the SDK's validateEvent checks them. Tests can also make failures (failNext) and hand-made
 * deliveries (event, deliver).
 */
import { randomBytes, randomUUID } from "node:crypto";
import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import { checkoutToJSON, type Checkout } from "@polar-sh/sdk/models/components/checkout.js";
import type { CheckoutProduct } from "@polar-sh/sdk/models/components/checkoutproduct.js";
import { customerToJSON, type Customer } from "@polar-sh/sdk/models/components/customer.js";
import { customerStateToJSON } from "@polar-sh/sdk/models/components/customerstate.js";
import type { CustomerStateSubscription } from "@polar-sh/sdk/models/components/customerstatesubscription.js";
import { memberToJSON, type Member } from "@polar-sh/sdk/models/components/member.js";
import type { MemberRole } from "@polar-sh/sdk/models/components/memberrole.js";
import type { Product } from "@polar-sh/sdk/models/components/product.js";
import type { ProductPriceFixed } from "@polar-sh/sdk/models/components/productpricefixed.js";
import { subscriptionToJSON, type Subscription } from "@polar-sh/sdk/models/components/subscription.js";
import { Webhook } from "standardwebhooks";
import { escapeHtml, listen, money, page, readBody } from "./stand-in-http";

export interface StandInProduct {
  plan: string;
  interval: "month" | "year";
  /** In cents (USD). */
  amount: number;
}

export interface PolarStandInOptions {
  /** Default: any free port. */
  port?: number;
  accessToken: string;
  webhookSecret: string;
  /** The app's webhook endpoint; until it is set (see setWebhookUrl), events are recorded but not sent. */
  webhookUrl?: string;
  /** By product id; the app's ids need not be UUIDs. */
  products: Record<string, StandInProduct>;
}

export interface ApiCall {
  method: string;
  path: string;
  /** The JSON body, if any. */
  body: unknown;
}

export interface WebhookDelivery {
  body: string;
  headers: Record<string, string>;
}

export interface SentWebhook {
  id: string;
  type: string;
  delivery: WebhookDelivery;
  /** The app's answer, or null when there was no webhook URL or no answer. */
  status: number | null;
}

export type SubscriptionEventType =
  | "subscription.created"
  | "subscription.active"
  | "subscription.updated"
  | "subscription.canceled"
  | "subscription.uncanceled"
  | "subscription.revoked";
export type PolarEventType = SubscriptionEventType | "checkout.updated";

export interface PolarStandIn {
  /** http://127.0.0.1:<port>, the SDK's serverURL; also the hosted checkout (/checkout/…) and portal (/portal). */
  url: string;
  /** The customer (with its members) as the stand-in holds it, or undefined. */
  customer(id: string): (Customer & { members: Member[] }) | undefined;
  /** Who a portal URL's session is for: its customer and member, or undefined for an unknown token. */
  portalSession(portalUrl: string): { customerId: string; memberId: string | null } | undefined;
  /** Every API request, in order (hosted pages are not API requests). */
  calls: ApiCall[];
  /** Every event sent to the app, in order. */
  webhooks: SentWebhook[];
  /** Forgets calls, webhooks and pending failures; customers and subscriptions stay. */
  reset(): void;
  setWebhookUrl(url: string): void;
  /** The next `count` API requests (to paths starting with `path`, when given) answer 500 ("error") or never answer ("timeout"). */
  failNext(mode: "error" | "timeout", count?: number, path?: string): void;
  /** What the checkout page's "Subscribe" does; resolves once the app has answered the webhooks. */
  completeCheckout(checkoutId: string): Promise<Subscription>;
  /** The current period ends: the subscription renews (or leaves its trial), or ends if set to cancel. */
  endPeriod(subscriptionId: string): Promise<Subscription>;
  /** A signed event, not sent. */
  event<T extends PolarEventType>(
    type: T,
    data: T extends "checkout.updated" ? Checkout : Subscription,
  ): WebhookDelivery;
  /** Posts a delivery to the app's webhook URL. */
  deliver(delivery: WebhookDelivery): Promise<Response>;
  /** Resolves once every webhook sent so far has been answered (those sent after an update call). */
  settled(): Promise<void>;
  close(): Promise<void>;
}

/** What a subscription is; subscriptionObject renders Polar's object from it. */
interface SubscriptionRecord {
  id: string;
  customerId: string;
  productId: string;
  checkoutId: string;
  seats: number | null;
  metadata: Record<string, string | number | boolean>;
  createdAt: Date;
  modifiedAt: Date | null;
  status: "trialing" | "active" | "canceled";
  periodStart: Date;
  periodEnd: Date;
  trialStart: Date | null;
  trialEnd: Date | null;
  cancelAtPeriodEnd: boolean;
  canceledAt: Date | null;
  endsAt: Date | null;
  endedAt: Date | null;
}

interface CustomerSession {
  id: string;
  token: string;
  createdAt: Date;
  customerId: string;
  /** The member the session is for (Polar's member sessions); null for an individual's plain session. */
  memberId: string | null;
  returnUrl: string | null;
}

/** A status and JSON body (or none), and what to do once they are sent. */
type Answer = [status: number, body: string | null, then?: () => Promise<void>];

type Json = Record<string, unknown>;

const HOUR = 3_600_000;
const DAY = 24 * HOUR;

/** `count` intervals later, on the same day of the month or the last one, as Polar's relativedelta does. */
function later(from: Date, interval: "day" | "week" | "month" | "year", count = 1): Date {
  if (interval === "day" || interval === "week")
    return new Date(from.getTime() + count * DAY * (interval === "week" ? 7 : 1));
  const date = new Date(from);
  const day = date.getUTCDate();
  date.setUTCDate(1);
  date.setUTCMonth(date.getUTCMonth() + count * (interval === "year" ? 12 : 1));
  const lastDay = new Date(Date.UTC(date.getUTCFullYear(), date.getUTCMonth() + 1, 0)).getUTCDate();
  date.setUTCDate(Math.min(day, lastDay));
  return date;
}

const json = (value: unknown) => JSON.stringify(value);
/** Polar's errors: the exception's class name and its message (a list of errors for validation). */
const polarError = (status: number, error: string, detail: unknown): Answer => [status, json({ error, detail })];
const notFound = () => polarError(404, "ResourceNotFound", "Not found");

/** Polar's 422 for values it refuses, in FastAPI's validation error shape. */
function invalid(...errors: { loc: (string | number)[]; msg: string; input: unknown }[]): Answer {
  const detail = errors.map(({ loc, msg, input }) => ({ type: "value_error", loc: ["body", ...loc], msg, input }));
  return polarError(422, "PolarRequestValidationError", detail);
}

export async function startPolarStandIn(options: PolarStandInOptions): Promise<PolarStandIn> {
  const server = createServer((req, res) => {
    route(req, res).catch((error: unknown) => {
      if (!res.headersSent) answer(res, polarError(500, "InternalServerError", String(error)));
    });
  });
  const port = await listen(server, options.port);
  const url = `http://127.0.0.1:${port}`;

  const started = new Date();
  const organizationId = randomUUID();
  const priceIds = new Map(Object.keys(options.products).map((id) => [id, randomUUID()]));
  const customers = new Map<string, Customer>();
  const members = new Map<string, Member>();
  const checkouts = new Map<string, Checkout>();
  const sessions = new Map<string, CustomerSession>();
  const subscriptions = new Map<string, SubscriptionRecord>();
  const calls: ApiCall[] = [];
  const webhooks: SentWebhook[] = [];
  const failures: { mode: "error" | "timeout"; path?: string }[] = [];
  const pending = new Set<Promise<void>>();
  // validateEvent keys its HMAC with the secret's UTF-8 bytes, passed to standardwebhooks in base64.
  const signer = new Webhook(Buffer.from(options.webhookSecret, "utf-8").toString("base64"));
  let webhookUrl = options.webhookUrl;

  const productName = ({ plan, interval }: StandInProduct) =>
    `${plan[0]!.toUpperCase()}${plan.slice(1)} (${interval === "month" ? "monthly" : "yearly"})`;

  function priceObject(productId: string): ProductPriceFixed {
    return {
      createdAt: started,
      modifiedAt: null,
      id: priceIds.get(productId)!,
      source: "catalog",
      amountType: "fixed",
      priceCurrency: "usd",
      taxBehavior: null,
      isArchived: false,
      productId,
      priceAmount: options.products[productId]!.amount,
    };
  }

  function productObject(productId: string): Product {
    const product = options.products[productId]!;
    return {
      id: productId,
      createdAt: started,
      modifiedAt: null,
      trialInterval: null,
      trialIntervalCount: null,
      name: productName(product),
      description: null,
      visibility: "public",
      recurringInterval: product.interval,
      recurringIntervalCount: 1,
      meterInterval: null,
      meterIntervalCount: null,
      isRecurring: true,
      isArchived: false,
      organizationId,
      metadata: {},
      prices: [priceObject(productId)],
      benefits: [],
      medias: [],
      attachedCustomFields: [],
    };
  }

  /** The product as a checkout shows it: its public benefits, without metadata and custom fields. */
  function checkoutProduct(productId: string): CheckoutProduct {
    const { metadata: _metadata, attachedCustomFields: _fields, ...product } = productObject(productId);
    return { ...product, benefits: [] };
  }

  function liveCustomer(id: unknown): Customer | undefined {
    const customer = typeof id === "string" ? customers.get(id) : undefined;
    return customer && !customer.deletedAt ? customer : undefined;
  }

  function subscriptionObject(s: SubscriptionRecord): Subscription {
    const product = options.products[s.productId]!;
    return {
      createdAt: s.createdAt,
      modifiedAt: s.modifiedAt,
      id: s.id,
      amount: product.amount,
      currency: "usd",
      recurringInterval: product.interval,
      recurringIntervalCount: 1,
      status: s.status,
      currentPeriodStart: s.periodStart,
      currentPeriodEnd: s.periodEnd,
      currentMeterPeriodStart: null,
      currentMeterPeriodEnd: null,
      trialStart: s.trialStart,
      trialEnd: s.trialEnd,
      cancelAtPeriodEnd: s.cancelAtPeriodEnd,
      canceledAt: s.canceledAt,
      startedAt: s.createdAt,
      endsAt: s.endsAt,
      endedAt: s.endedAt,
      pastDueAt: null,
      pauseAtPeriodEnd: false,
      pausedAt: null,
      resumesAt: null,
      customerId: s.customerId,
      productId: s.productId,
      discountId: null,
      checkoutId: s.checkoutId,
      seats: s.seats,
      customerCancellationReason: null,
      customerCancellationComment: null,
      metadata: s.metadata,
      customer: customers.get(s.customerId)!,
      product: productObject(s.productId),
      discount: null,
      prices: [priceObject(s.productId)],
      meters: [],
      pendingUpdate: null,
    };
  }

  function customerState(customer: Customer): string {
    const activeSubscriptions: CustomerStateSubscription[] = [];
    for (const s of subscriptions.values()) {
      if (s.customerId !== customer.id || s.status === "canceled") continue;
      const product = options.products[s.productId]!;
      activeSubscriptions.push({
        id: s.id,
        createdAt: s.createdAt,
        modifiedAt: s.modifiedAt,
        metadata: s.metadata,
        status: s.status,
        amount: product.amount,
        currency: "usd",
        recurringInterval: product.interval,
        currentPeriodStart: s.periodStart,
        currentPeriodEnd: s.periodEnd,
        trialStart: s.trialStart,
        trialEnd: s.trialEnd,
        cancelAtPeriodEnd: s.cancelAtPeriodEnd,
        canceledAt: s.canceledAt,
        startedAt: s.createdAt,
        endsAt: s.endsAt,
        productId: s.productId,
        discountId: null,
        meters: [],
      });
    }
    return customerStateToJSON({ ...customer, activeSubscriptions, grantedBenefits: [], activeMeters: [] });
  }

  function event<T extends PolarEventType>(
    type: T,
    data: T extends "checkout.updated" ? Checkout : Subscription,
  ): WebhookDelivery {
    const wire = "clientSecret" in data ? checkoutToJSON(data) : subscriptionToJSON(data);
    const timestamp = new Date();
    const body = json({ type, timestamp: timestamp.toISOString(), data: JSON.parse(wire) as unknown });
    const id = randomUUID();
    return {
      body,
      headers: {
        "content-type": "application/json",
        "webhook-id": id,
        "webhook-timestamp": String(Math.floor(timestamp.getTime() / 1000)),
        "webhook-signature": signer.sign(id, timestamp, body),
      },
    };
  }

  function deliver(delivery: WebhookDelivery): Promise<Response> {
    if (!webhookUrl) return Promise.reject(new Error("Polar stand-in: no webhook URL"));
    return fetch(webhookUrl, { method: "POST", headers: delivery.headers, body: delivery.body });
  }

  /** Sends events to the app one after the other, recording each with the app's answer. */
  function send(...events: [PolarEventType, Subscription | Checkout][]): Promise<void> {
    const done = (async () => {
      for (const [type, data] of events) {
        const delivery = event(type, data);
        const sent: SentWebhook = { id: delivery.headers["webhook-id"]!, type, delivery, status: null };
        webhooks.push(sent);
        if (!webhookUrl) continue;
        // Polar would retry later; the test sees status null.
        const response = await deliver(delivery).catch(() => undefined);
        sent.status = response?.status ?? null;
        await response?.arrayBuffer();
      }
    })();
    pending.add(done);
    return done.finally(() => pending.delete(done));
  }

  const membersOf = (customerId: string) => [...members.values()].filter((m) => m.customerId === customerId);

  function addMember(
    customer: Customer,
    fields: { email: string; name: string | null; externalId: string | null },
    role: MemberRole,
  ) {
    const member: Member = {
      id: randomUUID(),
      createdAt: new Date(),
      modifiedAt: null,
      customerId: customer.id,
      ...fields,
      role,
    };
    members.set(member.id, member);
    return member;
  }

  function createCustomer(body: Json): Answer {
    const team = body.type === "team";
    if (body.type !== undefined && body.type !== "individual" && !team) {
      return invalid({ loc: ["type"], msg: "Input should be 'individual' or 'team'", input: body.type });
    }
    const email = typeof body.email === "string" ? body.email : null;
    const owner = (body.owner as { email?: unknown; name?: unknown; external_id?: unknown } | null | undefined) ?? null;
    const ownerEmail = typeof owner?.email === "string" ? owner.email : null;
    if (email === null && !team) return invalid({ loc: ["email"], msg: "Field required", input: body });
    if (email === null && ownerEmail === null) {
      // CustomerTeamCreate's model validator.
      return invalid({
        loc: [],
        msg: "Value error, An owner with an email address is required when creating a team customer without an email.",
        input: body,
      });
    }
    const externalId = typeof body.external_id === "string" ? body.external_id : null;
    const live = [...customers.values()].filter((c) => !c.deletedAt);
    const errors = [];
    // Unique within the organization among customers that have one (a team customer may have none).
    if (email !== null && live.some((c) => c.email?.toLowerCase() === email.toLowerCase())) {
      errors.push({ loc: ["email"], msg: "A customer with this email address already exists.", input: email });
    }
    if (externalId !== null && live.some((c) => c.externalId === externalId)) {
      errors.push({ loc: ["external_id"], msg: "A customer with this external ID already exists.", input: externalId });
    }
    if (errors.length) return invalid(...errors);
    const common = {
      id: randomUUID(),
      createdAt: new Date(),
      modifiedAt: null,
      metadata: (body.metadata as Customer["metadata"] | undefined) ?? {},
      externalId,
      emailVerified: false,
      name: typeof body.name === "string" ? body.name : null,
      billingName: null,
      billingAddress: null,
      taxId: null,
      locale: null,
      organizationId,
      defaultPaymentMethodId: null,
      deletedAt: null,
      avatarUrl: null,
    };
    const customer: Customer = team
      ? { ...common, type: "team", email }
      : { ...common, type: "individual", email: email! };
    customers.set(customer.id, customer);
    addMember(
      customer,
      {
        email: ownerEmail ?? email!,
        name: typeof owner?.name === "string" ? owner.name : customer.name,
        externalId: typeof owner?.external_id === "string" ? owner.external_id : externalId,
      },
      "owner",
    );
    return [201, customerToJSON(customer)];
  }

  /** POST /v1/customers/{id}/members: only a team customer takes members besides its owner. */
  function createMember(customer: Customer, body: Json): Answer {
    if (customer.type !== "team") {
      return polarError(403, "NotPermitted", "Only team customers can have members.");
    }
    const email = typeof body.email === "string" ? body.email : null;
    if (email === null) return invalid({ loc: ["email"], msg: "Field required", input: body });
    const externalId = typeof body.external_id === "string" ? body.external_id : null;
    const role = (body.role as MemberRole | undefined) ?? "member";
    if (role === "owner") {
      return invalid({ loc: ["role"], msg: "Input should be 'member' or 'billing_manager'", input: role });
    }
    const existing = membersOf(customer.id);
    const errors = [];
    if (existing.some((m) => m.email.toLowerCase() === email.toLowerCase())) {
      errors.push({ loc: ["email"], msg: "A member with this email already exists for this customer.", input: email });
    }
    if (externalId !== null && existing.some((m) => m.externalId === externalId)) {
      errors.push({
        loc: ["external_id"],
        msg: "A member with this external ID already exists for this customer.",
        input: externalId,
      });
    }
    if (errors.length) return invalid(...errors);
    const member = addMember(
      customer,
      { email, name: typeof body.name === "string" ? body.name : null, externalId },
      role,
    );
    return [201, memberToJSON(member)];
  }

  function createCheckout(body: Json): Answer {
    const productIds = Array.isArray(body.products) ? (body.products as string[]) : [];
    if (productIds.length === 0) {
      return invalid({ loc: ["products"], msg: "List should have at least 1 item after validation, not 0", input: [] });
    }
    const unknown = productIds.findIndex((id) => !options.products[id]);
    if (unknown >= 0) {
      return invalid({ loc: ["products", unknown], msg: "Product does not exist.", input: productIds[unknown] });
    }
    const customer = liveCustomer(body.customer_id);
    if (!customer) return invalid({ loc: ["customer_id"], msg: "Customer does not exist.", input: body.customer_id });
    const productId = productIds[0]!;
    const amount = options.products[productId]!.amount;
    const trialInterval = (body.trial_interval as Checkout["trialInterval"] | undefined) ?? null;
    const trialIntervalCount = (body.trial_interval_count as number | undefined) ?? null;
    const createdAt = new Date();
    const id = randomUUID();
    const clientSecret = `polar_c_${randomBytes(32).toString("base64url")}`;
    const trialEnd =
      trialInterval && trialIntervalCount
        ? later(createdAt, trialInterval as "day" | "week" | "month" | "year", trialIntervalCount)
        : null;
    const checkout: Checkout = {
      id,
      createdAt,
      modifiedAt: null,
      paymentProcessor: "stripe",
      status: "open",
      clientSecret,
      url: `${url}/checkout/${clientSecret}`,
      expiresAt: new Date(createdAt.getTime() + HOUR),
      // Polar fills in {CHECKOUT_ID} when it makes the checkout, unlike Stripe.
      successUrl:
        typeof body.success_url === "string"
          ? body.success_url.replaceAll("{CHECKOUT_ID}", id)
          : `${url}/checkout/${clientSecret}/confirmation`,
      returnUrl: typeof body.return_url === "string" ? body.return_url : null,
      embedOrigin: null,
      amount,
      seats: (body.seats as number | undefined) ?? null,
      discountAmount: 0,
      netAmount: amount,
      taxAmount: null,
      taxBehavior: null,
      totalAmount: amount,
      currency: "usd",
      allowTrial: true,
      activeTrialInterval: trialEnd ? trialInterval : null,
      activeTrialIntervalCount: trialEnd ? trialIntervalCount : null,
      trialEnd,
      organizationId,
      productId,
      productPriceId: priceIds.get(productId)!,
      discountId: null,
      allowDiscountCodes: true,
      requireBillingAddress: false,
      isDiscountApplicable: true,
      isFreeProductPrice: false,
      // Nothing is charged before a trial ends, but the card is taken now.
      isPaymentRequired: !trialEnd,
      isPaymentSetupRequired: true,
      isPaymentFormRequired: true,
      customerId: customer.id,
      isBusinessCustomer: false,
      customerName: customer.name,
      customerEmail: customer.email ?? null,
      customerIpAddress: null,
      customerBillingName: null,
      customerBillingAddress: null,
      customerTaxId: null,
      locale: typeof body.locale === "string" ? body.locale : null,
      paymentProcessorMetadata: {},
      billingAddressFields: {
        country: "required",
        state: "disabled",
        city: "disabled",
        postalCode: "disabled",
        line1: "disabled",
        line2: "disabled",
      },
      trialInterval,
      trialIntervalCount,
      metadata: (body.metadata as Checkout["metadata"] | undefined) ?? {},
      externalCustomerId: customer.externalId ?? null,
      products: productIds.map(checkoutProduct),
      product: checkoutProduct(productId),
      productPrice: priceObject(productId),
      prices: Object.fromEntries(productIds.map((p) => [p, [priceObject(p)]])),
      discount: null,
      subscriptionId: null,
      attachedCustomFields: [],
      customerMetadata: {},
    };
    checkouts.set(id, checkout);
    return [201, checkoutToJSON(checkout)];
  }

  function createCustomerSession(body: Json): Answer {
    const byExternalId = typeof body.external_customer_id === "string";
    const customer = byExternalId
      ? [...customers.values()].find((c) => !c.deletedAt && c.externalId === body.external_customer_id)
      : liveCustomer(body.customer_id);
    const field = byExternalId ? "external_customer_id" : "customer_id";
    if (!customer) return invalid({ loc: [field], msg: "Customer does not exist.", input: body[field] });
    // The member the session is for: the one named, else (an individual only) its owner.
    let member: Member | undefined;
    if (typeof body.member_id === "string" || typeof body.external_member_id === "string") {
      const named = typeof body.member_id === "string" ? "member_id" : "external_member_id";
      member = membersOf(customer.id).find((m) =>
        named === "member_id" ? m.id === body.member_id : m.externalId === body.external_member_id,
      );
      if (!member)
        return invalid({ loc: [named], msg: "Member does not exist for this customer.", input: body[named] });
    } else if (customer.type === "team") {
      return invalid({ loc: ["member_id"], msg: "member_id is required for team customers.", input: null });
    } else {
      member = membersOf(customer.id).find((m) => m.role === "owner");
    }
    const token = `polar_cst_${randomBytes(32).toString("base64url")}`;
    const session: CustomerSession = {
      id: randomUUID(),
      token,
      createdAt: new Date(),
      customerId: customer.id,
      memberId: member?.id ?? null,
      returnUrl: typeof body.return_url === "string" ? body.return_url : null,
    };
    sessions.set(token, session);
    // The SDK has no serializer for this answer-only model: its wire form, by hand.
    return [
      201,
      json({
        created_at: session.createdAt.toISOString(),
        modified_at: null,
        id: session.id,
        token,
        expires_at: new Date(session.createdAt.getTime() + HOUR).toISOString(),
        return_url: session.returnUrl,
        customer_portal_url: portalUrl(token),
        customer_id: customer.id,
        customer: JSON.parse(customerToJSON(customer)) as unknown,
      }),
    ];
  }

  const portalUrl = (token: string) => `${url}/portal?customer_session_token=${token}`;

  /**
   * Schedules (true) or undoes (false) the end of a subscription at its period end, as Polar
   * does and refuses; the events follow: subscription.updated, then .canceled or .uncanceled.
   */
  function setCancelAtPeriodEnd(s: SubscriptionRecord, cancel: boolean): Answer {
    if (cancel && (s.status === "canceled" || s.cancelAtPeriodEnd)) {
      return polarError(
        403,
        "AlreadyCanceledSubscription",
        "This subscription is already canceled or will be at the end of the period.",
      );
    }
    if (!cancel && s.status === "canceled") return polarError(410, "ResourceUnavailable", "Unavailable");
    if (!cancel && !s.cancelAtPeriodEnd) return polarError(400, "BadRequest", "Bad request");
    s.cancelAtPeriodEnd = cancel;
    s.canceledAt = cancel ? new Date() : null;
    s.endsAt = cancel ? s.periodEnd : null;
    s.modifiedAt = new Date();
    const subscription = subscriptionObject(s);
    return [
      200,
      subscriptionToJSON(subscription),
      () => send(["subscription.updated", subscription], [`subscription.${cancel ? "" : "un"}canceled`, subscription]),
    ];
  }

  async function completeCheckout(checkoutId: string): Promise<Subscription> {
    const checkout = checkouts.get(checkoutId);
    if (!checkout || checkout.status !== "open") throw new Error(`No open checkout ${checkoutId}`);
    const start = new Date();
    const { trialEnd } = checkout;
    // During a trial the current period is the trial; billing starts when it ends.
    const periodEnd = trialEnd ?? later(start, options.products[checkout.productId!]!.interval);
    const s: SubscriptionRecord = {
      id: randomUUID(),
      customerId: checkout.customerId!,
      productId: checkout.productId!,
      checkoutId,
      seats: checkout.seats ?? null,
      // Polar copies the checkout's metadata onto the subscription.
      metadata: checkout.metadata,
      createdAt: start,
      modifiedAt: null,
      status: trialEnd ? "trialing" : "active",
      periodStart: start,
      periodEnd,
      trialStart: trialEnd ? start : null,
      trialEnd,
      cancelAtPeriodEnd: false,
      canceledAt: null,
      endsAt: null,
      endedAt: null,
    };
    subscriptions.set(s.id, s);
    checkout.status = "succeeded";
    checkout.modifiedAt = new Date();
    const subscription = subscriptionObject(s);
    // Trialing counts as active for Polar: subscription.active comes with a trial too.
    await send(
      ["subscription.created", subscription],
      ["subscription.active", subscription],
      ["checkout.updated", structuredClone(checkout)],
    );
    return subscription;
  }

  async function endPeriod(subscriptionId: string): Promise<Subscription> {
    const s = subscriptions.get(subscriptionId);
    if (!s || s.status === "canceled") throw new Error(`No live subscription ${subscriptionId}`);
    s.modifiedAt = new Date();
    if (s.cancelAtPeriodEnd) {
      s.status = "canceled";
      s.endedAt = s.periodEnd;
      const subscription = subscriptionObject(s);
      // A revocation of a subscription already canceled repeats subscription.canceled (Polar's
      // _after_subscription_updated) before subscription.revoked.
      await send(
        ["subscription.updated", subscription],
        ["subscription.canceled", subscription],
        ["subscription.revoked", subscription],
      );
      return subscription;
    }
    s.status = "active";
    s.periodStart = s.periodEnd;
    s.periodEnd = later(s.periodStart, options.products[s.productId]!.interval);
    const subscription = subscriptionObject(s);
    await send(["subscription.updated", subscription]);
    return subscription;
  }

  async function route(req: IncomingMessage, res: ServerResponse) {
    const { pathname, searchParams } = new URL(req.url ?? "/", url);
    const text = await readBody(req);
    const method = req.method ?? "GET";
    if (!pathname.startsWith("/v1/")) return hostedPage(req, res, pathname, searchParams, text);

    const body = text ? (JSON.parse(text) as Json) : null;
    calls.push({ method, path: pathname, body });
    const index = failures.findIndex((failure) => !failure.path || pathname.startsWith(failure.path));
    const failure = index < 0 ? undefined : failures.splice(index, 1)[0]!.mode;
    if (failure === "timeout") return; // the socket stays open until close()
    if (failure === "error") return answer(res, polarError(500, "InternalServerError", "Internal Server Error"));
    if (req.headers.authorization !== `Bearer ${options.accessToken}`) {
      return answer(res, polarError(401, "Unauthorized", "Unauthorized"));
    }
    answer(res, api(method, pathname, body ?? {}));
  }

  function api(method: string, path: string, body: Json): Answer {
    if (method === "POST" && path === "/v1/customers/") return createCustomer(body);
    if (method === "POST" && path === "/v1/checkouts/") return createCheckout(body);
    if (method === "POST" && path === "/v1/customer-sessions/") return createCustomerSession(body);

    const [, customerId, state] = /^\/v1\/customers\/([^/]+)(\/state|\/members)?$/.exec(path) ?? [];
    if (customerId) {
      const customer = liveCustomer(customerId);
      if (!customer) return notFound();
      if (method === "GET" && state === "/state") return [200, customerState(customer)];
      if (method === "POST" && state === "/members") return createMember(customer, body);
      if (method === "DELETE" && !state) {
        // Polar deletes softly, and frees the email and external id for a new customer.
        customer.deletedAt = new Date();
        return [204, null];
      }
    }

    const subscriptionId = /^\/v1\/subscriptions\/([^/]+)$/.exec(path)?.[1];
    if (subscriptionId && (method === "GET" || method === "PATCH")) {
      const s = subscriptions.get(subscriptionId);
      if (!s) return notFound();
      if (method === "GET") return [200, subscriptionToJSON(subscriptionObject(s))];
      if (typeof body.cancel_at_period_end !== "boolean") {
        return invalid({
          loc: ["cancel_at_period_end"],
          msg: "Input should be a valid boolean",
          input: body.cancel_at_period_end,
        });
      }
      return setCancelAtPeriodEnd(s, body.cancel_at_period_end);
    }

    return [404, json({ detail: "Not Found" })];
  }

  function answer(res: ServerResponse, [status, body, then]: Answer) {
    res.writeHead(status, body === null ? {} : { "content-type": "application/json" });
    res.end(body ?? undefined);
    void then?.();
  }

  /** The hosted checkout page and the customer portal: plain forms, usable without JavaScript. */
  async function hostedPage(
    req: IncomingMessage,
    res: ServerResponse,
    path: string,
    query: URLSearchParams,
    body: string,
  ) {
    const secret = /^\/checkout\/([^/]+)$/.exec(path)?.[1];
    const checkout = [...checkouts.values()].find((c) => c.clientSecret === secret);
    if (checkout) {
      if (checkout.status !== "open") return page(res, 410, "This checkout is no longer available", "");
      if (req.method === "POST") {
        await completeCheckout(checkout.id);
        return res.writeHead(303, { location: checkout.successUrl }).end();
      }
      const product = options.products[checkout.productId!]!;
      const trial = checkout.trialEnd ? `<p>Free trial until ${checkout.trialEnd.toISOString().slice(0, 10)}</p>` : "";
      const back = checkout.returnUrl ? `<p><a href="${escapeHtml(checkout.returnUrl)}">Back</a></p>` : "";
      return page(
        res,
        200,
        `Subscribe to ${productName(product)}`,
        `<p>${money(product.amount)} per ${product.interval}</p>${trial}` +
          `<form method="post"><button type="submit">Subscribe</button></form>${back}`,
      );
    }

    const session = path === "/portal" ? sessions.get(query.get("customer_session_token") ?? "") : undefined;
    if (session) {
      if (req.method === "POST") {
        const form = new URLSearchParams(body);
        const s = subscriptions.get(form.get("subscription") ?? "");
        const [status, , then] =
          s && s.customerId === session.customerId
            ? setCancelAtPeriodEnd(s, form.get("cancel_at_period_end") === "true")
            : notFound();
        if (status !== 200) return page(res, status, "This subscription cannot be changed", "");
        await then?.();
        return res.writeHead(303, { location: portalUrl(session.token) }).end();
      }
      const rows = [...subscriptions.values()]
        .filter((s) => s.customerId === session.customerId)
        .map((s) => {
          const product = options.products[s.productId]!;
          const ends = s.periodEnd.toISOString().slice(0, 10);
          const state =
            s.status === "canceled" ? "Canceled" : s.cancelAtPeriodEnd ? `Cancels on ${ends}` : `Renews on ${ends}`;
          const button =
            s.status === "canceled"
              ? ""
              : `<form method="post"><input type="hidden" name="subscription" value="${s.id}">` +
                `<input type="hidden" name="cancel_at_period_end" value="${!s.cancelAtPeriodEnd}">` +
                `<button type="submit">${s.cancelAtPeriodEnd ? "Renew" : "Cancel at period end"}</button></form>`;
          return `<li>${escapeHtml(productName(product))}, ${money(product.amount)} per ${product.interval} (${s.status}). ${state}.${button}</li>`;
        });
      const back = session.returnUrl ? `<p><a href="${escapeHtml(session.returnUrl)}">Return</a></p>` : "";
      return page(res, 200, "Your subscriptions", `<ul>${rows.join("")}</ul>${back}`);
    }

    page(res, 404, "Not found", "");
  }

  return {
    url,
    customer(id) {
      const customer = customers.get(id);
      return customer && { ...customer, members: membersOf(id) };
    },
    portalSession(portalUrlString) {
      const session = sessions.get(new URL(portalUrlString).searchParams.get("customer_session_token") ?? "");
      return session && { customerId: session.customerId, memberId: session.memberId };
    },
    calls,
    webhooks,
    reset() {
      calls.length = 0;
      webhooks.length = 0;
      failures.length = 0;
    },
    setWebhookUrl(value) {
      webhookUrl = value;
    },
    failNext(mode, count = 1, path) {
      for (let i = 0; i < count; i++) failures.push({ mode, path });
    },
    completeCheckout,
    endPeriod,
    event,
    deliver,
    async settled() {
      await Promise.all(pending);
    },
    close() {
      server.closeAllConnections();
      return new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
