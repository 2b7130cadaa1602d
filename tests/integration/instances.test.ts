/**
 * Two app instances on one PostgreSQL database, started at the same moment against an empty
 * database: both come up and the migration history is applied exactly once; rate limits are
 * counted once for both; a webhook delivered to both applies once. (Sessions and revocations
 * across instances, bans included, are in revocation-instances.test.ts.) PostgreSQL only
 * (TEST_DATABASE_URL): SQLite is one file of one process.
 */
import pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startStripeStandIn, type StripeStandIn } from "../support/stripe-stand-in";
import { makeTestClient, type TestClient } from "./helpers/auth-client";
import { createTestDatabase, type TestDatabase } from "./helpers/database";
import { createUser, signInWithPassword } from "./helpers/factories";
import { startServer, type RunningServer } from "./helpers/server";

const onPostgres = /^postgres(ql)?:/.test(process.env.TEST_DATABASE_URL ?? "");
const SECRET = "integration-test-secret-two-instances-0123456789";
const PRICES = {
  price_pro_monthly: { plan: "pro", interval: "month", amount: 1900 },
  price_pro_yearly: { plan: "pro", interval: "year", amount: 19000 },
  price_team_monthly: { plan: "team", interval: "month", amount: 4900 },
  price_team_yearly: { plan: "team", interval: "year", amount: 49000 },
} as const;

let db: TestDatabase;
let stripe: StripeStandIn;
let a: RunningServer;
let b: RunningServer;
let prisma: import("~/server/db.server").Database;

let clients = 0;
/**
 * A client of its own address: the servers trust one proxy (TRUST_PROXY=on), so each
 * simulated person has a rate-limit bucket of their own, as real users behind a load
 * balancer do.
 */
function client(server: RunningServer, address = `198.51.100.${++clients}`): TestClient & { address: string } {
  return Object.assign(makeTestClient(server.url, { headers: { "X-Forwarded-For": address } }), { address });
}

