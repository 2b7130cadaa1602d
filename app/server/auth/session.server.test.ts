import { afterEach, beforeAll, describe, expect, it, vi } from "vitest";

const SECRET = "unit-test-secret-session-0123456789abcdef";
let sessions: typeof import("./session.server");
let revocation: typeof import("./revocation.server");

beforeAll(async () => {
  // Before the first loadEnv(), as in the other unit tests of this folder.
  Object.assign(process.env, {
    AUTH_SECRET: SECRET,
    BASE_URL: "http://localhost:3000",
    DATABASE_URL: "file:./unit.db",
  });
  sessions = await import("./session.server");
  revocation = await import("./revocation.server");
});

afterEach(() => {
  vi.useRealTimers();
});

let made = 0;

/** A session as the database would hold it, and the two cookies a browser sends for it. */
function signedInBrowser() {
  const n = ++made;
  const token = `raw-token-${n}`;
  const now = Date.now();
  const user = {
    id: `user-${n}`,
    name: "Ada",
    email: `ada${n}@example.com`,
    emailVerified: true,
    image: null,
    createdAt: new Date(now - 86_400_000),
    updatedAt: new Date(now - 3_600_000),
    role: "user",
    banned: false,
    banReason: null,
    banExpires: null,
    twoFactorEnabled: false,
  };
  const session = {
    id: `session-${n}`,
    token: sessions.hashToken(token),
    userId: user.id,
    expiresAt: new Date(now + 7 * 86_400_000),
    createdAt: new Date(now - 60_000),
    updatedAt: new Date(now - 60_000),
    ipAddress: null,
    userAgent: null,
    impersonatedBy: null,
    activeOrganizationId: null,
    activeTeamId: null,
  };
  const pair = (line: string) => line.split(";")[0]!;
  const tokenCookie = pair(sessions.signedCookie("app.session_token", token, undefined));
  const cacheCookie = pair(sessions.cookieCacheCookie({ session, user } as never));
  return { user, session, tokenCookie, cacheCookie };
}

const head = (cookie: string) => ({
  method: "GET",
  url: "http://localhost:3000/api/auth/get-session",
  headers: new Headers({ cookie }),
});

describe("the session in a cookie cache", () => {
  it("is read from a genuine pair of cookies, the same on every read, and no caller can change the next one's", () => {
    const { user, session, tokenCookie, cacheCookie } = signedInBrowser();
    const first = sessions.cachedSession(head(`${tokenCookie}; ${cacheCookie}`))!;
    expect(first.user).toEqual(user);
    expect(first.session).toEqual(session);
    first.user.name = "Changed by a caller";
    first.session.activeOrganizationId = "changed";
    const second = sessions.cachedSession(head(`${cacheCookie}; ${tokenCookie}`))!;
    expect(second.user).toEqual(user);
    expect(second.session).toEqual(session);
  });

  it("is refused when the cache is tampered with, or names another session than the token cookie", () => {
    const a = signedInBrowser();
    const b = signedInBrowser();
    expect(sessions.cachedSession(head(`${a.tokenCookie}; ${a.cacheCookie}`))).not.toBeNull();
    expect(sessions.cachedSession(head(`${b.tokenCookie}; ${a.cacheCookie}`))).toBeNull();
    expect(sessions.cachedSession(head(`${a.tokenCookie}; ${a.cacheCookie}x`))).toBeNull();
    const [name, value] = a.cacheCookie.split("=") as [string, string];
    const [payload, mac] = value.split(".") as [string, string];
    const forged = Buffer.from(
      Buffer.from(payload, "base64url").toString().replace('"role":"user"', '"role":"admin"'),
    ).toString("base64url");
    expect(sessions.cachedSession(head(`${a.tokenCookie}; ${name}=${forged}.${mac}`))).toBeNull();
    expect(sessions.cachedSession(head(a.cacheCookie))).toBeNull();
  });

  it("ends when the cache's minute is over, even for a pair already read", () => {
    const { tokenCookie, cacheCookie } = signedInBrowser();
    const cookie = `${tokenCookie}; ${cacheCookie}`;
    expect(sessions.cachedSession(head(cookie))).not.toBeNull();
    vi.useFakeTimers({ now: Date.now() + 61_000, toFake: ["Date"] });
    expect(sessions.cachedSession(head(cookie))).toBeNull();
  });

  it("is not trusted once the user's sessions are revoked, even for a pair already read", async () => {
    const { user, tokenCookie, cacheCookie } = signedInBrowser();
    const cookie = `${tokenCookie}; ${cacheCookie}`;
    expect(sessions.cachedSession(head(cookie))).not.toBeNull();
    await revocation.announceRevocation({ $executeRaw: async () => 0 }, user.id);
    expect(sessions.cachedSession(head(cookie))).toBeNull();
  });
});
