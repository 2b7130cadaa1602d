#!/usr/bin/env node
// The whole test suite, in the order that fails fastest: types, lint, build, unit and
// integration tests on SQLite, integration tests on PostgreSQL, then the browser flows.
// Prints each runner's own summary and one closing "N passed, N failed" line.
import { spawnSync } from "node:child_process";
import { mkdirSync, readFileSync, rmSync } from "node:fs";
import pg from "pg";

const REPORTS = "test-results/reports";
rmSync(REPORTS, { recursive: true, force: true });
mkdirSync(REPORTS, { recursive: true });

const totals = { passed: 0, failed: 0, skipped: 0, flaky: 0 };
const failures = [];

function run(label, command, args, env = {}) {
  console.log(`\n=== ${label} ===`);
  const result = spawnSync(command, args, { stdio: "inherit", env: { ...process.env, ...env } });
  if (result.status !== 0) failures.push(label);
  return result.status === 0;
}

function countVitest(file) {
  try {
    const report = JSON.parse(readFileSync(file, "utf8"));
    totals.passed += report.numPassedTests;
    totals.failed += report.numFailedTests;
    totals.skipped += report.numPendingTests + report.numTodoTests;
  } catch {
    totals.failed += 1; // the runner died before writing its report
  }
}

function countPlaywright(file) {
  try {
    const { stats } = JSON.parse(readFileSync(file, "utf8"));
    totals.passed += stats.expected + stats.flaky;
    totals.flaky += stats.flaky; // passed on the retry: counted, but named below
    totals.failed += stats.unexpected;
    totals.skipped += stats.skipped;
  } catch {
    totals.failed += 1;
  }
}

async function postgresReachable(url) {
  const client = new pg.Client({ connectionString: url, connectionTimeoutMillis: 3000 });
  try {
    await client.connect();
    await client.end();
    return true;
  } catch (error) {
    console.error(`PostgreSQL at ${url} is not reachable: ${error.message}`);
    return false;
  }
}

run("typecheck", "npm", ["run", "typecheck"]);
run("lint", "npx", ["eslint", "."]);
run("format", "npx", ["prettier", "--check", "."]);
const built = run("build", "npm", ["run", "build"]);

run("unit + integration (SQLite)", "npx", [
  "vitest",
  "run",
  "--reporter=default",
  "--reporter=json",
  `--outputFile=${REPORTS}/vitest-sqlite.json`,
]);
countVitest(`${REPORTS}/vitest-sqlite.json`);

if (process.env.SKIP_POSTGRES === "1") {
  console.log("\n=== integration (PostgreSQL) skipped: SKIP_POSTGRES=1 ===");
} else {
  const server = process.env.TEST_POSTGRES_URL ?? "postgres://postgres@127.0.0.1:5432/test";
  if (await postgresReachable(server)) {
    run(
      "integration (PostgreSQL)",
      "npx",
      [
        "vitest",
        "run",
        "tests/integration",
        "--reporter=default",
        "--reporter=json",
        `--outputFile=${REPORTS}/vitest-postgres.json`,
      ],
      { TEST_DATABASE_URL: server },
    );
    countVitest(`${REPORTS}/vitest-postgres.json`);
  } else {
    failures.push("integration (PostgreSQL): database unreachable (set TEST_POSTGRES_URL or SKIP_POSTGRES=1)");
  }
}

if (built && process.env.SKIP_E2E !== "1") {
  run("end-to-end (Playwright, Chromium)", "npx", ["playwright", "test", "--reporter=list,json"], {
    PLAYWRIGHT_JSON_OUTPUT_NAME: `${REPORTS}/playwright.json`,
  });
  countPlaywright(`${REPORTS}/playwright.json`);
}

console.log("\n=== summary ===");
if (failures.length) console.log(`failed steps: ${failures.join(", ")}`);
if (totals.flaky) console.log(`${totals.flaky} browser test(s) passed only on their retry (flaky)`);
console.log(`${totals.passed} passed, ${totals.failed} failed, ${totals.skipped} skipped`);
process.exit(failures.length ? 1 : 0);
