import { RouterContextProvider, type EntryContext } from "react-router";
import { describe, expect, it } from "vitest";
import { cachedPage, keepPage, mayKeep, newNonce, noteMiss, offerPage } from "./page-cache.server";

const BROWSER = "Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/130.0 Safari/537.36";
const CRAWLER = "Mozilla/5.0 (compatible; Googlebot/2.1; +http://www.google.com/bot.html)";

let page = 0;
const freshUrl = () => `http://app.test/p${++page}`;

function request(url: string, headers: Record<string, string> = {}) {
  return new Request(url, { headers: { "User-Agent": BROWSER, ...headers } });
}

/** The server's first step: the cached answer (as the Response it makes), or null. */
function lookup(req: Request) {
  const answer = cachedPage(req);
  return answer && new Response(answer.body, answer);
}

/** The context of a request the cache had no copy for (as entry.server.tsx gets it). */
function missed(req: Request) {
  const context = new RouterContextProvider();
  noteMiss(req, context);
  return context;
}

/** What the server does on a miss: render (entry.server offers), then the final response. */
async function render(req: Request, { status = 200, setCookie = false, html = "<html>x</html>" } = {}) {
  const context = missed(req);
  const nonce = newNonce();
  const document = html.replaceAll("NONCE", nonce);
  offerPage(context, { nonce, html: Promise.resolve(document) });
  const headers = new Headers({
    "Content-Type": "text/html",
    "Content-Security-Policy": `script-src 'nonce-${nonce}'`,
  });
  if (setCookie) headers.set("Set-Cookie", "app.session=; Max-Age=0");
  keepPage(new Response(document, { status, headers }), context);
  await Promise.resolve(); // the document is stored once it has streamed
  return nonce;
}

describe("the page cache", () => {
  it("answers the same request again with the kept document and a fresh nonce in it and in the CSP", async () => {
    const url = freshUrl();
    // Characters of two, three and four bytes around the nonces: the copy is kept as bytes.
    const html = '<html><script nonce="NONCE">1</script><p>NONCE-free text: café 料金 😀</p>NONCE</html>';
    expect(lookup(request(url))).toBeNull();
    const first = await render(request(url), { html });

    const hit = lookup(request(url))!;
    const second = lookup(request(url))!;
    const body = await hit.text();
    const nonce = hit.headers.get("Content-Security-Policy")!.match(/'nonce-([^']+)'/)![1]!;
    expect(nonce).not.toBe(first);
    expect(body).toBe(html.replaceAll("NONCE", nonce));
    expect(hit.status).toBe(200);
    expect(hit.headers.get("Content-Type")).toBe("text/html");
    expect(hit.headers.get("Content-Length")).toBe(String(Buffer.byteLength(body)));
    expect(second.headers.get("Content-Security-Policy")).not.toBe(hit.headers.get("Content-Security-Policy"));
  });

  it("keys on the URL, the cookies, the languages and whether a crawler asks", async () => {
    const url = freshUrl();
    await render(request(url, { Cookie: "lng=fr", "Accept-Language": "fr" }));
    expect(lookup(request(url, { Cookie: "lng=fr", "Accept-Language": "fr" }))).not.toBeNull();
    expect(lookup(request(url, { "Accept-Language": "fr" }))).toBeNull();
    expect(lookup(request(url, { Cookie: "lng=ja", "Accept-Language": "fr" }))).toBeNull();
    expect(lookup(request(url, { Cookie: "lng=fr", "Accept-Language": "en" }))).toBeNull();
    expect(lookup(request(url, { Cookie: "lng=fr", "Accept-Language": "fr", "User-Agent": CRAWLER }))).toBeNull();
    expect(lookup(request(`${url}?interval=yearly`, { Cookie: "lng=fr", "Accept-Language": "fr" }))).toBeNull();
  });

  it("renders when asked not to use a cache, for credentials and for anything but GET", async () => {
    const url = freshUrl();
    await render(request(url));
    expect(lookup(request(url, { "Cache-Control": "no-cache" }))).toBeNull();
    expect(lookup(request(url, { Authorization: "Bearer x" }))).toBeNull();
    expect(lookup(new Request(url, { method: "HEAD", headers: { "User-Agent": BROWSER } }))).toBeNull();
  });

  it("keeps nothing whose final response sets a cookie or is not a 200, nor an unfinished document", async () => {
    const withCookie = freshUrl();
    await render(request(withCookie), { setCookie: true });
    expect(lookup(request(withCookie))).toBeNull();

    const notFound = freshUrl();
    await render(request(notFound), { status: 404 });
    expect(lookup(request(notFound))).toBeNull();

    const unfinished = freshUrl();
    const context = missed(request(unfinished));
    offerPage(context, { nonce: newNonce(), html: Promise.resolve(null) });
    keepPage(new Response("partial"), context);
    await Promise.resolve();
    expect(lookup(request(unfinished))).toBeNull();

    // Not offered by entry.server (a page that did not opt in): nothing to keep.
    const notOffered = freshUrl();
    keepPage(new Response("<html></html>"), missed(request(notOffered)));
    expect(lookup(request(notOffered))).toBeNull();
  });

  it("holds at most 200 documents, dropping the least recently used", async () => {
    const urls = Array.from({ length: 200 }, freshUrl);
    for (const url of urls) await render(request(url));
    expect(lookup(request(urls[0]!))).not.toBeNull(); // now the most recently used
    await render(request(freshUrl()));
    expect(lookup(request(urls[0]!))).not.toBeNull();
    expect(lookup(request(urls[1]!))).toBeNull();
  });
});

