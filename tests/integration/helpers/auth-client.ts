/**
 * The official better-auth browser client, run in Node against the built server. Node's
 * fetch keeps no cookies and sends no Origin, so each simulated user gets a cookie jar of
 * its own and an explicit Origin header (the server's CSRF checks want one).
 */
import { createAuthClient } from "better-auth/client";
import { adminClient, organizationClient, twoFactorClient } from "better-auth/client/plugins";
import { noteSecret } from "./secrets";

export interface TestClient {
  client: ReturnType<typeof makeClient>;
  /** Cookie name → raw (still URL-encoded) value. */
  jar: Map<string, string>;
  /** The jar as a Cookie header value. */
  cookieHeader(): string;
  /** The last response the client received (e.g. to read Location or Set-Cookie). */
  lastResponse(): Response | undefined;
  /** Every Set-Cookie line of the last response. */
  lastSetCookies(): string[];
}

function makeClient(
  baseURL: string,
  fetchOptions: NonNullable<Parameters<typeof createAuthClient>[0]>["fetchOptions"],
) {
  return createAuthClient({
    baseURL, // "/api/auth" is appended
    plugins: [
      organizationClient({ teams: { enabled: true }, dynamicAccessControl: { enabled: true } }),
      adminClient(),
      twoFactorClient(),
    ],
    fetchOptions,
  });
}

/** Stores and removes cookies from Set-Cookie lines, as a browser would (Max-Age=0 deletes). */
export function applySetCookies(jar: Map<string, string>, lines: string[]): void {
  for (const line of lines) {
    const [pair = "", ...attrs] = line.split(";");
    const eq = pair.indexOf("=");
    const name = pair.slice(0, eq).trim();
    const value = pair.slice(eq + 1).trim();
    const expired = !value || attrs.some((a) => /^\s*max-age=0\s*$/i.test(a));
    if (expired) jar.delete(name);
    else {
      jar.set(name, value);
      noteSecret(`cookie ${name}`, value);
    }
  }
}

export interface TestClientOptions {
  /** The Origin header to send; defaults to appOrigin, null sends none. */
  origin?: string | null;
  /** Extra headers on every request (User-Agent, Accept-Language, …). */
  headers?: Record<string, string>;
}

export function makeTestClient(appOrigin: string, options: TestClientOptions = {}): TestClient {
  const jar = new Map<string, string>();
  let last: Response | undefined;
  const origin = options.origin === undefined ? appOrigin : options.origin;
  const cookieHeader = () => [...jar].map(([k, v]) => `${k}=${v}`).join("; ");
  const client = makeClient(appOrigin, {
    headers: { ...options.headers, ...(origin ? { origin } : {}) },
    onRequest(ctx) {
      if (jar.size) ctx.headers.set("cookie", cookieHeader());
    },
    onResponse(ctx) {
      last = ctx.response;
      applySetCookies(jar, ctx.response.headers.getSetCookie());
    },
  });
  return {
    client,
    jar,
    cookieHeader,
    lastResponse: () => last,
    lastSetCookies: () => last?.headers.getSetCookie() ?? [],
  };
}
