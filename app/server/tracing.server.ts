/**
 * OpenTelemetry traces, exported over OTLP/HTTP when OTEL_EXPORTER_OTLP_ENDPOINT is set
 * (docs/decisions/0034-traces.md). A trace per request: its server span (method, route
 * pattern, status, `app.request_id`), a span per loader and action, Prisma's query spans, and
 * a client span per outgoing call (SMTP, payment providers, identity providers, webhooks, and
 * any fetch); and a trace per run of a queued job.
 *
 * Off, nothing here loads OpenTelemetry: the SDK is imported by `startTracing` only when the
 * endpoint is set, and every gate below first checks `tracing`, which stays undefined.
 */
import type { IncomingMessage, ServerResponse } from "node:http";
import { hostname } from "node:os";
import type { Attributes, Tracer } from "@opentelemetry/api";
import type { BasicTracerProvider } from "@opentelemetry/sdk-trace-base";
import type { ServerInstrumentation } from "react-router";
import { defaultLocale } from "~/i18n/config";
import { currentBuildId } from "~/server/build-info.server";
import type { Env } from "~/server/env.server";
import { i18nFor } from "~/server/i18n.server";
import { logger, type RequestFields } from "~/server/log.server";

interface Tracing {
  api: typeof import("@opentelemetry/api");
  tracer: Tracer;
  provider: BasicTracerProvider;
}

/** Set once at start when traces are on; the one check every gate makes. */
let tracing: Tracing | undefined;

/**
 * Loads the SDK and starts exporting to OTEL_EXPORTER_OTLP_ENDPOINT's /v1/traces when it is
 * set; says whether it did. The SDK reads the other standard variables itself:
 * OTEL_EXPORTER_OTLP_HEADERS and _TIMEOUT, OTEL_TRACES_SAMPLER(_ARG), OTEL_BSP_*,
 * OTEL_RESOURCE_ATTRIBUTES.
 */
export async function startTracing(env: Pick<Env, "OTEL_EXPORTER_OTLP_ENDPOINT" | "OTEL_SERVICE_NAME">) {
  if (!env.OTEL_EXPORTER_OTLP_ENDPOINT) return false;
  if (tracing) return true;
  const [
    api,
    { AsyncLocalStorageContextManager },
    sdk,
    { OTLPTraceExporter },
    resources,
    instrumentation,
    prisma,
    undici,
  ] = await Promise.all([
    import("@opentelemetry/api"),
    import("@opentelemetry/context-async-hooks"),
    import("@opentelemetry/sdk-trace-base"),
    import("@opentelemetry/exporter-trace-otlp-http"),
    import("@opentelemetry/resources"),
    import("@opentelemetry/instrumentation"),
    import("@prisma/instrumentation"),
    import("@opentelemetry/instrumentation-undici"),
  ]);
  const tracesUrl = `${env.OTEL_EXPORTER_OTLP_ENDPOINT.replace(/\/+$/, "")}/v1/traces`;
  const build = currentBuildId();
  const attributes = {
    "service.name": env.OTEL_SERVICE_NAME ?? i18nFor(defaultLocale).t("common:brand"),
    // The same instance as the log lines', and the build the spans came from.
    "service.instance.id": `${hostname()}:${process.pid}`,
    ...(build && { "service.version": build }),
  };
  const provider = new sdk.BasicTracerProvider({
    resource: resources
      .defaultResource()
      .merge(resources.resourceFromAttributes(attributes))
      .merge(resources.detectResources({ detectors: [resources.envDetector] })),
    spanProcessors: [new sdk.BatchSpanProcessor(new OTLPTraceExporter({ url: tracesUrl }))],
  });
  const quiet = () => {};
  api.diag.setLogger({ error: warn, warn, info: quiet, debug: quiet, verbose: quiet }, api.DiagLogLevel.WARN);
  api.context.setGlobalContextManager(new AsyncLocalStorageContextManager().enable());
  api.trace.setGlobalTracerProvider(provider);
  // No propagator is registered, on purpose: outgoing requests carry no traceparent to third parties.
  instrumentation.registerInstrumentations({
    tracerProvider: provider,
    instrumentations: [
      new prisma.PrismaInstrumentation(),
      // Every fetch (social sign-in, Polar, ...). A query string may carry a credential.
      new undici.UndiciInstrumentation({
        startSpanHook: ({ origin, path }) =>
          path.includes("?") ? { "url.full": `${origin}${path.split("?")[0]}`, "url.query": "REDACTED" } : {},
      }),
    ],
  });
  tracing = { api, tracer: provider.getTracer("app"), provider };
  return true;
}