describe.skipIf(!onPostgres)("two instances on one PostgreSQL database", () => {
  beforeAll(async () => {
    db = await createTestDatabase(); // empty: not one table yet
    // No webhook URL: the stand-in records the events and the test delivers them itself.
    stripe = await startStripeStandIn({ secretKey: "sk_test_two", webhookSecret: "whsec_two", prices: PRICES });
    const env: Record<string, string> = {
      DATABASE_URL: db.url,
      AUTH_SECRET: SECRET,
      SMTP_URL: "smtp://127.0.0.1:9",
      RATE_LIMIT: "on",
      TRUST_PROXY: "on",
      PAYMENT_PROVIDER: "stripe",
      STRIPE_SECRET_KEY: "sk_test_two",
      STRIPE_WEBHOOK_SECRET: "whsec_two",
      STRIPE_API_BASE_URL: stripe.url,
    };
    for (const id of Object.keys(PRICES)) env[id.replace("price_", "STRIPE_PRICE_").toUpperCase()] = id;
    // The same moment: both run their migrator against the empty database together.
    [a, b] = await Promise.all([startServer(env), startServer(env)]);
    const { createDatabase } = await import("~/server/db.server");
    prisma = createDatabase(db.url);
  }, 120_000);

  afterAll(async () => {
    await prisma?.$disconnect();
    await Promise.all([a?.stop(), b?.stop()]);
    await stripe?.close();
    await db?.drop();
  });

  it("both start at once against an empty database, and the migrations are applied exactly once", async () => {
    const { MIGRATIONS_DIR, readMigrations } = await import("~/server/db/migrate.server");
    const onDisk = readMigrations(MIGRATIONS_DIR.postgresql);
    const admin = new pg.Client({ connectionString: db.url });
    await admin.connect();
    try {
      const { rows } = await admin.query<{ migration_name: string; checksum: string; finished_at: Date | null }>(
        "SELECT migration_name, checksum, finished_at FROM _prisma_migrations ORDER BY migration_name",
      );
      expect(rows.map((row) => [row.migration_name, row.checksum])).toEqual(onDisk.map((m) => [m.name, m.checksum]));
      expect(rows.every((row) => row.finished_at !== null)).toBe(true);
    } finally {
      await admin.end();
    }
    // One instance applied them; the other waited for its lock and found nothing left to do.
    const appliers = [a, b].filter((server) => /Applied \d+ migration\(s\)/.test(server.stdout()));
    expect(appliers).toHaveLength(1);
    expect(appliers[0]!.stdout()).toContain(`Applied ${onDisk.length} migration(s)`);
    for (const server of [a, b]) expect((await fetch(`${server.url}/healthz`)).status).toBe(200);
  });

  it("many migrators racing on another empty database apply each migration once", async () => {
    const fresh = await createTestDatabase();
    try {
      const { migrate } = await import("~/server/db/migrate.server");
      const results = await Promise.all(Array.from({ length: 6 }, () => migrate(fresh.url)));
      const applied = results.flat();
      expect(new Set(applied).size).toBe(applied.length);
      expect(results.filter((names) => names.length > 0)).toHaveLength(1);
      const admin = new pg.Client({ connectionString: fresh.url });
      await admin.connect();
      const { rows } = await admin.query<{ n: string }>("SELECT count(*) AS n FROM _prisma_migrations");
      await admin.end();
      expect(Number(rows[0]!.n)).toBe(applied.length);
    } finally {
      await fresh.drop();
    }
  });

  it("a session made on one instance is valid on the other", async () => {
    const user = await createUser({ db: prisma });
    const onA = client(a);
    await signInWithPassword(onA, user.email);
    const onB = client(b, onA.address);
    for (const [name, value] of onA.jar) onB.jar.set(name, value);
    expect((await onB.client.getSession()).data?.user.id).toBe(user.id);
  });

  it("shares rate limits: three sign-ins on A, the fourth on B is 429", async () => {
    const address = "203.0.113.77";
    const attempt = (server: RunningServer) =>
      fetch(`${server.url}/api/auth/sign-in/email`, {
        method: "POST",
        headers: { "Content-Type": "application/json", Origin: server.url, "X-Forwarded-For": address },
        body: JSON.stringify({ email: "nobody@example.com", password: "wrong password" }),
      });
    for (let i = 0; i < 3; i++) expect((await attempt(a)).status).toBe(401);
    const fourth = await attempt(b);
    expect(fourth.status).toBe(429);
    expect(Number(fourth.headers.get("X-Retry-After"))).toBeGreaterThan(0);
    // Another client is not affected, on either instance.
    const other = await fetch(`${b.url}/api/auth/sign-in/email`, {
      method: "POST",
      headers: { "Content-Type": "application/json", Origin: b.url, "X-Forwarded-For": "203.0.113.78" },
      body: JSON.stringify({ email: "nobody@example.com", password: "wrong password" }),
    });
    expect(other.status).toBe(401);
  });

  it("a Stripe webhook delivered to both instances at once applies once", async () => {
    const user = await createUser({ db: prisma });
    const c = client(a);
    await signInWithPassword(c, user.email);
    const checkout = await c.client.$fetch<{ url: string }>("/subscription/upgrade", {
      method: "POST",
      body: { plan: "pro", successUrl: "/billing", cancelUrl: "/pricing" },
    });
    expect(checkout.error).toBeNull();
    const paid = await fetch(checkout.data!.url, { method: "POST", redirect: "manual" });
    expect(paid.status).toBe(303);
    const created = stripe.webhooks.find((w) => w.type === "customer.subscription.created")!;
    expect(created.delivery.body).toContain(user.id);

    // Five deliveries to each instance, all at once (a provider retrying while a load
    // balancer spreads them): every one is acknowledged, one is applied.
    const deliver = (server: RunningServer) =>
      fetch(`${server.url}/api/auth/stripe/webhook`, {
        method: "POST",
        headers: created.delivery.headers,
        body: created.delivery.body,
      });
    const answers = await Promise.all([a, b, a, b, a, b, a, b, a, b].map(deliver));
    expect(answers.map((r) => r.status)).toEqual(Array(10).fill(200));

    const rows = await prisma.subscription.findMany({ where: { referenceId: user.id } });
    expect(rows).toHaveLength(1);
    expect(rows[0]).toMatchObject({ plan: "pro", status: "trialing", provider: "stripe" });
    expect(await prisma.webhookEvent.count({ where: { id: `stripe:${created.id}` } })).toBe(1);
    const audits = await prisma.auditLog.count({
      where: { category: "payment", action: "webhook", targetId: rows[0]!.providerSubscriptionId },
    });
    expect(audits).toBe(1);
    // Both instances show the plan at once.
    for (const server of [a, b]) {
      const same = client(server, c.address);
      for (const [name, value] of c.jar) same.jar.set(name, value);
      const { data } = await same.client.$fetch<{ subscriptions: { plan: string }[] }>("/get-session");
      expect(data?.subscriptions).toEqual([expect.objectContaining({ plan: "pro" })]);
    }
  });
});
