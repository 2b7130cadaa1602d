/**
 * The process's Prometheus metrics: one registry, its series, and the bearer check of the
 * endpoint server.ts answers /metrics with (docs/decisions/0033-metrics.md; each series and
 * what an alert on it means: docs/deployment.md, "Metrics").
 *
 * Counters are counted where the thing happens, in the one place it happens (the audit
 * gate, the rate limiter, the revocation module, the webhook job, the mailer). What costs
 * per request or per query (the request and query histograms, the process's own gauges)
 * only runs when metrics are served: with neither METRICS_TOKEN nor METRICS_PORT set nobody
 * can read them, and a request pays one boolean test.
 */
import { createHash, timingSafeEqual } from "node:crypto";
import { createRequire } from "node:module";
import { Counter, Gauge, Registry } from "prom-client";
import { queueDepth } from "~/server/jobs/queue.server";
import { logger } from "~/server/log.server";

export const registry = new Registry();

let enabled: boolean | undefined;
/**
 * Whether metrics are served. Read from the process's environment directly, as the database
 * client reads DATABASE_URL: that client is made when its module loads, before the
 * environment is validated (env.server.ts checks the same two variables at start).
 */
export function metricsEnabled(): boolean {
  return (enabled ??= Boolean(process.env.METRICS_TOKEN?.trim() || process.env.METRICS_PORT?.trim()));
}

/** One series of a keyed histogram: its labels, its count per bucket (not cumulative), sum and count. */
interface Series {
  labels: Record<string, string>;
  buckets: number[];
  sum: number;
  count: number;
}

/**
 * A histogram handed to prom-client's registry as a metric of its own, for the series a
 * request or a query adds to. A prom-client Histogram converts, checks and hashes its labels
 * on every observation, even through a bound child: about 1 µs each, 2 µs of the 6–16 µs that
 * logs and metrics together cost a cached page of about 80. Here an observation finds its
 * series by a key its caller already has (one map lookup), and a scrape gets the same lines.
 */
class KeyedHistogram {
  readonly type = "histogram";
  readonly aggregator = "sum";
  readonly #series = new Map<string, Series>();

  constructor(
    readonly name: string,
    readonly help: string,
    readonly bounds: number[],
  ) {
    registry.registerMetric(this as unknown as Parameters<Registry["registerMetric"]>[0]);
  }

  /** Adds `seconds` to the series `key`, whose labels `labels()` gives the first time. */
  observe(key: string, labels: () => Record<string, string>, seconds: number): void {
    let series = this.#series.get(key);
    if (!series) {
      series = { labels: labels(), buckets: new Array<number>(this.bounds.length).fill(0), sum: 0, count: 0 };
      this.#series.set(key, series);
    }
    const bucket = this.bounds.findIndex((bound) => seconds <= bound);
    if (bucket >= 0) series.buckets[bucket] = (series.buckets[bucket] ?? 0) + 1;
    series.sum += seconds;
    series.count++;
  }

  /** The histogram as prom-client's own get() gives it: cumulative buckets, +Inf, sum and count per series. */
  async get() {
    const values = [...this.#series.values()].flatMap(({ labels, buckets, sum, count }) => {
      let cumulative = 0;
      return [
        ...this.bounds.map((le, i) => ({
          labels: { le },
          value: (cumulative += buckets[i] ?? 0),
          metricName: `${this.name}_bucket`,
          sharedLabels: labels,
        })),
        { labels: { le: "+Inf" }, value: count, metricName: `${this.name}_bucket`, sharedLabels: labels },
        { labels: {}, value: sum, metricName: `${this.name}_sum`, sharedLabels: labels },
        { labels: {}, value: count, metricName: `${this.name}_count`, sharedLabels: labels },
      ];
    });
    return { name: this.name, help: this.help, type: this.type, aggregator: this.aggregator, values };
  }

  reset(): void {
    this.#series.clear();
  }
}

// ---- requests ----

/** From a cached page (about 0.1 ms) to a request that waited for a slow database or provider. */
const REQUEST_BUCKETS = [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10];

/** Methods kept as they are; anything else a client invents is "other" (one series, not one per word). */
const METHODS = new Set(["GET", "HEAD", "POST", "PUT", "PATCH", "DELETE", "OPTIONS"]);

const requestDuration = new KeyedHistogram(
  "app_http_request_duration_seconds",
  "Time from a request's arrival to the end of its response, by method, route pattern and status class",
  REQUEST_BUCKETS,
);

/**
 * Observes one finished request (server.ts calls it next to the access line). `route` is the
 * pattern the app noted (never the URL: links carry tokens); "none" when nothing matched one.
 */
export function observeRequest(
  fields: { route?: string },
  entry: { method: string; status: number; durationMs: number },
): void {
  if (!metricsEnabled()) return;
  const method = METHODS.has(entry.method) ? entry.method : "other";
  const status = `${Math.floor(entry.status / 100)}xx`;
  const route = fields.route ?? "none";
  requestDuration.observe(`${method} ${status} ${route}`, () => ({ method, route, status }), entry.durationMs / 1000);
}

// ---- database ----

const QUERY_BUCKETS = [0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5];

const queryDuration = new KeyedHistogram(
  "app_db_query_duration_seconds",
  "Time of each database query made through Prisma, by model (raw for raw SQL) and operation",
  QUERY_BUCKETS,
);

/** Observes one query of `model` (undefined for raw SQL) that took `seconds`. */
export function observeQuery(model: string | undefined, operation: string, seconds: number): void {
  queryDuration.observe(
    `${model} ${operation}`,
    () => ({ model: model ?? "raw", operation: operation.replace(/^\$/, "") }),
    seconds,
  );
}

