/**
 * API keys over /api/auth/api-key, driven by the official better-auth client with
 * @better-auth/api-key's client plugin against the built server (api-contract.md section 8):
 * create (the key shown once, only its hash stored, `start` kept), list, get, update, delete;
 * the server-only properties refused from a client; another user's key is not there; an
 * organization's keys for its owners and admins only; requests with `x-api-key` act as the
 * key's owner, with exactly the key's permissions, and a disabled, expired, deleted or unknown
 * key is refused with the contract's code at once, on a second instance too; the per-key rate
 * limit and the budget (with its refill) are counted in the database, also under concurrent
 * requests; a key cannot manage keys or delete its account. Runs on SQLite, or on PostgreSQL
 * with TEST_DATABASE_URL.
 */
import { createHash } from "node:crypto";
import { createAuthClient } from "better-auth/client";
import { organizationClient } from "better-auth/client/plugins";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { RequestMeta } from "~/server/auth/session.server";
import { apiKeyClient } from "../support/api-key-client";
import { startTestApp, type TestApp } from "./helpers/app";
import { applySetCookies } from "./helpers/auth-client";
import { browserFor, signedInBrowser, type SignedInBrowser } from "./helpers/browser";
import { createUser, sessionFor, signInInProcess, unique, uniqueEmail } from "./helpers/factories";
import { startServer, type RunningServer } from "./helpers/server";
import { noteSecret } from "./helpers/secrets";

const SECRET = "api-keys-test-secret-0123456789abcdefghijklm";
const meta: RequestMeta = { ipAddress: null, userAgent: null, locale: "en" };

let app: TestApp;

beforeAll(async () => {
  app = await startTestApp({ secret: SECRET });
}, 60_000);

afterAll(async () => {
  await app?.stop();
});

type Failure = { status: number; code?: string; message?: string };
type Reply<T = Record<string, unknown>> = Promise<{ data: T | null; error: Failure | null }>;

interface KeyRecord {
  id: string;
  name: string | null;
  start: string | null;
  prefix: string | null;
  enabled: boolean;
  expiresAt: Date | null;
  referenceId: string;
  configId: string;
  permissions: Record<string, string[]> | null;
  remaining: number | null;
  rateLimitMax: number | null;
  createdAt: Date;
  lastRequest: Date | null;
  key?: string;
}

/** The api-key routes as the proxy client exposes them (the plugin carries no server types). */
interface ApiKeyApi {
  create(body: Record<string, unknown>): Reply<KeyRecord & { key: string }>;
  list(options?: { query: Record<string, unknown> }): Reply<{ apiKeys: KeyRecord[]; total: number }>;
  get(options: { query: { id: string; configId?: string } }): Reply<KeyRecord>;
  update(body: Record<string, unknown>): Reply<KeyRecord>;
  delete(body: { keyId: string; configId?: string }): Reply<{ success: boolean }>;
}

type Client = ReturnType<typeof clientWith>;

/** The official client with the api-key and organization plugins; `headers` add e.g. x-api-key. */
function clientWith(base: string, jar: Map<string, string>, headers: Record<string, string> = {}) {
  return createAuthClient({
    baseURL: base,
    plugins: [apiKeyClient(), organizationClient({ teams: { enabled: true } })],
    fetchOptions: {
      headers: { origin: base, ...headers },
      onRequest(ctx) {
        if (jar.size) ctx.headers.set("cookie", [...jar].map(([k, v]) => `${k}=${v}`).join("; "));
      },
      onResponse(ctx) {
        applySetCookies(jar, ctx.response.headers.getSetCookie());
      },
    },
  });
}

const keysOf = (client: Client) => (client as unknown as { apiKey: ApiKeyApi }).apiKey;

type Person = { id: string; email: string; client: Client; keys: ApiKeyApi };

async function person(name: string): Promise<Person> {
  const { id, email } = await createUser({ email: uniqueEmail(name), name, password: null });
  const jar = new Map<string, string>();
  await signInInProcess({ jar }, id);
  const client = clientWith(app.base, jar);
  return { id, email, client, keys: keysOf(client) };
}

/** A client that sends only the key: no cookies at all. */
function withKey(key: string, base = app.base) {
  noteSecret("an API key", key);
  const client = clientWith(base, new Map(), { "x-api-key": key });
  return { client, keys: keysOf(client) };
}

/** The session a key gets from get-session, or the refusal. */
async function sessionWith(key: string, base = app.base) {
  noteSecret("an API key", key);
  const response = await fetch(`${base}/api/auth/get-session`, { headers: { "x-api-key": key } });
  return { status: response.status, body: (await response.json()) as Record<string, unknown> | null };
}

async function organization() {
  const [owner, admin, member, outsider] = await Promise.all([
    person("owner"),
    person("admin"),
    person("member"),
    person("outsider"),
  ]);
  const created = await app.prisma.organization.create({
    data: {
      name: "Acme",
      slug: unique("keys-org"),
      members: {
        create: [
          { userId: owner.id, role: "owner" },
          { userId: admin.id, role: "admin" },
          { userId: member.id, role: "member" },
        ],
      },
    },
  });
  return { id: created.id, owner, admin, member, outsider };
}

