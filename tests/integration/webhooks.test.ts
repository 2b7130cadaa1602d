/**
 * Outgoing webhooks against the built server: an organization's events (members, invitations,
 * teams, SSO, SCIM) reach the endpoints that subscribed to them with the right type, each
 * delivery signed by the Standard Webhooks scheme and verified here with the
 * `standardwebhooks` library; a receiver that fails five times then recovers gets the event
 * exactly once more; an endpoint whose every retry failed is turned off and its
 * organization's owners and admins are emailed; hostnames resolving to private, loopback,
 * link-local and IPv6 loopback addresses are refused after DNS resolution (DNS stand-in);
 * and the pages work without JavaScript. The retry schedule is shortened by configuration
 * (six retries, one second apart). Runs on SQLite, or on PostgreSQL with TEST_DATABASE_URL.
 */
import { randomBytes } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startDnsStandIn, type DnsStandIn } from "../support/dns-stand-in";
import { startWebhookReceiver, type WebhookReceiver } from "../support/webhook-receiver";
import { startTestApp, type TestApp } from "./helpers/app";
import { makeTestClient, type TestClient } from "./helpers/auth-client";
import { browserFor } from "./helpers/browser";
import { eventually } from "./helpers/eventually";
import { createUser, signInInProcess, unique, uniqueEmail } from "./helpers/factories";
import { createConnection, generateToken } from "./helpers/scim";

const SECRET = "webhooks-test-secret-0123456789abcdefghijklmnop";
const RETRIES = 6;

let app: TestApp;
let receiver: WebhookReceiver;
let dns: DnsStandIn;

beforeAll(async () => {
  receiver = await startWebhookReceiver();
  dns = await startDnsStandIn();
  app = await startTestApp({
    secret: SECRET,
    env: {
      WEBHOOK_PRIVATE_ORIGINS: receiver.origin,
      DNS_SERVERS: dns.address,
      WEBHOOK_RETRY_LIMIT: String(RETRIES),
      WEBHOOK_RETRY_DELAY_SECONDS: "1",
      WEBHOOK_RETRY_BACKOFF: "off",
      JOB_POLL_INTERVAL_MS: "500",
    },
  });
}, 60_000);

afterAll(async () => {
  await app?.stop();
  await receiver?.close();
  await dns?.close();
});

const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

type Person = { id: string; email: string; who: TestClient; api: TestClient["client"]["organization"] };

async function person(name: string): Promise<Person> {
  const email = uniqueEmail(name);
  const { id } = await createUser({ email, name, password: null });
  const who = makeTestClient(app.base);
  await signInInProcess(who, id);
  return { id, email, who, api: who.client.organization };
}

/** An organization made by its owner through the API, with an admin and a plain member. */
async function organization() {
  const [owner, admin, member] = await Promise.all([person("owner"), person("admin"), person("member")]);
  const slug = unique("org");
  const created = await owner.api.create({ name: slug, slug });
  expect(created.error).toBeNull();
  const id = created.data!.id;
  await app.prisma.member.createMany({
    data: [
      { organizationId: id, userId: admin.id, role: "admin" },
      { organizationId: id, userId: member.id, role: "member" },
    ],
  });
  return { id, slug, owner, admin, member };
}

/** An endpoint of `organizationId` at the receiver's `path`, made in the database with a known secret. */
async function endpoint(
  organizationId: string,
  path: string,
  eventTypes: string[],
  options: { failures?: number; url?: string } = {},
) {
  const { encryptSecret } = await import("~/server/crypto.server");
  const secret = `whsec_${randomBytes(24).toString("base64")}`;
  const url = options.url ?? receiver.register(path, secret, { failures: options.failures });
  return app.prisma.webhookEndpoint.create({
    data: { organizationId, url, eventTypes: eventTypes.join(","), secret: encryptSecret(SECRET, secret) },
  });
}

