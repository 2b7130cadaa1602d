/**
 * The client's IP address, as server.ts hands it to the app (sessions, audit rows, rate
 * limits). Behind reverse proxies it comes from X-Forwarded-For, but only from the part of
 * that header our own proxies wrote: docs/decisions/0007-client-address.md.
 */
import { isIP } from "node:net";

/**
 * One address as written in X-Forwarded-For or by a socket: brackets, a port and an IPv6
 * zone are dropped ("[fe80::1%eth0]:443" → "fe80::1", "192.0.2.1:80" → "192.0.2.1").
 * Anything that is not then an IP address (a host name, "unknown", garbage) is null.
 */
export function parseAddress(value: string): string | null {
  let text = value.trim();
  const bracketed = /^\[([^\]]+)\](?::\d+)?$/.exec(text);
  if (bracketed) text = bracketed[1]!;
  else text = text.replace(/^(\d+\.\d+\.\d+\.\d+):\d+$/, "$1");
  text = text.replace(/%.*$/, "");
  return isIP(text) ? text.toLowerCase() : null;
}

/**
 * Each trusted proxy appends the address it received the request from, so the chain
 * [X-Forwarded-For entries in order (across repeated headers)…, socket peer] ends with
 * `hops` entries written by our proxies; the one `hops` positions from the right end (the
 * peer is position 0) is the client as our outermost proxy saw it. Everything left of it
 * was sent by the client and is never used. A chain shorter than that means fewer proxies
 * than configured: its leftmost entry is the best there is. A value that is not an IP
 * address falls back to the socket peer, which at least cannot be forged.
 */
export function clientAddress(
  forwardedFor: string | string[] | undefined,
  socketPeer: string | undefined,
  hops: number,
): string | null {
  const peer = socketPeer ? parseAddress(socketPeer) : null;
  if (hops <= 0) return peer;
  const headers = Array.isArray(forwardedFor) ? forwardedFor : forwardedFor ? [forwardedFor] : [];
  const forwarded = headers.flatMap((header) => header.split(",")).map((entry) => entry.trim());
  const chain = [...forwarded.filter(Boolean), socketPeer ?? ""];
  const chosen = chain[Math.max(0, chain.length - 1 - hops)]!;
  return parseAddress(chosen) ?? peer;
}
