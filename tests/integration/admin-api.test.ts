/**
 * The admin API through the official better-auth client with adminClient(): every endpoint,
 * the refusals (no session, not an admin, self-ban, self-removal, impersonating an admin),
 * bans and role changes reaching open sessions at once, impersonation and its end, and the
 * audit trail. list-users is checked against a seeded set of 10,000 users for every search,
 * filter and sort option.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startTestApp, type TestApp } from "./helpers/app";
import { makeTestClient, type TestClient } from "./helpers/auth-client";
import { createUser, PASSWORD, signInWithPassword, uniqueEmail } from "./helpers/factories";

const SECRET = "admin-api-test-secret-0123456789abcdefghijkl";
// A plain user whose id is listed in ADMIN_USER_IDS: always an admin, whatever its role.
const LISTED_ADMIN_ID = "cadminbyid0000000000000001";
let app: TestApp;

beforeAll(async () => {
  app = await startTestApp({ secret: SECRET, env: { ADMIN_USER_IDS: LISTED_ADMIN_ID } });
}, 60_000);
afterAll(() => app?.stop());

type Person = TestClient & { id: string; email: string };

/** A verified user with a password, signed in through the API. */
async function person(role = "user", id?: string): Promise<Person> {
  const user = await createUser({ email: uniqueEmail("admin-api"), role, id });
  const c = await signInWithPassword(makeTestClient(app.base), user.email);
  return Object.assign(c, { id: user.id, email: user.email });
}

const sessionOf = async (c: TestClient) => (await c.client.getSession()).data;

describe("access", () => {
  it("answers 401 with an empty body without a session, and 403 with a code to a non-admin", async () => {
    const response = await fetch(`${app.base}/api/auth/admin/list-users`);
    expect(response.status).toBe(401);
    expect(await response.text()).toBe("");

    const user = await person();
    const refusals: [Promise<{ error: unknown }>, string][] = [
      [user.client.admin.listUsers({ query: {} }), "YOU_ARE_NOT_ALLOWED_TO_LIST_USERS"],
      [
        user.client.admin.createUser({ email: "x@example.com", name: "X", password: PASSWORD }),
        "YOU_ARE_NOT_ALLOWED_TO_CREATE_USERS",
      ],
      [user.client.admin.banUser({ userId: user.id }), "YOU_ARE_NOT_ALLOWED_TO_BAN_USERS"],
      [user.client.admin.setRole({ userId: user.id, role: "admin" }), "YOU_ARE_NOT_ALLOWED_TO_CHANGE_USERS_ROLE"],
      [user.client.admin.impersonateUser({ userId: user.id }), "YOU_ARE_NOT_ALLOWED_TO_IMPERSONATE_USERS"],
      [user.client.admin.removeUser({ userId: user.id }), "YOU_ARE_NOT_ALLOWED_TO_DELETE_USERS"],
      [user.client.admin.listUserSessions({ userId: user.id }), "YOU_ARE_NOT_ALLOWED_TO_LIST_USERS_SESSIONS"],
      [user.client.admin.revokeUserSessions({ userId: user.id }), "YOU_ARE_NOT_ALLOWED_TO_REVOKE_USERS_SESSIONS"],
      [
        user.client.admin.setUserPassword({ userId: user.id, newPassword: "another-password" }),
        "YOU_ARE_NOT_ALLOWED_TO_SET_USERS_PASSWORD",
      ],
    ];
    for (const [call, code] of refusals) expect((await call).error).toMatchObject({ status: 403, code });
    // Nothing changed on the way.
    expect(await app.prisma.user.findUniqueOrThrow({ where: { id: user.id } })).toMatchObject({
      role: "user",
      banned: false,
    });
  });

  it("lets a user listed in ADMIN_USER_IDS in, whatever their role", async () => {
    const listed = await person("user", LISTED_ADMIN_ID);
    const { data, error } = await listed.client.admin.listUsers({ query: { limit: 1 } });
    expect(error).toBeNull();
    expect(data).toMatchObject({ limit: 1, users: [expect.anything()] });
  });
});

