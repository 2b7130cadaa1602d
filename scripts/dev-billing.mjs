#!/usr/bin/env node
// `npm run dev:billing [stripe|polar]`: billing on your machine without any account. Starts the
// repository's stand-in for the provider (the one the browser tests use: its API, a hosted
// checkout page, a portal, and signed webhooks sent to the app), and prints the environment
// to start the app with. BILLING_PORT (default 12111) moves the stand-in, BASE_URL (default
// http://localhost:3000) is where the app runs.
import { spawn } from "node:child_process";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

const root = join(dirname(fileURLToPath(import.meta.url)), "..");
const provider = process.argv[2] ?? "stripe";
if (provider !== "stripe" && provider !== "polar") {
  console.error(`Usage: npm run dev:billing [stripe|polar] (got "${provider}")`);
  process.exit(1);
}
const port = Number(process.env.BILLING_PORT ?? 12111);
const base = process.env.BASE_URL ?? "http://localhost:3000";
const url = `http://127.0.0.1:${port}`;
const plans = ["PRO_MONTHLY", "PRO_YEARLY", "TEAM_MONTHLY", "TEAM_YEARLY"];

const appEnv =
  provider === "stripe"
    ? {
        PAYMENT_PROVIDER: "stripe",
        STRIPE_SECRET_KEY: "sk_test_local",
        STRIPE_WEBHOOK_SECRET: "whsec_local",
        STRIPE_API_BASE_URL: url,
        ...Object.fromEntries(plans.map((plan) => [`STRIPE_PRICE_${plan}`, `price_local_${plan.toLowerCase()}`])),
      }
    : {
        PAYMENT_PROVIDER: "polar",
        POLAR_ACCESS_TOKEN: "polar_oat_local",
        POLAR_WEBHOOK_SECRET: "polar_whs_local",
        POLAR_API_BASE_URL: url,
        // Polar names products by UUID.
        ...Object.fromEntries(
          plans.map((plan, i) => [`POLAR_PRODUCT_${plan}`, `00000000-0000-4000-8000-00000000000${i + 1}`]),
        ),
      };
const webhook = `${base}/api/auth/${provider === "stripe" ? "stripe/webhook" : "polar/webhooks"}`;

console.log(`The ${provider} stand-in runs on ${url} and sends its webhooks to ${webhook}.
Start the app in another terminal with this environment (or put these lines in .env):

${Object.entries(appEnv)
  .map(([key, value]) => `${key}=${value}`)
  .join("\n")}

Then choose a plan on ${base}/pricing: the stand-in's checkout page takes no card, and its
webhook makes the subscription active. Ctrl+C stops the stand-in.
`);

const child = spawn("npx", ["vite-node", "tests/e2e/support/billing-server.ts"], {
  cwd: root,
  stdio: "inherit",
  env: {
    ...process.env,
    ...appEnv,
    E2E_BILLING_PROVIDER: provider,
    E2E_BILLING_PORT: String(port),
    E2E_BILLING_WEBHOOK_URL: webhook,
  },
});
for (const signal of ["SIGINT", "SIGTERM"]) process.on(signal, () => child.kill(signal));
child.on("exit", (code) => process.exit(code ?? 0));
