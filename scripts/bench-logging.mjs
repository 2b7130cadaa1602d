// The benchmark's observability section (scripts/bench.mjs; alone: `npm run bench -- --logging`):
// what logs, metrics and tracing (off) cost. The cached home page's throughput on two servers
// started alike, in alternating rounds so that both see the same machine:
// - on: JSON lines at LOG_LEVEL=info (an access line per request, to a file as a log
//   collector would read them) and metrics collected (METRICS_TOKEN set; /metrics is scraped
//   once at the end, so the series are really kept);
// - off: LOG_LEVEL=silent and no METRICS_TOKEN.
// Tracing is off on both (OTEL_EXPORTER_OTLP_ENDPOINT unset), as by default: its cost when
// off is part of both. Budget: at most 5 %, judged on the server's CPU per request, which
// other work on the machine does not move as it moves throughput; a saturated server's
// throughput is the inverse of it (docs/decisions/0030-logs-and-errors.md).
import autocannon from "autocannon";
import { spawn } from "node:child_process";
import { mkdtempSync, openSync, rmSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { BROWSER, cpuMs, freePort, stopChild, waitFor } from "./bench-support.mjs";

const CONNECTIONS = 32;
const ROUND_SECONDS = Number(process.env.BENCH_SECONDS ?? 5);
const ROUNDS = 3;
export const OBSERVABILITY_BUDGET = 0.05;
const METRICS_TOKEN = "bench-metrics-token-0123456789";

async function start(dir, on, { env: startEnv, args }) {
  const name = on ? "on" : "off";
  const port = await freePort();
  const base = `http://127.0.0.1:${port}`;
  const logFile = join(dir, `${name}.log`);
  const env = {
    ...process.env,
    ...startEnv,
    NODE_ENV: "production",
    LOG_LEVEL: on ? "info" : "silent",
    PORT: String(port),
    HOST: "127.0.0.1",
    BASE_URL: base,
    DATABASE_URL: `file:${join(dir, `${name}.db`)}`,
    AUTH_SECRET: "benchmark-secret-0123456789abcdefghijklmnop",
    ADMIN_EMAIL: "bench@example.com",
    ADMIN_PASSWORD: "bench-password-123",
    RATE_LIMIT: "off",
    SMTP_URL: "smtp://127.0.0.1:9",
    PAYMENT_PROVIDER: "none",
  };
  delete env.OTEL_EXPORTER_OTLP_ENDPOINT;
  if (on) env.METRICS_TOKEN = METRICS_TOKEN;
  else delete env.METRICS_TOKEN;
  const child = spawn(process.execPath, args, { env, stdio: ["ignore", openSync(logFile, "w"), "inherit"] });
  await waitFor(`${base}/healthz`, `the server with observability ${name}`);
  return { name, base, child, logFile };
}

const load = (base, duration) =>
  autocannon({ url: `${base}/`, connections: CONNECTIONS, duration, headers: { "user-agent": BROWSER } });

const median = (values) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)];

/**
 * Runs the section; returns the median throughput and CPU per request of each server, the
 * cost (CPU per request, on / off − 1), the log written and what /metrics answered.
 */
export async function observabilityCost(startCommand) {
  const dir = mkdtempSync(join(tmpdir(), "app-bench-logs-"));
  const servers = [];
  try {
    servers.push(await start(dir, true, startCommand), await start(dir, false, startCommand));
    for (const { base } of servers) await load(base, 2); // warm-up, and the home page into the cache
    const rps = { on: [], off: [] };
    const cpuUs = { on: [], off: [] };
    for (let round = 0; round < ROUNDS; round++) {
      for (const { name, base, child } of round % 2 ? [...servers].reverse() : servers) {
        const before = cpuMs(child.pid);
        const result = await load(base, ROUND_SECONDS);
        if (result.non2xx > 0) throw new Error(`${result.non2xx} non-2xx answers from the server with ${name}`);
        rps[name].push(result.requests.average);
        cpuUs[name].push(((cpuMs(child.pid) - before) * 1000) / result.requests.total);
      }
    }
    const metrics = await fetch(`${servers[0].base}/metrics`, {
      headers: { authorization: `Bearer ${METRICS_TOKEN}` },
    });
    const exposition = await metrics.text();
    return {
      rounds: ROUNDS,
      roundSeconds: ROUND_SECONDS,
      on: { rps: median(rps.on), cpuUsPerRequest: median(cpuUs.on), rounds: rps.on },
      off: { rps: median(rps.off), cpuUsPerRequest: median(cpuUs.off), rounds: rps.off },
      cost: median(cpuUs.on) / median(cpuUs.off) - 1,
      throughputCost: 1 - median(rps.on) / median(rps.off),
      logMb: statSync(servers[0].logFile).size / 1024 / 1024,
      metrics: {
        status: metrics.status,
        families: metrics.ok ? (exposition.match(/^# TYPE /gm) ?? []).length : 0,
      },
    };
  } finally {
    await Promise.all(servers.map(({ child }) => stopChild(child)));
    rmSync(dir, { recursive: true, force: true });
  }
}

/** Prints the section's figures (its budget row is printed with the others). */
export function printObservabilityCost(figures) {
  const { on, off } = figures;
  console.log(
    `\ncached home page, ${CONNECTIONS} connections, median of ${figures.rounds} rounds of ${figures.roundSeconds} s:`,
  );
  console.log(
    `  observability on  (logs, metrics) ${on.rps.toFixed(0).padStart(6)} req/s   ${on.cpuUsPerRequest.toFixed(0)} µs CPU/request   [${on.rounds.map((r) => r.toFixed(0)).join(", ")}]`,
  );
  console.log(
    `  observability off                  ${off.rps.toFixed(0).padStart(6)} req/s   ${off.cpuUsPerRequest.toFixed(0)} µs CPU/request   [${off.rounds.map((r) => r.toFixed(0)).join(", ")}]`,
  );
  console.log(`  log written: ${figures.logMb.toFixed(1)} MB`);
  console.log(
    figures.metrics.status === 200
      ? `  /metrics scraped: ${figures.metrics.families} metric families`
      : `  /metrics answered ${figures.metrics.status}: metrics not served by this build`,
  );
  console.log(
    `  cost: ${(figures.cost * 100).toFixed(1)} % of the server's CPU per request, ${(figures.throughputCost * 100).toFixed(1)} % of throughput`,
  );
}