describe("users", () => {
  it("creates a user who can sign in, refuses a taken email with 400, and audits it", async () => {
    const admin = await person("admin");
    const email = `created-${Date.now()}@example.com`;
    const { data, error } = await admin.client.admin.createUser({
      email,
      password: PASSWORD,
      name: "Created",
      role: "user",
    });
    expect(error).toBeNull();
    expect(data!.user).toMatchObject({ email, name: "Created", role: "user", banned: false });
    const again = await admin.client.admin.createUser({
      email: email.toUpperCase(),
      password: PASSWORD,
      name: "Again",
    });
    expect(again.error).toMatchObject({ status: 400, code: "USER_ALREADY_EXISTS_USE_ANOTHER_EMAIL" });
    const unknownRole = await admin.client.admin.createUser({
      email: `r${email}`,
      name: "R",
      role: "emperor" as "user",
    });
    expect(unknownRole.error).toMatchObject({ status: 400, code: "YOU_ARE_NOT_ALLOWED_TO_SET_NON_EXISTENT_VALUE" });

    await app.prisma.user.update({ where: { id: data!.user.id }, data: { emailVerified: true } });
    const created = makeTestClient(app.base);
    expect((await created.client.signIn.email({ email, password: PASSWORD })).error).toBeNull();

    const row = await app.prisma.auditLog.findFirstOrThrow({
      where: { action: "create-user", targetId: data!.user.id },
    });
    expect(row).toMatchObject({ category: "admin", userId: admin.id, targetType: "user" });
  });

  it("gets and updates a user, and a role change reaches the user's next request", async () => {
    const admin = await person("admin");
    const user = await person();
    expect((await admin.client.admin.getUser({ query: { id: user.id } })).data).toMatchObject({ id: user.id });
    const updated = await admin.client.admin.updateUser({ userId: user.id, data: { name: "Renamed" } });
    expect(updated.data).toMatchObject({ id: user.id, name: "Renamed" });
    expect((await admin.client.admin.updateUser({ userId: user.id, data: {} })).error).toMatchObject({
      status: 400,
      code: "NO_DATA_TO_UPDATE",
    });

    expect((await sessionOf(user))!.user).toMatchObject({ role: "user" }); // now in the cookie cache
    const { data } = await admin.client.admin.setRole({ userId: user.id, role: "admin" });
    expect(data!.user.role).toBe("admin");
    expect((await sessionOf(user))!.user).toMatchObject({ role: "admin", name: "Renamed" });
    const audit = await app.prisma.auditLog.findFirstOrThrow({ where: { action: "set-role", targetId: user.id } });
    expect(JSON.parse(audit.details!)).toMatchObject({ from: "user", to: "admin", admin: admin.email });
  });

  it("bans: open sessions end at once, sign-in is refused, and an expired ban lifts itself", async () => {
    const admin = await person("admin");
    const user = await person();
    expect(await sessionOf(user)).not.toBeNull(); // cached in the cookie
    expect((await admin.client.admin.banUser({ userId: admin.id })).error).toMatchObject({
      status: 400,
      code: "YOU_CANNOT_BAN_YOURSELF",
    });

    const { data } = await admin.client.admin.banUser({ userId: user.id, banReason: "Spam" });
    expect(data!.user).toMatchObject({ banned: true, banReason: "Spam", banExpires: null });
    expect(await sessionOf(user)).toBeNull();
    const fresh = makeTestClient(app.base);
    const refused = await fresh.client.signIn.email({ email: user.email, password: PASSWORD });
    expect(refused.error).toMatchObject({ status: 403, code: "BANNED_USER" });

    const unbanned = await admin.client.admin.unbanUser({ userId: user.id });
    expect(unbanned.data!.user).toMatchObject({ banned: false, banReason: null, banExpires: null });
    expect((await fresh.client.signIn.email({ email: user.email, password: PASSWORD })).error).toBeNull();

    // A one-second ban, with the default reason: over by the next sign-in.
    const short = await admin.client.admin.banUser({ userId: user.id, banExpiresIn: 1 });
    expect(short.data!.user).toMatchObject({ banned: true, banReason: "No reason" });
    await new Promise((resolve) => setTimeout(resolve, 1_100));
    expect((await fresh.client.signIn.email({ email: user.email, password: PASSWORD })).error).toBeNull();
    expect((await app.prisma.user.findUniqueOrThrow({ where: { id: user.id } })).banned).toBe(false);
  });

  it("lists, revokes one and all sessions of a user, and sets their password", async () => {
    const admin = await person("admin");
    const user = await person();
    const second = makeTestClient(app.base);
    await second.client.signIn.email({ email: user.email, password: PASSWORD });
    const { data } = await admin.client.admin.listUserSessions({ userId: user.id });
    expect(data!.sessions).toHaveLength(2);

    await admin.client.admin.revokeUserSession({ sessionToken: data!.sessions[0]!.token });
    expect((await admin.client.admin.listUserSessions({ userId: user.id })).data!.sessions).toHaveLength(1);
    expect((await admin.client.admin.revokeUserSessions({ userId: user.id })).data).toEqual({ success: true });
    expect(await sessionOf(user)).toBeNull();
    expect(await sessionOf(second)).toBeNull();

    const empty = await admin.client.admin.setUserPassword({ userId: user.id, newPassword: "" });
    expect(empty.error).toMatchObject({ status: 400, code: "VALIDATION_ERROR" });
    const short = await admin.client.admin.setUserPassword({ userId: user.id, newPassword: "short" });
    expect(short.error).toMatchObject({ status: 400, code: "PASSWORD_TOO_SHORT" });
    const set = await admin.client.admin.setUserPassword({ userId: user.id, newPassword: "a-brand-new-password" });
    expect(set.data).toEqual({ status: true });
    const again = makeTestClient(app.base);
    expect((await again.client.signIn.email({ email: user.email, password: "a-brand-new-password" })).error).toBeNull();
  });

  it("removes a user but never the admin themself", async () => {
    const admin = await person("admin");
    const user = await person();
    expect((await admin.client.admin.removeUser({ userId: admin.id })).error).toMatchObject({
      status: 400,
      code: "YOU_CANNOT_REMOVE_YOURSELF",
    });
    expect((await admin.client.admin.removeUser({ userId: user.id })).data).toEqual({ success: true });
    expect(await app.prisma.user.count({ where: { id: user.id } })).toBe(0);
    expect(await sessionOf(user)).toBeNull();
    const audit = await app.prisma.auditLog.findFirstOrThrow({ where: { action: "remove-user", targetId: user.id } });
    expect(audit).toMatchObject({ category: "admin", userId: admin.id });
  });

  it("answers has-permission for the caller, a role or a user", async () => {
    const admin = await person("admin");
    const user = await person();
    const yes = await admin.client.admin.hasPermission({ permissions: { user: ["ban"], session: ["revoke"] } });
    expect(yes.data).toEqual({ error: null, success: true });
    const no = await user.client.admin.hasPermission({ permissions: { user: ["ban"] } });
    expect(no.data).toEqual({ error: null, success: false });
    // An action the admin plugin has, but not this product: nobody holds it.
    const unknown = await admin.client.admin.hasPermission({ permissions: { user: ["set-phone"] } });
    expect(unknown.data).toEqual({ error: null, success: false });
  });
});