describe("events", () => {
  it("of members, invitations and teams arrive with their type, each signed by the Standard Webhooks scheme", async () => {
    const org = await organization();
    const path = `/${unique("all")}`;
    await endpoint(org.id, path, [
      "member.added",
      "member.removed",
      "member.role_changed",
      "invitation.created",
      "invitation.accepted",
      "invitation.rejected",
      "invitation.canceled",
      "team.changed",
    ]);
    const [joiner, decliner] = await Promise.all([person("joiner"), person("decliner")]);
    const invited = await org.owner.api.inviteMember({ organizationId: org.id, email: joiner.email, role: "member" });
    expect(invited.error).toBeNull();
    expect((await joiner.api.acceptInvitation({ invitationId: invited.data!.id })).error).toBeNull();
    const joined = await app.prisma.member.findFirstOrThrow({ where: { organizationId: org.id, userId: joiner.id } });
    const changed = await org.owner.api.updateMemberRole({
      organizationId: org.id,
      memberId: joined.id,
      role: "admin",
    });
    expect(changed.error).toBeNull();
    expect((await org.owner.api.removeMember({ organizationId: org.id, memberIdOrEmail: joined.id })).error).toBeNull();
    const declined = await org.owner.api.inviteMember({
      organizationId: org.id,
      email: decliner.email,
      role: "member",
    });
    expect((await decliner.api.rejectInvitation({ invitationId: declined.data!.id })).error).toBeNull();
    const withdrawn = await org.owner.api.inviteMember({
      organizationId: org.id,
      email: uniqueEmail("x"),
      role: "member",
    });
    expect((await org.owner.api.cancelInvitation({ invitationId: withdrawn.data!.id })).error).toBeNull();
    expect((await org.owner.api.createTeam({ organizationId: org.id, name: unique("team") })).error).toBeNull();

    const expected = [
      "invitation.created",
      "invitation.accepted",
      "member.added",
      "member.role_changed",
      "member.removed",
      "invitation.rejected",
      "invitation.canceled",
      "team.changed",
    ];
    await eventually(() => expected.every((type) => receiver.at(path).some((delivery) => delivery.type === type)));
    const deliveries = receiver.at(path);
    expect(deliveries.every((delivery) => delivery.verified)).toBe(true);
    expect(deliveries.filter((d) => d.type === "invitation.created")).toHaveLength(3);
    // Each event once, with a message id of its own; the body names the organization and the action.
    expect(new Set(deliveries.map((delivery) => delivery.id)).size).toBe(deliveries.length);
    const roleChange = deliveries.find((delivery) => delivery.type === "member.role_changed")!;
    expect(roleChange.payload!.data).toMatchObject({
      organizationId: org.id,
      action: "update-member-role",
      actorId: org.owner.id,
    });
    // Each row is written once its answer is in.
    const stored = await eventually(async () => {
      const rows = await app.prisma.webhookDelivery.findMany({ where: { endpoint: { organizationId: org.id } } });
      return rows.length === deliveries.length && rows.every((row) => row.status === "succeeded") ? rows : null;
    });
    expect(stored.every((row) => row.attempts === 1 && row.lastResponseStatus === 200)).toBe(true);
  });

  it("of SSO and SCIM arrive as sso.changed and scim.changed, and only to endpoints that subscribed", async () => {
    const org = await organization();
    const ssoPath = `/${unique("sso")}`;
    const teamsPath = `/${unique("teams-only")}`;
    await endpoint(org.id, ssoPath, ["sso.changed", "scim.changed"]);
    await endpoint(org.id, teamsPath, ["team.changed"]);
    const provider = await createConnection(app.prisma, org.id, { [`${unique("corp")}.test`]: true });
    const generated = await generateToken(app.base, org.owner.id, {
      providerId: provider.providerId,
      organizationId: org.id,
    });
    expect(generated.status).toBe(201);
    const removed = await fetch(`${app.base}/api/auth/sso/delete-provider`, {
      method: "POST",
      headers: { "Content-Type": "application/json", Origin: app.base, Cookie: org.owner.who.cookieHeader() },
      body: JSON.stringify({ providerId: provider.providerId }),
    });
    expect(removed.status).toBe(200);
    await eventually(() =>
      ["scim.changed", "sso.changed"].every((type) => receiver.at(ssoPath).some((d) => d.type === type)),
    );
    expect(receiver.at(ssoPath).every((delivery) => delivery.verified)).toBe(true);
    // Nothing of these reached the endpoint that only wants team changes.
    expect(receiver.at(teamsPath)).toEqual([]);
  });

  it("are not sent to a turned-off endpoint", async () => {
    const org = await organization();
    const path = `/${unique("off")}`;
    const off = await endpoint(org.id, path, ["team.changed"]);
    await app.prisma.webhookEndpoint.update({
      where: { id: off.id },
      data: { enabled: false, disabledReason: "manual" },
    });
    const onPath = `/${unique("on")}`;
    await endpoint(org.id, onPath, ["team.changed"]);
    expect((await org.owner.api.createTeam({ organizationId: org.id, name: unique("team") })).error).toBeNull();
    await eventually(() => receiver.at(onPath).length === 1);
    expect(receiver.at(path)).toEqual([]);
  });
});

