// `npm run bench -- --tracing`: what traces cost. The cached home page's throughput and the
// server's CPU per request on servers started alike, in alternating rounds so that all see
// the same machine: traces off (OTEL_EXPORTER_OTLP_ENDPOINT unset) and on (exporting every
// span to a collector stand-in here, which drops them). `--baseline <dir>` adds the build in
// <dir> (e.g. a checkout of the commit before traces), to show what traces cost when off: at
// most the machine's noise (docs/decisions/0034-traces.md). Run `npm run build` first.
import autocannon from "autocannon";
import { spawn } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { createServer as createHttpServer } from "node:http";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { BROWSER, cpuMs, freePort, startCommand, waitFor } from "./bench-support.mjs";

const CONNECTIONS = 32;
const ROUND_SECONDS = Number(process.env.BENCH_SECONDS ?? 5);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 3);
const baselineAt = process.argv.indexOf("--baseline");
const baseline = baselineAt > 0 ? resolve(process.argv[baselineAt + 1]) : null;

// The collector: takes every export and answers as a collector does.
let exported = 0;
const collector = createHttpServer((req, res) => {
  req.resume();
  req.on("end", () => {
    exported++;
    res.writeHead(200, { "Content-Type": "application/json" }).end("{}");
  });
});
await new Promise((done) => collector.listen(0, "127.0.0.1", done));
const collectorUrl = `http://127.0.0.1:${collector.address().port}`;

const dir = mkdtempSync(join(tmpdir(), "app-bench-traces-"));
// As `npm start` runs it: its environment settings and Node flags.
const { env: startEnv, args: startArgs } = startCommand();

async function start(name, cwd, env) {
  const port = await freePort();
  const base = `http://127.0.0.1:${port}`;
  const child = spawn(process.execPath, startArgs, {
    cwd,
    env: {
      ...process.env,
      ...startEnv,
      NODE_ENV: "production",
      LOG_LEVEL: "silent",
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
      OTEL_EXPORTER_OTLP_ENDPOINT: "",
      ...env,
    },
    stdio: ["ignore", "ignore", "inherit"],
  });
  await waitFor(`${base}/healthz`, `the ${name} server`);
  return { name, base, child };
}

const load = (base, duration) =>
  autocannon({ url: `${base}/`, connections: CONNECTIONS, duration, headers: { "user-agent": BROWSER } });

const servers = [
  await start("off", process.cwd(), {}),
  await start("on", process.cwd(), { OTEL_EXPORTER_OTLP_ENDPOINT: collectorUrl }),
  ...(baseline ? [await start("baseline", baseline, {})] : []),
];
try {
  for (const { base } of servers) await load(base, 2); // warm-up, and the home page into the cache
  const rps = Object.fromEntries(servers.map(({ name }) => [name, []]));
  const cpuUs = Object.fromEntries(servers.map(({ name }) => [name, []]));
  for (let round = 0; round < ROUNDS; round++) {
    for (const { name, base, child } of round % 2 ? [...servers].reverse() : servers) {
      const before = cpuMs(child.pid);
      const result = await load(base, ROUND_SECONDS);
      if (result.non2xx > 0) throw new Error(`${result.non2xx} non-2xx answers from the ${name} server`);
      rps[name].push(result.requests.average);
      cpuUs[name].push(((cpuMs(child.pid) - before) * 1000) / result.requests.total);
    }
  }
  const median = (values) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)];
  const labels = { off: "traces off", on: "traces on", baseline: "baseline build" };
  console.log(`\ncached home page, ${CONNECTIONS} connections, median of ${ROUNDS} rounds of ${ROUND_SECONDS} s:`);
  for (const { name } of servers) {
    console.log(
      `  ${labels[name].padEnd(15)} ${median(rps[name]).toFixed(0).padStart(6)} req/s   ${median(cpuUs[name]).toFixed(0)} µs CPU/request   [${rps[name].map((r) => r.toFixed(0)).join(", ")}]`,
    );
  }
  const cost = (name, against) => {
    const cpu = (median(cpuUs[name]) / median(cpuUs[against]) - 1) * 100;
    const throughput = (1 - median(rps[name]) / median(rps[against])) * 100;
    return `${cpu.toFixed(1)} % of the server's CPU per request, ${throughput.toFixed(1)} % of throughput`;
  };
  console.log(`  traces on against off: ${cost("on", "off")} (${exported} exports received)`);
  if (baseline) console.log(`  traces off against the baseline build: ${cost("off", "baseline")}`);
} finally {
  for (const { child } of servers) child.kill("SIGTERM");
  await Promise.all(servers.map(({ child }) => new Promise((done) => child.once("exit", done))));
  collector.close();
  rmSync(dir, { recursive: true, force: true });
}