describe("impersonation", () => {
  it("signs the admin in as the user for an hour, and back; never as another admin", async () => {
    const admin = await person("admin");
    const otherAdmin = await person("admin");
    const user = await person();
    expect((await admin.client.admin.impersonateUser({ userId: otherAdmin.id })).error).toMatchObject({
      status: 403,
      code: "YOU_CANNOT_IMPERSONATE_ADMINS",
    });
    const notYet = await admin.client.admin.stopImpersonating();
    expect(notYet.error).toMatchObject({ status: 400, message: "You are not impersonating anyone" });

    const { data, error } = await admin.client.admin.impersonateUser({ userId: user.id });
    expect(error).toBeNull();
    expect(data!.session).toMatchObject({ userId: user.id, impersonatedBy: admin.id });
    const lifetime = new Date(data!.session.expiresAt).getTime() - Date.now();
    expect(lifetime).toBeGreaterThan(59 * 60_000);
    expect(lifetime).toBeLessThanOrEqual(60 * 60_000);
    const cookies = admin.lastSetCookies();
    expect(cookies.find((c) => c.startsWith("app.session_token="))).not.toMatch(/max-age/i);
    expect(cookies.some((c) => c.startsWith("app.admin_session="))).toBe(true);
    expect((await sessionOf(admin))!.user.id).toBe(user.id);
    // What the admin does as the user is audited as the admin's doing.
    expect((await admin.client.updateUser({ name: "Renamed By Admin" })).error).toBeNull();
    const change = await app.prisma.auditLog.findFirstOrThrow({ where: { userId: user.id, action: "update-user" } });
    expect(change.impersonatedBy).toBe(admin.id);

    const back = await admin.client.admin.stopImpersonating();
    expect(back.error).toBeNull();
    expect(back.data!.user.id).toBe(admin.id);
    expect((await sessionOf(admin))!.user.id).toBe(admin.id);
    expect(admin.jar.has("app.admin_session")).toBe(false);
    // The impersonation session is gone.
    expect(await app.prisma.session.count({ where: { userId: user.id, impersonatedBy: admin.id } })).toBe(0);
    const actions = await app.prisma.auditLog.findMany({
      where: { category: "admin", targetId: user.id, action: { in: ["impersonate-user", "stop-impersonating"] } },
    });
    expect(actions).toHaveLength(2);
    // Starting and stopping are the admin's own rows.
    expect(actions.map((row) => [row.userId, row.impersonatedBy])).toEqual([
      [admin.id, null],
      [admin.id, null],
    ]);
  });
});

