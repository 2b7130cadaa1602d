// The benchmark's outgoing-webhooks section (scripts/bench.mjs): deliveries per second through
// the job queue, on SQLite and on PostgreSQL in a database of its own (BENCH_DATABASE_URL or
// TEST_DATABASE_URL names the server; else the test suite's default, 127.0.0.1:5432, when it
// answers). A built server runs as `npm start` runs it; an organization's five
// endpoints on a loopback receiver each get every event: renaming a team EVENTS times makes
// EVENTS × 5 signed deliveries, each through an event job's fan-out and a delivery job.
import { spawn } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { createServer as createHttpServer } from "node:http";
import { tmpdir } from "node:os";
import { join } from "node:path";
import pg from "pg";
import { freePort } from "./bench-support.mjs";

const EVENTS = 200;
const ENDPOINTS = 5;
const PARALLEL_REQUESTS = 8;
const ADMIN = { email: "bench-hooks@example.com", password: "bench-password-123" };

/** A receiver that answers 200 to everything and counts what it got (and when the last came). */
async function receiver() {
  let count = 0;
  let last = 0;
  const server = createHttpServer((request, response) => {
    request.resume();
    request.on("end", () => {
      count += 1;
      last = performance.now();
      response.end("ok");
    });
  });
  await new Promise((resolve) => server.listen(0, "127.0.0.1", resolve));
  return {
    origin: `http://127.0.0.1:${server.address().port}`,
    count: () => count,
    last: () => last,
    close: () => new Promise((resolve) => server.close(resolve)),
  };
}

/** A fresh PostgreSQL database next to `serverUrl`'s, and how to drop it. */
async function postgresDatabase(serverUrl) {
  const name = `bench_webhooks_${process.pid}`;
  const admin = new pg.Client({ connectionString: serverUrl });
  await admin.connect();
  await admin.query(`DROP DATABASE IF EXISTS ${name}`);
  await admin.query(`CREATE DATABASE ${name}`);
  await admin.end();
  const url = new URL(serverUrl);
  url.pathname = `/${name}`;
  return {
    url: url.toString(),
    async drop() {
      const client = new pg.Client({ connectionString: serverUrl });
      await client.connect();
      await client.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
      await client.end();
    },
  };
}