describe("mayKeep", () => {
  const routeModules = {
    root: { handle: { i18n: ["common"] } },
    cached: { handle: { pageCache: true } },
    plain: { handle: { i18n: ["auth"] } },
  };
  function context(routes: string[], root: object, extra: object = {}) {
    return {
      isSpaMode: false,
      routeModules,
      staticHandlerContext: {
        loaderData: { root },
        actionData: null,
        errors: null,
        matches: routes.map((id) => ({ route: { id } })),
        ...extra,
      },
    } as unknown as EntryContext;
  }
  const anonymous = { user: null, toast: null };
  const req = request("http://app.test/pricing");

  it("keeps a visitor's 200 document when every route of the page opted in", () => {
    expect(mayKeep(missed(req), 200, context(["root", "cached"], anonymous))).toBe(true);
  });

  it("refuses a page with a route that did not opt in", () => {
    expect(mayKeep(missed(req), 200, context(["root", "plain"], anonymous))).toBe(false);
    expect(mayKeep(missed(req), 200, context(["root", "cached", "plain"], anonymous))).toBe(false);
  });

  it("refuses a signed-in render, a toast, an error, an action's answer and any status but 200", () => {
    expect(mayKeep(missed(req), 200, context(["root", "cached"], { user: { name: "A" }, toast: null }))).toBe(false);
    expect(mayKeep(missed(req), 200, context(["root", "cached"], { user: null, toast: { title: "Hi" } }))).toBe(false);
    expect(mayKeep(missed(req), 200, context(["root", "cached"], anonymous, { errors: { root: new Error() } }))).toBe(
      false,
    );
    expect(mayKeep(missed(req), 200, context(["root", "cached"], anonymous, { actionData: { cached: {} } }))).toBe(
      false,
    );
    expect(mayKeep(missed(req), 404, context(["root", "cached"], anonymous))).toBe(false);
    expect(
      mayKeep(
        missed(request("http://app.test/pricing", { "Cache-Control": "no-cache" })),
        200,
        context(["root", "cached"], anonymous),
      ),
    ).toBe(false);
  });
});

describe("newNonce", () => {
  it("gives 16 random bytes, never the same twice, across refills of its pool", () => {
    const nonces = Array.from({ length: 1000 }, newNonce); // four pools of 256
    expect(new Set(nonces).size).toBe(1000);
    for (const nonce of nonces) expect(Buffer.from(nonce, "base64")).toHaveLength(16);
    expect(nonces.every((nonce) => /^[A-Za-z0-9+/]{22}==$/.test(nonce))).toBe(true);
  });
});
