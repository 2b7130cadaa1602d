import { spawn } from "node:child_process";
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, expect, it } from "vitest";
import { freePort, ROOT } from "./helpers/server";

// `npm start` on a machine with no database yet: it must create the SQLite file (and its
// folder), apply every migration, ensure the demo admin and print how to sign in.
const dir = mkdtempSync(join(tmpdir(), "app-start-"));
const dbFile = join(dir, "nested", "data", "app.db");
afterAll(() => rmSync(dir, { recursive: true, force: true }));

it.skipIf(!!process.env.TEST_DATABASE_URL)(
  "npm start builds if needed, migrates a new SQLite file and prints the demo admin",
  async () => {
    const port = await freePort();
    const env: NodeJS.ProcessEnv = {
      ...process.env,
      PORT: String(port),
      HOST: "127.0.0.1",
      DATABASE_URL: `file:${dbFile}`,
    };
    // VITEST would make a rebuild drop the React Router plugin (see vite.config.ts).
    for (const key of ["AUTH_SECRET", "ADMIN_EMAIL", "ADMIN_PASSWORD", "NODE_ENV", "BASE_URL", "VITEST"])
      delete env[key];
    const child = spawn("npm", ["start"], { cwd: ROOT, env, stdio: ["ignore", "pipe", "pipe"], detached: true });
    let output = "";
    child.stdout.on("data", (chunk: Buffer) => (output += chunk));
    child.stderr.on("data", (chunk: Buffer) => (output += chunk));
    try {
      const deadline = Date.now() + 120_000;
      let healthy = false;
      while (!healthy && Date.now() < deadline) {
        healthy = await fetch(`http://127.0.0.1:${port}/healthz`).then(
          (r) => r.ok,
          () => false,
        );
        if (!healthy) await new Promise((r) => setTimeout(r, 250));
      }
      expect(healthy, output).toBe(true);
      expect(existsSync(dbFile)).toBe(true);
      expect(output).toContain("admin@example.com");
      expect(output).toContain("demo-admin-1234");
      expect(output).toContain(`http://localhost:${port}`);

      process.env.DATABASE_URL = `file:${dbFile}`;
      const { prisma, closeDatabase } = await import("~/server/db.server");
      const admin = await prisma.user.findUnique({
        where: { email: "admin@example.com" },
        select: { role: true, emailVerified: true, accounts: { select: { providerId: true } } },
      });
      expect(admin).toEqual({ role: "admin", emailVerified: true, accounts: [{ providerId: "credential" }] });
      await closeDatabase();
      const page = await fetch(`http://127.0.0.1:${port}/pricing`, {
        headers: { "User-Agent": "Mozilla/5.0 Chrome/130" },
      });
      expect(page.status).toBe(200);

      // The server process runs with the memory settings README and the deployment guide give.
      const server = serverProcess(child.pid!);
      expect(server.args).toEqual(
        expect.arrayContaining(["--max-old-space-size=128", "--max-semi-space-size=2", "--no-liftoff"]),
      );
      expect(server.env).toEqual(
        expect.arrayContaining([
          "MALLOC_ARENA_MAX=1",
          "MALLOC_TRIM_THRESHOLD_=131072",
          "MALLOC_MMAP_THRESHOLD_=131072",
        ]),
      );
    } finally {
      process.kill(-child.pid!, "SIGTERM");
      await new Promise((resolve) => child.once("exit", resolve));
    }
  },
  180_000,
);

/** The `build/server.js` process among `npm start`'s process group: its arguments and environment. */
function serverProcess(group: number) {
  for (const pid of readdirSync("/proc").filter((name) => /^\d+$/.test(name))) {
    try {
      const groupOf = Number(readFileSync(`/proc/${pid}/stat`, "utf8").split(") ")[1]!.split(" ")[2]);
      const args = readFileSync(`/proc/${pid}/cmdline`, "utf8").split("\0");
      if (groupOf === group && args.includes("build/server.js")) {
        return { args, env: readFileSync(`/proc/${pid}/environ`, "utf8").split("\0") };
      }
    } catch {
      // the process ended meanwhile
    }
  }
  throw new Error("no build/server.js process in the group of npm start");
}