/** A key made on the server, with what only the server sets (the pages' way). */
async function serverKey(userId: string, server: Record<string, unknown>, input: Record<string, unknown> = {}) {
  const { createApiKey } = await import("~/server/organization/api-keys.server");
  return createApiKey(await sessionFor(userId), { name: "server", ...input }, meta, server);
}

describe("POST /api-key/create", () => {
  it("shows the key once, stores only its hash, and the key acts as its owner on get-session", async () => {
    const alice = await person("alice");
    const { data, error } = await alice.keys.create({ name: "ci", expiresIn: 60 * 60 * 24 * 7 });
    expect(error).toBeNull();
    expect(data!.key).toMatch(/^[A-Za-z]{64}$/);
    expect(data).toMatchObject({
      name: "ci",
      start: data!.key.slice(0, 6),
      enabled: true,
      referenceId: alice.id,
      configId: "default",
      permissions: null,
      remaining: null,
      rateLimitMax: 10,
    });
    expect(data).not.toHaveProperty("keyHash");
    expect(data!.expiresAt!.getTime()).toBeGreaterThan(Date.now() + 6 * 24 * 3600 * 1000);

    const row = await app.prisma.apiKey.findUniqueOrThrow({ where: { id: data!.id } });
    expect(row.keyHash).toBe(createHash("sha256").update(data!.key).digest("hex"));
    expect(JSON.stringify(row)).not.toContain(data!.key);

    const { status, body } = await sessionWith(data!.key);
    expect(status).toBe(200);
    expect((body!.user as { id: string }).id).toBe(alice.id);
    expect((await alice.keys.get({ query: { id: data!.id } })).data?.lastRequest).toBeInstanceOf(Date);
    expect(
      await app.prisma.auditLog.count({ where: { category: "api-key", action: "create-api-key" } }),
    ).toBeGreaterThan(0);
  });

  it("takes a prefix, and no key is ever shown again", async () => {
    const alice = await person("alice");
    const { data } = await alice.keys.create({ name: "prefixed", prefix: "acme_" });
    expect(data!.key.startsWith("acme_")).toBe(true);
    expect(data!.start).toBe("acme_" + data!.key[5]);
    const listed = await alice.keys.list();
    expect(listed.data!.total).toBe(1);
    expect(listed.data!.apiKeys[0]).not.toHaveProperty("key");
    expect((await alice.keys.get({ query: { id: data!.id } })).data).not.toHaveProperty("key");
  });

  it.each([
    ["permissions", { organization: ["delete"] }],
    ["remaining", 100],
    ["refillAmount", 10],
    ["refillInterval", 1000],
    ["rateLimitMax", 1000],
    ["rateLimitTimeWindow", 1],
    ["rateLimitEnabled", false],
  ])("refuses %s from a client: 400 SERVER_ONLY_PROPERTY", async (field, value) => {
    const alice = await person("alice");
    const { error } = await alice.keys.create({ name: "x", [field]: value });
    expect(error).toMatchObject({ status: 400, code: "SERVER_ONLY_PROPERTY" });
    expect(await app.prisma.apiKey.count({ where: { userId: alice.id } })).toBe(0);
    const { data } = await alice.keys.create({ name: "x" });
    const update = await alice.keys.update({ keyId: data!.id, [field]: value });
    expect(update.error).toMatchObject({ status: 400, code: "SERVER_ONLY_PROPERTY" });
  });

  it("checks names and expiry as better-auth does", async () => {
    const alice = await person("alice");
    expect((await alice.keys.create({ name: "x".repeat(33) })).error).toMatchObject({
      status: 400,
      code: "INVALID_NAME_LENGTH",
    });
    expect((await alice.keys.create({ expiresIn: 366 * 24 * 3600 })).error).toMatchObject({
      status: 400,
      code: "EXPIRES_IN_IS_TOO_LARGE",
    });
    expect((await alice.keys.create({ expiresIn: -1 })).error).toMatchObject({
      status: 400,
      code: "EXPIRES_IN_IS_TOO_SMALL",
    });
  });
});

describe("every endpoint needs a session", () => {
  it("answers 401 without one", async () => {
    const anonymous = keysOf(clientWith(app.base, new Map()));
    for (const reply of [
      await anonymous.create({ name: "x" }),
      await anonymous.list(),
      await anonymous.get({ query: { id: "x" } }),
      await anonymous.update({ keyId: "x", name: "y" }),
      await anonymous.delete({ keyId: "x" }),
    ]) {
      expect(reply.error?.status).toBe(401);
    }
  });

  it("does not route /api-key/verify (server only)", async () => {
    const response = await fetch(`${app.base}/api/auth/api-key/verify`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ key: "x" }),
    });
    expect(response.status).toBe(404);
  });
});

