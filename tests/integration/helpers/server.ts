/**
 * Starts the built server (`node build/server.js`) as a child process for integration tests:
 * a free port, its own temporary SQLite database (unless DATABASE_URL is given), rate
 * limiting off, and a promise that resolves once /healthz answers.
 */
import { spawn } from "node:child_process";
import { existsSync, mkdtempSync, rmSync } from "node:fs";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { assertNoSecrets, noteSecret } from "./secrets";

export const ROOT = fileURLToPath(new URL("../../..", import.meta.url));
const SERVER_ENTRY = join(ROOT, "build/server.js");
const START_TIMEOUT_MS = 60_000;
const STOP_TIMEOUT_MS = 20_000;

export interface RunningServer {
  /** Where to send requests, e.g. http://127.0.0.1:41234 (also its BASE_URL unless overridden). */
  url: string;
  port: number;
  /** The environment the server was started with. */
  env: Record<string, string>;
  /** stdout and stderr so far, interleaved. */
  stdout(): string;
  /** The child's pid, e.g. to send it a signal. */
  pid: number;
  /** Resolves when the process has exited (however it was stopped). */
  exited: Promise<{ code: number | null; signal: NodeJS.Signals | null; stdout: string }>;
  /**
   * SIGTERM (graceful shutdown), then waits for the exit; SIGKILL if it takes too long. Then
   * fails if the output holds any secret the test file used (helpers/secrets.ts).
   */
  stop(): Promise<{ code: number | null; stdout: string }>;
}

/** A port that was free a moment ago (the OS picks it). */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const probe = createServer();
    probe.once("error", reject);
    probe.listen(0, "127.0.0.1", () => {
      const address = probe.address();
      const port = typeof address === "object" && address ? address.port : 0;
      probe.close(() => resolve(port));
    });
  });
}

/**
 * Starts a server. `env` is merged over the defaults below and the test process's own
 * environment; e.g. `{ BASE_URL: "https://app.example.com" }` or `{ NODE_ENV: "production" }`.
 */
export async function startServer(env: Record<string, string> = {}): Promise<RunningServer> {
  if (!existsSync(SERVER_ENTRY) || !existsSync(join(ROOT, "build/server/index.js"))) {
    throw new Error("No build found (build/server.js, build/server/index.js): run `npm run build` first");
  }
  const port = env.PORT ? Number(env.PORT) : await freePort();
  // A throwaway SQLite file unless the caller brings a database (e.g. createTestDatabase()).
  const dataDir = env.DATABASE_URL ? null : mkdtempSync(join(tmpdir(), "app-test-"));
  const url = `http://127.0.0.1:${port}`;
  const fullEnv: Record<string, string> = {
    PORT: String(port),
    HOST: "127.0.0.1",
    BASE_URL: url,
    ...(dataDir && { DATABASE_URL: `file:${join(dataDir, "app.db")}` }),
    // A fixed secret keeps the test from writing data/auth-secret into the working copy.
    AUTH_SECRET: "integration-test-secret-0123456789abcdef",
    RATE_LIMIT: "off",
    ...env,
  };

  for (const [name, value] of Object.entries(fullEnv)) {
    if (/SECRET|PASSWORD|TOKEN|_KEY$/.test(name)) noteSecret(name, value);
  }

  const child = spawn(process.execPath, [SERVER_ENTRY], {
    cwd: ROOT, // migrations and build-info are read relative to the working directory
    env: { ...process.env, ...fullEnv },
    stdio: ["ignore", "pipe", "pipe"],
  });
  let output = "";
  child.stdout.on("data", (chunk: Buffer) => (output += chunk.toString()));
  child.stderr.on("data", (chunk: Buffer) => (output += chunk.toString()));

  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null; stdout: string }>((resolve) => {
    child.once("exit", (code, signal) => {
      if (dataDir) rmSync(dataDir, { recursive: true, force: true });
      resolve({ code, signal, stdout: output });
    });
  });
  let hasExited = false;
  void exited.then(() => (hasExited = true));

  // Wait for /healthz, failing early (with the server's output) if the process dies.
  const deadline = Date.now() + START_TIMEOUT_MS;
  for (;;) {
    if (hasExited) throw new Error(`The server exited during start-up:\n${output}`);
    try {
      const response = await fetch(`${url}/healthz`);
      if (response.ok) break;
    } catch {
      // not listening yet
    }
    if (Date.now() > deadline) {
      child.kill("SIGKILL");
      throw new Error(`The server did not become healthy within ${START_TIMEOUT_MS / 1000} s:\n${output}`);
    }
    await new Promise((resolve) => setTimeout(resolve, 100));
  }

  return {
    url,
    port,
    env: fullEnv,
    pid: child.pid!,
    stdout: () => output,
    exited,
    async stop() {
      if (!hasExited) child.kill("SIGTERM");
      const timer = setTimeout(() => child.kill("SIGKILL"), STOP_TIMEOUT_MS);
      const { code, stdout } = await exited;
      clearTimeout(timer);
      assertNoSecrets(stdout, url);
      return { code, stdout };
    },
  };
}
