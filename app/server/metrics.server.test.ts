import { beforeAll, describe, expect, it } from "vitest";

type Metrics = typeof import("./metrics.server");
let metrics: Metrics;

beforeAll(async () => {
  // Metrics are served: what only runs then runs.
  process.env.METRICS_TOKEN = "unit-test-metrics-token";
  metrics = await import("./metrics.server");
});

describe("bearerMatches", () => {
  it("takes the token as a bearer token only", () => {
    const token = "unit-test-metrics-token";
    expect(metrics.bearerMatches(`Bearer ${token}`, token)).toBe(true);
    expect(metrics.bearerMatches(`bearer  ${token}`, token)).toBe(true);
    for (const header of [undefined, "", "Bearer", "Bearer ", `Bearer ${token}x`, `Bearer x${token}`, token]) {
      expect(metrics.bearerMatches(header, token), String(header)).toBe(false);
    }
    expect(metrics.bearerMatches(`Basic ${Buffer.from(`u:${token}`).toString("base64")}`, token)).toBe(false);
  });
});

describe("labels", () => {
  it("turns an audited reason into an outcome, and anything unexpected into other", () => {
    expect(metrics.outcomeOf("INVALID_PASSWORD")).toBe("invalid_password");
    expect(metrics.outcomeOf("state_mismatch")).toBe("state_mismatch");
    expect(metrics.outcomeOf(undefined)).toBe("other");
    expect(metrics.outcomeOf("a reason: with words")).toBe("other");
    expect(metrics.outcomeOf("X".repeat(49))).toBe("other");
  });

  it("keeps a request's labels to a small set: known methods, status classes, the route or none", async () => {
    metrics.observeRequest({ route: "/:lang?/pricing" }, { method: "GET", status: 200, durationMs: 3 });
    metrics.observeRequest({ route: "/:lang?/pricing" }, { method: "GET", status: 204, durationMs: 30 });
    metrics.observeRequest({}, { method: "PROPFIND", status: 400, durationMs: 1 });
    // This series only: the queue's depth would open a database.
    const text = await metrics.registry.getSingleMetricAsString("app_http_request_duration_seconds");
    const count = (labels: string) =>
      Number(new RegExp(`^app_http_request_duration_seconds_count\\{${labels}\\} (\\d+)$`, "m").exec(text)?.[1]);
    expect(count('method="GET",route="/:lang\\?/pricing",status="2xx"')).toBe(2);
    expect(count('method="other",route="none",status="4xx"')).toBe(1);
    // 3 ms and 30 ms: one at or under 5 ms, both under 50 ms.
    expect(text).toContain(
      'app_http_request_duration_seconds_bucket{le="0.005",method="GET",route="/:lang?/pricing",status="2xx"} 1',
    );
    expect(text).toContain(
      'app_http_request_duration_seconds_bucket{le="0.05",method="GET",route="/:lang?/pricing",status="2xx"} 2',
    );
  });

  it("keeps a query's series by model and operation, raw SQL as raw, with cumulative buckets", async () => {
    metrics.observeQuery("User", "findUnique", 0.0004);
    metrics.observeQuery("User", "findUnique", 0.003);
    metrics.observeQuery(undefined, "$queryRaw", 0.02);
    const text = await metrics.registry.getSingleMetricAsString("app_db_query_duration_seconds");
    expect(text).toContain("# TYPE app_db_query_duration_seconds histogram");
    for (const line of [
      'app_db_query_duration_seconds_bucket{le="0.0005",model="User",operation="findUnique"} 1',
      'app_db_query_duration_seconds_bucket{le="0.005",model="User",operation="findUnique"} 2',
      'app_db_query_duration_seconds_bucket{le="+Inf",model="User",operation="findUnique"} 2',
      'app_db_query_duration_seconds_count{model="User",operation="findUnique"} 2',
      'app_db_query_duration_seconds_bucket{le="0.01",model="raw",operation="queryRaw"} 0',
      'app_db_query_duration_seconds_bucket{le="0.025",model="raw",operation="queryRaw"} 1',
      'app_db_query_duration_seconds_sum{model="raw",operation="queryRaw"} 0.02',
    ]) {
      expect(text).toContain(line);
    }
  });
});

describe("startMetrics", () => {
  it("starts the process's gauges once, however often it is called (a reloaded development entry calls it again)", async () => {
    metrics.startMetrics();
    expect(() => metrics.startMetrics()).not.toThrow();
    const { body } = await metrics.metricsText();
    expect(body.match(/^# TYPE process_resident_memory_bytes gauge$/gm)).toHaveLength(1);
  });
});
