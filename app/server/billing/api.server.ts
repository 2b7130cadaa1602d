/**
 * Subscription endpoints of /api/auth: better-auth's Stripe plugin routes when
 * PAYMENT_PROVIDER is stripe, the Polar plugin's when it is polar (the other set answers
 * 404, as if not installed). With PAYMENT_PROVIDER=none the /subscription/* routes answer
 * PAYMENTS_DISABLED, so a client learns that nothing is sold here rather than guessing from
 * a 404, and the webhook URLs do not exist. The verbs are in app/server/billing/billing.server.ts.
 */
import { redirect } from "react-router";
import { z } from "zod";
import { billingIntervals, plans } from "~/config/plans";
import {
  absolute,
  activeProviderId,
  billingPortal,
  cancelSubscription,
  customerState,
  listSubscriptions,
  polarSubscriptionPage,
  receiveWebhook,
  referenceInput,
  referenceOf,
  restoreSubscription,
  upgrade,
  upgradeInput,
} from "./billing.server";
import type { ProviderId } from "./provider.server";
import { loadEnv } from "~/server/env.server";
import { booleanish } from "~/server/auth/schemas.server";
import { endpoint, param } from "~/server/endpoint.server";
import { fail } from "~/server/errors.server";

/** A provider's routes exist only while it is the one in use. */
const whileUsing = (provider: ProviderId) => () => activeProviderId() === provider;
const stripe = whileUsing("stripe");
const polar = whileUsing("polar");
const selling = () => activeProviderId() !== null;

const customerType = z.enum(["user", "organization"]).optional();
const referenceQuery = z.object({
  referenceId: param(z.string().min(1).max(128)).optional(),
  customerType: param(customerType),
});

/** Polar's checkout names a product by id or by slug: "<plan>" or "<plan>-yearly". */
function polarPlan(input: { slug?: string; products?: string | string[] }): { plan: string; annual: boolean } {
  if (input.slug) {
    const [plan = "", yearly] = input.slug.split("-");
    return { plan, annual: yearly === "yearly" };
  }
  const env = loadEnv();
  const product = Array.isArray(input.products) ? input.products[0] : input.products;
  for (const plan of plans) {
    for (const interval of billingIntervals) {
      const key = `POLAR_PRODUCT_${plan.id.toUpperCase()}_${interval.toUpperCase()}` as keyof typeof env;
      if (product && env[key] === product) return { plan: plan.id, annual: interval === "yearly" };
    }
  }
  return { plan: "", annual: false };
}

/** The Stripe plugin's subscription routes, which a server that sells nothing refuses. */
const SUBSCRIPTION_ROUTES = [
  ["POST", "/subscription/upgrade"],
  ["GET", "/subscription/list"],
  ["POST", "/subscription/cancel"],
  ["POST", "/subscription/restore"],
  ["POST", "/subscription/billing-portal"],
  ["GET", "/subscription/success"],
] as const;

