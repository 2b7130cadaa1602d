import { describe, expect, it } from "vitest";
import { clientAddress, parseAddress } from "./client-address.server";

const PEER = "10.0.0.2"; // the proxy in front of us

describe("clientAddress", () => {
  it("is the socket peer without a trusted proxy, whatever X-Forwarded-For says", () => {
    expect(clientAddress("203.0.113.7", PEER, 0)).toBe(PEER);
    expect(clientAddress(undefined, "::ffff:127.0.0.1", 0)).toBe("::ffff:127.0.0.1");
    expect(clientAddress(undefined, undefined, 0)).toBeNull();
  });

  it("takes the entry the trusted proxy appended, not the client's own leftmost entries", () => {
    expect(clientAddress("198.51.100.1, 203.0.113.7", PEER, 1)).toBe("203.0.113.7");
    expect(clientAddress("203.0.113.7", PEER, 1)).toBe("203.0.113.7");
    expect(clientAddress(" 1.1.1.1 ,2.2.2.2,  203.0.113.7 ", PEER, 1)).toBe("203.0.113.7");
  });

  it("counts hops from the right end, the socket peer being position 0", () => {
    // client → CDN (appends the client) → load balancer (appends the CDN) → us
    const chain = "198.51.100.1, 203.0.113.7, 192.0.2.50";
    expect(clientAddress(chain, PEER, 1)).toBe("192.0.2.50");
    expect(clientAddress(chain, PEER, 2)).toBe("203.0.113.7");
    expect(clientAddress(chain, PEER, 3)).toBe("198.51.100.1");
  });

  it("reads the chain across repeated X-Forwarded-For headers, in order", () => {
    expect(clientAddress(["198.51.100.1, 198.51.100.2", "203.0.113.7"], PEER, 1)).toBe("203.0.113.7");
    expect(clientAddress(["198.51.100.1", "203.0.113.7, 192.0.2.50"], PEER, 2)).toBe("203.0.113.7");
  });

  it("uses the leftmost entry when the chain is shorter than the hops", () => {
    expect(clientAddress("203.0.113.7", PEER, 3)).toBe("203.0.113.7");
    expect(clientAddress(undefined, PEER, 2)).toBe(PEER);
    expect(clientAddress("", PEER, 1)).toBe(PEER);
  });

  it("falls back to the socket peer when the chosen entry is not an IP address", () => {
    expect(clientAddress("203.0.113.7, unknown", PEER, 1)).toBe(PEER);
    expect(clientAddress("203.0.113.7, example.com", PEER, 1)).toBe(PEER);
    expect(clientAddress("203.0.113.7, 999.1.1.1", PEER, 1)).toBe(PEER);
    expect(clientAddress("203.0.113.7, <script>", PEER, 1)).toBe(PEER);
    // An invalid entry further left is the client's business: it is never chosen.
    expect(clientAddress("garbage, 203.0.113.7", PEER, 1)).toBe("203.0.113.7");
  });

  it("accepts IPv6 entries with brackets, ports and zones", () => {
    expect(clientAddress("2001:DB8::1", PEER, 1)).toBe("2001:db8::1");
    expect(clientAddress("[2001:db8::1]:4711", PEER, 1)).toBe("2001:db8::1");
    expect(clientAddress("203.0.113.7:51234", PEER, 1)).toBe("203.0.113.7");
  });
});

describe("parseAddress", () => {
  it("normalizes what a header or socket may write, and refuses anything else", () => {
    expect(parseAddress("192.0.2.1")).toBe("192.0.2.1");
    expect(parseAddress("192.0.2.1:80")).toBe("192.0.2.1");
    expect(parseAddress("[::1]")).toBe("::1");
    expect(parseAddress("[fe80::1%eth0]:443")).toBe("fe80::1");
    expect(parseAddress("fe80::1%25eth0")).toBe("fe80::1");
    expect(parseAddress("::ffff:192.0.2.1")).toBe("::ffff:192.0.2.1");
    expect(parseAddress("unknown")).toBeNull();
    expect(parseAddress("192.0.2.1.5")).toBeNull();
    expect(parseAddress("")).toBeNull();
  });
});