/**
 * An unreachable collector is worth a warning, not silence (below that, the SDK's chatter is
 * not). An export runs in the context of whichever request's span started its timer: the
 * line is not that request's.
 */
function warn(message: string): void {
  logger().warn({ requestId: undefined }, `Traces: ${message}`);
}

/** Sends the spans still buffered (waiting at most `timeoutMs`, as the error reports do) and stops: at shutdown. */
export async function stopTracing(timeoutMs = 2_000): Promise<void> {
  if (!tracing) return;
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<string>((resolve) => (timer = setTimeout(resolve, timeoutMs, "no answer in time")));
  const failure = await Promise.race([
    tracing.provider.shutdown().then(
      () => null,
      (error: Error) => error.message,
    ),
    late,
  ]);
  clearTimeout(timer);
  if (failure) warn(`the spans still buffered at shutdown were not sent: ${failure}`);
}

/**
 * Runs `fn` in a span called `name`: by default a client span, an outgoing call at one of its
 * gates (the mail server, a payment provider, an identity provider, a webhook); as a "job",
 * the root span of one run of a queued job. A failure marks the span, and so does an HTTP
 * answer of 400 or more, whose status it records.
 */
export function traced<T>(
  name: string,
  attributes: Attributes,
  fn: () => Promise<T>,
  kind: "client" | "job" = "client",
): Promise<T> {
  if (!tracing) return fn();
  const { api, tracer } = tracing;
  // A job run is a trace of its own, whatever context its worker was started in.
  const options =
    kind === "job"
      ? { kind: api.SpanKind.CONSUMER, attributes, root: true }
      : { kind: api.SpanKind.CLIENT, attributes };
  return tracer.startActiveSpan(name, options, async (span) => {
    try {
      const result = await fn();
      if (result instanceof Response) {
        span.setAttribute("http.response.status_code", result.status);
        if (result.status >= 400) span.setStatus({ code: api.SpanStatusCode.ERROR });
      }
      return result;
    } catch (error) {
      span.recordException(error as Error);
      span.setStatus({ code: api.SpanStatusCode.ERROR });
      throw error;
    } finally {
      span.end();
    }
  });
}

/**
 * Runs `fn`, the handling of one request, inside the request's server span, which ends when
 * the response does. Its name and `http.route` are the route pattern the app learnt meanwhile
 * (never the URL: links carry tokens).
 */
export function traceRequest<T>(fields: RequestFields, req: IncomingMessage, res: ServerResponse, fn: () => T): T {
  if (!tracing) return fn();
  const { api, tracer } = tracing;
  const method = req.method ?? "GET";
  const span = tracer.startSpan(
    method,
    { kind: api.SpanKind.SERVER, attributes: { "http.request.method": method, "app.request_id": fields.requestId } },
    api.ROOT_CONTEXT,
  );
  res.once("close", () => {
    if (fields.route) span.updateName(`${method} ${fields.route}`).setAttribute("http.route", fields.route);
    span.setAttribute("http.response.status_code", res.statusCode);
    if (res.statusCode >= 500) span.setStatus({ code: api.SpanStatusCode.ERROR });
    span.end();
  });
  return api.context.with(api.trace.setSpan(api.ROOT_CONTEXT, span), fn);
}

/** React Router's instrumentations (a span per loader and action), or none when traces are off. */
export function routeInstrumentations(): ServerInstrumentation[] | undefined {
  if (!tracing) return undefined;
  const { api, tracer } = tracing;
  return [
    {
      route(route) {
        const span = (kind: string) => (handler: () => Promise<{ error: Error | undefined }>) =>
          tracer.startActiveSpan(
            `${kind} ${route.id}`,
            { attributes: { "react_router.route.id": route.id } },
            async (active) => {
              // A thrown redirect or Response is an answer, not an error: it comes back as no error.
              const { error } = await handler();
              if (error) {
                active.recordException(error);
                active.setStatus({ code: api.SpanStatusCode.ERROR });
              }
              active.end();
            },
          );
        route.instrument({ loader: span("loader"), action: span("action") });
      },
    },
  ];
}