async function run(databaseUrl, startCommand) {
  const hooks = await receiver();
  const port = await freePort();
  const base = `http://127.0.0.1:${port}`;
  const { env: startEnv, args } = startCommand;
  const server = spawn(process.execPath, args, {
    env: {
      ...process.env,
      ...startEnv,
      NODE_ENV: "production",
      PORT: String(port),
      HOST: "127.0.0.1",
      BASE_URL: base,
      DATABASE_URL: databaseUrl,
      AUTH_SECRET: "benchmark-secret-0123456789abcdefghijklmnop",
      ADMIN_EMAIL: ADMIN.email,
      ADMIN_PASSWORD: ADMIN.password,
      RATE_LIMIT: "off",
      SMTP_URL: "smtp://127.0.0.1:9",
      PAYMENT_PROVIDER: "none",
      WEBHOOK_PRIVATE_ORIGINS: hooks.origin,
      JOB_POLL_INTERVAL_MS: "500",
    },
    stdio: ["ignore", "ignore", "inherit"],
  });
  try {
    for (let tries = 0; ; tries++) {
      const ready = await fetch(`${base}/healthz`).then(
        (response) => response.ok,
        () => false,
      );
      if (ready) break;
      if (tries > 600) throw new Error("the server did not start");
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    const jar = new Map();
    const call = async (path, init = {}) => {
      const response = await fetch(`${base}${path}`, {
        ...init,
        redirect: "manual",
        headers: { origin: base, cookie: [...jar].map(([k, v]) => `${k}=${v}`).join("; "), ...init.headers },
      });
      for (const line of response.headers.getSetCookie()) {
        const [pair] = line.split(";");
        jar.set(pair.slice(0, pair.indexOf("=")), pair.slice(pair.indexOf("=") + 1));
      }
      if (response.status >= 400) throw new Error(`${path}: ${response.status} ${await response.text()}`);
      return response;
    };
    const json = (path, body) =>
      call(path, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify(body) }).then(
        (response) => response.json(),
      );
    await json("/api/auth/sign-in/email", ADMIN);
    const slug = `bench-hooks-${Date.now()}`;
    const organization = await json("/api/auth/organization/create", { name: slug, slug });
    for (let index = 0; index < ENDPOINTS; index++) {
      await call(`/organizations/${slug}/webhooks`, {
        method: "POST",
        headers: { "content-type": "application/x-www-form-urlencoded" },
        body: new URLSearchParams({
          intent: "create-webhook",
          url: `${hooks.origin}/${index}`,
          eventTypes: "team.changed",
        }),
      });
    }
    const team = await json("/api/auth/organization/create-team", { organizationId: organization.id, name: "bench" });
    const expected = (EVENTS + 1) * ENDPOINTS;
    const started = performance.now();
    let next = 0;
    await Promise.all(
      Array.from({ length: PARALLEL_REQUESTS }, async () => {
        while (next < EVENTS) {
          const index = next++;
          await json("/api/auth/organization/update-team", { teamId: team.id, data: { name: `bench ${index}` } });
        }
      }),
    );
    const enqueued = performance.now();
    const deadline = Date.now() + 300_000;
    while (hooks.count() < expected && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 50));
    if (hooks.count() < expected) throw new Error(`only ${hooks.count()} of ${expected} deliveries arrived`);
    const seconds = (hooks.last() - started) / 1000;
    return { deliveries: expected, seconds, perSecond: expected / seconds, eventsSeconds: (enqueued - started) / 1000 };
  } finally {
    server.kill("SIGTERM");
    await new Promise((resolve) => server.once("exit", resolve));
    await hooks.close();
  }
}

/**
 * Runs the section on SQLite and (when a PostgreSQL server is given) on PostgreSQL; returns
 * { sqlite, postgresql? }, each { deliveries, seconds, perSecond, eventsSeconds }.
 */
export async function outgoingWebhooks(startCommand) {
  const results = {};
  const dir = mkdtempSync(join(tmpdir(), "app-bench-hooks-"));
  try {
    results.sqlite = await run(`file:${join(dir, "app.db")}`, startCommand);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
  // The PostgreSQL server named, else the one the test suite uses by default when it answers.
  const serverUrl =
    process.env.BENCH_DATABASE_URL ||
    process.env.TEST_DATABASE_URL ||
    ((await reachable(LOCAL_POSTGRES)) ? LOCAL_POSTGRES : null);
  if (serverUrl && /^postgres(ql)?:/.test(serverUrl)) {
    const database = await postgresDatabase(serverUrl);
    try {
      results.postgresql = await run(database.url, startCommand);
    } finally {
      await database.drop();
    }
  }
  return results;
}

const LOCAL_POSTGRES = "postgres://postgres@127.0.0.1:5432/test";

async function reachable(url) {
  const client = new pg.Client({ connectionString: url, connectionTimeoutMillis: 2000 });
  try {
    await client.connect();
    return true;
  } catch {
    return false;
  } finally {
    await client.end().catch(() => undefined);
  }
}

/** Prints the section's rows. */
export function printOutgoingWebhooks(results) {
  for (const [database, figures] of Object.entries(results)) {
    console.log(
      `outgoing webhook deliveries through the queue (${database}): ${figures.perSecond.toFixed(0)} /s ` +
        `(${figures.deliveries} deliveries in ${figures.seconds.toFixed(1)} s; events made in ${figures.eventsSeconds.toFixed(1)} s)`,
    );
  }
  if (!results.postgresql) console.log("outgoing webhooks on PostgreSQL: skipped (no server: set BENCH_DATABASE_URL)");
}