describe("what an impersonation may not do", () => {
  it("acts as the user, but never on how anyone gets in: no key, passkey, password, second factor or sign-on", async () => {
    const admin = await person("admin");
    const user = await person();
    expect((await admin.client.admin.impersonateUser({ userId: user.id })).error).toBeNull();
    const cookie = [...admin.jar].map(([name, value]) => `${name}=${value}`).join("; ");
    const call = (path: string, body?: object) =>
      fetch(`${app.base}/api/auth${path}`, {
        method: body ? "POST" : "GET",
        headers: { cookie, origin: app.base, "content-type": "application/json" },
        body: body && JSON.stringify(body),
      });
    for (const [path, body] of [
      ["/api-key/create", { name: "outlasting" }],
      ["/passkey/generate-register-options", undefined],
      ["/link-social", { provider: "github" }],
      ["/change-password", { currentPassword: PASSWORD, newPassword: "another-password-1" }],
      ["/two-factor/enable", { password: PASSWORD }],
      ["/sso/register", { providerId: "outlasting", issuer: "https://idp.example.com", domain: "example.com" }],
    ] as const) {
      const refused = await call(path, body);
      expect([path, refused.status, ((await refused.json()) as { code?: string }).code]).toEqual([
        path,
        403,
        "NOT_ALLOWED_WHILE_IMPERSONATING",
      ]);
    }
    // The page's form is refused alike, in words.
    const form = await fetch(`${app.base}/profile/api-keys`, {
      method: "POST",
      headers: { cookie, origin: app.base, "content-type": "application/x-www-form-urlencoded" },
      body: new URLSearchParams({ intent: "create-key", name: "outlasting" }),
    });
    expect(form.status).toBe(403);
    expect(await form.text()).toContain("This cannot be done while impersonating a user");
    expect(await app.prisma.apiKey.count({ where: { userId: user.id } })).toBe(0);
    expect(await app.prisma.user.findUnique({ where: { id: user.id } })).toMatchObject({ twoFactorEnabled: false });

    // The product itself still works as the user, and the way back too.
    expect((await admin.client.updateUser({ name: "Renamed By Admin" })).error).toBeNull();
    expect((await call("/get-session")).status).toBe(200);
    expect((await admin.client.admin.stopImpersonating()).error).toBeNull();
    expect((await sessionOf(admin))!.user.id).toBe(admin.id);
  });
});

