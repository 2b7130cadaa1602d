/**
 * The development server (`npm run dev`, Vite with hot reload) runs what the production
 * server runs beside its requests: an organization's events reach its webhooks, and mail goes
 * out through the job queue. Neither has a start of its own there (server.ts is not used), so
 * this starts the real dev server on a migrated database and watches both leave it.
 * Runs on SQLite, or on PostgreSQL with TEST_DATABASE_URL.
 */
import { spawn, type ChildProcess } from "node:child_process";
import { randomBytes } from "node:crypto";
import { join } from "node:path";
import { afterAll, beforeAll, expect, it } from "vitest";
import { startWebhookReceiver, type WebhookReceiver } from "../support/webhook-receiver";
import { makeTestClient } from "./helpers/auth-client";
import { createTestDatabase, type TestDatabase } from "./helpers/database";
import { createUser, signInInProcess, unique, uniqueEmail } from "./helpers/factories";
import { eventually } from "./helpers/eventually";
import { startMailbox, type Mailbox } from "./helpers/mailbox";
import { assertNoSecrets, noteSecret } from "./helpers/secrets";
import { freePort, ROOT } from "./helpers/server";

const SECRET = "dev-server-test-secret-0123456789abcdefghijklmnop";

let db: TestDatabase;
let mailbox: Mailbox;
let receiver: WebhookReceiver;
let dev: ChildProcess;
let output = "";
let base: string;
let prisma: typeof import("~/server/db.server").prisma;

beforeAll(async () => {
  db = await createTestDatabase();
  // The development server does not migrate: `npm start` does, once, before it.
  const { migrate } = await import("~/server/db/migrate.server");
  await migrate(db.url);
  mailbox = await startMailbox();
  receiver = await startWebhookReceiver();
  const port = await freePort();
  base = `http://127.0.0.1:${port}`;
  noteSecret("AUTH_SECRET", SECRET);
  dev = spawn(
    process.execPath,
    [
      join(ROOT, "node_modules/@react-router/dev/bin.js"),
      "dev",
      "--host",
      "127.0.0.1",
      "--port",
      String(port),
      "--strictPort",
    ],
    {
      cwd: ROOT,
      env: {
        // Not this process's VITEST marker: the Vite config leaves the app's plugins out under Vitest.
        ...Object.fromEntries(Object.entries(process.env).filter(([name]) => !name.startsWith("VITEST"))),
        NODE_ENV: "development",
        BASE_URL: base,
        DATABASE_URL: db.url,
        AUTH_SECRET: SECRET,
        SMTP_URL: mailbox.url,
        RATE_LIMIT: "off",
        WEBHOOK_PRIVATE_ORIGINS: receiver.origin,
        JOB_POLL_INTERVAL_MS: "500",
      },
      stdio: ["ignore", "pipe", "pipe"],
    },
  );
  dev.stdout!.on("data", (chunk: Buffer) => (output += chunk.toString()));
  dev.stderr!.on("data", (chunk: Buffer) => (output += chunk.toString()));
  // The first page loads the server's entry module, which starts the background work.
  await whileRunning(
    () =>
      fetch(`${base}/`).then(
        (response) => response.ok,
        () => false,
      ),
    90_000,
  );
  Object.assign(process.env, { DATABASE_URL: db.url, AUTH_SECRET: SECRET, BASE_URL: base, SMTP_URL: mailbox.url });
  ({ prisma } = await import("~/server/db.server"));
}, 120_000);

afterAll(async () => {
  if (dev && dev.exitCode === null) {
    const exited = new Promise((resolve) => dev.once("exit", resolve));
    dev.kill("SIGTERM");
    await exited;
  }
  const { closeDatabase } = await import("~/server/db.server");
  await closeDatabase();
  await mailbox?.close();
  await receiver?.close();
  await db?.drop();
  assertNoSecrets(output, base);
});

/** Polls `check` like `eventually`, giving up at once if the dev server stopped; a failure carries its output. */
const whileRunning = <T>(check: () => T | Promise<T>, timeoutMs?: number) =>
  eventually(check, { timeoutMs, stopped: () => (dev.exitCode === null ? null : "The dev server stopped") }).catch(
    (error: Error) => {
      throw new Error(`${error.message}; the dev server wrote:\n${output}`);
    },
  );

it("delivers an organization's events to its webhooks and sends its invitations", async () => {
  const { id: ownerId } = await createUser({ email: uniqueEmail("owner"), name: "Owner", password: null });
  const owner = makeTestClient(base);
  await signInInProcess(owner, ownerId);
  const slug = unique("org");
  const created = await owner.client.organization.create({ name: slug, slug });
  expect(created.error).toBeNull();
  const organizationId = created.data!.id;

  const { encryptSecret } = await import("~/server/crypto.server");
  const signing = `whsec_${randomBytes(24).toString("base64")}`;
  const path = `/${unique("dev")}`;
  await prisma.webhookEndpoint.create({
    data: {
      organizationId,
      url: receiver.register(path, signing),
      eventTypes: "team.changed,invitation.created",
      secret: encryptSecret(SECRET, signing),
    },
  });

  const invitee = uniqueEmail("invitee");
  const invited = await owner.client.organization.inviteMember({ organizationId, email: invitee, role: "member" });
  expect(invited.error).toBeNull();
  expect((await owner.client.organization.createTeam({ organizationId, name: unique("team") })).error).toBeNull();

  await whileRunning(() => receiver.at(path).length >= 2);
  const deliveries = receiver.at(path);
  expect(deliveries.map((delivery) => delivery.type).sort()).toEqual(["invitation.created", "team.changed"]);
  expect(deliveries.every((delivery) => delivery.verified)).toBe(true);
  const invitation = await mailbox.waitFor(invitee);
  expect(invitation.subject).toContain(slug);
  // Each event once: nothing else arrives after them.
  await new Promise((resolve) => setTimeout(resolve, 1_000));
  expect(receiver.at(path)).toHaveLength(2);
});
