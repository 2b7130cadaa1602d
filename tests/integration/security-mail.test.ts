/**
 * Finding 7 of the security review: live tokens in logs. Verification, reset and delete
 * links were printed to stdout whenever SMTP_URL was unset, production included. Now
 * production refuses to start without SMTP_URL, and the development outbox logs who got
 * which message and where its file is, never the link.
 */
import { spawn } from "node:child_process";
import { readFileSync, rmSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createTestDatabase, type TestDatabase } from "./helpers/database";
import { PASSWORD } from "./helpers/factories";
import { freePort, ROOT, startServer, type RunningServer } from "./helpers/server";

const SECRET = "integration-test-secret-security-mail-01234";

describe("production without SMTP_URL", () => {
  it("refuses to start, saying SMTP_URL is required", async () => {
    const port = await freePort();
    const child = spawn(process.execPath, [join(ROOT, "build/server.js")], {
      cwd: ROOT,
      env: {
        ...process.env,
        NODE_ENV: "production",
        PORT: String(port),
        HOST: "127.0.0.1",
        BASE_URL: `http://127.0.0.1:${port}`,
        AUTH_SECRET: SECRET,
        DATABASE_URL: "file::memory:",
        SMTP_URL: "", // blank is unset, as in a .env file
      },
      stdio: ["ignore", "pipe", "pipe"],
    });
    let output = "";
    child.stdout.on("data", (chunk: Buffer) => (output += chunk.toString()));
    child.stderr.on("data", (chunk: Buffer) => (output += chunk.toString()));
    const timer = setTimeout(() => child.kill("SIGKILL"), 20_000);
    const code = await new Promise<number | null>((resolve) => child.once("exit", resolve));
    clearTimeout(timer);

    expect(code, output).toBe(1);
    const line = output.split("\n").find((l) => l.includes('"msg":"Invalid environment configuration"'));
    expect(line, output).toBeDefined();
    const { problems } = JSON.parse(line!) as { problems: string[] };
    expect(problems.join("\n")).toMatch(/^SMTP_URL: is required in production \(e\.g\. smtp:\/\/[^)]+\): .*emails/m);
    expect(output).not.toContain("Listening on");
  });
});

describe("development outbox", () => {
  let db: TestDatabase;
  let server: RunningServer;
  const written: string[] = [];

  beforeAll(async () => {
    db = await createTestDatabase();
    server = await startServer({ DATABASE_URL: db.url, AUTH_SECRET: SECRET, NODE_ENV: "development", SMTP_URL: "" });
  });
  afterAll(async () => {
    await server?.stop();
    await db?.drop();
    for (const file of written) rmSync(file, { force: true }); // the outbox lives in the working copy's data/
  });

  it("logs recipient, subject and file of a verification email, but never its link or token", async () => {
    const email = `outbox-${Date.now()}@example.com`;
    const res = await fetch(`${server.url}/api/auth/sign-up/email`, {
      method: "POST",
      body: JSON.stringify({ email, password: PASSWORD, name: "Outbox" }),
      headers: { "Content-Type": "application/json", Origin: server.url },
    });
    expect(res.status).toBe(200);

    let line: string | undefined;
    for (let i = 0; i < 100 && !line; i++) {
      line = server
        .stdout()
        .split("\n")
        .find((l) => l.includes('"msg":"[outbox]') && l.includes(email));
      if (!line) await new Promise((resolve) => setTimeout(resolve, 50));
    }
    expect(line, server.stdout()).toBeDefined();
    const file = /\((\/[^)]+\.eml)\)$/.exec((JSON.parse(line!) as { msg: string }).msg)?.[1];
    expect(file, line).toBeDefined();
    written.push(file!);
    expect(line).toContain("Verify your email address");

    // The file holds the link (quoted-printable: "=" is written "=3D"); the log holds none of it.
    const eml = readFileSync(file!, "utf8").replace(/=\r?\n/g, "");
    const token = /verify-email\?token=3D([\w.-]+)/.exec(eml)?.[1];
    expect(token, eml).toBeDefined();
    const output = server.stdout();
    expect(output).not.toContain(token!);
    expect(output).not.toContain("token=");
    expect(output).not.toContain("/verify-email");
  });
});
