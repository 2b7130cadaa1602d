import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createTestDatabase, type TestDatabase } from "./helpers/database";
import { attr, CRAWLER_UA, get } from "./helpers/http";
import { startServer } from "./helpers/server";

// The database losing a table it needs is the most honest way to make every page fail.
const SECRET = "integration-test-secret-errors-0123456789";
let db: TestDatabase;
let server: Awaited<ReturnType<typeof startServer>>;
let cookie: string;

beforeAll(async () => {
  db = await createTestDatabase();
  server = await startServer({ DATABASE_URL: db.url, AUTH_SECRET: SECRET });
  Object.assign(process.env, { DATABASE_URL: db.url, AUTH_SECRET: SECRET, BASE_URL: server.url });
  const { prisma } = await import("~/server/db.server");
  const { createSession } = await import("~/server/auth/session.server");
  const user = await prisma.user.create({ data: { email: "broken@example.com", name: "Broken" } });
  cookie = (await createSession(user.id)).setCookies[0]!.split(";")[0]!;
  await prisma.$executeRawUnsafe('DROP TABLE "session"');
});

afterAll(async () => {
  const { closeDatabase } = await import("~/server/db.server");
  await closeDatabase();
  await server?.stop();
  await db?.drop();
});

describe("server errors", () => {
  it("renders the 500 page in the page's language without leaking details", async () => {
    const res = await get(`${server.url}/fr/pricing`, { Cookie: cookie });
    expect(res.status).toBe(500);
    const html = await res.text();
    expect(attr(html, /<title>([^<]+)<\/title>/)).toBe("500 - Internal Server Error");
    expect(attr(html, /<html lang="([^"]+)"/)).toBe("fr");
    expect(html).toContain('data-testid="error-status">500');
    expect(html).toContain("Internal Server Error");
    expect(html).not.toMatch(/prisma|no such table|does not exist/i);
  });

  it("gives crawlers a bare 500", async () => {
    const res = await get(`${server.url}/pricing`, { Cookie: cookie, "User-Agent": CRAWLER_UA });
    expect(res.status).toBe(500);
    expect(await res.text()).toBe("500");
  });
});
