// The benchmark's observability section (scripts/bench.mjs; alone: `npm run bench -- --logging`):
// what logs, metrics and tracing (off) cost. The cached home page on two servers started
// alike, loaded at the same time so that both see the same machine:
// - on: JSON lines at LOG_LEVEL=info (an access line per request, to a file as a log
//   collector would read them) and metrics collected (METRICS_TOKEN set; /metrics is scraped
//   once at the end, so the series are really kept);
// - off: LOG_LEVEL=silent and no METRICS_TOKEN.
// Tracing is off on both (OTEL_EXPORTER_OTLP_ENDPOINT unset), as by default: its cost when
// off is part of both. Budget: at most 5 %, judged on the server's CPU per request, which
// other work on the machine does not move as it moves throughput; a saturated server's
// throughput is the inverse of it (docs/decisions/0030-logs-and-errors.md).
// The budget is smaller than the noise of rounds taken one server after the other: this
// machine's speed moves by a third from one few-second window to the next, so two identical
// servers measured that way (16 alternating rounds of 2 s each) differed by up to 7 %, and one
// build by 0.8 % in one run and 9.7 % in the next. Loaded together, the two servers share the
// same moments: both run on one core of their own (taskset), where the scheduler gives each
// half of it, and the load generator runs on the other cores, so that it does not share their
// caches and time slices. The cost is each side's CPU summed over all its rounds, over PAIRS
// fresh pairs of servers, which one starts first alternating from pair to pair.
// `--logging-control` runs the same section with observability off on both sides: what it
// prints is the method's own noise.
import autocannon from "autocannon";
import { spawn, spawnSync } from "node:child_process";
import { mkdtempSync, openSync, rmSync, statSync } from "node:fs";
import { availableParallelism, tmpdir } from "node:os";
import { join } from "node:path";
import { BROWSER, cpuMs, freePort, stopChild, waitFor } from "./bench-support.mjs";

const CONNECTIONS = 32;
const ROUND_SECONDS = 2;
/** Rounds over all pairs, both servers of a pair loaded at once in each. */
const ROUNDS = 16;
/** Fresh pairs of servers the rounds are spread over; even, so that each side starts first as often. */
const PAIRS = 8;
/**
 * The core the servers run on (the last one), or null where there is only one core or no
 * taskset: the servers then share the machine with the load generator, and the figure is noisier.
 */
const SERVER_CORE =
  availableParallelism() >= 2 && spawnSync("taskset", ["-V"]).status === 0 ? availableParallelism() - 1 : null;
export const OBSERVABILITY_BUDGET = 0.05;
const METRICS_TOKEN = "bench-metrics-token-0123456789";

