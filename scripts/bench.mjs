#!/usr/bin/env node
// Benchmarks of the built server on loopback, printed as figures against the targets and
// written as JSON (test-results/bench.json): page throughput, p99 and server CPU per page,
// get-session with and without the cookie cache, sign-in latency, how much a burst of
// sign-ins slows the home page, peak RSS, the JavaScript each public page ships and that of
// the sign-in, dashboard and members pages, and the
// admin users page's and list-users' server time with 100,000 users, a full organization's
// page, webhook deliveries applied per second, and outgoing webhook deliveries per second
// through the job queue on SQLite and PostgreSQL (scripts/bench-webhooks.mjs).
// `npm run bench -- --outgoing-webhooks` runs only that last section.
// `npm run bench -- --soak` sends 100,000 page requests instead and prints RSS every 10,000;
// `npm run bench -- --logging` measures the cached home page with logging on and off
// (scripts/bench-logging.mjs), `npm run bench -- --tracing` with traces on and off
// (scripts/bench-tracing.mjs). Run `npm run build` first.
import autocannon from "autocannon";
import { spawn } from "node:child_process";
import { createHmac, randomUUID } from "node:crypto";
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import Database from "better-sqlite3";
import { outgoingWebhooks, printOutgoingWebhooks } from "./bench-webhooks.mjs";
import { pageJavaScript } from "./page-javascript.mjs";

const CONNECTIONS = 32;
const DURATION = Number(process.env.BENCH_SECONDS ?? 10);
const SOAK = process.argv.includes("--soak");
const SOAK_REQUESTS = 100_000;
const BROWSER = "Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/130.0 Safari/537.36";
const ADMIN = { email: "bench@example.com", password: "bench-password-123" };
const PAGES = ["/", "/pricing"];
const TARGETS = {
  pageRps: 1000,
  pageP99: 100,
  pageCpuMs: 2,
  getSession: 3000,
  signInP50: 120,
  stormRatio: 1.5,
  // Server time of each admin users view and list-users query below, with 100,000 users.
  adminUsersP95: 50,
};
const BUDGETS = { rssPeakMb: 200, homeJsKb: 110, hydratedJsKb: 160, soakGrowth: 0.1 };
const SEEDED_USERS = 100_000;
/**
 * An organization of 1,000 members, which the bench server's ORGANIZATION_MEMBERSHIP_LIMIT
 * allows (100 by default). Its page lists them a page at a time, so its server time must not
 * grow with them: p95 under ORG_PAGE_P95_MS.
 */
const ORG_MEMBERS = 1000;
const ORG_PAGE_P95_MS = 50;
/** Views of the admin users table: the default, a search, a filter, and each sort. */
const USERS_VIEWS = [
  "",
  "?q=user4242",
  "?q=Grace&field=name",
  "?status=banned",
  "?role=admin",
  "?sort=name&dir=asc",
  "?sort=email&dir=desc",
  "?sort=role",
  "?from=2026-01-10&to=2026-01-20",
  "?size=100&page=500",
];
/** The same kinds of query on GET /api/auth/admin/list-users, by label. */
const LIST_USERS_VIEWS = {
  default: "?limit=20",
  "search email": "?limit=20&searchValue=user4242",
  "search name": "?limit=20&searchValue=Grace&searchField=name",
  "filter role": "?limit=20&filterField=role&filterValue=admin",
  "filter banned": "?limit=20&filterField=banned&filterValue=true",
  ...Object.fromEntries(
    ["createdAt", "updatedAt", "name", "email", "role", "banned", "emailVerified"].flatMap((column) =>
      ["asc", "desc"].map((dir) => [`sort ${column} ${dir}`, `?limit=20&sortBy=${column}&sortDirection=${dir}`]),
    ),
  ),
  "offset 49,900": "?limit=100&offset=49900",
};

if (!existsSync("build/server.js")) {
  console.error("No build found: run `npm run build` first.");
  process.exit(1);
}
if (process.argv.includes("--logging")) {
  await import("./bench-logging.mjs");
  process.exit();
}
if (process.argv.includes("--tracing")) {
  await import("./bench-tracing.mjs");
  process.exit();
}

// The server runs exactly as `npm start` runs it: its environment settings (NAME=value before
// the command) and its Node flags included.
const startWords = JSON.parse(readFileSync("package.json", "utf8")).scripts.start.split(/\s+/);
const startEnv = {};
while (/^[A-Z_]+=/.test(startWords[0])) {
  const [name, value] = startWords.shift().split("=");
  startEnv[name] = value;
}
const startArgs = startWords.slice(1); // after `node`