describe("retries", () => {
  it("a receiver that fails five times then recovers gets the event exactly once more", async () => {
    const org = await organization();
    const path = `/${unique("flaky")}`;
    const flaky = await endpoint(org.id, path, ["team.changed"], { failures: 5 });
    expect((await org.owner.api.createTeam({ organizationId: org.id, name: unique("team") })).error).toBeNull();
    await eventually(() => receiver.at(path).some((delivery) => delivery.status === 200), { timeoutMs: 30_000 });
    // Time for a wrongly scheduled extra attempt to arrive.
    await pause(3_000);
    const deliveries = receiver.at(path);
    expect(deliveries.map((delivery) => delivery.status)).toEqual([500, 500, 500, 500, 500, 200]);
    expect(deliveries.every((delivery) => delivery.verified)).toBe(true);
    // The same message each time (receivers dedupe on webhook-id), signed anew.
    expect(new Set(deliveries.map((delivery) => delivery.id)).size).toBe(1);
    const [row] = await app.prisma.webhookDelivery.findMany({ where: { endpointId: flaky.id } });
    expect(row).toMatchObject({ status: "succeeded", attempts: 6, lastResponseStatus: 200, lastResponseBody: "ok" });
  }, 60_000);

  it("an endpoint failing every retry is turned off and the organization's owners and admins are emailed", async () => {
    const org = await organization();
    const path = `/${unique("down")}`;
    const down = await endpoint(org.id, path, ["team.changed"], { failures: Infinity });
    expect((await org.owner.api.createTeam({ organizationId: org.id, name: unique("team") })).error).toBeNull();
    const [ownerMail, adminMail] = await Promise.all([
      app.mailbox.waitFor(org.owner.email, (mail) => mail.subject.includes("webhook"), 40_000),
      app.mailbox.waitFor(org.admin.email, (mail) => mail.subject.includes("webhook"), 40_000),
    ]);
    expect(ownerMail.text).toContain(down.url);
    expect(adminMail.text).toContain(`/organizations/${org.slug}/webhooks/${down.id}`);
    expect(receiver.at(path)).toHaveLength(RETRIES + 1);
    const endpointRow = await app.prisma.webhookEndpoint.findUniqueOrThrow({ where: { id: down.id } });
    expect(endpointRow).toMatchObject({ enabled: false, disabledReason: "failing" });
    const [row] = await app.prisma.webhookDelivery.findMany({ where: { endpointId: down.id } });
    expect(row).toMatchObject({
      status: "failed",
      attempts: RETRIES + 1,
      lastResponseStatus: 500,
      nextAttemptAt: null,
    });
    // The answer is kept truncated to 2 KB.
    expect(row!.lastResponseBody).toHaveLength(2048);
    // A plain member manages no webhooks and is not told.
    const memberMail = await app.mailbox.settled(org.member.email);
    expect(memberMail.filter((mail) => mail.subject.includes("webhook"))).toEqual([]);
    const audited = await app.prisma.auditLog.findFirst({
      where: { organizationId: org.id, action: "webhook-disabled" },
    });
    expect(audited).not.toBeNull();
  }, 60_000);
});