/** Starts the server `name` (its files are named after it), with observability on or off. */
async function start(dir, name, on, { env: startEnv, args }) {
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
 * Runs the section; returns each side's throughput and CPU per request over all its rounds,
 * the cost (CPU per request, on / off − 1), the log written and what /metrics answered.
 * With `control`, the "on" side runs with observability off too.
 */
export async function observabilityCost(startCommand, { control = false } = {}) {
  const dir = mkdtempSync(join(tmpdir(), "app-bench-logs-"));
  // The load generator (this process, all its threads) off the servers' core for the section,
  // then back where it was.
  const cores = SERVER_CORE === null ? null : affinity();
  if (cores !== null) affinity(`0-${SERVER_CORE - 1}`);
  const totals = { on: { requests: 0, cpuMs: 0 }, off: { requests: 0, cpuMs: 0 } };
  let logBytes = 0;
  let metrics;
  try {
    for (let pair = 0; pair < PAIRS; pair++) {
      const sides = [
        { name: "on", on: !control },
        { name: "off", on: false },
      ];
      const servers = [];
      try {
        for (const side of pair % 2 ? [...sides].reverse() : sides) {
          servers.push({ ...(await start(dir, `${side.name}-${pair}`, side.on, startCommand)), side: side.name });
        }
        // Warm-up, and the home page into each server's cache.
        await Promise.all(servers.map(({ base }) => load(base, 2)));
        for (let round = 0; round < ROUNDS / PAIRS; round++) {
          const before = servers.map(({ child }) => cpuMs(child.pid));
          const results = await Promise.all(servers.map(({ base }) => load(base, ROUND_SECONDS)));
          servers.forEach(({ name, side, child }, i) => {
            const result = results[i];
            if (result.non2xx > 0) throw new Error(`${result.non2xx} non-2xx answers from the server ${name}`);
            totals[side].requests += result.requests.total;
            totals[side].cpuMs += cpuMs(child.pid) - before[i];
          });
        }
        const on = servers.find(({ side }) => side === "on");
        logBytes += statSync(on.logFile).size;
        if (pair === PAIRS - 1) {
          const answer = await fetch(`${on.base}/metrics`, { headers: { authorization: `Bearer ${METRICS_TOKEN}` } });
          const exposition = await answer.text();
          metrics = { status: answer.status, families: answer.ok ? (exposition.match(/^# TYPE /gm) ?? []).length : 0 };
        }
      } finally {
        await Promise.all(servers.map(({ child }) => stopChild(child)));
      }
    }
    const figures = ({ requests, cpuMs: cpu }) => ({
      rps: requests / (ROUNDS * ROUND_SECONDS),
      cpuUsPerRequest: (cpu * 1000) / requests,
    });
    const on = figures(totals.on);
    const off = figures(totals.off);
    return {
      control,
      pairs: PAIRS,
      rounds: ROUNDS,
      roundSeconds: ROUND_SECONDS,
      serverCore: SERVER_CORE,
      on,
      off,
      cost: on.cpuUsPerRequest / off.cpuUsPerRequest - 1,
      throughputCost: 1 - on.rps / off.rps,
      logMb: logBytes / 1024 / 1024,
      metrics,
    };
  } finally {
    if (cores !== null) affinity(cores);
    rmSync(dir, { recursive: true, force: true });
  }
}

/** Puts every thread of this process on `cpus` (a taskset list); without it, returns the list it is on. */
function affinity(cpus) {
  if (cpus === undefined) {
    const { stdout } = spawnSync("taskset", ["-c", "-p", String(process.pid)], { encoding: "utf8" });
    return stdout.split(": ")[1].trim();
  }
  spawnSync("taskset", ["-a", "-p", "-c", cpus, String(process.pid)], { stdio: "ignore" });
}

/** Prints the section's figures (its budget row is printed with the others). */
export function printObservabilityCost(figures) {
  const { on, off } = figures;
  const where = figures.serverCore === null ? "sharing the cores" : `on core ${figures.serverCore}`;
  const onLabel = figures.control ? "observability off (control)       " : "observability on  (logs, metrics) ";
  console.log(
    `\ncached home page, ${CONNECTIONS} connections per server, both loaded at once: ${figures.rounds} rounds of ${figures.roundSeconds} s over ${figures.pairs} fresh pairs of servers, servers ${where}:`,
  );
  console.log(`  ${onLabel}${on.rps.toFixed(0).padStart(6)} req/s   ${on.cpuUsPerRequest.toFixed(1)} µs CPU/request`);
  console.log(
    `  observability off                  ${off.rps.toFixed(0).padStart(6)} req/s   ${off.cpuUsPerRequest.toFixed(1)} µs CPU/request`,
  );
  if (!figures.control) {
    console.log(`  log written: ${figures.logMb.toFixed(1)} MB`);
    console.log(
      figures.metrics.status === 200
        ? `  /metrics scraped: ${figures.metrics.families} metric families`
        : `  /metrics answered ${figures.metrics.status}: metrics not served by this build`,
    );
  }
  console.log(
    `  ${figures.control ? "difference between identical sides" : "cost"}: ${(figures.cost * 100).toFixed(1)} % of the server's CPU per request, ${(figures.throughputCost * 100).toFixed(1)} % of throughput`,
  );
}