// ---- the product's events ----

export const signIns = new Counter({
  name: "app_sign_ins_total",
  help: "Sign-ins by outcome: success, or the audited failure reason (e.g. invalid_password, banned_user)",
  labelNames: ["outcome"] as const,
  registers: [registry],
});

export const signUps = new Counter({
  name: "app_sign_ups_total",
  help: "Sign-ups by outcome: success, or the audited failure reason (e.g. user_already_exists, email_send_failed)",
  labelNames: ["outcome"] as const,
  registers: [registry],
});

/**
 * An audited failure reason as an outcome label: the reason codes are literals of the code
 * (INVALID_PASSWORD, state_mismatch…), so the label stays a small set; anything else is "other".
 */
export function outcomeOf(reason: unknown): string {
  return typeof reason === "string" && /^[A-Za-z_]{1,48}$/.test(reason) ? reason.toLowerCase() : "other";
}

export const rateLimitRefusals = new Counter({
  name: "app_rate_limit_refusals_total",
  help: "Requests refused (429) by a rate limit, by rule",
  labelNames: ["rule"] as const,
  registers: [registry],
});

export const sessionRevocations = new Counter({
  name: "app_session_revocations_total",
  help: "Revocations announced: a user's sessions deleted, or changed so that no cached copy may be trusted",
  registers: [registry],
});

export const webhookDeliveries = new Counter({
  name: "app_webhook_deliveries_total",
  help: "Webhook delivery attempts by outcome: success, retry (failed, will be retried), exhausted (failed for the last time)",
  labelNames: ["outcome"] as const,
  registers: [registry],
});

// The outcomes known in advance start at 0: a series that appears with its first event hides
// that event from rate() and increase().
signIns.inc({ outcome: "success" }, 0);
signUps.inc({ outcome: "success" }, 0);
for (const outcome of ["success", "retry", "exhausted"]) webhookDeliveries.inc({ outcome }, 0);

export const mailSent = new Counter({
  name: "app_mail_sent_total",
  help: "Emails handed to the mail server, by template",
  labelNames: ["template"] as const,
  registers: [registry],
});

export const mailFailed = new Counter({
  name: "app_mail_failed_total",
  help: "Emails the mail server refused or did not take in time, by template",
  labelNames: ["template"] as const,
  registers: [registry],
});

// ---- the job queue ----

/** A scrape waits this long for the queue's count at most. */
const DEPTH_TIMEOUT_MS = 2000;
/** Prometheus scrapes every 15 s or so; several scrapers (or a curious operator) reuse one count. */
const DEPTH_CACHE_MS = 5000;
let depth: { at: number; value: Promise<number> } | undefined;

/** The queue's depth, counted at most every DEPTH_CACHE_MS; NaN when the count failed or took too long. */
function cachedDepth(): Promise<number> {
  const now = Date.now();
  if (depth && now - depth.at < DEPTH_CACHE_MS) return depth.value;
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<number>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`no answer within ${DEPTH_TIMEOUT_MS} ms`)), DEPTH_TIMEOUT_MS);
  });
  const value = Promise.race([queueDepth(), timeout])
    .catch((error: Error) => {
      logger().warn(`Counting the job queue for metrics failed: ${error.message}`);
      return Number.NaN;
    })
    .finally(() => clearTimeout(timer));
  depth = { at: now, value };
  return value;
}

new Gauge({
  name: "app_job_queue_depth",
  help: "Jobs waiting or running in the job queue, all instances together (NaN: the count failed)",
  registers: [registry],
  async collect() {
    this.set(await cachedDepth());
  },
});

// ---- serving ----

/**
 * prom-client's default collectors (the list its collectDefaultMetrics runs), all but the GC
 * histogram: the performance observer it needs cost a cached page about 4 µs of CPU, 8 % of
 * all it costs, for a series no alert here reads (event-loop lag and heap tell the same story).
 */
const DEFAULT_COLLECTORS = [
  "processCpuTotal",
  "processStartTime",
  "osMemoryHeap",
  "processOpenFileDescriptors",
  "processMaxFileDescriptors",
  "eventLoopLag",
  "processResources",
  "processHandles",
  "processRequests",
  "heapSizeAndUsed",
  "heapSpacesSizeAndUsed",
  "version",
];
type Collector = (register: Registry, config: { eventLoopMonitoringPrecision: number }) => void;

let gaugesStarted = false;

/** Starts the process's own gauges (CPU, memory, heap, event-loop lag, handles) when metrics are served; once. */
export function startMetrics(): void {
  if (!metricsEnabled() || gaugesStarted) return;
  gaugesStarted = true;
  const require = createRequire(import.meta.url);
  for (const name of DEFAULT_COLLECTORS) {
    (require(`prom-client/lib/metrics/${name}`) as Collector)(registry, { eventLoopMonitoringPrecision: 10 });
  }
}

/** The registry in Prometheus's text format. */
export async function metricsText(): Promise<{ contentType: string; body: string }> {
  return { contentType: registry.contentType, body: await registry.metrics() };
}

const digest = (value: string) => createHash("sha256").update(value).digest();

/** True when `authorization` is `Bearer <token>`; compared in constant time (digests of equal length). */
export function bearerMatches(authorization: string | undefined, token: string): boolean {
  const match = /^Bearer +(\S+) *$/i.exec(authorization ?? "");
  return timingSafeEqual(digest(match?.[1] ?? ""), digest(token)) && match !== null;
}