if (process.argv.includes("--outgoing-webhooks")) {
  printOutgoingWebhooks(await outgoingWebhooks({ env: startEnv, args: startArgs }));
  process.exit(0);
}

const port = await new Promise((resolve) => {
  const probe = createServer().listen(0, "127.0.0.1", () => {
    const { port } = probe.address();
    probe.close(() => resolve(port));
  });
});
const base = `http://127.0.0.1:${port}`;
/**
 * Webhooks are timed through the real Stripe SDK against the test suite's Stripe stand-in
 * (tests/support/stripe-stand-in.ts; its control server takes the next port): each event
 * makes the app read the subscription back from it, as it would from Stripe.
 */
const standInPort = port + 10;
const standIn = `http://127.0.0.1:${standInPort}`;
const STRIPE = {
  STRIPE_SECRET_KEY: "sk_test_benchmark",
  STRIPE_WEBHOOK_SECRET: "whsec_benchmark",
  STRIPE_PRICE_PRO_MONTHLY: "price_pro_monthly",
  STRIPE_PRICE_PRO_YEARLY: "price_pro_yearly",
  STRIPE_PRICE_TEAM_MONTHLY: "price_team_monthly",
  STRIPE_PRICE_TEAM_YEARLY: "price_team_yearly",
};
const dir = mkdtempSync(join(tmpdir(), "app-bench-"));
const server = spawn(process.execPath, startArgs, {
  env: {
    ...process.env,
    ...startEnv,
    NODE_ENV: "production",
    PORT: String(port),
    HOST: "127.0.0.1",
    BASE_URL: base,
    DATABASE_URL: `file:${join(dir, "app.db")}`,
    AUTH_SECRET: "benchmark-secret-0123456789abcdefghijklmnop",
    ADMIN_EMAIL: ADMIN.email,
    ADMIN_PASSWORD: ADMIN.password,
    RATE_LIMIT: "off",
    ORGANIZATION_MEMBERSHIP_LIMIT: String(ORG_MEMBERS),
    // Production requires a mail server; the benchmark never sends mail.
    SMTP_URL: "smtp://127.0.0.1:9",
    ...STRIPE,
    STRIPE_API_BASE_URL: standIn,
  },
  stdio: ["ignore", "ignore", "inherit"],
});
const stripeStandIn = SOAK
  ? null
  : spawn(process.execPath, ["node_modules/vite-node/vite-node.mjs", "tests/e2e/support/billing-server.ts"], {
      env: {
        ...process.env,
        ...STRIPE,
        E2E_BILLING_PROVIDER: "stripe",
        E2E_BILLING_PORT: String(standInPort),
        E2E_BILLING_WEBHOOK_URL: `${base}/api/auth/stripe/webhook`,
      },
      stdio: ["ignore", "ignore", "inherit"],
    });

async function stop() {
  stripeStandIn?.kill("SIGTERM");
  server.kill("SIGTERM");
  await new Promise((resolve) => server.once("exit", resolve));
  rmSync(dir, { recursive: true, force: true });
}

// ---- the server process, read from /proc ----

const TICK_MS = 10; // USER_HZ is 100 on Linux
function cpuMs() {
  const fields = readFileSync(`/proc/${server.pid}/stat`, "utf8").split(") ")[1].split(" ");
  return (Number(fields[11]) + Number(fields[12])) * TICK_MS; // utime + stime
}
function rssMb() {
  const line = readFileSync(`/proc/${server.pid}/status`, "utf8").match(/VmRSS:\s+(\d+) kB/);
  return line ? Number(line[1]) / 1024 : 0;
}
// The peak of each part of the run, to tell which part needs the memory; the run's peak is theirs.
let phase = "start-up";
const phasePeaks = {};
const sampler = setInterval(() => {
  phasePeaks[phase] = Math.max(phasePeaks[phase] ?? 0, rssMb());
}, 200);

