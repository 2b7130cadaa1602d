/**
 * Prometheus metrics (docs/decisions/0033-metrics.md) against the built server: /metrics is
 * refused without the bearer token (401, WWW-Authenticate: Bearer) and is an unknown page
 * when nothing configures it; with the token every listed series is there, and the counters
 * move after real actions (sign-ins that fail and succeed, a sign-up, a rate-limit refusal,
 * a revocation, mail, webhook deliveries, queries), requests under their route pattern and
 * never their URL. With METRICS_PORT the metrics are on that internal listener only (behind
 * the token too when both are set). SQLite, or PostgreSQL with TEST_DATABASE_URL.
 */
import { randomBytes } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startWebhookReceiver, type WebhookReceiver } from "../support/webhook-receiver";
import { startTestApp, type TestApp } from "./helpers/app";
import { makeTestClient } from "./helpers/auth-client";
import {
  createOrganization,
  createUser,
  PASSWORD,
  sessionTokenCookie,
  signInInProcess,
  unique,
  uniqueEmail,
} from "./helpers/factories";
import { BROWSER_UA, get } from "./helpers/http";
import { freePort, startServer, type RunningServer } from "./helpers/server";

const SECRET = "metrics-test-secret-0123456789abcdefghijklmnop";
const TOKEN = `metrics-${randomBytes(16).toString("hex")}`;

let app: TestApp;
let receiver: WebhookReceiver;

beforeAll(async () => {
  receiver = await startWebhookReceiver();
  app = await startTestApp({
    secret: SECRET,
    env: {
      METRICS_TOKEN: TOKEN,
      RATE_LIMIT: "on",
      WEBHOOK_PRIVATE_ORIGINS: receiver.origin,
      WEBHOOK_RETRY_DELAY_SECONDS: "1",
      WEBHOOK_RETRY_BACKOFF: "off",
      JOB_POLL_INTERVAL_MS: "500",
    },
  });
}, 60_000);

afterAll(async () => {
  await app?.stop();
  await receiver?.close();
});

/** The metrics text, read with the token. */
async function scrape(url = `${app.base}/metrics`, token: string | null = TOKEN): Promise<string> {
  const res = await fetch(url, token ? { headers: { authorization: `Bearer ${token}` } } : {});
  expect(res.status).toBe(200);
  expect(res.headers.get("content-type")).toMatch(/^text\/plain; version=0\.0\.4/);
  return res.text();
}

/** The value of the sample `name{labels}` (labels in any order; 0 when the series is absent). */
function sample(text: string, name: string, labels: Record<string, string> = {}): number {
  for (const line of text.split("\n")) {
    const match = /^([a-z_:]+)(?:\{(.*)\})? (\S+)$/.exec(line);
    if (!match || match[1] !== name) continue;
    const found = Object.fromEntries([...(match[2] ?? "").matchAll(/(\w+)="([^"]*)"/g)].map((m) => [m[1], m[2]]));
    if (Object.keys(found).length !== Object.keys(labels).length) continue;
    if (Object.entries(labels).every(([key, value]) => found[key] === value)) return Number(match[3]);
  }
  return 0;
}

/** Polls the metrics until `check` holds for them (counters of work done after the response move a moment later). */
async function eventually(check: (text: string) => boolean, timeoutMs = 20_000): Promise<string> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const text = await scrape();
    if (check(text)) return text;
    if (Date.now() > deadline)
      throw new Error(`Timed out waiting for the metrics; last scrape:\n${text.slice(0, 3000)}`);
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
}

function api(path: string, body: object, headers: Record<string, string> = {}) {
  return fetch(`${app.base}/api/auth${path}`, {
    method: "POST",
    headers: { "content-type": "application/json", origin: app.base, "user-agent": BROWSER_UA, ...headers },
    body: JSON.stringify(body),
  });
}