describe("another user's key", () => {
  it("is not there: 404 on get, update and delete, and missing from the list", async () => {
    const [alice, mallory] = await Promise.all([person("alice"), person("mallory")]);
    const { data } = await alice.keys.create({ name: "mine" });
    expect((await mallory.keys.get({ query: { id: data!.id } })).error).toMatchObject({
      status: 404,
      code: "KEY_NOT_FOUND",
    });
    expect((await mallory.keys.update({ keyId: data!.id, enabled: false })).error?.status).toBe(404);
    expect((await mallory.keys.delete({ keyId: data!.id })).error?.status).toBe(404);
    expect((await mallory.keys.list()).data!.total).toBe(0);
    expect((await sessionWith(data!.key)).status).toBe(200);
  });
});

describe("refused keys", () => {
  it("disabled: 401 KEY_DISABLED at once, and working again once enabled", async () => {
    const alice = await person("alice");
    const { data } = await alice.keys.create({ name: "ci" });
    const renamed = await alice.keys.update({ keyId: data!.id, name: "renamed", enabled: false });
    expect(renamed.data).toMatchObject({ name: "renamed", enabled: false });
    expect(await sessionWith(data!.key)).toMatchObject({ status: 401, body: { code: "KEY_DISABLED" } });
    await alice.keys.update({ keyId: data!.id, enabled: true });
    expect((await sessionWith(data!.key)).status).toBe(200);
  });

  it("expired: 401 KEY_EXPIRED", async () => {
    const alice = await person("alice");
    const { data } = await alice.keys.create({ name: "soon", expiresIn: 1 });
    await new Promise((resolve) => setTimeout(resolve, 1100));
    expect(await sessionWith(data!.key)).toMatchObject({ status: 401, body: { code: "KEY_EXPIRED" } });
  });

  it("deleted or unknown: 401 INVALID_API_KEY, on every route", async () => {
    const alice = await person("alice");
    const { data } = await alice.keys.create({ name: "gone" });
    expect((await alice.keys.delete({ keyId: data!.id })).data).toEqual({ success: true });
    expect(await sessionWith(data!.key)).toMatchObject({ status: 401, body: { code: "INVALID_API_KEY" } });
    expect(await sessionWith("x".repeat(64))).toMatchObject({ status: 401, body: { code: "INVALID_API_KEY" } });
    const organizations = await withKey(data!.key).client.organization.list();
    expect(organizations.error).toMatchObject({ status: 401, code: "INVALID_API_KEY" });
  });

  it("a key wins over a session cookie sent with it: a bad key is refused even then", async () => {
    const alice = await person("alice");
    const jar = new Map<string, string>();
    await signInInProcess({ jar }, alice.id);
    const client = clientWith(app.base, jar, { "x-api-key": "y".repeat(64) });
    expect((await client.getSession()).error).toMatchObject({ status: 401, code: "INVALID_API_KEY" });
  });
});

describe("what a key may not do", () => {
  it("manage keys or end, change or delete its account: 403 API_KEY_NOT_ALLOWED", async () => {
    const alice = await person("alice");
    const { data } = await alice.keys.create({ name: "ci" });
    const keyed = withKey(data!.key);
    expect((await keyed.keys.create({ name: "minted" })).error).toMatchObject({
      status: 403,
      code: "API_KEY_NOT_ALLOWED",
    });
    expect((await keyed.keys.update({ keyId: data!.id, enabled: true })).error?.code).toBe("API_KEY_NOT_ALLOWED");
    expect((await keyed.keys.list()).error?.code).toBe("API_KEY_NOT_ALLOWED");
    expect((await keyed.client.deleteUser({})).error?.code).toBe("API_KEY_NOT_ALLOWED");
    expect((await keyed.client.revokeSessions()).error?.code).toBe("API_KEY_NOT_ALLOWED");
    // Nor read or renew the tokens of the account's linked providers.
    await app.prisma.account.create({
      data: { userId: alice.id, providerId: "github", accountId: `gh-${alice.id}`, scope: "read:user" },
    });
    const refused = [
      await keyed.client.$fetch("/get-access-token", { method: "POST", body: { providerId: "github" } }),
      await keyed.client.$fetch("/refresh-token", { method: "POST", body: { providerId: "github" } }),
      await keyed.client.$fetch(`/account-info?accountId=gh-${alice.id}`, { method: "GET" }),
    ];
    for (const answer of refused) expect(answer.error).toMatchObject({ status: 403, code: "API_KEY_NOT_ALLOWED" });
    expect(await app.prisma.user.count({ where: { id: alice.id } })).toBe(1);
    expect(await app.prisma.apiKey.count({ where: { userId: alice.id } })).toBe(1);
  });

  it("read any page: 403 API_KEY_NOT_ALLOWED before the key is even read", async () => {
    const org = await organization();
    const other = await organization();
    await app.prisma.member.create({ data: { organizationId: other.id, userId: org.admin.id, role: "admin" } });
    await app.prisma.user.update({ where: { id: org.admin.id }, data: { role: "admin" } });
    const { slug } = await app.prisma.organization.findUniqueOrThrow({ where: { id: other.id } });
    const personal = await serverKey(org.admin.id, { rateLimit: null });
    const organizationKey = await serverKey(
      org.admin.id,
      { rateLimit: null, remaining: 1 },
      { configId: "org", organizationId: org.id },
    );
    const pages = [
      "/admin/users",
      "/admin/maintenance/audit-log.csv",
      `/organizations/${slug}/members`,
      `/organizations/${slug}/audit-log.csv`,
      "/profile/data.json",
      "/dashboard",
    ];
    for (const { key } of [personal, organizationKey]) {
      noteSecret("an API key", key);
      for (const path of pages) {
        const response = await fetch(`${app.base}${path}`, { headers: { "x-api-key": key } });
        expect({ path, status: response.status }).toEqual({ path, status: 403 });
        expect(await response.json()).toMatchObject({ code: "API_KEY_NOT_ALLOWED" });
      }
    }
    // Refused before it was read: the organization key's single request is still there to spend.
    expect((await sessionWith(organizationKey.key)).status).toBe(200);
    expect((await sessionWith(organizationKey.key)).body).toMatchObject({ code: "USAGE_EXCEEDED" });
  });

  it("submit the product's forms", async () => {
    const alice = await person("alice");
    const { data } = await alice.keys.create({ name: "ci" });
    const response = await fetch(`${app.base}/profile?index`, {
      method: "POST",
      headers: { "x-api-key": data!.key, "content-type": "application/x-www-form-urlencoded", origin: app.base },
      body: new URLSearchParams({ name: "Changed by a key" }),
    });
    expect(response.status).toBe(403);
    expect((await app.prisma.user.findUniqueOrThrow({ where: { id: alice.id } })).name).toBe("alice");
  });
});

