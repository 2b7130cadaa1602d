/**
 * The outgoing calls' spans (docs/decisions/0034-traces.md), in-process against an OTLP
 * receiver and real servers on loopback: the outbound-fetch gate (identity providers,
 * webhooks), any fetch (social sign-in, Polar), and a payment provider's SDK over node:http
 * (Stripe's stand-in), each a client span without the URL's query; a failure marks its span;
 * and each run of a queued job, a trace of its own.
 * The request, loader, action, Prisma and SMTP spans are checked against the built server in
 * tests/integration/tracing.test.ts.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { SPAN_KIND, STATUS_ERROR, startOtlpReceiver, type OtlpReceiver } from "../../tests/support/otlp-receiver";
import { startStripeStandIn, type StripeStandIn } from "../../tests/support/stripe-stand-in";
import type { Env } from "./env.server";
import { logger } from "./log.server";
import { outboundFetch } from "./outbound-fetch.server";
import { startTracing, stopTracing, traced } from "./tracing.server";

const QUERY_SECRET = "QuerySecretNeverExported0123";

let receiver: OtlpReceiver;
let target: Server;
let origin = "";
let stripe: StripeStandIn;

const dir = mkdtempSync(join(tmpdir(), "tracing-gates-"));

beforeAll(async () => {
  // The job queue's database; vitest sets BASE_URL to Vite's "/".
  Object.assign(process.env, { DATABASE_URL: `file:${join(dir, "jobs.db")}`, BASE_URL: "http://localhost:3000" });
  receiver = await startOtlpReceiver();
  // A customer's endpoint: 200, or 500 under /fail.
  target = createServer((req, res) => res.writeHead(req.url?.startsWith("/fail") ? 500 : 200).end("{}"));
  await new Promise<void>((resolve) => target.listen(0, "127.0.0.1", resolve));
  origin = `http://127.0.0.1:${(target.address() as AddressInfo).port}`;
  stripe = await startStripeStandIn({ secretKey: "sk_test_tracing", webhookSecret: "whsec_tracing", prices: {} });
  process.env.OTEL_BSP_SCHEDULE_DELAY = "50";
  // The exporter gives up on an unreachable collector after this, retries included.
  process.env.OTEL_EXPORTER_OTLP_TIMEOUT = "300";
});

afterAll(async () => {
  rmSync(dir, { recursive: true, force: true });
  await stripe.close();
  await new Promise<void>((resolve) => target.close(() => resolve()));
});

const call = (path: string) =>
  outboundFetch(`${origin}${path}`, {
    method: "POST",
    timeoutMs: 2_000,
    maxBytes: 1_000,
    overflow: "fail",
    exempt: () => true,
    userAgent: "tracing-test",
  });

describe("off", () => {
  it("runs the call as it is and exports nothing", async () => {
    expect(await traced("off", {}, () => Promise.resolve(42))).toBe(42);
    expect((await call("/off")).status).toBe(200);
    await new Promise((resolve) => setTimeout(resolve, 200));
    expect(receiver.exports).toBe(0);
  });
});

describe("on", () => {
  beforeAll(async () => {
    // A trailing slash is fine: the traces go to <endpoint>/v1/traces.
    expect(await startTracing({ OTEL_EXPORTER_OTLP_ENDPOINT: `${receiver.url}/`, OTEL_SERVICE_NAME: "gates" })).toBe(
      true,
    );
  });

  it("makes the outbound-fetch gate a client span with its status, without the query", async () => {
    expect((await call(`/hook?token=${QUERY_SECRET}`)).status).toBe(200);
    const span = await receiver.waitFor((s) => s.attributes["user_agent.original"] === "tracing-test");
    expect(span).toMatchObject({ name: "POST", kind: SPAN_KIND.CLIENT });
    expect(span.attributes).toMatchObject({
      "http.request.method": "POST",
      "url.full": `${origin}/hook`,
      "server.address": "127.0.0.1",
      "http.response.status_code": 200,
    });
    expect(span.resource["service.name"]).toBe("gates");
    expect(span.status.code).not.toBe(STATUS_ERROR);
  });

  it("marks an error answer and an unreachable address as failures", async () => {
    expect((await call("/fail")).status).toBe(500);
    const answered = await receiver.waitFor((s) => s.attributes["url.full"] === `${origin}/fail`);
    expect(answered.status.code).toBe(STATUS_ERROR);
    expect(answered.attributes["http.response.status_code"]).toBe(500);

    const closed = await new Promise<string>((resolve) => {
      const probe = createServer();
      probe.listen(0, "127.0.0.1", () => {
        const port = (probe.address() as AddressInfo).port;
        probe.close(() => resolve(`http://127.0.0.1:${port}`));
      });
    });
    const unreachable = outboundFetch(`${closed}/gone`, {
      timeoutMs: 2_000,
      maxBytes: 1_000,
      overflow: "fail",
      exempt: () => true,
      userAgent: "tracing-test",
    });
    await expect(unreachable).rejects.toThrow();
    const failed = await receiver.waitFor((s) => s.attributes["url.full"] === `${closed}/gone`);
    expect(failed.status.code).toBe(STATUS_ERROR);
    expect(failed.events.map((event) => event.name)).toContain("exception");
  });

  it("makes every fetch a client span, its query redacted", async () => {
    expect((await fetch(`${origin}/userinfo?access_token=${QUERY_SECRET}`)).status).toBe(200);
    const span = await receiver.waitFor((s) => s.attributes["url.path"] === "/userinfo");
    expect(span).toMatchObject({ name: "GET", kind: SPAN_KIND.CLIENT });
    expect(span.attributes).toMatchObject({
      "url.full": `${origin}/userinfo`,
      "url.query": "REDACTED",
      "http.response.status_code": 200,
    });
  });

  it("makes a payment provider's call a client span, whatever its SDK's transport (Stripe: node:http)", async () => {
    const { createStripeProvider } = await import("./billing/stripe.server");
    const env = { STRIPE_SECRET_KEY: "sk_test_tracing", STRIPE_API_BASE_URL: stripe.url } as Env;
    const reference = {
      referenceId: "user-1",
      customerType: "user" as const,
      userId: "user-1",
      email: "payer@example.com",
      name: "Payer",
      userName: "Payer",
    };
    await createStripeProvider(env).createCustomer(reference);
    const span = await receiver.waitFor((s) => s.name === "stripe customer creation");
    expect(span.kind).toBe(SPAN_KIND.CLIENT);
    expect(span.attributes["app.payment.provider"]).toBe("stripe");
  });

  it("makes each run of a queued job a trace of its own, with its calls under it", async () => {
    const { defineJob, enqueue, startQueue, stopQueue } = await import("./jobs/queue.server");
    defineJob("traced-probe", async () => void (await fetch(`${origin}/from-job`)));
    // Workers started inside a request (or any span) still run each job as a root.
    await traced("starts the queue", {}, () => startQueue());
    try {
      await enqueue("traced-probe", {});
      const job = await receiver.waitFor((span) => span.name === "job traced-probe");
      const call = await receiver.waitFor((span) => span.attributes["url.path"] === "/from-job");
      expect(job).toMatchObject({ kind: SPAN_KIND.CONSUMER, parentSpanId: "" });
      expect(job.attributes["app.job.attempt"]).toBe(1);
      expect(call.parentSpanId).toBe(job.spanId);
    } finally {
      await stopQueue();
    }
  });

  it("exports no query string", () => {
    expect(JSON.stringify(receiver.spans)).not.toContain(QUERY_SECRET);
  });

  it("warns when the collector cannot be reached: a failed export, and what shutdown could not send", async () => {
    const warn = vi.spyOn(logger(), "warn").mockImplementation(() => undefined);
    await receiver.close();
    await traced("unsent", {}, () => Promise.resolve());
    await new Promise((resolve) => setTimeout(resolve, 1_000)); // an export round, and its retries
    await traced("unsent at shutdown", {}, () => Promise.resolve());
    await stopTracing();
    const messages = warn.mock.calls.map(([, message]) => String(message));
    expect(messages.some((message) => /^Traces: .*ECONNREFUSED/.test(message))).toBe(true);
    expect(messages.some((message) => message.startsWith("Traces: the spans still buffered at shutdown"))).toBe(true);
    // Not the line of the request whose span was in the batch.
    expect(warn.mock.calls.every(([fields]) => (fields as { requestId?: string }).requestId === undefined)).toBe(true);
  });
});
