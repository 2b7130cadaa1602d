import { expect, test, type Page } from "@playwright/test";

/**
 * Translations reach the browser as one hashed file per language and namespace
 * (/assets/locales/<lng>/<ns>-<hash>.js), and a page loads only the namespaces its routes
 * declare: a public page must not ship another area's strings, inline or as files.
 */
function recordNamespaces(page: Page): string[] {
  const loaded: string[] = [];
  page.on("request", (request) => {
    // A namespace's name has no hyphen; its content hash may start with one.
    const match = new URL(request.url()).pathname.match(/^\/assets\/locales\/([^/]+)\/([a-z]+)-[\w-]+\.js$/);
    if (match) loaded.push(`${match[1]}/${match[2]}`);
  });
  return loaded;
}

// Home and pricing are plain HTML (decision 0020): their strings are in the document and
// the browser loads no translation file at all.
const PAGES = [
  { path: "/", namespaces: [] },
  { path: "/pricing", namespaces: [] },
  { path: "/fr/pricing", namespaces: [] },
  { path: "/ja/signin", namespaces: ["ja/auth", "ja/common"] },
  { path: "/fr/signup", namespaces: ["fr/auth", "fr/common"] },
];

for (const { path, namespaces } of PAGES) {
  test(`${path} loads exactly the namespaces it uses`, async ({ page }) => {
    const loaded = recordNamespaces(page);
    const errors: string[] = [];
    page.on("pageerror", (error) => errors.push(error.message));
    page.on("console", (message) => message.type() === "error" && errors.push(message.text()));
    await page.goto(path);
    // A page that hydrates has loaded its namespaces by then (entry.client.tsx loads them
    // first). The network going quiet alone is no proof: on a busy machine the browser can
    // be quiet for half a second between the page's modules and the namespaces they import.
    if (namespaces.length) await expect(page.locator("html")).toHaveAttribute("data-hydrated", "true");
    await page.waitForLoadState("networkidle");
    expect([...new Set(loaded)].sort()).toEqual(namespaces);
    // Hydrated (where it is) without a mismatch: the browser's strings are the server's.
    expect(errors).toEqual([]);
  });
}

test("the HTML carries no translations inline", async ({ request }) => {
  const html = await (await request.get("/")).text();
  // Strings of namespaces the home page does not use: auth and pricing.
  expect(html).not.toContain("Forgot password?");
  expect(html).not.toContain("Simple, transparent pricing");
  expect(html).not.toMatch(/"resources"/);
});

test("a client-side navigation loads the next page's namespace, once", async ({ page }) => {
  const loaded = recordNamespaces(page);
  const documents: string[] = [];
  page.on("request", (request) => request.resourceType() === "document" && documents.push(request.url()));
  await page.goto("/fr/signin");
  await expect(page.locator("html")).toHaveAttribute("data-hydrated", "true");
  await page.getByRole("banner").locator('a[href="/fr/pricing"]').first().click();
  await expect(page).toHaveURL(/\/fr\/pricing$/);
  await expect(page.getByRole("heading", { level: 1 })).toHaveText(/tarif/i);
  expect(documents).toHaveLength(1); // the first load only: pricing came client-side
  expect(loaded.filter((ns) => ns === "fr/pricing")).toHaveLength(1);
  expect(loaded.filter((ns) => ns.startsWith("en/"))).toEqual([]);
});