describe("access", () => {
  it("is refused without the token, with a wrong one and with the token anywhere but the Authorization header", async () => {
    const attempts: Record<string, string>[] = [
      {},
      { authorization: "Bearer wrong-token-0123456789abcdef" },
      { authorization: `Bearer ${TOKEN}x` },
      { authorization: `Basic ${Buffer.from(`metrics:${TOKEN}`).toString("base64")}` },
      { authorization: TOKEN },
    ];
    for (const headers of attempts) {
      const res = await fetch(`${app.base}/metrics`, { headers });
      expect(res.status).toBe(401);
      expect(res.headers.get("www-authenticate")).toMatch(/^Bearer\b/);
      expect(await res.text()).not.toContain("app_");
    }
    const query = await fetch(`${app.base}/metrics?token=${TOKEN}`);
    expect(query.status).toBe(401);
    await query.text();
  });

  it("is an unknown page when neither METRICS_TOKEN nor METRICS_PORT is set", async () => {
    const server = await startServer();
    try {
      const res = await get(`${server.url}/metrics`, { authorization: `Bearer ${TOKEN}` });
      expect(res.status).toBe(404);
      const body = await res.text();
      expect(body).toMatch(/<html/i);
      expect(body).not.toContain("app_http_request_duration_seconds");
    } finally {
      await server.stop();
    }
  }, 60_000);
});

