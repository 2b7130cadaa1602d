import { XMLValidator } from "fast-xml-parser";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { pageJavaScript } from "../../scripts/page-javascript.mjs";
import { startTestApp, type TestApp } from "./helpers/app";
import { makeTestClient } from "./helpers/auth-client";
import { createOrganization, createUser, PASSWORD, sessionTokenCookie } from "./helpers/factories";
import { attr, BROWSER_UA, CRAWLER_UA, get, post } from "./helpers/http";

const SECRET = "integration-test-secret-0123456789abcdef";
const LOCALES = [
  { prefix: "", lang: "en" },
  { prefix: "/zh-CN", lang: "zh-CN" },
  { prefix: "/ja", lang: "ja" },
  { prefix: "/fr", lang: "fr" },
];

let app: TestApp;
let base: string;
let userCookie: string;
let adminCookie: string;

async function signedInCookie(role: "user" | "admin") {
  const user = await createUser({ name: `Test ${role}`, role, password: null });
  return sessionTokenCookie(user.id);
}

beforeAll(async () => {
  app = await startTestApp({ secret: SECRET });
  base = app.base;
  userCookie = await signedInCookie("user");
  adminCookie = await signedInCookie("admin");
});

afterAll(async () => {
  await app?.stop();
});

describe("public pages in every locale", () => {
  const pages = ["/", "/pricing", "/signin", "/signup", "/forgot-password", "/reset-password"].map((path) => ({
    path,
  }));
  for (const { prefix, lang } of LOCALES) {
    for (const page of pages) {
      const url = prefix + (page.path === "/" ? "" : page.path) || "/";
      it(`${url} answers in ${lang} with title, canonical and alternates`, async () => {
        const res = await get(base + url);
        expect(res.status).toBe(200);
        const html = await res.text();
        expect(attr(html, /<html lang="([^"]+)"/)).toBe(lang);
        const title = attr(html, /<title>([^<]+)<\/title>/);
        expect(title).toMatch(/ · Acme Cloud$/);
        expect(attr(html, /<link rel="canonical" href="([^"]+)"/)).toBe(new URL(url, base).toString());
        for (const { prefix: p, lang: l } of LOCALES) {
          const href = new URL(p + (page.path === "/" ? "" : page.path) || "/", base).toString();
          expect(html).toContain(`<link rel="alternate" hrefLang="${l}" href="${href}"/>`);
        }
        expect(html).toContain(`hrefLang="x-default" href="${new URL(page.path, base).toString()}"`);
      });
    }
  }

  it("translates the page text, not just the lang attribute", async () => {
    const titles = await Promise.all(
      LOCALES.map(async ({ prefix }) =>
        attr(await (await get(`${base}${prefix}/pricing`)).text(), /<title>([^<]+)<\/title>/),
      ),
    );
    expect(new Set(titles).size).toBe(4);
  });

  it("the forbidden page answers 403 in each locale", async () => {
    for (const { prefix, lang } of LOCALES) {
      const res = await get(`${base}${prefix}/403`);
      expect(res.status).toBe(403);
      expect(attr(await res.text(), /<html lang="([^"]+)"/)).toBe(lang);
    }
  });
});

