// `npm run bench -- --logging`: what the logs and the metrics cost. The cached home page's
// throughput on three servers started alike: one writing its JSON lines (LOG_LEVEL=info: an
// access line per request, to a file as a log collector would read them) and serving metrics
// (METRICS_TOKEN: every request observed, every query timed; scraped between rounds, outside
// the measurement, as a scrape every 15 s is not worth a few seconds' load), one serving
// metrics only, and one with both off, in rotating rounds so that all see the same machine.
// Budget: logs and metrics together cost at most 5 %, judged on the server's CPU per request,
// which other work on the machine does not move as it moves throughput
// (docs/decisions/0030-logs-and-errors.md, 0033-metrics.md).
// Run `npm run build` first.
import autocannon from "autocannon";
import { spawn } from "node:child_process";
import { mkdtempSync, openSync, readFileSync, rmSync, statSync } from "node:fs";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";

const CONNECTIONS = 32;
const ROUND_SECONDS = Number(process.env.BENCH_SECONDS ?? 5);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 3);
const BUDGET = 0.05;
const METRICS_TOKEN = "benchmark-metrics-token-0123456789";
const BROWSER = "Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/130.0 Safari/537.36";

const freePort = () =>
  new Promise((resolve) => {
    const probe = createServer().listen(0, "127.0.0.1", () => {
      const { port } = probe.address();
      probe.close(() => resolve(port));
    });
  });

const dir = mkdtempSync(join(tmpdir(), "app-bench-logs-"));
// As `npm start` runs it: its environment settings and Node flags.
const startWords = JSON.parse(readFileSync("package.json", "utf8")).scripts.start.split(/\s+/);
const startEnv = {};
while (/^[A-Z_]+=/.test(startWords[0])) {
  const [name, value] = startWords.shift().split("=");
  startEnv[name] = value;
}

const VARIANTS = [
  { name: "on", label: "logs + metrics on ", env: { LOG_LEVEL: "info", METRICS_TOKEN } },
  { name: "metrics", label: "metrics only      ", env: { LOG_LEVEL: "silent", METRICS_TOKEN } },
  { name: "off", label: "both off          ", env: { LOG_LEVEL: "silent" } },
];

async function start({ name, env }) {
  const port = await freePort();
  const base = `http://127.0.0.1:${port}`;
  const logFile = join(dir, `${name}.log`);
  const child = spawn(process.execPath, startWords.slice(1), {
    env: {
      ...process.env,
      ...startEnv,
      NODE_ENV: "production",
      ...env,
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
    },
    stdio: ["ignore", openSync(logFile, "w"), "inherit"],
  });
  for (let i = 0; ; i++) {
    if (
      await fetch(`${base}/healthz`).then(
        (r) => r.ok,
        () => false,
      )
    )
      break;
    if (i > 240) throw new Error(`the ${name} server did not start`);
    await new Promise((r) => setTimeout(r, 250));
  }
  return { name, base, child, logFile, metrics: Boolean(env.METRICS_TOKEN) };
}

/** The server's CPU time so far (utime + stime; USER_HZ is 100 on Linux): steadier than throughput on a shared machine. */
function cpuMs(pid) {
  const fields = readFileSync(`/proc/${pid}/stat`, "utf8").split(") ")[1].split(" ");
  return (Number(fields[11]) + Number(fields[12])) * 10;
}

const load = (base, duration) =>
  autocannon({ url: `${base}/`, connections: CONNECTIONS, duration, headers: { "user-agent": BROWSER } });

/** One scrape, as Prometheus makes every 15 s or so: the requests the home page's series has counted. */
async function scrape(base) {
  const text = await (await fetch(`${base}/metrics`, { headers: { authorization: `Bearer ${METRICS_TOKEN}` } })).text();
  const count = /^app_http_request_duration_seconds_count\{method="GET",route="\/:lang\?",status="2xx"\} (\d+)$/m;
  return Number(count.exec(text)?.[1] ?? 0);
}

const servers = [];
for (const variant of VARIANTS) servers.push(await start(variant));
try {
  for (const { base } of servers) await load(base, 2); // warm-up, and the home page into the cache
  const rps = Object.fromEntries(VARIANTS.map(({ name }) => [name, []]));
  const cpuUs = Object.fromEntries(VARIANTS.map(({ name }) => [name, []]));
  for (let round = 0; round < ROUNDS; round++) {
    // Each round starts with another server, so none is always first or last.
    for (const { name, base, child, metrics } of servers.map((_, i) => servers[(i + round) % servers.length])) {
      const before = cpuMs(child.pid);
      const result = await load(base, ROUND_SECONDS);
      if (result.non2xx > 0) throw new Error(`${result.non2xx} non-2xx answers from the ${name} server`);
      rps[name].push(result.requests.average);
      cpuUs[name].push(((cpuMs(child.pid) - before) * 1000) / result.requests.total);
      // Not counted: Prometheus scrapes every 15 s or so, a round is a few seconds of load.
      if (metrics) await scrape(base);
    }
  }
  const median = (values) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)];
  const spread = (values) => `[${values.map((value) => value.toFixed(0)).join(", ")}]`;
  console.log(`\ncached home page, ${CONNECTIONS} connections, median of ${ROUNDS} rounds of ${ROUND_SECONDS} s:`);
  for (const { name, label } of VARIANTS) {
    console.log(
      `  ${label} ${median(rps[name]).toFixed(0).padStart(6)} req/s ${spread(rps[name])}   ${median(cpuUs[name]).toFixed(0)} µs CPU/request ${spread(cpuUs[name])}`,
    );
  }
  console.log(`  log written: ${(statSync(servers[0].logFile).size / 1024 / 1024).toFixed(1)} MB`);
  console.log(`  home page requests the metrics counted: ${await scrape(servers[0].base)}`);
  // A saturated server's throughput is the inverse of its CPU per request; measured as CPU,
  // the cost does not move with what else the machine is running.
  const costOf = (name) => median(cpuUs[name]) / median(cpuUs.off) - 1;
  const throughputCost = (name) => ((1 - median(rps[name]) / median(rps.off)) * 100).toFixed(1);
  const cost = costOf("on");
  console.log(
    `  cost of metrics alone: ${(costOf("metrics") * 100).toFixed(1)} % of the server's CPU per request, ${throughputCost("metrics")} % of throughput`,
  );
  console.log(
    `  cost of logs + metrics: ${(cost * 100).toFixed(1)} % of the server's CPU per request, ${throughputCost("on")} % of throughput   (budget <= ${BUDGET * 100} %) ${cost <= BUDGET ? "ok" : "MISSED"}`,
  );
  process.exitCode = cost <= BUDGET ? 0 : 1;
} finally {
  for (const { child } of servers) child.kill("SIGTERM");
  await Promise.all(servers.map(({ child }) => new Promise((resolve) => child.once("exit", resolve))));
  rmSync(dir, { recursive: true, force: true });
}
