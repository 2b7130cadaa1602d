import { describe, expect, it, vi } from "vitest";
import { RETRY_STATUSES, withDataRetry } from "./fetch-retry";

function fakeFetch(statuses: number[]) {
  return vi.fn(async () => new Response(null, { status: statuses.shift() ?? 200 }));
}

describe("withDataRetry", () => {
  it.each([...RETRY_STATUSES])("retries a GET data request once on %i", async (status) => {
    const impl = fakeFetch([status, status, 200]);
    const res = await withDataRetry(impl)("http://localhost/pricing.data");
    expect(impl).toHaveBeenCalledTimes(2);
    expect(res.status).toBe(status);
  });

  it("returns the retry's answer when it succeeds", async () => {
    const impl = fakeFetch([503, 200]);
    const res = await withDataRetry(impl)("http://localhost/pricing.data?x=1");
    expect(res.status).toBe(200);
  });

  it("never retries mutations", async () => {
    const impl = fakeFetch([503, 200]);
    const res = await withDataRetry(impl)("http://localhost/signin.data", { method: "POST", body: "x" });
    expect(impl).toHaveBeenCalledTimes(1);
    expect(res.status).toBe(503);
  });

  it("does not retry other statuses or non-data requests", async () => {
    const notFound = fakeFetch([404, 200]);
    expect((await withDataRetry(notFound)("http://localhost/x.data")).status).toBe(404);
    expect(notFound).toHaveBeenCalledTimes(1);
    const asset = fakeFetch([503, 200]);
    expect((await withDataRetry(asset)("http://localhost/assets/app.js")).status).toBe(503);
    expect(asset).toHaveBeenCalledTimes(1);
  });
});
