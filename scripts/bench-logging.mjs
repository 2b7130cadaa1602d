// `npm run bench -- --logging`: what the logs cost. The cached home page's throughput on two
// servers started alike, one writing its JSON lines (LOG_LEVEL=info: an access line per
// request, to a file as a log collector would read them) and one with logging off
// (LOG_LEVEL=silent), in alternating rounds so that both see the same machine. Budget: the
// logs cost at most 5 %, judged on the server's CPU per request, which other work on the
// machine does not move as it moves throughput (docs/decisions/0030-logs-and-errors.md).
// Run `npm run build` first.
import autocannon from "autocannon";
import { spawn } from "node:child_process";
import { mkdtempSync, openSync, readFileSync, rmSync, statSync } from "node:fs";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";

const CONNECTIONS = 32;
const ROUND_SECONDS = Number(process.env.BENCH_SECONDS ?? 5);
const ROUNDS = 3;
const BUDGET = 0.05;
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

async function start(level) {
  const port = await freePort();
  const base = `http://127.0.0.1:${port}`;
  const logFile = join(dir, `${level}.log`);
  const child = spawn(process.execPath, startWords.slice(1), {
    env: {
      ...process.env,
      ...startEnv,
      NODE_ENV: "production",
      LOG_LEVEL: level,
      PORT: String(port),
      HOST: "127.0.0.1",
      BASE_URL: base,
      DATABASE_URL: `file:${join(dir, `${level}.db`)}`,
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
    if (i > 240) throw new Error(`the ${level} server did not start`);
    await new Promise((r) => setTimeout(r, 250));
  }
  return { level, base, child, logFile };
}

/** The server's CPU time so far (utime + stime; USER_HZ is 100 on Linux): steadier than throughput on a shared machine. */
function cpuMs(pid) {
  const fields = readFileSync(`/proc/${pid}/stat`, "utf8").split(") ")[1].split(" ");
  return (Number(fields[11]) + Number(fields[12])) * 10;
}

const load = (base, duration) =>
  autocannon({ url: `${base}/`, connections: CONNECTIONS, duration, headers: { "user-agent": BROWSER } });

const servers = [await start("info"), await start("silent")];
try {
  for (const { base } of servers) await load(base, 2); // warm-up, and the home page into the cache
  const rps = { info: [], silent: [] };
  const cpuUs = { info: [], silent: [] };
  for (let round = 0; round < ROUNDS; round++) {
    for (const { level, base, child } of round % 2 ? [...servers].reverse() : servers) {
      const before = cpuMs(child.pid);
      const result = await load(base, ROUND_SECONDS);
      if (result.non2xx > 0) throw new Error(`${result.non2xx} non-2xx answers from the ${level} server`);
      rps[level].push(result.requests.average);
      cpuUs[level].push(((cpuMs(child.pid) - before) * 1000) / result.requests.total);
    }
  }
  const median = (values) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)];
  const on = median(rps.info);
  const off = median(rps.silent);
  const cpuOn = median(cpuUs.info);
  const cpuOff = median(cpuUs.silent);
  // A saturated server's throughput is the inverse of its CPU per request; measured as CPU,
  // the cost does not move with what else the machine is running.
  const cost = cpuOn / cpuOff - 1;
  console.log(`\ncached home page, ${CONNECTIONS} connections, median of ${ROUNDS} rounds of ${ROUND_SECONDS} s:`);
  console.log(
    `  logging on  (LOG_LEVEL=info)   ${on.toFixed(0).padStart(6)} req/s   ${cpuOn.toFixed(0)} µs CPU/request   [${rps.info.map((r) => r.toFixed(0)).join(", ")}]`,
  );
  console.log(
    `  logging off (LOG_LEVEL=silent) ${off.toFixed(0).padStart(6)} req/s   ${cpuOff.toFixed(0)} µs CPU/request   [${rps.silent.map((r) => r.toFixed(0)).join(", ")}]`,
  );
  console.log(`  log written: ${(statSync(servers[0].logFile).size / 1024 / 1024).toFixed(1)} MB`);
  console.log(
    `  cost of logging: ${(cost * 100).toFixed(1)} % of the server's CPU per request, ${((1 - on / off) * 100).toFixed(1)} % of throughput   (budget <= ${BUDGET * 100} %) ${cost <= BUDGET ? "ok" : "MISSED"}`,
  );
  process.exitCode = cost <= BUDGET ? 0 : 1;
} finally {
  for (const { child } of servers) child.kill("SIGTERM");
  await Promise.all(servers.map(({ child }) => new Promise((resolve) => child.once("exit", resolve))));
  rmSync(dir, { recursive: true, force: true });
}