describe("organization keys (configId org)", () => {
  it("owners and admins create, list and manage them; a plain member and an outsider are refused", async () => {
    const org = await organization();
    const created = await org.owner.keys.create({ name: "deploy", configId: "org", organizationId: org.id });
    expect(created.error).toBeNull();
    expect(created.data).toMatchObject({ configId: "org", referenceId: org.id });

    const listed = await org.admin.keys.list({ query: { configId: "org", organizationId: org.id } });
    expect(listed.data!.apiKeys.map((key) => key.id)).toEqual([created.data!.id]);
    expect((await org.admin.keys.update({ keyId: created.data!.id, name: "renamed" })).data?.name).toBe("renamed");

    expect((await org.member.keys.create({ name: "x", configId: "org", organizationId: org.id })).error).toMatchObject({
      status: 403,
      code: "INSUFFICIENT_API_KEY_PERMISSIONS",
    });
    expect(
      (await org.outsider.keys.create({ name: "x", configId: "org", organizationId: org.id })).error,
    ).toMatchObject({ status: 403, code: "USER_NOT_MEMBER_OF_ORGANIZATION" });
    expect((await org.member.keys.list({ query: { configId: "org", organizationId: org.id } })).error?.code).toBe(
      "INSUFFICIENT_API_KEY_PERMISSIONS",
    );
    expect((await org.member.keys.get({ query: { id: created.data!.id } })).error?.status).toBe(404);
    expect((await org.outsider.keys.delete({ keyId: created.data!.id })).error?.status).toBe(404);
    expect((await org.owner.keys.create({ name: "x", configId: "org" })).error).toMatchObject({
      status: 400,
      code: "ORGANIZATION_ID_REQUIRED",
    });
    expect(
      await app.prisma.auditLog.count({ where: { category: "api-key", organizationId: org.id } }),
    ).toBeGreaterThanOrEqual(2);
  });

  it("acts in its organization only, and stops when its author leaves it", async () => {
    const org = await organization();
    const other = await organization();
    await app.prisma.member.create({ data: { organizationId: other.id, userId: org.admin.id, role: "admin" } });
    const { data } = await org.admin.keys.create({ name: "deploy", configId: "org", organizationId: org.id });
    const keyed = withKey(data!.key);
    const session = await sessionWith(data!.key);
    expect((session.body!.session as { activeOrganizationId: string }).activeOrganizationId).toBe(org.id);
    expect((await keyed.client.organization.createTeam({ name: "Ops", organizationId: org.id })).error).toBeNull();
    expect((await keyed.client.organization.createTeam({ name: "Ops", organizationId: other.id })).error).toMatchObject(
      { status: 403, code: "API_KEY_NOT_ALLOWED" },
    );
    expect((await keyed.client.organization.setActive({ organizationId: other.id })).error?.status).toBe(403);
    const { slug } = await app.prisma.organization.findUniqueOrThrow({ where: { id: other.id } });
    const full = await keyed.client.organization.getFullOrganization({ query: { organizationSlug: slug } });
    expect(full.error).toMatchObject({ status: 403, code: "API_KEY_NOT_ALLOWED" });
    // Nothing that spans the author's other organizations, or their own account.
    expect((await keyed.client.organization.list()).error?.code).toBe("API_KEY_NOT_ALLOWED");
    expect((await keyed.client.updateUser({ name: "Renamed by a key" })).error?.code).toBe("API_KEY_NOT_ALLOWED");
    const own = await keyed.client.organization.getFullOrganization();
    expect(own.data?.id).toBe(org.id);

    await app.prisma.member.deleteMany({ where: { organizationId: org.id, userId: org.admin.id } });
    expect(await sessionWith(data!.key)).toMatchObject({ status: 401, body: { code: "INVALID_API_KEY" } });
  });
  it("reaches its organization's teams, invitations and custom roles by their own ids, and no other organization's", async () => {
    const org = await organization();
    const other = await organization();
    await app.prisma.member.create({ data: { organizationId: other.id, userId: org.admin.id, role: "admin" } });
    // Without the default limit of 10 requests a day: this test makes more.
    const { key } = await serverKey(org.admin.id, { rateLimit: null }, { configId: "org", organizationId: org.id });
    const api = withKey(key).client.organization;
    const refused = { status: 403, code: "API_KEY_NOT_ALLOWED" };

    // Its own organization's team, addressed by the team's id.
    const team = (await api.createTeam({ name: "Ops" })).data!;
    expect((await api.updateTeam({ teamId: team.id, data: { name: "Platform" } })).error).toBeNull();
    expect((await api.addTeamMember({ teamId: team.id, userId: org.admin.id })).error).toBeNull();
    expect((await api.addTeamMember({ teamId: team.id, userId: org.member.id })).error).toBeNull();
    const listed = await api.listTeamMembers({ query: { teamId: team.id } });
    expect(listed.data?.map((row) => row.userId).sort()).toEqual([org.admin.id, org.member.id].sort());
    expect((await api.removeTeamMember({ teamId: team.id, userId: org.member.id })).error).toBeNull();
    expect(await app.prisma.team.findUniqueOrThrow({ where: { id: team.id } })).toMatchObject({ name: "Platform" });

    // The other organization's team, though the key's author is an admin and a team member there.
    const theirs = await app.prisma.team.create({
      data: { name: "Theirs", organizationId: other.id, members: { create: { userId: org.admin.id } } },
    });
    const renamed = await api.updateTeam({ teamId: theirs.id, data: { name: "Taken", organizationId: other.id } });
    expect(renamed.error).toMatchObject(refused);
    expect((await api.listTeamMembers({ query: { teamId: theirs.id } })).error).toMatchObject(refused);
    expect(
      (await api.addTeamMember({ teamId: theirs.id, userId: org.admin.id, organizationId: other.id })).error,
    ).toMatchObject(refused);
    // Not naming its organization, the team is looked for in the key's, where it is not.
    expect((await api.removeTeam({ teamId: theirs.id })).error?.code).toBe("TEAM_NOT_FOUND");
    expect(await app.prisma.team.findUniqueOrThrow({ where: { id: theirs.id } })).toMatchObject({ name: "Theirs" });

    // Invitations, cancelled by id.
    const invited = await api.inviteMember({ email: uniqueEmail("invitee"), role: "member" });
    expect(invited.error).toBeNull();
    expect((await api.cancelInvitation({ invitationId: invited.data!.id })).error).toBeNull();
    const elsewhere = await app.prisma.invitation.create({
      data: {
        organizationId: other.id,
        email: uniqueEmail("elsewhere"),
        role: "member",
        inviterId: other.owner.id,
        expiresAt: new Date(Date.now() + 86_400_000),
      },
    });
    expect((await api.cancelInvitation({ invitationId: elsewhere.id })).error).toMatchObject(refused);
    expect(await app.prisma.invitation.findUniqueOrThrow({ where: { id: elsewhere.id } })).toMatchObject({
      status: "pending",
    });

    // Custom roles of its organization, and none of the other's.
    const call = async (path: string, body?: Record<string, unknown>) => {
      const response = await fetch(`${app.base}/api/auth/organization/${path}`, {
        method: body ? "POST" : "GET",
        headers: { "x-api-key": key, "content-type": "application/json", origin: app.base },
        body: body && JSON.stringify(body),
      });
      return { status: response.status, body: (await response.json()) as Record<string, unknown> };
    };
    const permission = { team: ["create"] };
    expect((await call("create-role", { role: "deployer", permission })).status).toBe(200);
    expect((await call("list-roles")).body).toMatchObject([{ role: "deployer", organizationId: org.id }]);
    expect(await call("create-role", { role: "deployer", permission, organizationId: other.id })).toMatchObject({
      status: 403,
      body: { code: "API_KEY_NOT_ALLOWED" },
    });
    expect((await call(`list-roles?organizationId=${other.id}`)).status).toBe(403);
    expect(await app.prisma.organizationRole.count({ where: { organizationId: other.id } })).toBe(0);
  });
});