describe("series", () => {
  it("lists every series of the operator guide", async () => {
    const text = await scrape();
    const types = new Set([...text.matchAll(/^# TYPE (\S+) /gm)].map((m) => m[1]));
    for (const name of [
      "app_http_request_duration_seconds",
      "app_sign_ins_total",
      "app_sign_ups_total",
      "app_rate_limit_refusals_total",
      "app_session_revocations_total",
      "app_webhook_deliveries_total",
      "app_job_queue_depth",
      "app_mail_sent_total",
      "app_mail_failed_total",
      "app_db_query_duration_seconds",
      "nodejs_eventloop_lag_seconds",
      "nodejs_eventloop_lag_p99_seconds",
      "nodejs_heap_size_used_bytes",
      "process_resident_memory_bytes",
      "process_cpu_seconds_total",
    ]) {
      expect(types, name).toContain(name);
    }
    // The queue's depth is counted (SQLite: plainjob, PostgreSQL: pg-boss), not NaN.
    expect(text).toMatch(/^app_job_queue_depth \d+$/m);
    expect(sample(text, "process_resident_memory_bytes")).toBeGreaterThan(10_000_000);
  });

  it("observes requests under their route pattern and status class, never their URL", async () => {
    const before = await scrape();
    const pricing = { method: "GET", route: "/:lang?/pricing", status: "2xx" };
    const invitation = { method: "GET", route: "/:lang?/invitations/:id", status: "2xx" };
    const missing = { method: "GET", route: "/*", status: "4xx" };
    const token = `NeverInMetrics${randomBytes(8).toString("hex")}`;
    for (const path of ["/fr/pricing", "/pricing", `/ja/invitations/${token}`, `/no-such-page/${token}`]) {
      await (await get(`${app.base}${path}`)).text();
    }
    const after = await eventually(
      (text) =>
        sample(text, "app_http_request_duration_seconds_count", missing) >
        sample(before, "app_http_request_duration_seconds_count", missing),
    );
    const count = (text: string, labels: Record<string, string>) =>
      sample(text, "app_http_request_duration_seconds_count", labels);
    expect(count(after, pricing) - count(before, pricing)).toBe(2);
    expect(count(after, invitation)).toBeGreaterThan(count(before, invitation));
    expect(sample(after, "app_http_request_duration_seconds_bucket", { ...pricing, le: "+Inf" })).toBe(
      count(after, pricing),
    );
    expect(after).not.toContain(token);
    expect(after).not.toContain('route="/fr/pricing"');
  });
});

describe("counters move after real actions", () => {
  it("sign-ins by outcome, a rate-limit refusal, queries, and a revocation at sign-out", async () => {
    const user = await createUser();
    const before = await scrape();
    const wrong = await api("/sign-in/email", { email: user.email, password: "not the password" });
    expect(wrong.status).toBe(401);
    const right = await api("/sign-in/email", { email: user.email, password: PASSWORD });
    expect(right.status).toBe(200);
    const cookie = right.headers
      .getSetCookie()
      .map((line) => line.split(";")[0])
      .join("; ");
    // Three sign-ins per 10 s: the fourth is refused.
    let refused = 0;
    for (let i = 0; i < 3 && refused === 0; i++) {
      const res = await api("/sign-in/email", { email: user.email, password: "not the password" });
      if (res.status === 429) refused++;
    }
    expect(refused).toBe(1);
    expect((await api("/sign-out", {}, { cookie })).status).toBe(200);

    const after = await scrape();
    const moved = (name: string, labels: Record<string, string> = {}) =>
      sample(after, name, labels) - sample(before, name, labels);
    expect(moved("app_sign_ins_total", { outcome: "success" })).toBe(1);
    expect(moved("app_sign_ins_total", { outcome: "invalid_password" })).toBeGreaterThanOrEqual(2);
    expect(moved("app_rate_limit_refusals_total", { rule: "sign-in" })).toBe(1);
    expect(moved("app_session_revocations_total")).toBe(1);
    // The sign-ins read the user and wrote the session through Prisma.
    expect(moved("app_db_query_duration_seconds_count", { model: "User", operation: "findUnique" })).toBeGreaterThan(0);
    expect(moved("app_db_query_duration_seconds_count", { model: "Session", operation: "create" })).toBe(1);
    expect(
      moved("app_http_request_duration_seconds_count", {
        method: "POST",
        route: "/api/auth/sign-in/email",
        status: "4xx",
      }),
    ).toBeGreaterThanOrEqual(2);
  });

  it("one read of an organization's role table per page, though the shell and the page both decide with it", async () => {
    const user = await createUser();
    const organization = await createOrganization({ members: [{ userId: user.id, role: "owner" }] });
    const cookie = await sessionTokenCookie(user.id);
    // The shell's menu reads the active organization's roles, the organization's pages and the dashboard theirs.
    expect((await api("/organization/set-active", { organizationId: organization.id }, { cookie })).status).toBe(200);
    const roleReads = (text: string) =>
      sample(text, "app_db_query_duration_seconds_count", { model: "OrganizationRole", operation: "findMany" });
    for (const path of [`/organizations/${organization.slug}/members`, "/dashboard"]) {
      const before = roleReads(await scrape());
      const page = await get(`${app.base}${path}`, { cookie });
      expect(page.status, path).toBe(200);
      expect(roleReads(await scrape()) - before, path).toBe(1);
    }
  });

  it("a sign-up, a taken address and the verification email sent", async () => {
    const email = uniqueEmail("signup");
    const before = await scrape();
    const first = await api("/sign-up/email", { email, password: PASSWORD, name: "New" });
    expect(first.status).toBe(200);
    await app.mailbox.waitFor(email);
    const again = await api("/sign-up/email", { email, password: PASSWORD, name: "Again" });
    expect(again.status).toBe(200); // the same answer: whether an address has an account is not told
    const after = await scrape();
    const moved = (name: string, labels: Record<string, string>) =>
      sample(after, name, labels) - sample(before, name, labels);
    expect(moved("app_sign_ups_total", { outcome: "success" })).toBe(1);
    expect(moved("app_sign_ups_total", { outcome: "user_already_exists" })).toBe(1);
    expect(moved("app_mail_sent_total", { template: "verify-email" })).toBeGreaterThanOrEqual(1);
  });

  it("webhook deliveries: a failed attempt to be retried, then its success", async () => {
    const { encryptSecret } = await import("~/server/crypto.server");
    const owner = await createUser();
    const who = makeTestClient(app.base);
    await signInInProcess(who, owner.id);
    const slug = unique("org");
    const created = await who.client.organization.create({ name: slug, slug });
    expect(created.error).toBeNull();
    const secret = `whsec_${randomBytes(24).toString("base64")}`;
    const url = receiver.register(`/${unique("hook")}`, secret, { failures: 1 });
    await app.prisma.webhookEndpoint.create({
      data: {
        organizationId: created.data!.id,
        url,
        eventTypes: "team.changed",
        secret: encryptSecret(SECRET, secret),
      },
    });
    const before = await scrape();
    const team = await who.client.organization.createTeam({ name: "Ops", organizationId: created.data!.id });
    expect(team.error).toBeNull();
    const moved = (text: string, outcome: string) =>
      sample(text, "app_webhook_deliveries_total", { outcome }) -
      sample(before, "app_webhook_deliveries_total", { outcome });
    const after = await eventually((text) => moved(text, "success") === 1);
    expect(moved(after, "retry")).toBe(1);
    expect(moved(after, "exhausted")).toBe(0);
  });
});

describe("on an internal listener (METRICS_PORT)", () => {
  let server: RunningServer;
  let internal: string;

  beforeAll(async () => {
    const port = await freePort();
    internal = `http://127.0.0.1:${port}`;
    // SMTP on a port nobody listens on: every email fails.
    server = await startServer({ METRICS_PORT: String(port), SMTP_URL: `smtp://127.0.0.1:${await freePort()}` });
  }, 60_000);

  afterAll(async () => {
    await server?.stop();
  });

  it("serves the metrics there, and not on the public port", async () => {
    const text = await scrape(`${internal}/metrics`, null);
    expect(text).toContain("# TYPE app_http_request_duration_seconds histogram");
    const publicly = await get(`${server.url}/metrics`);
    expect(publicly.status).toBe(404);
    expect(await publicly.text()).not.toContain("app_http_request_duration_seconds");
    const other = await fetch(`${internal}/`);
    expect(other.status).toBe(404);
    await other.text();
  });

  it("counts each failed attempt at mail the server would not take, while the sign-up itself succeeds", async () => {
    const before = await scrape(`${internal}/metrics`, null);
    const res = await fetch(`${server.url}/api/auth/sign-up/email`, {
      method: "POST",
      headers: { "content-type": "application/json", origin: server.url, "user-agent": BROWSER_UA },
      body: JSON.stringify({ email: uniqueEmail("nomail"), password: PASSWORD, name: "No Mail" }),
    });
    // The email is queued; the mail server's refusal reaches the queue's worker, not the request.
    expect(res.status).toBe(200);
    const moved = (after: string, name: string, labels: Record<string, string>) =>
      sample(after, name, labels) - sample(before, name, labels);
    let after = await scrape(`${internal}/metrics`, null);
    for (let waited = 0; moved(after, "app_mail_failed_total", { template: "verify-email" }) < 1; waited += 200) {
      if (waited > 20_000) throw new Error("no failed attempt was counted within 20 s");
      await new Promise((resolve) => setTimeout(resolve, 200));
      after = await scrape(`${internal}/metrics`, null);
    }
    expect(moved(after, "app_sign_ups_total", { outcome: "success" })).toBe(1);
    expect(moved(after, "app_mail_sent_total", { template: "verify-email" })).toBe(0);
  }, 30_000);
});

describe("on an internal listener with a token as well", () => {
  it("still wants the token there, and the public port still has no metrics", async () => {
    const port = await freePort();
    const server = await startServer({ METRICS_PORT: String(port), METRICS_TOKEN: TOKEN });
    try {
      const refused = await fetch(`http://127.0.0.1:${port}/metrics`);
      expect(refused.status).toBe(401);
      expect(refused.headers.get("www-authenticate")).toMatch(/^Bearer\b/);
      await refused.text();
      expect(await scrape(`http://127.0.0.1:${port}/metrics`)).toContain("# TYPE app_sign_ins_total counter");
      const publicly = await get(`${server.url}/metrics`, { authorization: `Bearer ${TOKEN}` });
      expect(publicly.status).toBe(404);
      expect(await publicly.text()).not.toContain("app_sign_ins_total");
    } finally {
      await server.stop();
    }
  }, 60_000);
});