describe("SSRF", () => {
  it.each([
    ["10.0.0.7", "a private address"],
    ["127.0.0.1", "loopback"],
    ["169.254.169.254", "the link-local metadata address"],
    ["::1", "IPv6 loopback"],
  ])("a hostname resolving to %s (%s) is refused after DNS resolution", async (address) => {
    const org = await organization();
    const host = `${unique("hook")}.example.test`;
    dns.setAddresses(host, [address]);
    const refused = await endpoint(org.id, "", ["team.changed"], { url: `https://${host}/hook` });
    expect((await org.owner.api.createTeam({ organizationId: org.id, name: unique("team") })).error).toBeNull();
    const row = await eventually(() =>
      app.prisma.webhookDelivery.findFirst({ where: { endpointId: refused.id, attempts: { gte: 1 } } }),
    );
    expect(row.lastResponseStatus).toBeNull();
    expect(row.lastResponseBody).toMatch(/^private_host: /);
  });
});

describe("the mapping of audited actions to events", () => {
  it("covers subscriptions (the payment webhook, cancel, restore) and leaves other kinds out", async () => {
    const { eventTypesOf } = await import("~/server/webhooks/delivery.server");
    expect(eventTypesOf("payment", "webhook")).toEqual(["subscription.changed"]);
    expect(eventTypesOf("payment", "cancel-subscription")).toEqual(["subscription.changed"]);
    expect(eventTypesOf("payment", "restore-subscription")).toEqual(["subscription.changed"]);
    expect(eventTypesOf("payment", "checkout")).toEqual([]);
    expect(eventTypesOf("webhook", "create-webhook")).toEqual([]);
    expect(eventTypesOf("auth", "sign-in")).toEqual([]);
  });
});

