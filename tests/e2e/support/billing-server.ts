/**
 * The payment provider's stand-in for browser tests, as its own process (a Playwright web
 * server): Stripe's or Polar's, as E2E_BILLING_PROVIDER says. The app is started pointing at
 * it, so its URL must be known in advance (E2E_BILLING_PORT), and both read the same secrets
 * and price or product ids from the environment (STRIPE_SECRET_KEY, STRIPE_PRICE_PRO_MONTHLY…
 * or POLAR_ACCESS_TOKEN, POLAR_PRODUCT_PRO_MONTHLY…); the stand-in sends its webhooks to
 * E2E_BILLING_WEBHOOK_URL. What only the provider can do, tests ask of a small control server
 * on the following port: POST /end-period/<subscription id>, and POST /fail-next with
 * {"mode": "error" | "timeout", "count"?} as JSON.
 */
import { createServer } from "node:http";
import { plans } from "~/config/plans";
import { startPolarStandIn } from "../../support/polar-stand-in";
import { startStripeStandIn } from "../../support/stripe-stand-in";

const provider = process.env.E2E_BILLING_PROVIDER;
const port = Number(process.env.E2E_BILLING_PORT);
const webhookUrl = process.env.E2E_BILLING_WEBHOOK_URL;

function required(name: string): string {
  const value = process.env[name];
  if (!value) throw new Error(`${name} is not set`);
  return value;
}

/** The paid plans by the provider's ids, read from e.g. STRIPE_PRICE_PRO_MONTHLY, with their prices in cents. */
function catalog(prefix: "STRIPE_PRICE" | "POLAR_PRODUCT") {
  return Object.fromEntries(
    plans
      .filter((plan) => plan.id !== "free")
      .flatMap(
        (plan) =>
          [
            [
              required(`${prefix}_${plan.id.toUpperCase()}_MONTHLY`),
              { plan: plan.id, interval: "month", amount: plan.monthly * 100 },
            ],
            [
              required(`${prefix}_${plan.id.toUpperCase()}_YEARLY`),
              { plan: plan.id, interval: "year", amount: plan.yearly * 100 },
            ],
          ] as const,
      ),
  );
}

async function start() {
  if (provider === "stripe") {
    return startStripeStandIn({
      port,
      secretKey: required("STRIPE_SECRET_KEY"),
      webhookSecret: required("STRIPE_WEBHOOK_SECRET"),
      webhookUrl,
      prices: catalog("STRIPE_PRICE"),
    });
  }
  if (provider === "polar") {
    return startPolarStandIn({
      port,
      accessToken: required("POLAR_ACCESS_TOKEN"),
      webhookSecret: required("POLAR_WEBHOOK_SECRET"),
      webhookUrl,
      products: catalog("POLAR_PRODUCT"),
    });
  }
  throw new Error(`E2E_BILLING_PROVIDER must be stripe or polar, not ${provider}`);
}

const standIn = await start();

createServer((req, res) => {
  let body = "";
  req.on("data", (chunk: Buffer) => (body += chunk.toString()));
  req.on("end", () => {
    const subscriptionId = /^\/end-period\/([^/]+)$/.exec(req.url ?? "")?.[1];
    if (req.method === "POST" && subscriptionId) {
      standIn.endPeriod(subscriptionId).then(
        () => res.writeHead(204).end(),
        (error: unknown) => res.writeHead(404).end(String(error)),
      );
    } else if (req.method === "POST" && req.url === "/fail-next") {
      const { mode, count } = JSON.parse(body) as { mode: "error" | "timeout"; count?: number };
      standIn.failNext(mode, count);
      res.writeHead(204).end();
    } else {
      res.writeHead(404).end();
    }
  });
}).listen(port + 1, "127.0.0.1", () => console.log(`${provider} stand-in on ${standIn.url}`));