describe("navigation rules keep the locale and the original path", () => {
  it("sends guests on login-required pages to sign in with the full path in redirect", async () => {
    for (const { prefix } of LOCALES) {
      const res = await get(`${base}${prefix}/profile?tab=sessions`);
      expect(res.status).toBe(302);
      const back = encodeURIComponent(`${prefix}/profile?tab=sessions`);
      expect(res.headers.get("location")).toBe(`${prefix}/signin?redirect=${back}`);
    }
  });

  // A client-side navigation fetches `<page>.data?_routes=…`, and loaders and middleware see
  // that request as it is (future.v8_passThroughRequests): they must still read the page's
  // language, path and query, never the data URL's.
  it("answers a client navigation's data request in the page's language, path and query", async () => {
    const french = await (await get(`${base}/fr.data`)).text();
    expect(french).toContain("Gérez votre activité");
    const yearly = await (await get(`${base}/ja/pricing.data?interval=yearly&_routes=routes%2Fpricing`)).text();
    expect(yearly).toMatch(/"interval","yearly"/);
    expect(yearly).toContain("料金");
    for (const { prefix } of LOCALES) {
      const redirected = await (await get(`${base}${prefix}/profile.data?tab=sessions`)).text();
      const back = encodeURIComponent(`${prefix}/profile?tab=sessions`);
      expect(redirected).toContain(`"SingleFetchRedirect"`);
      expect(redirected).toContain(`"${prefix}/signin?redirect=${back}"`);
    }
    const signedIn = await (
      await get(`${base}/ja/signin.data?redirect=%2Fja%2Fbilling`, { Cookie: userCookie })
    ).text();
    expect(signedIn).toContain(`"redirect","/ja/billing"`);
  });

  it("sends signed-in users away from guest-only pages, to their dashboard", async () => {
    for (const { prefix } of LOCALES) {
      for (const page of ["/signin", "/signup", "/forgot-password", "/reset-password"]) {
        const res = await get(`${base}${prefix}${page}`, { Cookie: userCookie });
        expect(res.status).toBe(302);
        expect(res.headers.get("location")).toBe(`${prefix}/dashboard`);
      }
    }
  });

  it("sends signed-in users to a safe redirect target, never off-site", async () => {
    const safe = await get(`${base}/fr/signin?redirect=${encodeURIComponent("/fr/profile?tab=1")}`, {
      Cookie: userCookie,
    });
    expect(safe.headers.get("location")).toBe("/fr/profile?tab=1");
    const absolute = await get(`${base}/signin?redirect=${encodeURIComponent(`${base}/pricing`)}`, {
      Cookie: userCookie,
    });
    expect(absolute.headers.get("location")).toBe(`${base}/pricing`);
    for (const evil of [
      "https://evil.example.com/",
      "//evil.example.com",
      "/\\evil.example.com",
      "javascript:alert(1)",
    ]) {
      const res = await get(`${base}/ja/signin?redirect=${encodeURIComponent(evil)}`, { Cookie: userCookie });
      expect(res.headers.get("location")).toBe("/ja/dashboard");
    }
  });

  it("lets signed-in users open login-required pages", async () => {
    const res = await get(`${base}/fr/profile`, { Cookie: userCookie });
    expect(res.status).toBe(200);
    expect(await res.text()).toContain("Test user");
  });

  it("guards admin pages: guests sign in, users get 403, admins get in", async () => {
    for (const { prefix } of LOCALES) {
      const guest = await get(`${base}${prefix}/admin/dashboard`);
      expect(guest.headers.get("location")).toBe(
        `${prefix}/signin?redirect=${encodeURIComponent(`${prefix}/admin/dashboard`)}`,
      );
      const user = await get(`${base}${prefix}/admin/dashboard`, { Cookie: userCookie });
      expect(user.status).toBe(302);
      expect(user.headers.get("location")).toBe(`${prefix}/403`);
      const admin = await get(`${base}${prefix}/admin/dashboard`, { Cookie: adminCookie });
      expect(admin.status).toBe(200);
      expect(await admin.text()).toContain('data-stat="users"');
    }
  });

  it("redirects bare /admin to /admin/dashboard in the same locale", async () => {
    for (const { prefix } of LOCALES) {
      const res = await get(`${base}${prefix}/admin`, { Cookie: adminCookie });
      expect(res.status).toBe(302);
      expect(res.headers.get("location")).toBe(`${prefix}/admin/dashboard`);
    }
  });

  it("ignores a forged session cookie", async () => {
    const forged = userCookie.replace(/\.[^.]+$/, ".AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA%3D");
    const res = await get(`${base}/profile`, { Cookie: forged });
    expect(res.status).toBe(302);
  });
});

describe("the bare root picks a language once", () => {
  it("redirects / to the remembered language", async () => {
    const res = await get(`${base}/`, { Cookie: "lng=fr" });
    expect(res.status).toBe(302);
    expect(res.headers.get("location")).toBe("/fr");
  });

  it("redirects / to the browser language when nothing is remembered", async () => {
    const res = await get(`${base}/`, { "Accept-Language": "ja-JP,ja;q=0.9,en;q=0.8" });
    expect(res.headers.get("location")).toBe("/ja");
    const zh = await get(`${base}/`, { "Accept-Language": "zh-Hans-CN,zh;q=0.9" });
    expect(zh.headers.get("location")).toBe("/zh-CN");
  });

  it("keeps / when English is remembered or nothing matches, and never redirects crawlers or prefixed pages", async () => {
    expect((await get(`${base}/`, { Cookie: "lng=en", "Accept-Language": "fr" })).status).toBe(200);
    expect((await get(`${base}/`, { "Accept-Language": "de-DE,de" })).status).toBe(200);
    expect((await get(`${base}/`, { "User-Agent": CRAWLER_UA, "Accept-Language": "fr" })).status).toBe(200);
    expect((await get(`${base}/ja`, { Cookie: "lng=fr" })).status).toBe(200);
    expect((await get(`${base}/pricing`, { Cookie: "lng=fr" })).status).toBe(200);
  });
});