describe("an admin's impersonations end with their rights", () => {
  it.each(["banned", "given another role", "removed"] as const)(
    "when the admin is %s, the sessions they opened as others end at once",
    async (end) => {
      const boss = await person("admin");
      const admin = await person("admin");
      const user = await person();
      expect((await admin.client.admin.impersonateUser({ userId: user.id })).error).toBeNull();
      expect((await sessionOf(admin))!.user.id).toBe(user.id);
      const done =
        end === "banned"
          ? await boss.client.admin.banUser({ userId: admin.id })
          : end === "removed"
            ? await boss.client.admin.removeUser({ userId: admin.id })
            : await boss.client.admin.setRole({ userId: admin.id, role: "user" });
      expect(done.error).toBeNull();
      expect(await app.prisma.session.count({ where: { impersonatedBy: admin.id } })).toBe(0);
      // Its cookie, cache included, no longer signs anyone in.
      expect(await sessionOf(admin)).toBeNull();
      // The user's own sessions are theirs still.
      expect((await sessionOf(user))!.user.id).toBe(user.id);
    },
  );
});

describe("list-users over 10,000 users", () => {
  type Row = { id: string; email: string; name: string; role: string; banned: boolean; createdAt: Date };
  let seeded: Row[];
  let admin: Person;
  const TAG = "seed";

  beforeAll(async () => {
    admin = await person("admin");
    const base = Date.UTC(2026, 0, 1);
    const names = ["Ada", "Grace", "Alan", "Edsger", "Barbara", "Donald", "Frances", "Ken"];
    const rows = Array.from({ length: 10_000 }, (_, i) => ({
      id: `cseed${String(i).padStart(20, "0")}`,
      email: `${TAG}${String(i).padStart(5, "0")}@${i % 3 === 0 ? "acme.test" : "example.org"}`,
      name: `${names[i % names.length]} ${String(i % 97).padStart(2, "0")}`,
      role: i % 50 === 0 ? "admin" : "user",
      banned: i % 7 === 0,
      createdAt: new Date(base + ((i * 7919) % 10_000) * 60_000),
    }));
    for (let i = 0; i < rows.length; i += 1000) await app.prisma.user.createMany({ data: rows.slice(i, i + 1000) });
    seeded = rows;
  }, 120_000);

  /** Only the seeded users: every query below also filters or searches within them. */
  const ids = (users: { id: string }[]) => users.map((u) => u.id);
  const byKey = (key: keyof Row, direction: "asc" | "desc") => (a: Row, b: Row) => {
    const [x, y] = [a[key], b[key]];
    const order = x < y ? -1 : x > y ? 1 : a.id < b.id ? -1 : a.id > b.id ? 1 : 0;
    return direction === "asc" || x === y ? order : -order;
  };

  async function list(query: Record<string, unknown>) {
    const { data, error } = await admin.client.admin.listUsers({ query });
    expect(error).toBeNull();
    return data!;
  }

  it("counts every user when nothing is searched or filtered", async () => {
    const page = await list({ limit: 5, sortBy: "role", sortDirection: "desc" });
    expect(page.total).toBe(await app.prisma.user.count());
    expect(page.users).toHaveLength(5);
  });

  it("searches email and name with each operator, with totals and pages", async () => {
    const cases: [Record<string, unknown>, (row: Row) => boolean][] = [
      [{ searchValue: "seed0012", searchField: "email" }, (r) => r.email.includes("seed0012")],
      // 100 matches: the most that SQLite pages by id (listUsers); "Grace 1" below has 128.
      [{ searchValue: "seed000", searchField: "email" }, (r) => r.email.includes("seed000")],
      [
        { searchValue: "seed0", searchField: "email", searchOperator: "starts_with" },
        (r) => r.email.startsWith("seed0"),
      ],
      [
        { searchValue: "acme.test", searchField: "email", searchOperator: "ends_with" },
        (r) => r.email.endsWith("acme.test"),
      ],
      [{ searchValue: "Grace 1", searchField: "name" }, (r) => r.name.includes("Grace 1")],
    ];
    for (const [query, keep] of cases) {
      const expected = seeded.filter(keep).sort(byKey("createdAt", "asc"));
      const page = await list({ ...query, limit: 20, offset: 20 });
      expect(page.total, JSON.stringify(query)).toBe(expected.length);
      expect(ids(page.users)).toEqual(ids(expected.slice(20, 40)));
      expect(page).toMatchObject({ limit: 20, offset: 20 });
    }
  });

  it("filters with each operator and sorts by each column, both ways", async () => {
    const inSeed = { searchValue: TAG, searchField: "email", searchOperator: "starts_with" };
    const filters: [Record<string, unknown>, (row: Row) => boolean][] = [
      [{ filterField: "role", filterValue: "admin" }, (r) => r.role === "admin"],
      [{ filterField: "role", filterValue: "admin", filterOperator: "ne" }, (r) => r.role !== "admin"],
      [{ filterField: "banned", filterValue: true }, (r) => r.banned],
      [{ filterField: "name", filterValue: "Ken", filterOperator: "starts_with" }, (r) => r.name.startsWith("Ken")],
      [
        { filterField: "createdAt", filterValue: new Date(Date.UTC(2026, 0, 2)).toISOString(), filterOperator: "lt" },
        (r) => r.createdAt < new Date(Date.UTC(2026, 0, 2)),
      ],
      [
        { filterField: "email", filterValue: ["seed00001@example.org", "seed00003@acme.test"], filterOperator: "in" },
        (r) => ["seed00001@example.org", "seed00003@acme.test"].includes(r.email),
      ],
    ];
    for (const [filter, keep] of filters) {
      const expected = seeded.filter(keep).sort(byKey("createdAt", "asc"));
      const page = await list({ ...inSeed, ...filter, limit: 50 });
      expect(page.total, JSON.stringify(filter)).toBe(expected.length);
      expect(ids(page.users)).toEqual(ids(expected.slice(0, 50)));
    }
    for (const key of ["name", "email", "createdAt", "role", "banned"] as const) {
      for (const direction of ["asc", "desc"] as const) {
        const expected = [...seeded].sort(byKey(key, direction));
        const page = await list({ ...inSeed, sortBy: key, sortDirection: direction, limit: 100, offset: 4950 });
        expect(page.total).toBe(10_000);
        expect(ids(page.users), `${key} ${direction}`).toEqual(ids(expected.slice(4950, 5050)));
        // A search with few matches is paged another way on SQLite (listUsers): same order.
        const few = await list({
          searchValue: "seed000",
          sortBy: key,
          sortDirection: direction,
          limit: 20,
          offset: 40,
        });
        expect(few.total).toBe(100);
        const fewExpected = expected.filter((r) => r.email.includes("seed000"));
        expect(ids(few.users), `${key} ${direction}, few`).toEqual(ids(fewExpected.slice(40, 60)));
      }
    }
  });
});
