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
// The budget is smaller than the noise of a few long rounds: two identical servers measured
// that way differed by up to 10 %. So the rounds are many and short, in ABBA order (each
// server as often first as second while the machine's speed drifts), the cost is each
// server's CPU summed over all its rounds, and both servers run on a core of their own
// (taskset), so that the load generator does not share their caches and time slices.
import autocannon from "autocannon";
import { spawn, spawnSync } from "node:child_process";
import { mkdtempSync, openSync, rmSync, statSync } from "node:fs";
import { availableParallelism, tmpdir } from "node:os";
import { join } from "node:path";
import { BROWSER, cpuMs, freePort, stopChild, waitFor } from "./bench-support.mjs";

const CONNECTIONS = 32;
const ROUND_SECONDS = 2;
/** Rounds per server. Even, so that ABBA order puts each server first as often as second. */
const ROUNDS = 16;
/**
 * The core the servers run on (the last one), or null where there is only one core or no
 * taskset: the servers then share the machine with the load generator, and the figure is noisier.
 */
const SERVER_CORE =
  availableParallelism() >= 2 && spawnSync("taskset", ["-V"]).status === 0 ? availableParallelism() - 1 : null;
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
  // taskset replaces itself with node, so the child's pid is the server's.
  const [command, ...words] =
    SERVER_CORE === null
      ? [process.execPath, ...args]
      : ["taskset", "-c", String(SERVER_CORE), process.execPath, ...args];
  const child = spawn(command, words, { env, stdio: ["ignore", openSync(logFile, "w"), "inherit"] });
  await waitFor(`${base}/healthz`, `the server with observability ${name}`);
  return { name, base, child, logFile };
}

const load = (base, duration) =>
  autocannon({ url: `${base}/`, connections: CONNECTIONS, duration, headers: { "user-agent": BROWSER } });

/**
 * Runs the section; returns each server's throughput and CPU per request over all its rounds,
 * the cost (CPU per request, on / off − 1), the log written and what /metrics answered.
 */
export async function observabilityCost(startCommand) {
  const dir = mkdtempSync(join(tmpdir(), "app-bench-logs-"));
  const servers = [];
  try {
    servers.push(await start(dir, true, startCommand), await start(dir, false, startCommand));
    for (const { base } of servers) await load(base, 2); // warm-up, and the home page into the cache
    const totals = { on: { requests: 0, cpuMs: 0 }, off: { requests: 0, cpuMs: 0 } };
    for (let round = 0; round < ROUNDS; round++) {
      for (const { name, base, child } of round % 2 ? [...servers].reverse() : servers) {
        const before = cpuMs(child.pid);
        const result = await load(base, ROUND_SECONDS);
        if (result.non2xx > 0) throw new Error(`${result.non2xx} non-2xx answers from the server with ${name}`);
        totals[name].requests += result.requests.total;
        totals[name].cpuMs += cpuMs(child.pid) - before;
      }
    }
    const figures = ({ requests, cpuMs: cpu }) => ({
      rps: requests / (ROUNDS * ROUND_SECONDS),
      cpuUsPerRequest: (cpu * 1000) / requests,
    });
    const on = figures(totals.on);
    const off = figures(totals.off);
    const metrics = await fetch(`${servers[0].base}/metrics`, {
      headers: { authorization: `Bearer ${METRICS_TOKEN}` },
    });
    const exposition = await metrics.text();
    return {
      rounds: ROUNDS,
      roundSeconds: ROUND_SECONDS,
      serverCore: SERVER_CORE,
      on,
      off,
      cost: on.cpuUsPerRequest / off.cpuUsPerRequest - 1,
      throughputCost: 1 - on.rps / off.rps,
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
  const where = figures.serverCore === null ? "sharing the cores" : `on core ${figures.serverCore}`;
  console.log(
    `\ncached home page, ${CONNECTIONS} connections, ${figures.rounds} rounds of ${figures.roundSeconds} s per server (ABBA), servers ${where}:`,
  );
  console.log(
    `  observability on  (logs, metrics) ${on.rps.toFixed(0).padStart(6)} req/s   ${on.cpuUsPerRequest.toFixed(1)} µs CPU/request`,
  );
  console.log(
    `  observability off                  ${off.rps.toFixed(0).padStart(6)} req/s   ${off.cpuUsPerRequest.toFixed(1)} µs CPU/request`,
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
