/**
 * Every request the server makes to an address that a customer chose (an identity provider's
 * endpoints, a webhook's URL) goes through `outboundFetch`. Such an address is checked like any
 * address a stranger hands the server (SSRF): https only, and only public addresses, checked
 * after DNS resolution, with the connection made to the very addresses that were checked (a
 * second lookup could answer differently). The caller names the origins it exempts (tests, a
 * service inside a company's network). Redirects are not followed, the answer is cut at a
 * size, and each request has a deadline.
 */
import { lookup as dnsLookup, Resolver, type LookupAddress } from "node:dns";
import { request as httpRequest, type IncomingMessage } from "node:http";
import { request as httpsRequest } from "node:https";
import { BlockList, isIP, type LookupFunction } from "node:net";
import { loadEnv } from "~/server/env.server";
import { traced } from "~/server/tracing.server";

export type OutboundFailure =
  /** The host resolves to a loopback, private, link-local or otherwise non-public address. */
  | "private_host"
  /** Not https, or not a URL the server may call at all. */
  | "untrusted_origin"
  | "timeout"
  | "too_large"
  | "unreachable";

export class OutboundFetchError extends Error {
  constructor(
    readonly reason: OutboundFailure,
    message: string,
  ) {
    super(message);
    this.name = "OutboundFetchError";
  }
}

const NON_PUBLIC = new BlockList();
for (const [network, prefix] of [
  ["0.0.0.0", 8],
  ["10.0.0.0", 8],
  ["100.64.0.0", 10], // carrier-grade NAT
  ["127.0.0.0", 8],
  ["169.254.0.0", 16], // link-local, cloud metadata services
  ["172.16.0.0", 12],
  ["192.0.0.0", 24],
  ["192.0.2.0", 24],
  ["192.168.0.0", 16],
  ["198.18.0.0", 15],
  ["198.51.100.0", 24],
  ["203.0.113.0", 24],
  ["224.0.0.0", 4],
  ["240.0.0.0", 4],
] as const) {
  NON_PUBLIC.addSubnet(network, prefix, "ipv4");
}
for (const [network, prefix] of [
  ["::", 96], // unspecified, loopback, and IPv4-compatible (::127.0.0.1)
  ["64:ff9b::", 96], // NAT64 can reach IPv4 private space
  ["64:ff9b:1::", 48], // local-use NAT64, likewise
  ["2001::", 32], // Teredo, an IPv4 address inside
  ["2002::", 16], // 6to4, likewise
  ["100::", 64],
  ["2001:db8::", 32],
  ["fc00::", 7], // unique local
  ["fe80::", 10], // link-local
  ["ff00::", 8],
] as const) {
  NON_PUBLIC.addSubnet(network, prefix, "ipv6");
}

/** Whether `address` (IPv4 or IPv6, IPv4-mapped included) is a public unicast address. */
export function isPublicAddress(address: string): boolean {
  const family = isIP(address);
  if (family === 4) return !NON_PUBLIC.check(address, "ipv4");
  if (family !== 6) return false;
  const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(address);
  if (mapped) return !NON_PUBLIC.check(mapped[1]!, "ipv4");
  return !NON_PUBLIC.check(address, "ipv6");
}

/**
 * Checks `url` before any request: https (or plain http to an exempt origin) and no user
 * info. Throws OutboundFetchError("untrusted_origin").
 */
export function checkOutboundUrl(raw: string, exempt: (url: URL) => boolean): URL {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw new OutboundFetchError("untrusted_origin", `Not a URL: ${raw}`);
  }
  if (url.username || url.password)
    throw new OutboundFetchError("untrusted_origin", "URLs with credentials are refused");
  if (url.protocol !== "https:" && !(url.protocol === "http:" && exempt(url))) {
    throw new OutboundFetchError("untrusted_origin", `Only https URLs are allowed: ${url.origin}`);
  }
  return url;
}

const NO_ANSWER = new Set(["ENOTFOUND", "ENODATA"]);

/**
 * The addresses of `hostname`: from DNS_SERVERS when set (the servers a deployment, or a test's
 * stand-in, names), and from the system's resolver for a name those servers do not know
 * (localhost, /etc/hosts); from the system's resolver alone otherwise.
 */
function resolveAll(hostname: string, callback: (error: Error | null, addresses: LookupAddress[]) => void) {
  const system = () =>
    dnsLookup(hostname, { all: true }, (error, addresses) => callback(error, error ? [] : addresses));
  const servers = loadEnv().DNS_SERVERS;
  if (!servers.length) return system();
  const resolver = new Resolver({ timeout: 3_000, tries: 2 });
  resolver.setServers(servers);
  const ask = (family: 4 | 6) =>
    new Promise<LookupAddress[]>((resolve, reject) => {
      const done = (error: NodeJS.ErrnoException | null, found: string[]) => {
        if (error && !NO_ANSWER.has(error.code ?? "")) reject(error);
        else resolve((found ?? []).map((address) => ({ address, family })));
      };
      if (family === 4) resolver.resolve4(hostname, done);
      else resolver.resolve6(hostname, done);
    });
  Promise.all([ask(4), ask(6)]).then(
    ([v4, v6]) => (v4.length + v6.length ? callback(null, [...v4, ...v6]) : system()),
    (error: Error) => callback(error, []),
  );
}

