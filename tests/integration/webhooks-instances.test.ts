/**
 * Two app instances on one PostgreSQL database, both running the job queue's workers (pg-boss:
 * SKIP LOCKED hands each job to one worker): events made through either instance reach the
 * receiver once each, retries included (every delivery fails once first). PostgreSQL only
 * (TEST_DATABASE_URL); on SQLite one process owns its file (webhooks.test.ts).
 */
import { randomBytes } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startWebhookReceiver, type WebhookReceiver } from "../support/webhook-receiver";
import { makeTestClient } from "./helpers/auth-client";
import { createTestDatabase, type TestDatabase } from "./helpers/database";
import { createUser, signInInProcess, unique } from "./helpers/factories";
import { startServer, type RunningServer } from "./helpers/server";

const onPostgres = /^postgres(ql)?:/.test(process.env.TEST_DATABASE_URL ?? "");
const SECRET = "integration-test-secret-webhook-instances-012345";
const EVENTS = 20;

let db: TestDatabase;
let a: RunningServer;
let b: RunningServer;
let receiver: WebhookReceiver;
let prisma: import("~/server/db.server").Database;

describe.skipIf(!onPostgres)("webhook deliveries across two instances (PostgreSQL)", () => {
  beforeAll(async () => {
    db = await createTestDatabase();
    receiver = await startWebhookReceiver();
    const env = {
      DATABASE_URL: db.url,
      AUTH_SECRET: SECRET,
      SMTP_URL: "smtp://127.0.0.1:9",
      WEBHOOK_PRIVATE_ORIGINS: receiver.origin,
      WEBHOOK_RETRY_LIMIT: "3",
      WEBHOOK_RETRY_DELAY_SECONDS: "1",
      WEBHOOK_RETRY_BACKOFF: "off",
      JOB_POLL_INTERVAL_MS: "500",
    };
    // One after the other: both migrate the queue's schema at start, under pg-boss's own lock.
    a = await startServer(env);
    b = await startServer(env);
    Object.assign(process.env, { DATABASE_URL: db.url, AUTH_SECRET: SECRET, BASE_URL: a.url });
    const { createDatabase } = await import("~/server/db.server");
    prisma = createDatabase(db.url);
  }, 120_000);

  afterAll(async () => {
    await Promise.all([a?.stop(), b?.stop()]);
    await prisma?.$disconnect();
    await receiver?.close();
    await db?.drop();
  });

  it("each event is delivered once, retries included", async () => {
    const owner = await createUser({ db: prisma });
    const slug = unique("org");
    const organization = await prisma.organization.create({
      data: { name: slug, slug, members: { create: [{ userId: owner.id, role: "owner" }] } },
    });
    const { encryptSecret } = await import("~/server/crypto.server");
    const secret = `whsec_${randomBytes(24).toString("base64")}`;
    const path = `/${unique("twice")}`;
    const url = receiver.register(path, secret);
    await prisma.webhookEndpoint.create({
      data: { organizationId: organization.id, url, eventTypes: "team.changed", secret: encryptSecret(SECRET, secret) },
    });
    // Each message fails once, so every event is also retried through the queue.
    const failedOnce = new Set<string>();
    receiver.onDelivery = (delivery) => {
      if (failedOnce.has(delivery.id)) return 200;
      failedOnce.add(delivery.id);
      return 500;
    };
    const clients = await Promise.all(
      [a, b].map(async (server) => {
        const client = makeTestClient(server.url);
        await signInInProcess(client, owner.id);
        return client.client.organization;
      }),
    );
    for (let index = 0; index < EVENTS; index++) {
      const created = await clients[index % 2]!.createTeam({ organizationId: organization.id, name: unique("team") });
      expect(created.error).toBeNull();
    }
    const deadline = Date.now() + 60_000;
    while (receiver.at(path).filter((delivery) => delivery.status === 200).length < EVENTS && Date.now() < deadline) {
      await new Promise((resolve) => setTimeout(resolve, 250));
    }
    // Time for a duplicate to arrive, were there one.
    await new Promise((resolve) => setTimeout(resolve, 3_000));
    const deliveries = receiver.at(path);
    expect(deliveries.every((delivery) => delivery.verified)).toBe(true);
    const ids = new Set(deliveries.map((delivery) => delivery.id));
    expect(ids.size).toBe(EVENTS);
    for (const id of ids) {
      expect(deliveries.filter((delivery) => delivery.id === id).map((delivery) => delivery.status)).toEqual([
        500, 200,
      ]);
    }
    const rows = await prisma.webhookDelivery.findMany({ where: { endpoint: { organizationId: organization.id } } });
    expect(rows).toHaveLength(EVENTS);
    expect(rows.every((row) => row.status === "succeeded" && row.attempts === 2)).toBe(true);
  }, 120_000);
});