describe("locale switch", () => {
  it("remembers the choice and keeps the page and query", async () => {
    const res = await post(`${base}/set-locale`, { lng: "zh-CN", redirectTo: "/pricing?interval=yearly" });
    expect(res.status).toBe(302);
    expect(res.headers.get("location")).toBe("/zh-CN/pricing?interval=yearly");
    const cookie = res.headers.get("set-cookie") ?? "";
    expect(cookie).toMatch(/^lng=zh-CN;/);
    expect(cookie).toContain("Path=/");
    expect(cookie).toContain(`Max-Age=${365 * 24 * 60 * 60}`);
    expect(cookie).toContain("SameSite=Lax");
  });

  it("switches back to unprefixed English and refuses off-site targets", async () => {
    const en = await post(`${base}/set-locale`, { lng: "en", redirectTo: "/pricing" });
    expect(en.headers.get("location")).toBe("/pricing");
    const evil = await post(`${base}/set-locale`, { lng: "fr", redirectTo: "//evil.example.com/x" });
    expect(evil.headers.get("location")).toBe("/fr");
  });
});

describe("error pages", () => {
  it("answers unmatched paths with 404 'Page not found: {path}', in the page's language and inside the site's navigation", async () => {
    const said = {
      en: ["Page not found: ", "Page Not Found"],
      "zh-CN": ["页面未找到：", "页面未找到"],
      ja: ["ページが見つかりません: ", "ページが見つかりません"],
      fr: ["Page introuvable : ", "Page introuvable"],
    };
    for (const { prefix, lang } of LOCALES) {
      const res = await get(`${base}${prefix}/nothing/here`);
      expect(res.status).toBe(404);
      const html = await res.text();
      const [headline, title] = said[lang as keyof typeof said];
      expect(html).toContain(`${headline}${prefix}/nothing/here`);
      expect(attr(html, /<html lang="([^"]+)"/)).toBe(lang);
      expect(attr(html, /<title>([^<]+)<\/title>/)).toBe(`404 - ${title}`);
      // The navigation and the footer, as every other page has them.
      expect(html).toMatch(/<header[^>]*>[\s\S]*<nav aria-label=/);
      expect(html).toContain("<footer");
    }
  });

  it("answers an unsupported locale prefix with the fatal 404 'Page Not Found: {path}'", async () => {
    for (const path of ["/de/pricing", "/es", "/pt-BR/signin"]) {
      const res = await get(base + path);
      expect(res.status).toBe(404);
      expect(await res.text()).toContain(`Page Not Found: ${path}`);
    }
  });

  it("has no page under the default locale's prefix or under a segment that is not a locale", async () => {
    for (const path of ["/en", "/en/pricing", "/signin/signin", "/xyz/pricing", "/1/profile"]) {
      const res = await get(base + path);
      expect(res.status).toBe(404);
      expect(await res.text()).toContain(`Page not found: ${path}`);
    }
    expect((await get(`${base}/zh-CN/pricing`)).status).toBe(200);
  });

  it("gives crawlers a bare status instead of an error page", async () => {
    const res = await get(`${base}/nothing/here`, { "User-Agent": CRAWLER_UA });
    expect(res.status).toBe(404);
    expect(res.headers.get("content-type")).toContain("text/plain");
    expect(await res.text()).toBe("404");
    // The path stays out of the log (it may carry a token): the line has the request's id.
    expect(app.server.stdout()).toContain(`"requestId":"${res.headers.get("x-request-id")}","userAgent"`);
    expect(app.server.stdout()).toContain('"msg":"[crawler] 404 GET"');
  });
});