describe("pages, without JavaScript", () => {
  const decode = (html: string) =>
    html
      .replace(/&amp;/g, "&")
      .replace(/&#x2F;/g, "/")
      .replace(/&quot;/g, '"');

  it("an owner registers an endpoint, sees its secret once, sends a test event and sees the delivery, replays it, turns it off and removes it", async () => {
    const org = await organization();
    const owner = await browserFor(app, { id: org.owner.id, email: org.owner.email, name: "owner" });
    const list = `/organizations/${org.slug}/webhooks`;
    expect(await owner.page(list)).toContain('data-section="new-endpoint"');
    const path = `/${unique("page")}`;
    const url = `${receiver.origin}${path}`;
    // One ticked box is one value: the form still reads it as a list.
    const created = await owner.post(list, { intent: "create-webhook", url, eventTypes: "team.changed" });
    expect(created.status).toBe(200);
    const html = await created.text();
    const secret = /value="(whsec_[^"]+)"/.exec(decode(html))?.[1];
    expect(secret).toMatch(/^whsec_[A-Za-z0-9+/]+=*$/);
    const row = await app.prisma.webhookEndpoint.findFirstOrThrow({ where: { organizationId: org.id } });
    expect(row).toMatchObject({ url, eventTypes: "team.changed", enabled: true, locale: "en" });
    // Kept encrypted, and never shown again.
    expect(row.secret).not.toContain(secret!);
    expect(await owner.page(list)).not.toContain(secret!);
    receiver.register(path, secret!);

    const endpointPage = `${list}/${row.id}`;
    const test = await owner.post(endpointPage, { intent: "send-test" });
    expect(test.status).toBe(302);
    // The row is written once the receiver's answer is in: wait for it, not for the receiver.
    await eventually(() =>
      app.prisma.webhookDelivery.findFirst({ where: { endpointId: row.id, status: "succeeded" } }),
    );
    expect(receiver.at(path).map((delivery) => [delivery.type, delivery.status])).toEqual([["webhook.test", 200]]);

    expect(receiver.at(path).every((delivery) => delivery.verified)).toBe(true);
    const shown = await owner.page(endpointPage);
    expect(shown).toContain('data-status="succeeded"');
    expect(shown).toMatch(/data-testid="delivery-response">200</);
    const delivery = await app.prisma.webhookDelivery.findFirstOrThrow({ where: { endpointId: row.id } });

    expect((await owner.post(endpointPage, { intent: "replay", deliveryId: delivery.id })).status).toBe(302);
    await eventually(() => receiver.at(path).filter((received) => received.id === delivery.eventId).length === 2);

    expect((await owner.post(endpointPage, { intent: "set-enabled", enabled: "false" })).status).toBe(302);
    expect(await app.prisma.webhookEndpoint.findUniqueOrThrow({ where: { id: row.id } })).toMatchObject({
      enabled: false,
      disabledReason: "manual",
    });
    // A turned-off endpoint gets no test event: the refusal, in the page's language.
    const refused = await owner.post(`/fr${endpointPage}`, { intent: "send-test" });
    expect(refused.status).toBe(409);
    expect(await refused.text()).toContain("Ce point de terminaison de webhook est désactivé");

    const removed = await owner.post(`${endpointPage}/remove`, { intent: "delete-webhook" });
    expect(removed.status).toBe(302);
    expect(removed.headers.get("location")).toBe(list);
    expect(await app.prisma.webhookEndpoint.count({ where: { id: row.id } })).toBe(0);
    const actions = await app.prisma.auditLog.findMany({ where: { organizationId: org.id, category: "webhook" } });
    expect(actions.map((entry) => entry.action).sort()).toEqual(
      ["create-webhook", "delete-webhook", "disable-webhook", "replay-webhook-delivery", "test-webhook"].sort(),
    );
  }, 40_000);

  it.each([
    ["http://hooks.example.com/", "not https"],
    ["https://10.0.0.1/hook", "a private address"],
    ["https://127.0.0.1/hook", "loopback"],
    ["https://[::1]/hook", "IPv6 loopback"],
    ["https://169.254.169.254/latest", "link-local"],
    ["https://localhost/hook", "localhost"],
    ["https://user:pass@hooks.example.com/", "credentials"],
  ])("refuses %s (%s) next to the field, in the page's language", async (url) => {
    const org = await organization();
    const owner = await browserFor(app, { id: org.owner.id, email: org.owner.email, name: "owner" });
    const response = await owner.post(`/fr/organizations/${org.slug}/webhooks`, {
      intent: "create-webhook",
      url,
      eventTypes: "team.changed",
    });
    expect(response.status).toBe(400);
    const html = await response.text();
    expect(html).toMatch(/Saisissez une (adresse https publique|adresse complète)/);
    expect(await app.prisma.webhookEndpoint.count({ where: { organizationId: org.id } })).toBe(0);
  });

  it("asks for at least one event type", async () => {
    const org = await organization();
    const owner = await browserFor(app, { id: org.owner.id, email: org.owner.email, name: "owner" });
    const response = await owner.post(`/ja/organizations/${org.slug}/webhooks`, {
      intent: "create-webhook",
      url: "https://hooks.example.com/",
    });
    expect(response.status).toBe(400);
    expect(await response.text()).toContain("イベントを 1 つ以上選んでください");
  });

  it("are not found by a plain member or an outsider, and another organization's endpoint is not found", async () => {
    const [org, other] = await Promise.all([organization(), organization()]);
    const foreign = await endpoint(other.id, `/${unique("foreign")}`, ["team.changed"]);
    const member = await browserFor(app, { id: org.member.id, email: org.member.email, name: "member" });
    const outsider = await browserFor(app, { id: other.member.id, email: other.member.email, name: "outsider" });
    const owner = await browserFor(app, { id: org.owner.id, email: org.owner.email, name: "owner" });
    const list = `/organizations/${org.slug}/webhooks`;
    expect((await member.get(list)).status).toBe(404);
    expect((await outsider.get(list)).status).toBe(404);
    expect(
      (await member.post(list, { intent: "create-webhook", url: "https://a.example/", eventTypes: "team.changed" }))
        .status,
    ).toBe(404);
    expect((await owner.get(`${list}/${foreign.id}`)).status).toBe(404);
    expect((await owner.post(`${list}/${foreign.id}`, { intent: "send-test" })).status).toBe(404);
    expect((await owner.post(`${list}/${foreign.id}/remove`, { intent: "delete-webhook" })).status).toBe(404);
    expect(await app.prisma.webhookEndpoint.count({ where: { id: foreign.id } })).toBe(1);
    // The tab shows for owners, not for plain members.
    expect(await owner.page(`/organizations/${org.slug}`)).toContain(`${list}"`);
    expect(await member.page(`/organizations/${org.slug}`)).not.toContain(`${list}"`);
  });
});
