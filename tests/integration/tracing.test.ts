/**
 * Traces (docs/decisions/0034-traces.md), against the built server and an in-process OTLP/HTTP
 * receiver: with OTEL_EXPORTER_OTLP_ENDPOINT set, a sign-in page load, a sign-in and a sent
 * email each arrive as one trace (the server span with the request id the response echoes,
 * loader or action spans under it, Prisma's query spans and the SMTP span under those), with
 * route patterns and no credential anywhere; unset, the server sends nothing and loads no
 * OpenTelemetry module at all. SQLite, or PostgreSQL with TEST_DATABASE_URL.
 */
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { SPAN_KIND, startOtlpReceiver, type OtlpReceiver, type ReceivedSpan } from "../support/otlp-receiver";
import { startTestApp, type TestApp } from "./helpers/app";
import { createUser, PASSWORD, uniqueEmail } from "./helpers/factories";
import { get, post } from "./helpers/http";
import { assertNoSecrets, noteSecret } from "./helpers/secrets";
import { ROOT, startServer, type RunningServer } from "./helpers/server";

const SECRET = "tracing-test-secret-0123456789abcdefghijklmnop";
// In the query of the page load: it must reach no span.
const URL_TOKEN = "TraceUrlTokenNeverExported0123456789";

const dir = mkdtempSync(join(tmpdir(), "tracing-test-"));
/** Runs the server with tests/support/module-log.mjs, writing the packages it loads to `file`. */
const moduleLog = (file: string) => ({
  NODE_OPTIONS: `${process.env.NODE_OPTIONS ?? ""} --import ${join(ROOT, "tests/support/module-log.mjs")}`.trim(),
  MODULE_LOG: join(dir, file),
});
const loaded = (file: string) => readFileSync(join(dir, file), "utf8");
// Exports every 100 ms instead of every 5 s: OTEL_BSP_* reach the SDK as documented.
const QUICK_EXPORT = { OTEL_BSP_SCHEDULE_DELAY: "100" };

let receiver: OtlpReceiver;
let app: TestApp;

beforeAll(async () => {
  receiver = await startOtlpReceiver();
  app = await startTestApp({
    secret: SECRET,
    env: { OTEL_EXPORTER_OTLP_ENDPOINT: receiver.url, ...QUICK_EXPORT, ...moduleLog("on.log") },
  });
}, 60_000);

afterAll(async () => {
  await app?.stop();
  await receiver?.close();
  rmSync(dir, { recursive: true, force: true });
});

/** The server span of the request the response answered, once exported. */
function serverSpanOf(response: Response): Promise<ReceivedSpan> {
  const id = response.headers.get("x-request-id");
  expect(id).toBeTruthy();
  return receiver.waitFor((span) => span.kind === SPAN_KIND.SERVER && span.attributes["app.request_id"] === id);
}

/** The spans of one trace, each once it has arrived: waits for those `names` lists. */
async function traceOf(root: ReceivedSpan, names: (string | RegExp)[]) {
  const inTrace = (name: string | RegExp) => (span: ReceivedSpan) =>
    span.traceId === root.traceId && (typeof name === "string" ? span.name === name : name.test(span.name));
  const found = await Promise.all(names.map((name) => receiver.waitFor(inTrace(name))));
  const byId = new Map(receiver.spans.filter((span) => span.traceId === root.traceId).map((s) => [s.spanId, s]));
  /** The names of the spans above `span`, nearest first. */
  const ancestors = (span: ReceivedSpan) => {
    const names: string[] = [];
    for (let parent = byId.get(span.parentSpanId); parent; parent = byId.get(parent.parentSpanId)) {
      names.push(parent.name);
    }
    return names;
  };
  return { found, ancestors };
}