describe("JavaScript of public pages", () => {
  // Home and pricing are plain HTML (decision 0020): the performance issue's 110 KB budget
  // for the home page is met by shipping none; the guest pages that hydrate stay lean.
  const HOME_BUDGET_KB = 110;
  const STATIC_PAGES = ["/", "/pricing", "/fr/pricing", "/ja"];

  it(`keeps the home page within its budget of ${HOME_BUDGET_KB} KB of gzipped JavaScript`, async () => {
    const { gzipBytes } = await pageJavaScript(base, "/", { "User-Agent": BROWSER_UA });
    expect(gzipBytes / 1024).toBeLessThanOrEqual(HOME_BUDGET_KB);
  });

  it("sends home and pricing without scripts, loader data or translations, only the nonced theme script", async () => {
    for (const path of STATIC_PAGES) {
      const html = await (await get(base + path, { "User-Agent": BROWSER_UA })).text();
      expect(html, path).toMatch(/<html [^>]*data-static=""/);
      expect((await pageJavaScript(base, path, { "User-Agent": BROWSER_UA })).urls, path).toEqual([]);
      const scripts = [...html.matchAll(/<script\b[^>]*>/g)].map((m) => m[0]);
      expect(scripts, path).toHaveLength(1);
      expect(scripts[0], path).toMatch(/^<script nonce="[^"]+">$/);
      expect(html, path).not.toContain("__reactRouter");
      expect(html, path).not.toMatch(/assets\/locales\//);
    }
  });

  it("draws the links of home and pricing as plain anchors, and React Router's links where the page hydrates", async () => {
    const anchors = async (path: string) => {
      const html = await (await get(base + path, { "User-Agent": BROWSER_UA })).text();
      return [...html.matchAll(/<a\b[^>]*>/g)].map((m) => m[0]);
    };
    for (const path of STATIC_PAGES) {
      const links = await anchors(path);
      expect(
        links.some((a) => a.includes(`href="${path === "/ja" ? "/ja/pricing" : path}"`)),
        path,
      ).toBe(true);
      // React Router's Link marks its anchors for route discovery; a plain anchor has no mark.
      expect(
        links.filter((a) => a.includes("data-discover")),
        path,
      ).toEqual([]);
    }
    const signIn = await anchors("/fr/signin");
    expect(signIn.some((a) => /href="\/fr\/pricing"[^>]*data-discover="true"/.test(a))).toBe(true);
  });

  it("loads no code of signed-in, admin or organization pages on the guest pages that hydrate", async () => {
    for (const path of ["/signin", "/signup", "/forgot-password", "/fr/signup"]) {
      const { urls } = await pageJavaScript(base, path, { "User-Agent": BROWSER_UA });
      const files = urls.map((url) => url.split("/").pop()!);
      expect(files.length, path).toBeGreaterThan(5);
      const foreign = files.filter((file) =>
        /^(profile|dashboard|admin|menu|billing|checkout|two|users|audit|organizations?|new|team|OrganizationSwitcher|RoleBadge|ConfirmDialog|SubscriptionStatus)-/.test(
          file,
        ),
      );
      expect(foreign, path).toEqual([]);
    }
  });
});

describe("JavaScript of hydrated pages", () => {
  // The performance issue's budget for every page that hydrates (decision 0031): what its
  // script tags, module preloads and the entry's import load, gzipped, before any use.
  const BUDGET_KB = 160;
  const GUEST_PAGES = ["/signin", "/signup", "/forgot-password", "/reset-password?token=nope", "/verify-email"];
  const SIGNED_IN_PAGES = [
    "/dashboard",
    "/profile",
    "/profile/email",
    "/profile/security",
    "/profile/sessions",
    "/profile/data",
    "/profile/api-keys",
    "/profile/two-factor",
    "/organizations/new",
    "/admin/users",
    "/admin/users/new",
  ];
  /** An organization's sections with forms, under its address. */
  const ORGANIZATION_SECTIONS = [
    "/members",
    "/invitations",
    "/teams",
    "/settings",
    "/sso",
    "/sso/new",
    "/webhooks",
    "/roles",
    "/api-keys",
  ];

  const budgetMisses = async (paths: string[], headers: Record<string, string>) => {
    const misses: string[] = [];
    for (const path of paths) {
      const res = await get(base + path, headers);
      expect(res.status, path).toBe(200);
      const { urls, gzipBytes } = await pageJavaScript(base, path, { "User-Agent": BROWSER_UA, ...headers });
      expect(urls.length, path).toBeGreaterThan(5);
      if (gzipBytes / 1024 > BUDGET_KB) misses.push(`${path}: ${(gzipBytes / 1024).toFixed(1)} KB`);
    }
    return misses;
  };

  it(`keeps each guest page within ${BUDGET_KB} KB of gzipped JavaScript, in every language`, async () => {
    const paths = LOCALES.flatMap(({ prefix }) => GUEST_PAGES.map((path) => prefix + path));
    expect(await budgetMisses(paths, {})).toEqual([]);
  });

  it(`keeps the second sign-in step within ${BUDGET_KB} KB`, async () => {
    const user = await createUser({ name: "Budget second step" });
    await app.prisma.twoFactor.create({ data: { userId: user.id, verified: true } });
    await app.prisma.user.update({ where: { id: user.id }, data: { twoFactorEnabled: true } });
    const pending = makeTestClient(base);
    expect((await pending.client.signIn.email({ email: user.email, password: PASSWORD })).data).toMatchObject({
      twoFactorRedirect: true,
    });
    expect(
      await budgetMisses(["/signin/two-factor", "/ja/signin/two-factor"], { Cookie: pending.cookieHeader() }),
    ).toEqual([]);
  });

  it(`keeps the signed-in pages within ${BUDGET_KB} KB: dashboard, settings, an organization's sections, admin users`, async () => {
    const admin = await createUser({ name: "Budget admin", role: "admin", password: null });
    const organization = await createOrganization({ members: [{ userId: admin.id, role: "owner" }] });
    const paths = [
      ...SIGNED_IN_PAGES,
      ...ORGANIZATION_SECTIONS.map((section) => `/organizations/${organization.slug}${section}`),
    ];
    const cookie = await sessionTokenCookie(admin.id);
    expect(await budgetMisses([...paths, ...paths.map((path) => `/fr${path}`)], { Cookie: cookie })).toEqual([]);
  });

  it("loads zod (the forms' schemas and their check) only when a form is used, not with the page", async () => {
    for (const path of ["/signin", "/signup", "/forgot-password"]) {
      const { urls } = await pageJavaScript(base, path, { "User-Agent": BROWSER_UA });
      const withZod = [];
      for (const url of urls) {
        // zod names each of its schema classes in a string that minifying keeps.
        if ((await (await get(new URL(url, base).toString())).text()).includes("$ZodObject")) withZod.push(url);
      }
      expect(withZod, path).toEqual([]);
    }
  });
});

describe("sitemap and robots", () => {
  it("lists every public page in all four languages as valid XML with alternates", async () => {
    const res = await get(`${base}/sitemap.xml`);
    expect(res.headers.get("content-type")).toContain("application/xml");
    const xml = await res.text();
    expect(XMLValidator.validate(xml)).toBe(true);
    const locs = [...xml.matchAll(/<loc>([^<]+)<\/loc>/g)].map((m) => m[1]);
    const publicPages = ["/", "/pricing", "/signin", "/signup", "/forgot-password"];
    expect(locs).toHaveLength(publicPages.length * 4);
    for (const page of publicPages) {
      for (const { prefix } of LOCALES) {
        expect(locs).toContain(new URL(prefix + (page === "/" ? "" : page) || "/", base).toString());
      }
    }
    expect(xml.match(/<xhtml:link rel="alternate" hreflang="x-default"/g)).toHaveLength(publicPages.length * 4);
    expect(xml).not.toContain("/admin");
    expect(xml).not.toContain("/profile");
  });

  it("robots.txt disallows admin, profile and api", async () => {
    const text = await (await get(`${base}/robots.txt`)).text();
    for (const path of ["/admin", "/profile", "/api"]) expect(text).toContain(`Disallow: ${path}\n`);
    expect(text).toContain(`Sitemap: ${base}/sitemap.xml`);
  });
});

describe("flashed toasts", () => {
  it("shows a toast after a redirect without JavaScript, then clears it", async () => {
    const user = await createUser({ name: "Bye", verified: false, password: null });
    const cookie = await sessionTokenCookie(user.id);
    const res = await post(`${base}/signout`, { locale: "fr" }, { Cookie: cookie, Origin: base });
    expect(res.status).toBe(302);
    expect(res.headers.get("location")).toBe("/fr");
    const setCookies = res.headers.getSetCookie();
    expect(setCookies.some((c) => /session_token=;.*Max-Age=0/.test(c))).toBe(true);
    const toast = setCookies.find((c) => c.startsWith("toast="))!.split(";")[0]!;
    const page = await get(`${base}/fr`, { Cookie: toast });
    const html = await page.text();
    expect(html).toContain("data-toast");
    expect(html).toMatch(/Vous avez été déconnecté|déconnecté/);
    expect(page.headers.getSetCookie().some((c) => /^toast=;/.test(c) || /toast=.*Max-Age=0/.test(c))).toBe(true);
    expect(await app.prisma.session.count({ where: { userId: user.id } })).toBe(0);
  });
});

describe("the anonymous page cache answers exactly what a render would", () => {
  const nonceOf = (res: Response) => res.headers.get("content-security-policy")!.match(/'nonce-([^']+)'/)![1]!;

  it("gives every copy of a page its own nonce, in the CSP and on every inline script", async () => {
    const first = await get(`${base}/pricing?interval=yearly`);
    const second = await get(`${base}/pricing?interval=yearly`);
    const [a, b] = [await first.text(), await second.text()];
    expect(nonceOf(first)).not.toBe(nonceOf(second));
    for (const [res, html] of [
      [first, a],
      [second, b],
    ] as const) {
      const nonces = [...html.matchAll(/<script[^>]*\snonce="([^"]+)"/g)].map((match) => match[1]);
      expect(nonces.length).toBeGreaterThan(0);
      expect(new Set(nonces)).toEqual(new Set([nonceOf(res)]));
    }
    expect(b.replaceAll(nonceOf(second), "N")).toBe(a.replaceAll(nonceOf(first), "N"));
  });

  it("still sends a browser to its language after a crawler with the same languages got the page", async () => {
    const crawler = await get(`${base}/`, { "User-Agent": CRAWLER_UA, "Accept-Language": "ja" });
    expect(crawler.status).toBe(200);
    const browser = await get(`${base}/`, { "Accept-Language": "ja" });
    expect(browser.status).toBe(302);
    expect(browser.headers.get("location")).toBe("/ja");
  });

  it("shows a signed-in user their own page, never a visitor's copy, on every cached page", async () => {
    for (const path of ["/pricing", "/ja", "/fr/signin", "/signup"]) {
      const visitor = await get(base + path, { Cookie: "lng=en" });
      expect(visitor.status).toBe(200);
      const res = await get(base + path, { Cookie: userCookie });
      if (path.includes("sign")) {
        expect(res.status).toBe(302); // guest-only
      } else {
        expect(await res.text()).toContain("Test user");
      }
    }
  });

  it("clears a stale session cookie on every request, not only the first", async () => {
    const stale = "app.session_token=not-a-session-token.AAAA";
    for (let i = 0; i < 3; i++) {
      const res = await get(`${base}/pricing`, { Cookie: stale });
      expect(res.status).toBe(200);
      expect(res.headers.getSetCookie().some((c) => /^app\.session_token=;/.test(c))).toBe(true);
    }
  });

  it("ends a revoked session's signed-in pages at once", async () => {
    const { deleteSessions } = await import("~/server/auth/session.server");
    const user = await createUser({ name: "Revoked Rita", verified: false, password: null });
    const cookie = await sessionTokenCookie(user.id);
    expect(await (await get(`${base}/pricing`, { Cookie: cookie })).text()).toContain("Revoked Rita");
    await deleteSessions(user.id);
    for (let i = 0; i < 2; i++) {
      const res = await get(`${base}/pricing`, { Cookie: cookie });
      expect(await res.text()).not.toContain("Revoked Rita");
      expect(res.headers.getSetCookie().some((c) => /^app\.session_token=;/.test(c))).toBe(true);
    }
  });

  it("shows a flashed toast on each request that carries it and keeps none", async () => {
    const { createToastHeaders } = await import("~/server/toast.server");
    const toast = (await createToastHeaders({ type: "success", title: "Saved for the cache test" }))
      .getSetCookie()[0]!
      .split(";")[0]!;
    for (let i = 0; i < 2; i++) {
      const res = await get(`${base}/pricing`, { Cookie: toast });
      expect(await res.text()).toContain("Saved for the cache test");
      expect(res.headers.getSetCookie().some((c) => /^toast=;/.test(c))).toBe(true);
    }
    expect(await (await get(`${base}/pricing`)).text()).not.toContain("Saved for the cache test");
  });
});
