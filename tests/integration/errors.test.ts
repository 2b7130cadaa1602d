import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startTestApp, type TestApp } from "./helpers/app";
import { createUser, sessionTokenCookie } from "./helpers/factories";
import { attr, CRAWLER_UA, get } from "./helpers/http";

// The database losing a table it needs is the most honest way to make every page fail.
const SECRET = "integration-test-secret-errors-0123456789";
let app: TestApp;
let cookie: string;

beforeAll(async () => {
  app = await startTestApp({ secret: SECRET });
  const user = await createUser({ email: "broken@example.com", name: "Broken", verified: false, password: null });
  cookie = await sessionTokenCookie(user.id);
  await app.prisma.$executeRawUnsafe('DROP TABLE "session"');
});

afterAll(async () => {
  await app?.stop();
});

describe("server errors", () => {
  it("renders the 500 page in the page's language without leaking details", async () => {
    const res = await get(`${app.base}/fr/pricing`, { Cookie: cookie });
    expect(res.status).toBe(500);
    const html = await res.text();
    expect(attr(html, /<title>([^<]+)<\/title>/)).toBe("500 - Erreur interne du serveur");
    expect(attr(html, /<html lang="([^"]+)"/)).toBe("fr");
    expect(html).toContain('data-testid="error-status">500');
    expect(html).toContain("Erreur interne du serveur");
    expect(html).not.toMatch(/prisma|no such table|does not exist/i);
  });

  it("gives crawlers a bare 500", async () => {
    const res = await get(`${app.base}/pricing`, { Cookie: cookie, "User-Agent": CRAWLER_UA });
    expect(res.status).toBe(500);
    expect(await res.text()).toBe("500");
  });
});