/** A lookup that resolves once, refuses non-public answers, and hands the checked addresses to the socket. */
function checkedLookup(exempt: boolean): LookupFunction {
  return (hostname, options, callback) => {
    resolveAll(hostname, (error, found) => {
      if (error) return callback(error as NodeJS.ErrnoException, "", 0);
      const addresses = options.family ? found.filter((entry) => entry.family === options.family) : found;
      if (!addresses.length)
        return callback(Object.assign(new Error(`${hostname}: no address`), { code: "ENOTFOUND" }), "", 0);
      const refused = exempt ? undefined : addresses.find((entry) => !isPublicAddress(entry.address));
      if (refused) {
        const failure = new OutboundFetchError("private_host", `${hostname} resolves to a non-public address`);
        return callback(failure as NodeJS.ErrnoException, "", 0);
      }
      if (options.all) return (callback as unknown as (e: null, a: LookupAddress[]) => void)(null, addresses);
      callback(null, addresses[0]!.address, addresses[0]!.family);
    });
  };
}

export interface OutboundRequest {
  method?: "GET" | "POST";
  headers?: Record<string, string>;
  body?: string;
  timeoutMs: number;
  /** The most of an answer read. */
  maxBytes: number;
  /** Past maxBytes: fail with "too_large", or keep the first maxBytes and stop reading. */
  overflow: "fail" | "truncate";
  /** Origins that may be plain http and resolve to non-public addresses. */
  exempt: (url: URL) => boolean;
  userAgent: string;
}

/** Calls `raw` under the rules above and returns its answer as a Response. */
export async function outboundFetch(raw: string, init: OutboundRequest): Promise<Response> {
  const url = checkOutboundUrl(raw, init.exempt);
  const method = init.method ?? "GET";
  // Without the query: a customer's URL may carry a credential there.
  const attributes = {
    "http.request.method": method,
    "url.full": `${url.origin}${url.pathname}`,
    "server.address": url.hostname,
    "user_agent.original": init.userAgent,
  };
  return traced(method, attributes, () => fetchChecked(url, init));
}

async function fetchChecked(url: URL, init: OutboundRequest): Promise<Response> {
  const exempt = init.exempt(url);
  // A literal address never goes through the lookup: check it here.
  const literal = url.hostname.replace(/^\[|\]$/g, "");
  if (isIP(literal) && !exempt && !isPublicAddress(literal)) {
    throw new OutboundFetchError("private_host", `${url.hostname} is not a public address`);
  }
  const send = url.protocol === "https:" ? httpsRequest : httpRequest;
  return new Promise<Response>((resolve, reject) => {
    const request = send(
      url,
      {
        method: init.method ?? "GET",
        headers: { "user-agent": init.userAgent, ...init.headers },
        lookup: checkedLookup(exempt),
        timeout: init.timeoutMs,
      },
      (response: IncomingMessage) => {
        const chunks: Buffer[] = [];
        let size = 0;
        const finish = () => {
          const headers = new Headers();
          for (const [name, value] of Object.entries(response.headers)) {
            if (typeof value === "string") headers.set(name, value);
            else if (Array.isArray(value)) for (const item of value) headers.append(name, item);
          }
          const status = response.statusCode ?? 502;
          const body = status === 204 || status === 304 ? null : Buffer.concat(chunks).subarray(0, init.maxBytes);
          resolve(new Response(body, { status, headers }));
        };
        response.on("data", (chunk: Buffer) => {
          size += chunk.length;
          chunks.push(chunk);
          if (size <= init.maxBytes) return;
          if (init.overflow === "truncate") {
            finish();
            request.destroy();
            return;
          }
          request.destroy(
            new OutboundFetchError("too_large", `The answer of ${url.origin} exceeds ${init.maxBytes} bytes`),
          );
        });
        response.on("end", finish);
        response.on("error", reject);
      },
    );
    request.on("timeout", () =>
      request.destroy(new OutboundFetchError("timeout", `${url.origin} did not answer in ${init.timeoutMs} ms`)),
    );
    request.on("error", (error) => {
      reject(
        error instanceof OutboundFetchError
          ? error
          : new OutboundFetchError("unreachable", `${url.origin}: ${error.message}`),
      );
    });
    request.end(init.body);
  });
}
