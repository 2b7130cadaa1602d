import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";

let server: Server;
let origin = "";

beforeAll(async () => {
  server = createServer((_, response) => response.end('{"ok":true}'));
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  // Only the loopback origin of this server is exempt; localhost on another port is not.
  process.env.SSO_IDP_ORIGIN = origin;
  process.env.BASE_URL = "http://localhost:3000";
});
afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

const load = () => import("./idp-fetch.server");

describe("isPublicAddress", () => {
  it.each([
    ["8.8.8.8", true],
    ["2606:4700:4700::1111", true],
    ["127.0.0.1", false],
    ["10.1.2.3", false],
    ["172.20.0.1", false],
    ["192.168.1.1", false],
    ["169.254.169.254", false],
    ["100.64.0.1", false],
    ["0.0.0.0", false],
    ["::1", false],
    ["::", false],
    ["fd00::1", false],
    ["fe80::1", false],
    ["::ffff:127.0.0.1", false],
    ["::ffff:8.8.8.8", true],
    ["::127.0.0.1", false],
    ["::a00:1", false],
    ["64:ff9b:1::a00:1", false],
    ["2002:7f00:1::1", false],
    ["2001:0:4136:e378:8000:63bf:3fff:fdd2", false],
    ["not-an-address", false],
  ])("%s is public: %s", async (address, expected) => {
    const { isPublicAddress } = await import("~/server/outbound-fetch.server");
    expect(isPublicAddress(address)).toBe(expected);
  });
});

describe("idpFetch", () => {
  it("calls an origin listed in SSO_IDP_ORIGIN although it is loopback", async () => {
    const { idpFetch } = await load();
    const response = await idpFetch(`${origin}/.well-known/openid-configuration`);
    expect(await response.json()).toEqual({ ok: true });
  });

  it("refuses plain http elsewhere, private literals and names that resolve to loopback", async () => {
    const { idpFetch } = await load();
    const port = new URL(origin).port;
    await expect(idpFetch(`http://127.0.0.2:${port}/`)).rejects.toMatchObject({ reason: "discovery_untrusted_origin" });
    await expect(idpFetch("https://169.254.169.254/latest/meta-data")).rejects.toMatchObject({
      reason: "discovery_private_host",
    });
    await expect(idpFetch("https://[::1]/")).rejects.toMatchObject({ reason: "discovery_private_host" });
    // "localhost" resolves to loopback: refused after resolution, before any connection.
    await expect(idpFetch(`https://localhost:${port}/`)).rejects.toMatchObject({ reason: "discovery_private_host" });
    await expect(idpFetch("https://user:pass@example.com/")).rejects.toMatchObject({
      reason: "discovery_untrusted_origin",
    });
  });
});
