/**
 * Every /api/auth endpoint that needs a session answers 401 before it reads its body or query,
 * so a caller without one learns nothing about an endpoint's input. The endpoints come from the
 * registry, so one added later is covered the day it is added. Run against two servers, one per
 * payment provider, since each provider's endpoints exist only while it is in use.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { RegisteredEndpoint } from "~/server/api.server";
import { startServer, type RunningServer } from "./helpers/server";

let servers: RunningServer[] = [];
let endpoints: readonly RegisteredEndpoint[] = [];

beforeAll(async () => {
  servers = await Promise.all([
    startServer({ PAYMENT_PROVIDER: "stripe", STRIPE_SECRET_KEY: "sk_test_first", STRIPE_WEBHOOK_SECRET: "whsec_x" }),
    startServer({ PAYMENT_PROVIDER: "polar", POLAR_ACCESS_TOKEN: "polar_oat_first", POLAR_WEBHOOK_SECRET: "whs_x" }),
  ]);
  endpoints = (await import("~/server/api.server")).registeredEndpoints();
}, 120_000);

afterAll(async () => {
  await Promise.all(servers.map((server) => server.stop()));
});

/** A concrete path for a pattern: each `:name` gets a value. */
const concrete = (path: string) => path.replace(/:[^/]+/g, "x");

describe("/api/auth: the session before the input", () => {
  it("answers 401 to every session-only endpoint, without a cookie, whatever the body and query", async () => {
    const sessionOnly = endpoints.filter((endpoint) => endpoint.session);
    // Most of the API: a registry that lost the flag would make this test pass vacuously.
    expect(sessionOnly.length).toBeGreaterThan(60);
    const refusals: string[] = [];
    for (const endpoint of sessionOnly) {
      const answers: number[] = [];
      for (const server of servers) {
        // A control character in the query and malformed JSON in the body: either is a 400
        // for whoever gets as far as reading them.
        const response = await fetch(`${server.url}/api/auth${concrete(endpoint.path)}?junk=%01`, {
          method: endpoint.method,
          headers: {
            Origin: server.url,
            ...(endpoint.method === "POST" && { "Content-Type": "application/json" }),
          },
          ...(endpoint.method === "POST" && { body: '{"unterminated' }),
        });
        const text = await response.text();
        answers.push(response.status);
        if (response.status === 404 && endpoint.conditional) continue; // not in use on this server
        const admin = endpoint.path.startsWith("/admin/");
        const body = admin ? "" : JSON.stringify({ code: "UNAUTHORIZED", message: "Unauthorized" });
        if (response.status !== 401 || text !== body) {
          refusals.push(`${endpoint.method} ${endpoint.path} → ${response.status} ${text.slice(0, 100)}`);
        }
      }
      // A provider's endpoint exists on one of the two servers.
      if (!answers.includes(401)) refusals.push(`${endpoint.method} ${endpoint.path}: never answered 401`);
    }
    expect(refusals).toEqual([]);
  });
});
