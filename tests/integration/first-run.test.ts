/**
 * SLOW (about a minute on a quiet machine, up to a few under load): the first `npm start` of
 * a fresh clone, in a temporary copy of the working tree (no build, no data folder), with a
 * new SQLite database. A newcomer reads its output as the state of the project, so it must
 * show the build, the migrations, the demo admin and the address, and no line that looks like
 * a problem: no warning, no error, nothing deprecated.
 */
import { spawn } from "node:child_process";
import { cpSync, mkdtempSync, realpathSync, rmSync, symlinkSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, relative, sep } from "node:path";
import { afterAll, expect, it } from "vitest";
import { freePort, ROOT } from "./helpers/server";

/** What a fresh clone does not have (node_modules is linked: `npm install` is not the subject here). */
const NOT_IN_A_CLONE = new Set([
  "node_modules",
  "build",
  "data",
  ".git",
  ".react-router",
  "test-results",
  "playwright-report",
]);
const LOOKS_WRONG = /warn|error|deprecat/i;

const copy = mkdtempSync(join(tmpdir(), "app-first-run-"));
afterAll(() => rmSync(copy, { recursive: true, force: true }));

it.skipIf(!!process.env.TEST_DATABASE_URL)(
  "slow: a first npm start builds, migrates and listens without printing anything that looks wrong",
  async () => {
    cpSync(ROOT, copy, {
      recursive: true,
      filter: (source) => !NOT_IN_A_CLONE.has(relative(ROOT, source).split(sep)[0]!),
    });
    symlinkSync(realpathSync(join(ROOT, "node_modules")), join(copy, "node_modules"));
    const port = await freePort();
    // A newcomer's shell: none of the test run's variables (VITEST, NODE_ENV, secrets…).
    const env = {
      PATH: process.env.PATH,
      HOME: process.env.HOME,
      PORT: String(port),
      HOST: "127.0.0.1",
      DATABASE_URL: `file:${join(copy, "data", "app.db")}`,
    };
    const child = spawn("npm", ["start"], { cwd: copy, env, stdio: ["ignore", "pipe", "pipe"], detached: true });
    let output = "";
    child.stdout.on("data", (chunk: Buffer) => (output += chunk));
    child.stderr.on("data", (chunk: Buffer) => (output += chunk));
    const exited = new Promise((resolve) => child.once("exit", resolve));
    try {
      const deadline = Date.now() + 280_000;
      let listening = false;
      while (!listening && Date.now() < deadline && child.exitCode === null) {
        listening = await fetch(`http://127.0.0.1:${port}/healthz`).then(
          (r) => r.ok,
          () => false,
        );
        if (!listening) await new Promise((r) => setTimeout(r, 500));
      }
      expect(listening, output).toBe(true);
      expect(output).toMatch(/building/);
      expect(output).toMatch(/Applied \d+ migration/);
      expect(output).toContain("admin@example.com");
      expect(output).toContain(`Listening on http://localhost:${port}`);
      const lines = output.split("\n");
      expect(lines.filter((line) => LOOKS_WRONG.test(line))).toEqual([]);
      // Short enough to read: what matters, not a table of every asset.
      expect(lines.length, output).toBeLessThan(60);
    } finally {
      if (child.exitCode === null) process.kill(-child.pid!, "SIGTERM");
      await exited;
    }
  },
  300_000,
);
