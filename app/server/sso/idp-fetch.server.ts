/**
 * Every request the server makes to an identity provider (OIDC discovery, key sets, token and
 * user-info endpoints, SAML metadata) goes through `idpFetch`. An organization chooses these
 * URLs, so they are checked like any address a stranger hands the server (SSRF): https only,
 * and only public addresses, checked after DNS resolution, with the connection made to the
 * very addresses that were checked (a second lookup could answer differently). Origins listed
 * in SSO_IDP_ORIGIN are exempt: tests, and identity providers inside a company's network.
 * Redirects are not followed, the answer is cut at 1 MB, and each request has a deadline.
 */
import { lookup as dnsLookup, type LookupAddress } from "node:dns";
import { request as httpRequest, type IncomingMessage } from "node:http";
import { request as httpsRequest } from "node:https";
import { BlockList, isIP, type LookupFunction } from "node:net";
import { loadEnv } from "~/server/env.server";

export const IDP_FETCH_TIMEOUT_MS = 5_000;
export const IDP_FETCH_MAX_BYTES = 1_000_000;

export type IdpFetchFailure =
  /** The host resolves to a loopback, private, link-local or otherwise non-public address. */
  | "discovery_private_host"
  /** Not https, or not a URL the server may call at all. */
  | "discovery_untrusted_origin"
  | "timeout"
  | "too_large"
  | "unreachable";

export class IdpFetchError extends Error {
  constructor(
    readonly reason: IdpFetchFailure,
    message: string,
  ) {
    super(message);
    this.name = "IdpFetchError";
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
  ["::", 128],
  ["::1", 128],
  ["64:ff9b::", 96], // NAT64 can reach IPv4 private space
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

const allowedOrigin = (url: URL) => loadEnv().SSO_IDP_ORIGIN.includes(url.origin);

/**
 * Checks `url` before any request: https (or an SSO_IDP_ORIGIN origin) and no user info.
 * Throws IdpFetchError("discovery_untrusted_origin").
 */
export function checkIdpUrl(raw: string): URL {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw new IdpFetchError("discovery_untrusted_origin", `Not a URL: ${raw}`);
  }
  if (url.username || url.password)
    throw new IdpFetchError("discovery_untrusted_origin", "URLs with credentials are refused");
  if (url.protocol !== "https:" && !(url.protocol === "http:" && allowedOrigin(url))) {
    throw new IdpFetchError("discovery_untrusted_origin", `Only https URLs are allowed: ${url.origin}`);
  }
  return url;
}

/** A lookup that resolves once, refuses non-public answers, and hands the checked addresses to the socket. */
function checkedLookup(exempt: boolean): LookupFunction {
  return (hostname, options, callback) => {
    dnsLookup(hostname, { ...options, all: true }, (error, addresses: LookupAddress[]) => {
      if (error) return callback(error, "", 0);
      const refused = exempt ? undefined : addresses.find((entry) => !isPublicAddress(entry.address));
      if (refused) {
        const failure = new IdpFetchError("discovery_private_host", `${hostname} resolves to a non-public address`);
        return callback(failure as NodeJS.ErrnoException, "", 0);
      }
      if (options.all) return (callback as unknown as (e: null, a: LookupAddress[]) => void)(null, addresses);
      callback(null, addresses[0]!.address, addresses[0]!.family);
    });
  };
}

export interface IdpRequest {
  method?: "GET" | "POST";
  headers?: Record<string, string>;
  body?: string;
  timeoutMs?: number;
}

/** Calls an identity provider under the rules above and returns its answer as a Response. */
export async function idpFetch(raw: string, init: IdpRequest = {}): Promise<Response> {
  const url = checkIdpUrl(raw);
  const exempt = allowedOrigin(url);
  // A literal address never goes through the lookup: check it here.
  const literal = url.hostname.replace(/^\[|\]$/g, "");
  if (isIP(literal) && !exempt && !isPublicAddress(literal)) {
    throw new IdpFetchError("discovery_private_host", `${url.hostname} is not a public address`);
  }
  const send = url.protocol === "https:" ? httpsRequest : httpRequest;
  const timeoutMs = init.timeoutMs ?? IDP_FETCH_TIMEOUT_MS;
  return new Promise<Response>((resolve, reject) => {
    const request = send(
      url,
      {
        method: init.method ?? "GET",
        headers: { "user-agent": "sso-client", ...init.headers },
        lookup: checkedLookup(exempt),
        timeout: timeoutMs,
      },
      (response: IncomingMessage) => {
        const chunks: Buffer[] = [];
        let size = 0;
        response.on("data", (chunk: Buffer) => {
          size += chunk.length;
          if (size > IDP_FETCH_MAX_BYTES) {
            request.destroy(
              new IdpFetchError("too_large", `The answer of ${url.origin} exceeds ${IDP_FETCH_MAX_BYTES} bytes`),
            );
            return;
          }
          chunks.push(chunk);
        });
        response.on("end", () => {
          const headers = new Headers();
          for (const [name, value] of Object.entries(response.headers)) {
            if (typeof value === "string") headers.set(name, value);
            else if (Array.isArray(value)) for (const item of value) headers.append(name, item);
          }
          const status = response.statusCode ?? 502;
          const body = status === 204 || status === 304 ? null : Buffer.concat(chunks);
          resolve(new Response(body, { status, headers }));
        });
        response.on("error", reject);
      },
    );
    request.on("timeout", () =>
      request.destroy(new IdpFetchError("timeout", `${url.origin} did not answer in ${timeoutMs} ms`)),
    );
    request.on("error", (error) => {
      reject(
        error instanceof IdpFetchError ? error : new IdpFetchError("unreachable", `${url.origin}: ${error.message}`),
      );
    });
    request.end(init.body);
  });
}