describe("a key's permissions", () => {
  it("are no larger than its creator's: a member cannot give a key rights they lack", async () => {
    const org = await organization();
    await expect(serverKey(org.member.id, { permissions: { team: ["create"] } })).rejects.toMatchObject({
      code: "API_KEY_PERMISSIONS_TOO_BROAD",
    });
    await expect(
      serverKey(
        org.admin.id,
        { permissions: { organization: ["delete"] } },
        { configId: "org", organizationId: org.id },
      ),
    ).rejects.toMatchObject({ code: "API_KEY_PERMISSIONS_TOO_BROAD" });
    expect(await app.prisma.apiKey.count({ where: { userId: { in: [org.member.id, org.admin.id] } } })).toBe(0);
  });

  it("restrict what the key does in an organization to what both it and the member hold", async () => {
    const org = await organization();
    const { key } = await serverKey(org.admin.id, { permissions: { invitation: ["create"] } });
    const keyed = withKey(key);
    const team = await keyed.client.organization.createTeam({ name: "Ops", organizationId: org.id });
    expect(team.error?.status).toBe(403);
    expect(await app.prisma.team.count({ where: { organizationId: org.id } })).toBe(0);
    const invited = await keyed.client.organization.inviteMember({
      email: uniqueEmail("invitee"),
      role: "member",
      organizationId: org.id,
    });
    expect(invited.error).toBeNull();

    // The same rights through the admin's own session.
    expect((await org.admin.client.organization.createTeam({ name: "Ops", organizationId: org.id })).error).toBeNull();
  });

  it("narrow the caller only: a role given or acted on is measured whole, so a narrow key gives no admin", async () => {
    const org = await organization();
    const customRole = (role: string, permission: object) =>
      app.prisma.organizationRole.create({
        data: { organizationId: org.id, role, permission: JSON.stringify(permission) },
      });
    await customRole("recruiter", { invitation: ["create"] });
    await customRole("people", { member: ["update"] });
    await app.prisma.member.update({
      where: { organizationId_userId: { organizationId: org.id, userId: org.member.id } },
      data: { role: "recruiter" },
    });
    const people = await person("people");
    await app.prisma.member.create({ data: { organizationId: org.id, userId: people.id, role: "people" } });

    // Narrowed to the recruiter's one grant, "admin" would shrink to that grant and pass as held.
    const recruiter = withKey((await serverKey(org.member.id, { permissions: { invitation: ["create"] } })).key);
    // The client's types know the built-in roles only; a custom role's name is sent all the same.
    const invite = (role: string) =>
      recruiter.client.organization.inviteMember({
        email: uniqueEmail("alt"),
        role: role as "member",
        organizationId: org.id,
      });
    expect((await invite("admin")).error).toMatchObject({
      status: 403,
      code: "YOU_ARE_NOT_ALLOWED_TO_INVITE_USER_WITH_THIS_ROLE",
    });
    expect((await invite("recruiter")).error).toBeNull();

    // Likewise a key narrowed to member:update: no admin for oneself, and no hand on an admin.
    const manager = withKey((await serverKey(people.id, { permissions: { member: ["update"] } })).key);
    const members = await app.prisma.member.findMany({ where: { organizationId: org.id } });
    const memberId = (userId: string) => members.find((member) => member.userId === userId)!.id;
    for (const [target, role] of [
      [people.id, "admin"],
      [org.admin.id, "people"],
    ] as const) {
      const changed = await manager.client.organization.updateMemberRole({
        memberId: memberId(target),
        role,
        organizationId: org.id,
      });
      expect(changed.error).toMatchObject({ status: 403, code: "YOU_ARE_NOT_ALLOWED_TO_UPDATE_THIS_MEMBER" });
    }
    expect(await app.prisma.member.findMany({ where: { userId: { in: [people.id, org.admin.id] } } })).toEqual(
      expect.arrayContaining([
        expect.objectContaining({ userId: people.id, role: "people" }),
        expect.objectContaining({ userId: org.admin.id, role: "admin" }),
      ]),
    );
    expect(await app.prisma.invitation.count({ where: { organizationId: org.id, role: "admin" } })).toBe(0);
  });

  it("a member's key with every permission still has only the member's rights", async () => {
    const org = await organization();
    const { data } = await org.member.keys.create({ name: "mine" });
    const team = await withKey(data!.key).client.organization.createTeam({ name: "Ops", organizationId: org.id });
    expect(team.error?.status).toBe(403);
  });
});

