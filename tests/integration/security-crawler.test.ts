/**
 * Finding 10 of the security review: the crawler rule (a bare status instead of an error
 * page) also swallowed forms re-rendered after a refused action, so a headless browser
 * without JavaScript that submitted a wrong password got "401" and no form. The rule is for
 * error pages only; a page answering an action is a page for every user agent.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startTestApp, type TestApp } from "./helpers/app";
import { createUser } from "./helpers/factories";
import { CRAWLER_UA, get, post } from "./helpers/http";

const SECRET = "integration-test-secret-security-crawler-01";

let app: TestApp;
let server: TestApp["server"];
let email: string;

beforeAll(async () => {
  app = await startTestApp({ secret: SECRET });
  server = app.server;
  ({ email } = await createUser({ name: "Crawler", password: "right-1234" }));
});

afterAll(async () => {
  await app?.stop();
});

describe("crawler user agents", () => {
  it("get the whole sign-in page, form and localized error, after a wrong password", async () => {
    const res = await post(
      `${server.url}/fr/signin`,
      { intent: "sign-in", email, password: "wrong-password-1" },
      { "User-Agent": CRAWLER_UA, Origin: server.url },
    );
    expect(res.status).toBe(401);
    expect(res.headers.get("content-type")).toContain("text/html");
    const html = await res.text();
    expect(html).toMatch(/^<!DOCTYPE html>/i);
    expect(html).toContain('<html lang="fr"');
    expect(html).toMatch(/<form[^>]*method="post"/);
    expect(html).toMatch(/<input[^>]*name="password"/);
    expect(html).toMatch(new RegExp(`<input[^>]*name="email"[^>]*value="${email}"`));
    expect(html).toContain("E-mail ou mot de passe incorrect.");
    expect(server.stdout()).not.toContain("[crawler] 401");
  });

  it("still get a bare status for a missing page", async () => {
    const res = await get(`${server.url}/fr/no-such-page`, { "User-Agent": CRAWLER_UA });
    expect(res.status).toBe(404);
    expect(res.headers.get("content-type")).toContain("text/plain");
    expect(await res.text()).toBe("404");
    const line = server
      .stdout()
      .split("\n")
      .find((l) => l.includes(`"requestId":"${res.headers.get("x-request-id")}"`) && l.includes("[crawler]"));
    expect(line).toContain('"msg":"[crawler] 404 GET"');
  });
});
