/**
 * A stand-in for the part of Stripe's API the app uses, on loopback, for the real `stripe`
 * SDK pointed at it (host, port, protocol): customers, Checkout Sessions in subscription mode,
 * customer portal sessions and subscriptions, answered as Stripe answers (form-encoded
 * requests, Bearer secret key, the Stripe error shape, `cus_`/`cs_test_`/`sub_` ids). Objects
 * are typed with the SDK's own types, so a field that stripe adds or moves is a type error here.
 *
 * Nothing is paid: the hosted checkout page's "Subscribe" button (or completeCheckout) makes
 * the subscription at once, and endPeriod plays the end of its period. Both, and the portal's
 * buttons, send the webhooks Stripe sends, signed with the SDK's signing helper, to the app.
 * Tests can also make failures (failNext) and hand-made deliveries (event, deliver).
 */
import { randomInt } from "node:crypto";
import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import Stripe from "stripe";
import { escapeHtml, listen, money, page, readBody } from "./stand-in-http";

export interface StandInPrice {
  plan: string;
  interval: "month" | "year";
  /** In cents (USD). */
  amount: number;
}

export interface StripeStandInOptions {
  /** Default: any free port. */
  port?: number;
  secretKey: string;
  webhookSecret: string;
  /** The app's webhook endpoint; until it is set (see setWebhookUrl), events are recorded but not sent. */
  webhookUrl?: string;
  prices: Record<string, StandInPrice>;
}

/** A form-encoded body or query, nested the way Stripe reads `a[b][0]=c`. */
export interface Params {
  [key: string]: string | Params;
}

