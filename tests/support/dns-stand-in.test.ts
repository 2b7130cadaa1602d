import { Resolver } from "node:dns/promises";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { dnsControl, startDnsStandIn, type DnsStandIn } from "./dns-stand-in";

let dns: DnsStandIn;
let resolver: Resolver;

beforeAll(async () => {
  dns = await startDnsStandIn({ controlPort: 0 });
  resolver = new Resolver({ timeout: 1_000, tries: 1 });
  resolver.setServers([dns.address]);
});
afterAll(() => dns.close());

describe("the DNS stand-in", () => {
  it("answers node:dns TXT lookups from its records, long values in 255-byte pieces", async () => {
    dns.setTxt("_acme-sso.Example.com.", ["acme-domain-verification=abc", "x".repeat(300)]);
    const answers = await resolver.resolveTxt("_acme-sso.example.COM");
    expect(answers.map((pieces) => pieces.join(""))).toEqual(["acme-domain-verification=abc", "x".repeat(300)]);
    expect(answers[1]!.map((piece) => piece.length)).toEqual([255, 45]);
  });

  it("says NXDOMAIN for a name without records, and nothing for other types", async () => {
    await expect(resolver.resolveTxt("missing.example.com")).rejects.toMatchObject({ code: "ENOTFOUND" });
    dns.setTxt("typed.example.com", ["v"]);
    await expect(resolver.resolve4("typed.example.com")).rejects.toMatchObject({ code: "ENODATA" });
  });

  it("answers A and AAAA lookups from its address records, each family apart", async () => {
    dns.setAddresses("hooks.Example.com.", ["10.0.0.7", "::1", "fe80::1:2"]);
    expect(await resolver.resolve4("hooks.example.com")).toEqual(["10.0.0.7"]);
    expect(await resolver.resolve6("hooks.example.com")).toEqual(["::1", "fe80::1:2"]);
    await expect(resolver.resolveTxt("hooks.example.com")).rejects.toMatchObject({ code: "ENODATA" });
    dns.clear("hooks.example.com");
    await expect(resolver.resolve4("hooks.example.com")).rejects.toMatchObject({ code: "ENOTFOUND" });
  });

  it("is set and cleared from another process through its control server", async () => {
    const control = dnsControl(dns.controlUrl!);
    await control.setTxt("remote.example.com", ["one"]);
    expect(await resolver.resolveTxt("remote.example.com")).toEqual([["one"]]);
    await control.clear("remote.example.com");
    await expect(resolver.resolveTxt("remote.example.com")).rejects.toMatchObject({ code: "ENOTFOUND" });
    await control.setTxt("again.example.com", ["two"]);
    await control.clear();
    await expect(resolver.resolveTxt("again.example.com")).rejects.toMatchObject({ code: "ENOTFOUND" });
  });
});