try {
  for (let i = 0; ; i++) {
    const up = await fetch(`${base}/healthz`).then(
      (r) => r.ok,
      () => false,
    );
    if (up) break;
    if (i > 240) throw new Error("server did not start");
    await new Promise((r) => setTimeout(r, 250));
  }

  const load = (path, { connections = CONNECTIONS, headers = {}, amount } = {}) =>
    autocannon({
      url: base + path,
      connections,
      ...(amount ? { amount } : { duration: DURATION }),
      headers: { "user-agent": BROWSER, ...headers },
    });

  /** A run with the server's CPU time per request. */
  async function measured(path, options) {
    const before = cpuMs();
    const result = await load(path, options);
    const cpu = (cpuMs() - before) / Math.max(1, result.requests.total);
    return { result, cpu };
  }

  if (SOAK) {
    console.log(`\nsoak: ${SOAK_REQUESTS} requests to / (${CONNECTIONS} connections), RSS every 10,000\n`);
    const readings = [];
    for (let sent = 0; sent < SOAK_REQUESTS; sent += 10_000) {
      const result = await load("/", { amount: 10_000 });
      readings.push(rssMb());
      console.log(
        `${String(sent + 10_000).padStart(7)} requests   RSS ${readings.at(-1).toFixed(0)} MB   (${result.non2xx} non-2xx)`,
      );
    }
    const growth = readings.at(-1) / readings[1] - 1;
    console.log(
      `\nRSS after 100,000 vs after 20,000: ${(growth * 100).toFixed(1)} %   (budget <= ${BUDGETS.soakGrowth * 100} %) ${growth <= BUDGETS.soakGrowth ? "ok" : "MISSED"}`,
    );
    writeResults({ soak: { rssMb: readings, growth } });
  } else {
    await runAll();
  }

  async function runAll() {
    const signIn = () =>
      fetch(`${base}/api/auth/sign-in/email`, {
        method: "POST",
        headers: { "Content-Type": "application/json", Origin: base },
        body: JSON.stringify(ADMIN),
      });
    // A signed-in cookie jar, including the session cache cookie.
    const jar = new Map();
    const keep = (res) => {
      for (const line of res.headers.getSetCookie()) {
        const [pair] = line.split(";");
        const eq = pair.indexOf("=");
        jar.set(pair.slice(0, eq), pair.slice(eq + 1));
      }
    };
    const cookieHeader = () => [...jar].map(([k, v]) => `${k}=${v}`).join("; ");
    const first = await signIn();
    if (!first.ok) throw new Error(`sign-in failed: ${first.status} ${await first.text()}`);
    keep(first);

    // JavaScript each public page loads: its scripts and module preloads, gzipped.
    const js = {};
    for (const path of PAGES) {
      const { urls, gzipBytes } = await pageJavaScript(base, path, { "user-agent": BROWSER });
      js[path] = { files: urls.length, gzipKb: gzipBytes / 1024 };
    }

    const NO_CACHE = { "cache-control": "no-cache" }; // bypasses the anonymous page cache
    phase = "public pages";
    for (const path of PAGES) await load(path, { amount: 2000, headers: NO_CACHE }); // warm-up
    const pages = {};
    const uncachedPages = {};
    for (const path of PAGES) {
      uncachedPages[path] = await measured(path, { headers: NO_CACHE });
      pages[path] = await measured(path);
    }

    phase = "get-session";
    const cached = await measured("/api/auth/get-session", { headers: { cookie: cookieHeader() } });
    const uncached = await measured("/api/auth/get-session?disableCookieCache=true", {
      headers: { cookie: cookieHeader() },
    });

    phase = "sign-ins";
    const latencies = [];
    for (let i = 0; i < 40; i++) {
      const started = performance.now();
      const res = await signIn();
      await res.arrayBuffer();
      latencies.push(performance.now() - started);
    }
    latencies.sort((a, b) => a - b);
    const pct = (list, p) => list[Math.min(list.length - 1, Math.floor((p / 100) * list.length))];

    const idle = await load("/", { connections: 8 });
    let bursting = true;
    let burstSignIns = 0;
    const burst = Array.from({ length: 8 }, async () => {
      while (bursting) {
        await (await signIn()).arrayBuffer();
        burstSignIns++;
      }
    });
    const busy = await load("/", { connections: 8 });
    bursting = false;
    await Promise.all(burst);
    const ratio = busy.latency.p99 / idle.latency.p99;

    // The admin users page over 100,000 users, seeded straight into the database file (dates
    // in the same storage format as the rows the app wrote).
    phase = "admin and organization pages";
    const db = new Database(join(dir, "app.db"));
    db.pragma("busy_timeout = 5000");
    const sample = db.prepare('SELECT "createdAt" FROM "user" LIMIT 1').get();
    const stamp = (ms) => (typeof sample.createdAt === "number" ? ms : new Date(ms).toISOString());
    const insert = db.prepare(
      'INSERT INTO "user" ("id", "email", "name", "role", "banned", "emailVerified", "createdAt", "updatedAt") VALUES (?, ?, ?, ?, ?, ?, ?, ?)',
    );
    const names = ["Ada", "Grace", "Alan", "Edsger", "Barbara", "Donald", "Frances", "Ken"];
    db.transaction(() => {
      for (let i = 0; i < SEEDED_USERS; i++) {
        const created = stamp(Date.UTC(2026, 0, 1) + i * 30_000);
        insert.run(
          `cbench${String(i).padStart(19, "0")}`,
          `user${i}@bench.example`,
          `${names[i % names.length]} ${i}`,
          i % 1000 === 0 ? "admin" : "user",
          i % 17 === 0 ? 1 : 0,
          1,
          created,
          created,
        );
      }
      // An organization of ORG_MEMBERS: the bench's admin owns it, seeded users fill it.
      const owner = db.prepare('SELECT "id" FROM "user" WHERE "email" = ?').get(ADMIN.email);
      db.prepare('INSERT INTO "organization" ("id", "name", "slug", "createdAt") VALUES (?, ?, ?, ?)').run(
        "cbenchorganization",
        "Bench Org",
        "bench-org",
        stamp(Date.UTC(2026, 0, 1)),
      );
      const member = db.prepare(
        'INSERT INTO "member" ("id", "organizationId", "userId", "role", "createdAt") VALUES (?, ?, ?, ?, ?)',
      );
      member.run("cbenchmember-owner", "cbenchorganization", owner.id, "owner", stamp(Date.UTC(2026, 0, 1)));
      for (let i = 1; i < ORG_MEMBERS; i++) {
        const role = i % 50 === 0 ? "admin" : "member";
        member.run(
          `cbenchmember${i}`,
          "cbenchorganization",
          `cbench${String(i).padStart(19, "0")}`,
          role,
          stamp(Date.UTC(2026, 0, 2) + i),
        );
      }
    })();
    db.close();
    /**
     * p50 and p95 of 60 sequential requests for `path` as the signed-in admin (after one to
     * warm up). Of 20, the "p95" would be the slowest one alone: one pause of either process
     * would decide it.
     */
    const timePage = async (path) => {
      const times = [];
      for (let i = 0; i < 61; i++) {
        const started = performance.now();
        const res = await fetch(`${base}${path}`, { headers: { cookie: cookieHeader(), "user-agent": BROWSER } });
        if (res.status !== 200) throw new Error(`${path} answered ${res.status}`);
        await res.arrayBuffer();
        if (i > 0) times.push(performance.now() - started);
      }
      times.sort((a, b) => a - b);
      return { p50Ms: pct(times, 50), p95Ms: pct(times, 95) };
    };
    const usersPage = {};
    for (const view of USERS_VIEWS) usersPage[view || "(default)"] = await timePage(`/admin/users${view}`);
    const listUsers = {};
    for (const [label, query] of Object.entries(LIST_USERS_VIEWS)) {
      listUsers[label] = { query, ...(await timePage(`/api/auth/admin/list-users${query}`)) };
    }
    const organizationPage = await timePage("/organizations/bench-org");
    // The JavaScript of pages that hydrate (decision 0031): a guest's sign-in page, then the
    // signed-in admin's dashboard and organization members page.
    for (const [path, headers] of [
      ["/signin", { "user-agent": BROWSER }],
      ["/dashboard", { "user-agent": BROWSER, cookie: cookieHeader() }],
      ["/organizations/bench-org/members", { "user-agent": BROWSER, cookie: cookieHeader() }],
    ]) {
      const { urls, gzipBytes } = await pageJavaScript(base, path, headers);
      js[path] = { files: urls.length, gzipKb: gzipBytes / 1024 };
    }

    phase = "webhooks";
    // Webhooks: one subscription bought through the stand-in's checkout, then signed
    // `customer.subscription.updated` deliveries of it, each a new event id, as fast as the
    // app takes them. Each is verified, read back from the provider and applied once.
    for (let i = 0; ; i++) {
      const up = await fetch(`${standIn}/v1/customers`).then(
        (r) => r.status === 401,
        () => false,
      );
      if (up) break;
      if (i > 240) throw new Error("the Stripe stand-in did not start");
      await new Promise((r) => setTimeout(r, 250));
    }
    const upgrade = await fetch(`${base}/api/auth/subscription/upgrade`, {
      method: "POST",
      headers: { cookie: cookieHeader(), origin: base, "content-type": "application/json" },
      body: JSON.stringify({ plan: "pro", successUrl: "/billing/success", cancelUrl: "/pricing" }),
    });
    const { url: checkoutUrl } = await upgrade.json();
    await fetch(checkoutUrl, { method: "POST", redirect: "manual" });
    const rows = new Database(join(dir, "app.db"), { readonly: true });
    let subscription;
    for (let i = 0; !subscription; i++) {
      subscription = rows.prepare('SELECT "providerSubscriptionId" FROM "subscription" LIMIT 1').get();
      if (i > 100) throw new Error("the checkout's webhook never arrived");
      if (!subscription) await new Promise((r) => setTimeout(r, 100));
    }
    const eventsBefore = rows.prepare('SELECT COUNT(*) AS n FROM "webhook_event"').get().n;
    const webhooks = await autocannon({
      url: `${base}/api/auth/stripe/webhook`,
      connections: CONNECTIONS,
      duration: DURATION,
      method: "POST",
      headers: { "content-type": "application/json" },
      requests: [
        {
          setupRequest(request) {
            const payload = JSON.stringify({
              id: `evt_bench_${randomUUID()}`,
              object: "event",
              type: "customer.subscription.updated",
              created: Math.floor(Date.now() / 1000),
              livemode: false,
              data: { object: { id: subscription.providerSubscriptionId, object: "subscription" } },
            });
            const t = Math.floor(Date.now() / 1000);
            const v1 = createHmac("sha256", STRIPE.STRIPE_WEBHOOK_SECRET).update(`${t}.${payload}`).digest("hex");
            return {
              ...request,
              body: payload,
              headers: { ...request.headers, "stripe-signature": `t=${t},v1=${v1}` },
            };
          },
        },
      ],
    });
    const applied = rows.prepare('SELECT COUNT(*) AS n FROM "webhook_event"').get().n - eventsBefore;
    rows.close();

    const row = (label, value, target, ok) =>
      console.log(
        `${label.padEnd(44)} ${value.padStart(14)}   ${target.padEnd(16)} ${ok === undefined ? "" : ok ? "ok" : "MISSED"}`,
      );
    console.log(`\nloopback, ${CONNECTIONS} connections, ${DURATION} s per run, NODE_ENV=production, SQLite\n`);
    for (const path of PAGES) {
      const { result, cpu } = pages[path];
      row(
        `${path} throughput`,
        `${Math.round(result.requests.average)} req/s`,
        `>= ${TARGETS.pageRps} req/s`,
        result.requests.average >= TARGETS.pageRps,
      );
      row(`${path} p99`, `${result.latency.p99} ms`, `< ${TARGETS.pageP99} ms`, result.latency.p99 < TARGETS.pageP99);
      row(`${path} server CPU per page`, `${cpu.toFixed(2)} ms`, "", undefined);
      const plain = uncachedPages[path];
      row(`${path} throughput, no page cache`, `${Math.round(plain.result.requests.average)} req/s`, "", undefined);
      row(`${path} p99, no page cache`, `${plain.result.latency.p99} ms`, "", undefined);
      row(
        `${path} server CPU per page, no page cache`,
        `${plain.cpu.toFixed(2)} ms`,
        `<= ${TARGETS.pageCpuMs} ms`,
        plain.cpu <= TARGETS.pageCpuMs,
      );
    }
    row(
      "get-session with cookie cache",
      `${Math.round(cached.result.requests.average)} req/s`,
      `>= ${TARGETS.getSession} req/s`,
      cached.result.requests.average >= TARGETS.getSession,
    );
    row("get-session without cookie cache", `${Math.round(uncached.result.requests.average)} req/s`, "", undefined);
    row(
      "sign-in latency p50 (sequential)",
      `${pct(latencies, 50).toFixed(1)} ms`,
      `< ${TARGETS.signInP50} ms`,
      pct(latencies, 50) < TARGETS.signInP50,
    );
    row("sign-in latency p99 (sequential)", `${pct(latencies, 99).toFixed(1)} ms`, "", undefined);
    row("home p99, idle (8 connections)", `${idle.latency.p99} ms`, "", undefined);
    row(`home p99, during ${burstSignIns} parallel sign-ins`, `${busy.latency.p99} ms`, "", undefined);
    row("home p99 ratio (burst / idle)", ratio.toFixed(2), `<= ${TARGETS.stormRatio}`, ratio <= TARGETS.stormRatio);
    const rssPeak = Math.max(...Object.values(phasePeaks));
    row("server RSS, peak", `${rssPeak.toFixed(0)} MB`, `<= ${BUDGETS.rssPeakMb} MB`, rssPeak <= BUDGETS.rssPeakMb);
    for (const [name, mb] of Object.entries(phasePeaks))
      row(`  peak during ${name}`, `${mb.toFixed(0)} MB`, "", undefined);
    for (const path of Object.keys(js)) {
      const budget = path === "/" ? BUDGETS.homeJsKb : PAGES.includes(path) ? undefined : BUDGETS.hydratedJsKb;
      row(
        `JavaScript of ${path} (gzip, ${js[path].files} files)`,
        `${js[path].gzipKb.toFixed(1)} KB`,
        budget ? `<= ${budget} KB` : "",
        budget ? js[path].gzipKb <= budget : undefined,
      );
    }
    const adminRow = (label, { p50Ms, p95Ms }) =>
      row(
        label.slice(0, 44),
        `p95 ${p95Ms.toFixed(1)} ms`,
        `< ${TARGETS.adminUsersP95} ms; p50 ${p50Ms.toFixed(0)}`,
        p95Ms < TARGETS.adminUsersP95,
      );
    for (const [view, times] of Object.entries(usersPage)) {
      adminRow(`/admin/users${view === "(default)" ? "" : view}`, times);
    }
    for (const [label, times] of Object.entries(listUsers)) adminRow(`list-users, ${label}`, times);
    row(
      `/organizations/… ${ORG_MEMBERS.toLocaleString("en")} members, p50 ${organizationPage.p50Ms.toFixed(1)} ms`,
      `p95 ${organizationPage.p95Ms.toFixed(1)} ms`,
      `< ${ORG_PAGE_P95_MS} ms`,
      organizationPage.p95Ms < ORG_PAGE_P95_MS,
    );
    row(
      "webhook deliveries applied",
      `${(applied / DURATION).toFixed(0)} /s`,
      `p99 ${webhooks.latency.p99} ms`,
      // Every answered delivery applied (those still in flight when the run stops may be too).
      webhooks.non2xx === 0 && webhooks.errors === 0 && applied >= webhooks.requests.total,
    );
    for (const [name, result] of [
      ...PAGES.map((path) => [path, pages[path].result]),
      ...PAGES.map((path) => [`${path} uncached`, uncachedPages[path].result]),
      ["get-session cached", cached.result],
      ["get-session uncached", uncached.result],
      ["idle", idle],
      ["busy", busy],
    ]) {
      if (result.non2xx || result.errors)
        console.log(`warning: ${name} run had ${result.non2xx} non-2xx answers and ${result.errors} errors`);
    }

    const outgoing = await outgoingWebhooks({ env: startEnv, args: startArgs });
    printOutgoingWebhooks(outgoing);

    writeResults({
      pages: Object.fromEntries(
        PAGES.map((path) => [
          path,
          {
            rps: pages[path].result.requests.average,
            p99Ms: pages[path].result.latency.p99,
            cpuMsPerPage: pages[path].cpu,
            uncached: {
              rps: uncachedPages[path].result.requests.average,
              p99Ms: uncachedPages[path].result.latency.p99,
              cpuMsPerPage: uncachedPages[path].cpu,
            },
          },
        ]),
      ),
      getSession: { cachedRps: cached.result.requests.average, uncachedRps: uncached.result.requests.average },
      signIn: { p50Ms: pct(latencies, 50), p99Ms: pct(latencies, 99) },
      storm: { idleP99Ms: idle.latency.p99, busyP99Ms: busy.latency.p99, ratio },
      rssPeakMb: rssPeak,
      rssPeakMbByPhase: phasePeaks,
      javascript: js,
      adminUsersPage: { users: SEEDED_USERS, views: usersPage },
      listUsers: { users: SEEDED_USERS, views: listUsers },
      organizationPage: { members: ORG_MEMBERS, ...organizationPage },
      webhooks: {
        appliedPerSecond: applied / DURATION,
        p99Ms: webhooks.latency.p99,
        sent: webhooks.requests.total,
        applied,
      },
      outgoingWebhooks: outgoing,
    });
  }
} finally {
  clearInterval(sampler);
  await stop();
}

function writeResults(figures) {
  mkdirSync("test-results", { recursive: true });
  const file = SOAK ? "test-results/bench-soak.json" : "test-results/bench.json";
  writeFileSync(
    file,
    JSON.stringify(
      { date: new Date().toISOString(), connections: CONNECTIONS, duration: DURATION, ...figures },
      null,
      2,
    ),
  );
  console.log(`\nfigures written to ${file}`);
}
