#!/usr/bin/env node
// Benchmarks of the built server on loopback, printed as figures against the targets:
// get-session throughput with and without the cookie cache, sign-in latency, and how much a
// burst of sign-ins slows the home page. Run `npm run build` first.
import autocannon from "autocannon";
import { spawn } from "node:child_process";
import { existsSync, mkdtempSync, rmSync } from "node:fs";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";

const CONNECTIONS = 32;
const DURATION = Number(process.env.BENCH_SECONDS ?? 10);
const BROWSER = "Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/130.0 Safari/537.36";
const ADMIN = { email: "bench@example.com", password: "bench-password-123" };

if (!existsSync("build/server.js")) {
  console.error("No build found: run `npm run build` first.");
  process.exit(1);
}

const port = await new Promise((resolve) => {
  const probe = createServer().listen(0, "127.0.0.1", () => {
    const { port } = probe.address();
    probe.close(() => resolve(port));
  });
});
const base = `http://127.0.0.1:${port}`;
const dir = mkdtempSync(join(tmpdir(), "app-bench-"));
const server = spawn(process.execPath, ["build/server.js"], {
  env: {
    ...process.env,
    NODE_ENV: "production",
    PORT: String(port),
    HOST: "127.0.0.1",
    BASE_URL: base,
    DATABASE_URL: `file:${join(dir, "app.db")}`,
    AUTH_SECRET: "benchmark-secret-0123456789abcdefghijklmnop",
    // Production requires a mail server; the benchmark never sends mail, so none listens here.
    SMTP_URL: "smtp://127.0.0.1:9",
    ADMIN_EMAIL: ADMIN.email,
    ADMIN_PASSWORD: ADMIN.password,
    RATE_LIMIT: "off",
  },
  stdio: ["ignore", "ignore", "inherit"],
});

async function stop() {
  server.kill("SIGTERM");
  await new Promise((resolve) => server.once("exit", resolve));
  rmSync(dir, { recursive: true, force: true });
}

try {
  for (let i = 0; ; i++) {
    if (
      await fetch(`${base}/healthz`).then(
        (r) => r.ok,
        () => false,
      )
    )
      break;
    if (i > 240) throw new Error("server did not start");
    await new Promise((r) => setTimeout(r, 250));
  }

  const signIn = () =>
    fetch(`${base}/api/auth/sign-in/email`, {
      method: "POST",
      headers: { "Content-Type": "application/json", Origin: base },
      body: JSON.stringify(ADMIN),
    });

  // A signed-in cookie jar, including the session cache cookie that get-session sets.
  const jar = new Map();
  const keep = (res) => {
    for (const line of res.headers.getSetCookie()) {
      const [pair] = line.split(";");
      const eq = pair.indexOf("=");
      jar.set(pair.slice(0, eq), pair.slice(eq + 1));
    }
  };
  const first = await signIn();
  if (!first.ok) throw new Error(`sign-in failed: ${first.status} ${await first.text()}`);
  keep(first);
  keep(await fetch(`${base}/api/auth/get-session`, { headers: { Cookie: cookieHeader() } }));
  function cookieHeader() {
    return [...jar].map(([k, v]) => `${k}=${v}`).join("; ");
  }

  const load = (path, connections = CONNECTIONS, headers = {}) =>
    autocannon({ url: base + path, connections, duration: DURATION, headers: { "user-agent": BROWSER, ...headers } });

  const cached = await load("/api/auth/get-session", CONNECTIONS, { cookie: cookieHeader() });
  const uncached = await load("/api/auth/get-session?disableCookieCache=true", CONNECTIONS, { cookie: cookieHeader() });

  const latencies = [];
  for (let i = 0; i < 40; i++) {
    const started = performance.now();
    const res = await signIn();
    await res.arrayBuffer();
    latencies.push(performance.now() - started);
  }
  latencies.sort((a, b) => a - b);
  const pct = (list, p) => list[Math.min(list.length - 1, Math.floor((p / 100) * list.length))];

  const idle = await load("/", 8);
  let bursting = true;
  let burstSignIns = 0;
  const burst = Array.from({ length: 8 }, async () => {
    while (bursting) {
      await (await signIn()).arrayBuffer();
      burstSignIns++;
    }
  });
  const busy = await load("/", 8);
  bursting = false;
  await Promise.all(burst);

  const ratio = busy.latency.p99 / idle.latency.p99;
  const row = (label, value, target, ok) =>
    console.log(
      `${label.padEnd(44)} ${value.padStart(14)}   ${target.padEnd(16)} ${ok === undefined ? "" : ok ? "ok" : "MISSED"}`,
    );
  console.log(`\nloopback, ${CONNECTIONS} connections, ${DURATION} s per run, NODE_ENV=production, SQLite\n`);
  row(
    "get-session with cookie cache",
    `${Math.round(cached.requests.average)} req/s`,
    ">= 3000 req/s",
    cached.requests.average >= 3000,
  );
  row("get-session without cookie cache", `${Math.round(uncached.requests.average)} req/s`, "", undefined);
  row("sign-in latency p50 (sequential)", `${pct(latencies, 50).toFixed(1)} ms`, "< 120 ms", pct(latencies, 50) < 120);
  row("sign-in latency p99 (sequential)", `${pct(latencies, 99).toFixed(1)} ms`, "", undefined);
  row("home p99, idle (8 connections)", `${idle.latency.p99} ms`, "", undefined);
  row(`home p99, during ${burstSignIns} parallel sign-ins`, `${busy.latency.p99} ms`, "", undefined);
  row("home p99 ratio (burst / idle)", ratio.toFixed(2), "<= 1.5", ratio <= 1.5);
  for (const [name, result] of [
    ["cached", cached],
    ["uncached", uncached],
    ["idle", idle],
    ["busy", busy],
  ]) {
    if (result.non2xx || result.errors)
      console.log(`warning: ${name} run had ${result.non2xx} non-2xx answers and ${result.errors} errors`);
  }
} finally {
  await stop();
}