export const endpoints = [
  // ---- PAYMENT_PROVIDER=none ----
  ...SUBSCRIPTION_ROUTES.map(([method, path]) =>
    endpoint({
      enabled: () => !selling(),
      method,
      path,
      async handler() {
        fail("PAYMENTS_DISABLED");
      },
    }),
  ),

  // ---- Stripe ----
  endpoint({
    enabled: stripe,
    method: "POST",
    path: "/subscription/upgrade",
    session: "required",
    body: upgradeInput,
    async handler({ body, meta, auth }) {
      const { url, redirect, raw } = await upgrade(auth, body, meta);
      // As better-auth's Stripe plugin answers: the Checkout Session spread with `redirect`
      // (a portal change: {url, redirect}).
      return { ...(raw as object | undefined), url, redirect };
    },
  }),

  endpoint({
    enabled: stripe,
    method: "GET",
    path: "/subscription/list",
    session: "required",
    query: referenceQuery,
    async handler({ query, auth }) {
      return listSubscriptions(auth, query);
    },
  }),

  endpoint({
    enabled: stripe,
    method: "POST",
    path: "/subscription/cancel",
    session: "required",
    body: referenceInput.extend({ returnUrl: z.string(), disableRedirect: z.boolean().default(false) }),
    async handler({ body, meta, auth }) {
      await cancelSubscription(auth, body, meta);
      return { url: absolute(body.returnUrl), redirect: !body.disableRedirect };
    },
  }),

  endpoint({
    enabled: stripe,
    method: "POST",
    path: "/subscription/restore",
    session: "required",
    body: referenceInput,
    async handler({ body, meta, auth }) {
      return (await restoreSubscription(auth, body, meta)).raw;
    },
  }),

  endpoint({
    enabled: stripe,
    method: "POST",
    path: "/subscription/billing-portal",
    session: "required",
    body: z.object({
      referenceId: z.string().min(1).max(128).optional(),
      customerType,
      returnUrl: z.string().optional(),
      locale: z.string().max(16).optional(),
      disableRedirect: z.boolean().default(false),
    }),
    async handler({ body, auth }) {
      return { url: await billingPortal(auth, body), redirect: !body.disableRedirect };
    },
  }),

  endpoint({
    enabled: stripe,
    method: "GET",
    path: "/subscription/success",
    query: z.object({ callbackURL: param(z.string()).optional() }),
    async handler({ query }) {
      // callbackURL was checked against the trusted origins by the dispatcher.
      return redirect(query.callbackURL ?? "/");
    },
  }),

  endpoint({
    enabled: stripe,
    method: "POST",
    path: "/stripe/webhook",
    rawBody: true,
    body: z.string(),
    rateLimit: false,
    async handler({ body, request }) {
      await receiveWebhook("stripe", body, request.headers);
      return { received: true };
    },
  }),

  // ---- Polar ----
  endpoint({
    enabled: polar,
    method: "POST",
    path: "/checkout",
    session: "required",
    body: z.object({
      products: z.union([z.string(), z.array(z.string())]).optional(),
      slug: z.string().max(64).optional(),
      referenceId: z.string().min(1).max(128).optional(),
      successUrl: z.string().optional(),
      returnUrl: z.string().optional(),
      redirect: z.boolean().default(true),
      locale: z.string().max(16).optional(),
    }),
    async handler({ body, meta, auth }) {
      const { plan, annual } = polarPlan(body);
      const { url } = await upgrade(
        auth,
        {
          ...referenceOf(auth, body.referenceId ?? auth.user.id),
          plan,
          annual,
          successUrl: body.successUrl ?? "/",
          cancelUrl: body.returnUrl ?? "/",
          returnUrl: body.returnUrl,
          locale: body.locale,
          disableRedirect: !body.redirect,
        },
        meta,
      );
      return { url, redirect: body.redirect };
    },
  }),

  ...(["GET", "POST"] as const).map((method) =>
    endpoint({
      enabled: polar,
      method,
      path: "/customer/portal",
      session: "required",
      query: z.object({ redirect: param(booleanish).optional() }),
      async handler({ query, auth }) {
        return {
          url: await billingPortal(auth, { returnUrl: "/" }),
          redirect: query.redirect ?? true,
        };
      },
    }),
  ),

  endpoint({
    enabled: polar,
    method: "GET",
    path: "/customer/state",
    session: "required",
    async handler({ auth }) {
      return customerState(auth);
    },
  }),

  endpoint({
    enabled: polar,
    method: "GET",
    path: "/customer/subscriptions/list",
    session: "required",
    query: z.object({
      referenceId: param(z.string().min(1).max(128)).optional(),
      page: param(z.coerce.number().int().min(1)).default(1),
      limit: param(z.coerce.number().int().min(1).max(100)).default(10),
      active: param(booleanish).optional(),
    }),
    async handler({ query, auth }) {
      // Polar's list: its subscription objects, paginated as Polar paginates.
      const { items, total } = await polarSubscriptionPage(auth, {
        ...query,
        ...referenceOf(auth, query.referenceId ?? auth.user.id),
      });
      return {
        result: { items, pagination: { totalCount: total, maxPage: Math.max(1, Math.ceil(total / query.limit)) } },
      };
    },
  }),

  endpoint({
    enabled: polar,
    method: "POST",
    path: "/polar/webhooks",
    rawBody: true,
    body: z.string(),
    rateLimit: false,
    async handler({ body, request }) {
      await receiveWebhook("polar", body, request.headers);
      return { received: true };
    },
  }),
];