export interface ApiCall {
  method: string;
  path: string;
  params: Params;
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

export interface StripeStandIn {
  /** http://127.0.0.1:<port>: the API, the hosted checkout (/c/pay/…) and the portal (/p/session/…). */
  url: string;
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
  completeCheckout(sessionId: string): Promise<Stripe.Subscription>;
  /** The current period ends: the subscription renews (or leaves its trial), or ends if set to cancel. */
  endPeriod(subscriptionId: string): Promise<Stripe.Subscription>;
  /** A signed event, not sent. */
  event(
    type: Stripe.Event.Type,
    object: Stripe.Subscription | Stripe.Checkout.Session,
    previousAttributes?: Partial<Stripe.Subscription>,
  ): WebhookDelivery;
  /** Posts a delivery to the app's webhook URL. */
  deliver(delivery: WebhookDelivery): Promise<Response>;
  /** Resolves once every webhook sent so far has been answered (those sent after an update call). */
  settled(): Promise<void>;
  close(): Promise<void>;
}

/** What a subscription is; subscriptionObject renders Stripe's object from it. */
interface SubscriptionState {
  id: string;
  itemId: string;
  customer: string;
  price: string;
  quantity: number;
  metadata: Record<string, string>;
  created: number;
  status: "trialing" | "active" | "canceled";
  billingCycleAnchor: number;
  periodStart: number;
  periodEnd: number;
  trialStart: number | null;
  trialEnd: number | null;
  cancelAtPeriodEnd: boolean;
  canceledAt: number | null;
  endedAt: number | null;
  latestInvoice: string;
}

interface CheckoutState {
  session: Stripe.Checkout.Session;
  customer: string;
  price: string;
  quantity: number;
  trialDays: number | null;
  subscriptionMetadata: Record<string, string>;
}

/** A status and JSON body, and what to do once they are sent. */
type Answer = [status: number, body: unknown, then?: () => Promise<void>];

const ALPHABET = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz";
const DAY = 86_400;

/** An id the way Stripe makes them: a prefix and random letters and digits. */
function stripeId(prefix: string, length = 24): string {
  return prefix + Array.from({ length }, () => ALPHABET[randomInt(ALPHABET.length)]).join("");
}

const now = () => Math.floor(Date.now() / 1000);

/** One interval later, on the same day of the month or the last one (Jan 31 + 1 month = Feb 28), as Stripe bills. */
function addInterval(seconds: number, interval: "month" | "year"): number {
  const date = new Date(seconds * 1000);
  const day = date.getUTCDate();
  date.setUTCDate(1);
  date.setUTCMonth(date.getUTCMonth() + (interval === "year" ? 12 : 1));
  const lastDay = new Date(Date.UTC(date.getUTCFullYear(), date.getUTCMonth() + 1, 0)).getUTCDate();
  date.setUTCDate(Math.min(day, lastDay));
  return date.getTime() / 1000;
}

function parseForm(text: string): Params {
  const params: Params = {};
  for (const [key, value] of new URLSearchParams(text)) {
    const path = key.split(/[[\]]+/).filter(Boolean);
    let node = params;
    for (const part of path.slice(0, -1)) node = (node[part] ??= {}) as Params;
    node[path.at(-1) ?? key] = value;
  }
  return params;
}

const text = (value: string | Params | undefined) => (typeof value === "string" ? value : undefined);

function record(value: string | Params | undefined): Record<string, string> {
  const entries = Object.entries(typeof value === "object" ? value : {});
  return Object.fromEntries(entries.filter((entry): entry is [string, string] => typeof entry[1] === "string"));
}

function stripeError(status: number, message: string, extra: { code?: string; param?: string } = {}): Answer {
  const type = status >= 500 ? "api_error" : "invalid_request_error";
  return [status, { error: { ...extra, message, type, request_log_url: null } }];
}

function noSuch(kind: string, id: string, param: string, status = 404): Answer {
  return stripeError(status, `No such ${kind}: '${id}'`, { code: "resource_missing", param });
}

export async function startStripeStandIn(options: StripeStandInOptions): Promise<StripeStandIn> {
  const server = createServer((req, res) => {
    route(req, res).catch((error: unknown) => {
      if (!res.headersSent) answer(res, stripeError(500, String(error)));
    });
  });
  const port = await listen(server, options.port);
  const url = `http://127.0.0.1:${port}`;

  const started = now();
  // Stripe prices belong to products: one product per plan, its prices per interval.
  const products = new Map(Object.values(options.prices).map(({ plan }) => [plan, stripeId("prod_", 14)]));
  const customers = new Map<string, Stripe.Customer | Stripe.DeletedCustomer>();
  const checkouts = new Map<string, CheckoutState>();
  const portals = new Map<string, Stripe.BillingPortal.Session>();
  const subscriptions = new Map<string, SubscriptionState>();
  const calls: ApiCall[] = [];
  const webhooks: SentWebhook[] = [];
  const failures: { mode: "error" | "timeout"; path?: string }[] = [];
  const pending = new Set<Promise<void>>();
  let webhookUrl = options.webhookUrl;

  function priceObject(id: string): Stripe.Price {
    const { plan, interval, amount } = options.prices[id]!;
    return {
      id,
      object: "price",
      active: true,
      billing_scheme: "per_unit",
      created: started,
      currency: "usd",
      custom_unit_amount: null,
      livemode: false,
      lookup_key: null,
      metadata: {},
      nickname: null,
      product: products.get(plan)!,
      recurring: { interval, interval_count: 1, meter: null, trial_period_days: null, usage_type: "licensed" },
      tax_behavior: "unspecified",
      tiers_mode: null,
      transform_quantity: null,
      type: "recurring",
      unit_amount: amount,
      unit_amount_decimal: Stripe.Decimal.from(String(amount)),
    };
  }

  /** The legacy Plan that Stripe still puts beside the Price on every subscription item. */
  function planObject(id: string): Stripe.Plan {
    const { plan, interval, amount } = options.prices[id]!;
    return {
      id,
      object: "plan",
      active: true,
      amount,
      amount_decimal: Stripe.Decimal.from(String(amount)),
      billing_scheme: "per_unit",
      created: started,
      currency: "usd",
      interval,
      interval_count: 1,
      livemode: false,
      metadata: {},
      meter: null,
      nickname: null,
      product: products.get(plan)!,
      tiers_mode: null,
      transform_usage: null,
      trial_period_days: null,
      usage_type: "licensed",
    };
  }

  function subscriptionObject(s: SubscriptionState): Stripe.Subscription {
    return {
      id: s.id,
      object: "subscription",
      application: null,
      application_fee_percent: null,
      automatic_tax: { disabled_reason: null, enabled: false, liability: null },
      billing_cycle_anchor: s.billingCycleAnchor,
      billing_cycle_anchor_config: null,
      billing_mode: { flexible: { proration_discounts: "included" }, type: "flexible" },
      billing_schedules: [],
      billing_thresholds: null,
      // Since API version 2025-03-31, scheduling the end at the period end also sets cancel_at.
      cancel_at: s.cancelAtPeriodEnd ? s.periodEnd : null,
      cancel_at_period_end: s.cancelAtPeriodEnd,
      canceled_at: s.canceledAt,
      cancellation_details: {
        comment: null,
        feedback: null,
        feedback_option: null,
        reason: s.canceledAt === null ? null : "cancellation_requested",
      },
      collection_method: "charge_automatically",
      created: s.created,
      currency: "usd",
      customer: s.customer,
      customer_account: null,
      days_until_due: null,
      default_payment_method: null,
      default_source: null,
      default_tax_rates: [],
      description: null,
      discounts: [],
      ended_at: s.endedAt,
      invoice_settings: {
        account_tax_ids: null,
        custom_fields: null,
        description: null,
        footer: null,
        issuer: { type: "self" },
      },
      items: {
        object: "list",
        data: [
          {
            id: s.itemId,
            object: "subscription_item",
            billing_thresholds: null,
            created: s.created,
            // Moved here from the subscription in API version 2025-03-31.
            current_period_end: s.periodEnd,
            current_period_start: s.periodStart,
            current_trial: null,
            discounts: [],
            metadata: {},
            plan: planObject(s.price),
            price: priceObject(s.price),
            quantity: s.quantity,
            subscription: s.id,
            tax_rates: [],
          },
        ],
        has_more: false,
        url: `/v1/subscription_items?subscription=${s.id}`,
      },
      latest_invoice: s.latestInvoice,
      livemode: false,
      managed_payments: null,
      metadata: s.metadata,
      next_pending_invoice_item_invoice: null,
      on_behalf_of: null,
      pause_collection: null,
      payment_settings: {
        payment_method_options: null,
        payment_method_types: null,
        save_default_payment_method: "off",
      },
      pending_invoice_item_interval: null,
      pending_setup_intent: null,
      pending_update: null,
      schedule: null,
      start_date: s.created,
      status: s.status,
      test_clock: null,
      transfer_data: null,
      trial_end: s.trialEnd,
      trial_settings: { end_behavior: { billing_cycle_anchor: null, missing_payment_method: "create_invoice" } },
      trial_start: s.trialStart,
    };
  }

  function event(
    type: Stripe.Event.Type,
    object: Stripe.Subscription | Stripe.Checkout.Session,
    previousAttributes?: Partial<Stripe.Subscription>,
  ): WebhookDelivery {
    const payload: Stripe.EventBase = {
      id: stripeId("evt_"),
      object: "event",
      api_version: Stripe.API_VERSION,
      created: now(),
      data: previousAttributes ? { object, previous_attributes: previousAttributes } : { object },
      livemode: false,
      pending_webhooks: 1,
      request: { id: null, idempotency_key: null },
      type,
    };
    const body = JSON.stringify(payload);
    return {
      body,
      headers: {
        "content-type": "application/json; charset=utf-8",
        "user-agent": "Stripe/1.0 (+https://stripe.com/docs/webhooks)",
        "stripe-signature": Stripe.webhooks.generateTestHeaderString({ payload: body, secret: options.webhookSecret }),
      },
    };
  }

  function deliver(delivery: WebhookDelivery): Promise<Response> {
    if (!webhookUrl) return Promise.reject(new Error("Stripe stand-in: no webhook URL"));
    return fetch(webhookUrl, { method: "POST", headers: delivery.headers, body: delivery.body });
  }

  /** Sends an event to the app and records it with the app's answer. */
  function send(
    type: Stripe.Event.Type,
    object: Stripe.Subscription | Stripe.Checkout.Session,
    previousAttributes?: Partial<Stripe.Subscription>,
  ): Promise<void> {
    const delivery = event(type, object, previousAttributes);
    const sent: SentWebhook = { id: (JSON.parse(delivery.body) as { id: string }).id, type, delivery, status: null };
    webhooks.push(sent);
    if (!webhookUrl) return Promise.resolve();
    const done = deliver(delivery).then(
      async (response) => {
        sent.status = response.status;
        await response.arrayBuffer();
      },
      // Stripe would retry later; the test sees status null.
      () => undefined,
    );
    pending.add(done);
    return done.finally(() => pending.delete(done));
  }

  /** Sends customer.subscription.updated with what changed since `before`, as previous_attributes. */
  function sendUpdated(before: Stripe.Subscription, s: SubscriptionState): Promise<void> {
    const after = subscriptionObject(s);
    const previous = Object.fromEntries(
      Object.entries(before).filter(
        ([key, value]) => JSON.stringify(value) !== JSON.stringify(after[key as keyof Stripe.Subscription]),
      ),
    );
    if (Object.keys(previous).length === 0) return Promise.resolve();
    return send("customer.subscription.updated", after, previous);
  }

  function setCancelAtPeriodEnd(s: SubscriptionState, cancel: boolean) {
    s.cancelAtPeriodEnd = cancel;
    s.canceledAt = cancel ? now() : null;
  }

  function createCustomer(params: Params): Answer {
    const customer: Stripe.Customer = {
      id: stripeId("cus_", 14),
      object: "customer",
      address: null,
      balance: 0,
      created: now(),
      currency: null,
      default_source: null,
      delinquent: false,
      description: text(params.description) ?? null,
      discount: null,
      email: text(params.email) ?? null,
      invoice_prefix: stripeId("", 8).toUpperCase(),
      invoice_settings: { custom_fields: null, default_payment_method: null, footer: null, rendering_options: null },
      livemode: false,
      metadata: record(params.metadata),
      name: text(params.name) ?? null,
      next_invoice_sequence: 1,
      phone: null,
      preferred_locales: [],
      shipping: null,
      tax_exempt: "none",
      test_clock: null,
    };
    customers.set(customer.id, customer);
    return [200, customer];
  }

  function liveCustomer(id: string | undefined): Stripe.Customer | undefined {
    const customer = id === undefined ? undefined : customers.get(id);
    return customer && !customer.deleted ? customer : undefined;
  }

  function createCheckout(params: Params): Answer {
    const customer = text(params.customer);
    if (!liveCustomer(customer)) return noSuch("customer", customer ?? "", "customer", 400);
    const item = typeof params.line_items === "object" ? params.line_items["0"] : undefined;
    const price = typeof item === "object" ? text(item.price) : undefined;
    if (!price || !options.prices[price]) return noSuch("price", price ?? "", "line_items[0][price]", 400);
    const quantity = Number(typeof item === "object" ? (text(item.quantity) ?? 1) : 1);
    const subscriptionData = typeof params.subscription_data === "object" ? params.subscription_data : {};
    const trialDays = text(subscriptionData.trial_period_days);
    // What is due today: nothing when a trial comes first.
    const amount = trialDays ? 0 : options.prices[price].amount * quantity;
    const created = now();
    const id = stripeId("cs_test_", 58);
    const session: Stripe.Checkout.Session = {
      id,
      object: "checkout.session",
      adaptive_pricing: null,
      after_expiration: null,
      allow_promotion_codes: null,
      allowed_payment_method_types: null,
      amount_subtotal: amount,
      amount_total: amount,
      automatic_tax: { enabled: false, liability: null, provider: null, status: null },
      billing_address_collection: null,
      cancel_url: text(params.cancel_url) ?? null,
      client_reference_id: text(params.client_reference_id) ?? null,
      client_secret: null,
      collected_information: null,
      consent: null,
      consent_collection: null,
      created,
      currency: "usd",
      currency_conversion: null,
      custom_fields: [],
      custom_text: { after_submit: null, shipping_address: null, submit: null, terms_of_service_acceptance: null },
      customer: customer!,
      customer_account: null,
      customer_creation: null,
      customer_details: null,
      customer_email: null,
      discounts: [],
      expires_at: created + DAY,
      integration_identifier: null,
      invoice: null,
      invoice_creation: null,
      livemode: false,
      locale: (text(params.locale) as Stripe.Checkout.Session.Locale | undefined) ?? null,
      managed_payments: null,
      metadata: record(params.metadata),
      mode: "subscription",
      origin_context: null,
      payment_intent: null,
      payment_link: null,
      payment_method_collection: "always",
      payment_method_configuration_details: null,
      payment_method_options: {},
      payment_method_types: ["card"],
      payment_status: "unpaid",
      permissions: null,
      recovered_from: null,
      saved_payment_method_options: null,
      setup_intent: null,
      shipping_address_collection: null,
      shipping_cost: null,
      shipping_options: [],
      status: "open",
      submit_type: null,
      subscription: null,
      // Kept as given: Stripe fills in {CHECKOUT_SESSION_ID} only when it redirects there.
      success_url: text(params.success_url) ?? null,
      total_details: { amount_discount: 0, amount_shipping: 0, amount_tax: 0 },
      ui_mode: "hosted_page",
      url: `${url}/c/pay/${id}`,
      wallet_options: null,
    };
    checkouts.set(id, {
      session,
      customer: customer!,
      price,
      quantity,
      trialDays: trialDays ? Number(trialDays) : null,
      subscriptionMetadata: record(subscriptionData.metadata),
    });
    return [200, session];
  }

  function createPortal(params: Params): Answer {
    const customer = text(params.customer);
    if (!liveCustomer(customer)) return noSuch("customer", customer ?? "", "customer", 400);
    const id = stripeId("bps_");
    const session: Stripe.BillingPortal.Session = {
      id,
      object: "billing_portal.session",
      configuration: stripeId("bpc_"),
      created: now(),
      customer: customer!,
      customer_account: null,
      flow: null,
      livemode: false,
      locale: null,
      on_behalf_of: null,
      return_url: text(params.return_url) ?? null,
      url: `${url}/p/session/${id}`,
    };
    portals.set(id, session);
    return [200, session];
  }

  async function completeCheckout(sessionId: string): Promise<Stripe.Subscription> {
    const checkout = checkouts.get(sessionId);
    if (!checkout || checkout.session.status !== "open") throw new Error(`No open checkout session ${sessionId}`);
    const { session, price, quantity, trialDays } = checkout;
    const customer = liveCustomer(checkout.customer);
    const start = now();
    const trialEnd = trialDays ? start + trialDays * DAY : null;
    // During a trial the current period is the trial; billing starts when it ends.
    const periodEnd = trialEnd ?? addInterval(start, options.prices[price]!.interval);
    const s: SubscriptionState = {
      id: stripeId("sub_"),
      itemId: stripeId("si_", 14),
      customer: checkout.customer,
      price,
      quantity,
      metadata: checkout.subscriptionMetadata,
      created: start,
      status: trialEnd ? "trialing" : "active",
      billingCycleAnchor: trialEnd ?? start,
      periodStart: start,
      periodEnd,
      trialStart: trialEnd ? start : null,
      trialEnd,
      cancelAtPeriodEnd: false,
      canceledAt: null,
      endedAt: null,
      latestInvoice: stripeId("in_"),
    };
    subscriptions.set(s.id, s);
    session.status = "complete";
    session.payment_status = trialEnd ? "no_payment_required" : "paid";
    session.subscription = s.id;
    session.invoice = s.latestInvoice;
    session.customer_details = {
      address: null,
      business_name: null,
      email: customer?.email ?? null,
      individual_name: null,
      name: customer?.name ?? null,
      phone: null,
      tax_exempt: "none",
      tax_ids: [],
    };
    // Stripe makes the subscription before it completes the session: its events come first.
    await send("customer.subscription.created", subscriptionObject(s));
    await send("checkout.session.completed", structuredClone(session));
    return subscriptionObject(s);
  }

  async function endPeriod(subscriptionId: string): Promise<Stripe.Subscription> {
    const s = subscriptions.get(subscriptionId);
    if (!s || s.status === "canceled") throw new Error(`No live subscription ${subscriptionId}`);
    const before = subscriptionObject(s);
    if (s.cancelAtPeriodEnd) {
      s.status = "canceled";
      s.endedAt = s.periodEnd;
      await send("customer.subscription.deleted", subscriptionObject(s));
    } else {
      s.status = "active";
      s.periodStart = s.periodEnd;
      s.periodEnd = addInterval(s.periodStart, options.prices[s.price]!.interval);
      s.latestInvoice = stripeId("in_");
      await sendUpdated(before, s);
    }
    return subscriptionObject(s);
  }

  async function route(req: IncomingMessage, res: ServerResponse) {
    const { pathname, searchParams } = new URL(req.url ?? "/", url);
    const body = await readBody(req);
    const method = req.method ?? "GET";
    if (!pathname.startsWith("/v1/")) return hostedPage(req, res, pathname, body);

    calls.push({ method, path: pathname, params: parseForm(method === "POST" ? body : searchParams.toString()) });
    const index = failures.findIndex((failure) => !failure.path || pathname.startsWith(failure.path));
    const failure = index < 0 ? undefined : failures.splice(index, 1)[0]!.mode;
    if (failure === "timeout") return; // the socket stays open until close()
    if (failure === "error") return answer(res, stripeError(500, "An unknown error occurred"));

    const key = /^Bearer (.*)$/.exec(req.headers.authorization ?? "")?.[1];
    if (!key) {
      return answer(res, [
        401,
        {
          error: {
            message:
              "You did not provide an API key. You need to provide your API key in the Authorization header, using Bearer auth (e.g. 'Authorization: Bearer YOUR_SECRET_KEY').",
            type: "invalid_request_error",
          },
        },
      ]);
    }
    if (key !== options.secretKey) {
      return answer(
        res,
        stripeError(401, `Invalid API Key provided: ${key.slice(0, 8)}${"*".repeat(12)}${key.slice(-4)}`),
      );
    }
    answer(res, api(method, pathname, calls.at(-1)!.params));
  }

  /** The API proper; an update's webhook goes out after the answer, as Stripe's does. */
  function api(method: string, path: string, params: Params): Answer {
    if (method === "POST" && path === "/v1/customers") return createCustomer(params);
    if (method === "POST" && path === "/v1/checkout/sessions") return createCheckout(params);
    if (method === "POST" && path === "/v1/billing_portal/sessions") return createPortal(params);

    const customerId = /^\/v1\/customers\/([^/]+)$/.exec(path)?.[1];
    if (customerId && (method === "GET" || method === "DELETE")) {
      const customer = customers.get(customerId);
      // A deleted customer can still be retrieved, as a stub, but not deleted again.
      if (!customer || (method === "DELETE" && customer.deleted)) return noSuch("customer", customerId, "id");
      if (method === "GET") return [200, customer];
      const deleted: Stripe.DeletedCustomer = { id: customerId, object: "customer", deleted: true };
      customers.set(customerId, deleted);
      return [200, deleted];
    }

    const subscriptionId = /^\/v1\/subscriptions\/([^/]+)$/.exec(path)?.[1];
    if (subscriptionId && (method === "GET" || method === "POST")) {
      const s = subscriptions.get(subscriptionId);
      if (!s) return noSuch("subscription", subscriptionId, "id");
      if (method === "GET") return [200, subscriptionObject(s)];
      if (s.status === "canceled") {
        return stripeError(400, "A canceled subscription can only update its cancellation_details and metadata.");
      }
      const before = subscriptionObject(s);
      const cancel = text(params.cancel_at_period_end);
      if (cancel !== undefined) setCancelAtPeriodEnd(s, cancel === "true");
      return [200, subscriptionObject(s), () => sendUpdated(before, s)];
    }

    return stripeError(
      404,
      `Unrecognized request URL (${method}: ${path}). Please see https://stripe.com/docs or we can help at https://support.stripe.com/.`,
    );
  }

  function answer(res: ServerResponse, [status, body, then]: Answer) {
    res.writeHead(status, { "content-type": "application/json", "request-id": stripeId("req_", 14) });
    res.end(JSON.stringify(body));
    void then?.();
  }

  /** The hosted checkout page and the customer portal: plain forms, usable without JavaScript. */
  async function hostedPage(req: IncomingMessage, res: ServerResponse, path: string, body: string) {
    const checkoutId = /^\/c\/pay\/([^/]+)$/.exec(path)?.[1];
    const checkout = checkoutId ? checkouts.get(checkoutId) : undefined;
    if (checkout) {
      const { session } = checkout;
      if (session.status !== "open") return page(res, 410, "This checkout session is no longer available", "");
      if (req.method === "POST") {
        await completeCheckout(session.id);
        const successUrl = (session.success_url ?? "").replaceAll("{CHECKOUT_SESSION_ID}", session.id);
        return res.writeHead(303, { location: successUrl }).end();
      }
      const { plan, interval, amount } = options.prices[checkout.price]!;
      return page(
        res,
        200,
        `Subscribe to ${plan}`,
        `<p>${money(amount)} per ${interval}${checkout.quantity > 1 ? ` × ${checkout.quantity}` : ""}</p>` +
          (checkout.trialDays ? `<p>${checkout.trialDays}-day free trial</p>` : "") +
          `<form method="post"><button type="submit">Subscribe</button></form>` +
          `<p><a href="${escapeHtml(session.cancel_url ?? "")}">Back</a></p>`,
      );
    }

    const portalId = /^\/p\/session\/([^/]+)$/.exec(path)?.[1];
    const portal = portalId ? portals.get(portalId) : undefined;
    if (portal) {
      if (req.method === "POST") {
        const form = new URLSearchParams(body);
        const s = subscriptions.get(form.get("subscription") ?? "");
        if (!s || s.customer !== portal.customer || s.status === "canceled") {
          return page(res, 400, "This subscription cannot be changed", "");
        }
        const before = subscriptionObject(s);
        setCancelAtPeriodEnd(s, form.get("cancel_at_period_end") === "true");
        await sendUpdated(before, s);
        return res.writeHead(303, { location: portal.url }).end();
      }
      const rows = [...subscriptions.values()]
        .filter((s) => s.customer === portal.customer)
        .map((s) => {
          const { plan, interval, amount } = options.prices[s.price]!;
          const ends = new Date(s.periodEnd * 1000).toISOString().slice(0, 10);
          const state =
            s.status === "canceled" ? "Canceled" : s.cancelAtPeriodEnd ? `Cancels on ${ends}` : `Renews on ${ends}`;
          const button =
            s.status === "canceled"
              ? ""
              : `<form method="post"><input type="hidden" name="subscription" value="${s.id}">` +
                `<input type="hidden" name="cancel_at_period_end" value="${!s.cancelAtPeriodEnd}">` +
                `<button type="submit">${s.cancelAtPeriodEnd ? "Renew" : "Cancel at period end"}</button></form>`;
          return `<li>${escapeHtml(plan)}, ${money(amount)} per ${interval} (${s.status}). ${state}.${button}</li>`;
        });
      return page(
        res,
        200,
        "Your subscriptions",
        `<ul>${rows.join("")}</ul><p><a href="${escapeHtml(portal.return_url ?? "")}">Return</a></p>`,
      );
    }

    page(res, 404, "Not found", "");
  }

  return {
    url,
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