describe("with OTEL_EXPORTER_OTLP_ENDPOINT set", () => {
  it("exports a page load: its server span with the request id, the route pattern and the loaders under it", async () => {
    const res = await get(`${app.base}/fr/signin?redirect=/dashboard&token=${URL_TOKEN}`);
    expect(res.status).toBe(200);
    await res.text();
    const server = await serverSpanOf(res);
    expect(server.name).toBe("GET /:lang?/signin");
    expect(server.parentSpanId).toBe("");
    expect(server.attributes).toMatchObject({
      "http.request.method": "GET",
      "http.route": "/:lang?/signin",
      "http.response.status_code": 200,
    });
    expect(server.resource["service.name"]).toBe("Acme Cloud"); // the catalogue's brand
    expect(server.resource["service.instance.id"]).toMatch(/:\d+$/);

    const { found, ancestors } = await traceOf(server, ["loader root", "loader routes/signin"]);
    for (const loader of found) expect(ancestors(loader)).toContain(server.name);
    expect(JSON.stringify(receiver.spans)).not.toContain(URL_TOKEN);
  });

  it("exports a sign-in: the action, and Prisma's queries under it", async () => {
    const user = await createUser({ email: uniqueEmail("traced") });
    const res = await post(
      `${app.base}/signin`,
      { intent: "sign-in", email: user.email, password: PASSWORD },
      { Origin: app.base },
    );
    expect(res.status).toBe(302);
    for (const cookie of res.headers.getSetCookie())
      noteSecret("a session cookie", cookie.split(";")[0]!.split("=")[1]);
    const server = await serverSpanOf(res);
    expect(server.name).toBe("POST /:lang?/signin");
    expect(server.attributes["http.response.status_code"]).toBe(302);

    const {
      found: [action, query],
      ancestors,
    } = await traceOf(server, ["action routes/signin", "prisma:client:db_query"]);
    expect(ancestors(action!)).toContain(server.name);
    expect(ancestors(query!)).toContain(action!.name);
    expect(query!.kind).toBe(SPAN_KIND.CLIENT);
    // The statement with its placeholders, never its values.
    expect(String(query!.attributes["db.query.text"])).toMatch(/^SELECT /);
    expect(JSON.stringify(receiver.spans)).not.toContain(user.email);
  });

  it("exports an email queued by a request: its sending is a job's trace naming that request", async () => {
    const user = await createUser({ email: uniqueEmail("unverified"), verified: false });
    const res = await post(
      `${app.base}/ja/signin`,
      { intent: "send-verification", email: user.email },
      { Origin: app.base },
    );
    expect(res.status).toBe(302);
    await app.mailbox.waitFor(user.email);
    const server = await serverSpanOf(res);
    // The request's own trace holds its action; the email leaves later, from a queue worker.
    const { found } = await traceOf(server, ["action routes/signin"]);
    expect(found).toHaveLength(1);

    const job = await receiver.waitFor(
      (span) => span.name === "job mail" && span.attributes["app.request_id"] === server.attributes["app.request_id"],
    );
    expect(job.kind).toBe(SPAN_KIND.CONSUMER);
    expect(job.traceId).not.toBe(server.traceId);
    const {
      found: [smtp],
      ancestors,
    } = await traceOf(job, ["smtp send"]);
    expect(smtp!.kind).toBe(SPAN_KIND.CLIENT);
    expect(smtp!.attributes).toMatchObject({
      "server.address": "127.0.0.1",
      "server.port": Number(new URL(app.mailbox.url).port),
      "app.mail.template": "verify-email",
    });
    expect(ancestors(smtp!)).toEqual(["job mail"]);
  });

  it("exports no credential: no password, cookie or mailed token the suite used is in any span", () => {
    assertNoSecrets(JSON.stringify(receiver.spans), "the exported spans");
  });

  it("loads the OpenTelemetry SDK and Prisma's instrumentation", () => {
    expect(loaded("on.log")).toContain("/node_modules/@opentelemetry/sdk-trace-base/");
    expect(loaded("on.log")).toContain("/node_modules/@prisma/instrumentation/");
  });
});

describe("with OTEL_EXPORTER_OTLP_ENDPOINT unset", () => {
  let off: RunningServer;
  let offReceiver: OtlpReceiver;

  beforeAll(async () => {
    offReceiver = await startOtlpReceiver();
    off = await startServer({
      DATABASE_URL: app.db.url,
      AUTH_SECRET: SECRET,
      SMTP_URL: app.mailbox.url,
      // The exporter's own variables alone do not turn traces on.
      OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: `${offReceiver.url}/v1/traces`,
      OTEL_SERVICE_NAME: "traces-off",
      ...QUICK_EXPORT,
      ...moduleLog("off.log"),
    });
  }, 60_000);

  afterAll(async () => {
    await off?.stop();
    await offReceiver?.close();
  });

  it("exports nothing and loads no OpenTelemetry module, while pages, sign-in and mail work", async () => {
    const page = await get(`${off.url}/signin`);
    expect(page.status).toBe(200);
    await page.text();
    const user = await createUser({ email: uniqueEmail("untraced"), verified: false });
    const res = await post(
      `${off.url}/signin`,
      { intent: "send-verification", email: user.email },
      { Origin: off.url },
    );
    expect(res.status).toBe(302);
    await app.mailbox.waitFor(user.email);
    await new Promise((resolve) => setTimeout(resolve, 500)); // five export rounds, were there an exporter

    expect(offReceiver.exports).toBe(0);
    expect(receiver.spans.some((span) => span.resource["service.name"] === "traces-off")).toBe(false);
    const modules = loaded("off.log");
    expect(modules).toContain("/node_modules/pino/"); // the log works: it would have seen them
    expect(modules).not.toContain("/node_modules/@opentelemetry/");
    expect(modules).not.toContain("/node_modules/@prisma/instrumentation/");
  });
});