describe("rate limit and budget", () => {
  it("a key from the API has better-auth's default limit: 10 requests, then 429 RATE_LIMITED", async () => {
    const alice = await person("alice");
    const { data } = await alice.keys.create({ name: "ci" });
    for (let i = 0; i < 10; i++) expect((await sessionWith(data!.key)).status).toBe(200);
    const refused = await fetch(`${app.base}/api/auth/get-session`, { headers: { "x-api-key": data!.key } });
    expect(refused.status).toBe(429);
    expect(await refused.json()).toMatchObject({ code: "RATE_LIMITED" });
    expect(Number(refused.headers.get("X-Retry-After"))).toBeGreaterThan(0);
  });

  it("counts concurrent requests in the database: no more pass than the limit", async () => {
    const alice = await person("alice");
    const { key } = await serverKey(alice.id, { rateLimit: { max: 3, timeWindow: 60_000 } });
    const statuses = await Promise.all(Array.from({ length: 8 }, async () => (await sessionWith(key)).status));
    expect(statuses.filter((status) => status === 200)).toHaveLength(3);
    expect(statuses.filter((status) => status === 429)).toHaveLength(5);
  });

  it("spends the budget, 429 USAGE_EXCEEDED when spent, and refills it after its interval", async () => {
    const alice = await person("alice");
    const { key } = await serverKey(alice.id, { refillAmount: 2, refillInterval: 1500, rateLimit: null });
    const statuses = await Promise.all(Array.from({ length: 4 }, async () => (await sessionWith(key)).status));
    expect(statuses.filter((status) => status === 200)).toHaveLength(2);
    expect(await sessionWith(key)).toMatchObject({ status: 429, body: { code: "USAGE_EXCEEDED" } });
    await new Promise((resolve) => setTimeout(resolve, 1600));
    expect((await sessionWith(key)).status).toBe(200);
  });

  it("a budget without refill ends for good", async () => {
    const alice = await person("alice");
    const { key } = await serverKey(alice.id, { remaining: 1, rateLimit: null });
    expect((await sessionWith(key)).status).toBe(200);
    expect(await sessionWith(key)).toMatchObject({ status: 429, body: { code: "USAGE_EXCEEDED" } });
  });
});

describe("two instances on one database", () => {
  let second: RunningServer;

  beforeAll(async () => {
    second = await startServer({ DATABASE_URL: app.db.url, AUTH_SECRET: SECRET, SMTP_URL: app.mailbox.url });
  }, 60_000);

  afterAll(async () => {
    await second?.stop();
  });

  it("a key disabled or deleted through one is refused by the other at once", async () => {
    const alice = await person("alice");
    const { data } = await alice.keys.create({ name: "ci" });
    expect((await sessionWith(data!.key, second.url)).status).toBe(200);
    await alice.keys.update({ keyId: data!.id, enabled: false });
    expect(await sessionWith(data!.key, second.url)).toMatchObject({ status: 401, body: { code: "KEY_DISABLED" } });
    await alice.keys.delete({ keyId: data!.id });
    expect(await sessionWith(data!.key, second.url)).toMatchObject({
      status: 401,
      body: { code: "INVALID_API_KEY" },
    });
  });
});

describe("the pages, without JavaScript", () => {
  /** A form post with repeated fields (the permission checkboxes), from our own origin. */
  const post = (browser: SignedInBrowser, path: string, fields: [string, string][]) =>
    fetch(new URL(path, app.base), {
      method: "POST",
      redirect: "manual",
      body: new URLSearchParams(fields),
      headers: {
        "Content-Type": "application/x-www-form-urlencoded",
        Origin: app.base,
        Cookie: [...browser.jar].map(([key, value]) => `${key}=${value}`).join("; "),
      },
    });
  const shownKey = (html: string) =>
    /data-testid="created-key-value"[^>]*value="([A-Za-z]+)"|value="([A-Za-z]{64})"/.exec(html);

  it("create a personal key, show it once in the reply (never in a URL or cookie), and it works", async () => {
    const browser = await signedInBrowser(app, { name: "Page User" });
    const listed = await browser.page("/profile/api-keys");
    expect(listed).toContain("Your API keys");
    const response = await post(browser, "/profile/api-keys", [
      ["intent", "create-key"],
      ["name", "laptop script"],
      ["expiry", "30"],
      ["refill", "none"],
      ["rateWindow", "day"],
    ]);
    expect(response.status).toBe(200);
    expect(response.headers.get("Location")).toBeNull();
    expect(response.headers.getSetCookie().join()).not.toMatch(/[A-Za-z]{64}/);
    const html = await response.text();
    const match = shownKey(html);
    const key = match?.[1] ?? match?.[2];
    expect(key).toMatch(/^[A-Za-z]{64}$/);
    const session = await sessionWith(key!);
    expect((session.body!.user as { id: string }).id).toBe(browser.id);

    // The list shows its start, never the key again.
    const again = await browser.page("/profile/api-keys");
    expect(again).toContain("laptop script");
    expect(again).toContain(key!.slice(0, 6));
    expect(again).not.toContain(key!);
    const row = await app.prisma.apiKey.findFirstOrThrow({ where: { userId: browser.id } });
    expect(row.expiresAt!.getTime()).toBeGreaterThan(Date.now() + 29 * 24 * 3600 * 1000);
    expect(row.rateLimitMax).toBeNull();
  });

  it("set the budget, refill and rate limit on the server, and refuse permissions the creator lacks", async () => {
    const owner = await createUser({ email: uniqueEmail("owner"), name: "Owner", password: null });
    const user = await createUser({ email: uniqueEmail("member"), name: "Member", password: null });
    const org = await app.prisma.organization.create({
      data: {
        name: "Acme",
        slug: unique("pages"),
        members: {
          create: [
            { userId: owner.id, role: "owner" },
            { userId: user.id, role: "member" },
          ],
        },
      },
    });
    const member = await browserFor(app, user);
    const refused = await post(member, "/fr/profile/api-keys", [
      ["intent", "create-key"],
      ["name", "escalate"],
      ["permission", "team:create"],
    ]);
    expect(refused.status).toBeGreaterThanOrEqual(400);
    expect(await refused.text()).toContain("Une clé ne peut pas avoir une permission que vous ne détenez pas.");
    expect(await app.prisma.apiKey.count({ where: { userId: user.id } })).toBe(0);

    const admin = await browserFor(app, owner);
    const made = await post(admin, `/organizations/${org.slug}/api-keys`, [
      ["intent", "create-key"],
      ["name", "deploy"],
      ["permission", "team:create"],
      ["budget", "100"],
      ["refill", "day"],
      ["rateLimit", "60"],
      ["rateWindow", "minute"],
    ]);
    expect(made.status).toBe(200);
    const row = await app.prisma.apiKey.findFirstOrThrow({ where: { organizationId: org.id } });
    expect(row).toMatchObject({
      configId: "org",
      remaining: 100,
      refillAmount: 100,
      refillInterval: 86_400_000,
      rateLimitMax: 60,
      rateLimitTimeWindow: 60_000,
    });
    expect(JSON.parse(row.permissions!)).toEqual({ team: ["create"] });

    // A plain member has no such section.
    expect((await member.get(`/organizations/${org.slug}/api-keys`)).status).toBe(404);
    expect(
      (
        await post(member, `/organizations/${org.slug}/api-keys`, [
          ["intent", "delete-key"],
          ["keyId", row.id],
        ])
      ).status,
    ).toBe(404);
    expect(await app.prisma.apiKey.count({ where: { id: row.id } })).toBe(1);
  });

  it("rename, disable, enable and delete a key", async () => {
    const browser = await signedInBrowser(app, { name: "Page User" });
    const { id, key } = await serverKey(browser.id, {});
    const form = (fields: [string, string][]) => post(browser, "/ja/profile/api-keys", fields);

    expect(
      (
        await form([
          ["intent", "rename-key"],
          ["keyId", id],
          ["name", "renamed"],
        ])
      ).status,
    ).toBe(302);
    expect((await app.prisma.apiKey.findUniqueOrThrow({ where: { id } })).name).toBe("renamed");
    expect(
      (
        await form([
          ["intent", "toggle-key"],
          ["keyId", id],
          ["enabled", "false"],
        ])
      ).headers.get("Location"),
    ).toContain("/ja/profile/api-keys");
    expect(await sessionWith(key)).toMatchObject({ status: 401, body: { code: "KEY_DISABLED" } });
    expect(await browser.page("/ja/profile/api-keys")).toContain("無効");
    await form([
      ["intent", "toggle-key"],
      ["keyId", id],
      ["enabled", "true"],
    ]);
    expect((await sessionWith(key)).status).toBe(200);
    await form([
      ["intent", "delete-key"],
      ["keyId", id],
    ]);
    expect(await app.prisma.apiKey.count({ where: { id } })).toBe(0);
    expect(await sessionWith(key)).toMatchObject({ status: 401, body: { code: "INVALID_API_KEY" } });
  });

  it("the data download lists a user's keys by name and start, never the key or its hash", async () => {
    const browser = await signedInBrowser(app);
    const { key, id } = await serverKey(browser.id, {});
    const text = await browser.page("/profile/data.json");
    const row = await app.prisma.apiKey.findUniqueOrThrow({ where: { id } });
    expect((JSON.parse(text) as { apiKeys: unknown[] }).apiKeys).toEqual([
      expect.objectContaining({ id, name: "server", start: key.slice(0, 6), enabled: true }),
    ]);
    expect(text).not.toContain(key);
    expect(text).not.toContain(row.keyHash);
  });

  it("a user's page forms cannot touch another user's key", async () => {
    const [alice, mallory] = await Promise.all([signedInBrowser(app), signedInBrowser(app)]);
    const { id } = await serverKey(alice.id, {});
    await post(mallory, "/profile/api-keys", [
      ["intent", "delete-key"],
      ["keyId", id],
    ]);
    await post(mallory, "/profile/api-keys", [
      ["intent", "toggle-key"],
      ["keyId", id],
      ["enabled", "false"],
    ]);
    expect(await app.prisma.apiKey.findUniqueOrThrow({ where: { id } })).toMatchObject({ enabled: true });
  });
});
