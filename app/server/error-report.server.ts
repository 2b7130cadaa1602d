/**
 * The error hook: every unexpected error (a 500, a response stream that broke) comes here,
 * once. It is logged with the request's id, and when SENTRY_DSN is set it is also sent to
 * Sentry tagged with the request id, route and user id. docs/decisions/0030-logs-and-errors.md.
 *
 * The client is @sentry/core's server client, not @sentry/node: the latter brings
 * OpenTelemetry and a dozen instrumentations that patch modules at start, none of which an
 * error report needs. It is imported on the first report, so a server without a DSN never
 * loads it.
 */
import type { ErrorEvent } from "@sentry/core";
import type { ServerRuntimeClient } from "@sentry/core/server";
import { loadEnv } from "~/server/env.server";
import { currentRequest, logger, type RequestFields } from "~/server/log.server";

let client: Promise<ServerRuntimeClient> | undefined;

/**
 * Only the exception and our tags leave the server: no request (its headers carry cookies),
 * no breadcrumbs, no extra data, no server name beyond the instance.
 */
function scrub(event: ErrorEvent): ErrorEvent {
  delete event.request;
  delete event.breadcrumbs;
  delete event.extra;
  delete event.contexts;
  return event;
}

async function createClient(dsn: string): Promise<ServerRuntimeClient> {
  const core = await import("@sentry/core");
  const { ServerRuntimeClient, nodeStackLineParser } = await import("@sentry/core/server");
  const created = new ServerRuntimeClient({
    dsn,
    integrations: [],
    sendDefaultPii: false,
    stackParser: core.createStackParser(nodeStackLineParser()),
    beforeSend: scrub,
    transport: (options) =>
      core.createTransport(options, async (request) => {
        const response = await fetch(options.url, { method: "POST", body: request.body as BodyInit });
        return {
          statusCode: response.status,
          headers: {
            "retry-after": response.headers.get("retry-after"),
            "x-sentry-rate-limits": response.headers.get("x-sentry-rate-limits"),
          },
        };
      }),
  });
  created.init();
  return created;
}

async function send(dsn: string, error: unknown, request: RequestFields | undefined): Promise<void> {
  const sentry = (client ??= createClient(dsn));
  const [{ Scope }, reporter] = await Promise.all([import("@sentry/core"), sentry]);
  const scope = new Scope();
  if (request) {
    scope.setTags({ request_id: request.requestId, route: request.route ?? "unknown" });
    if (request.userId) scope.setUser({ id: request.userId });
  }
  reporter.captureException(error, undefined, scope);
}

/** Reports an unexpected error: logged (with the request's id) and, with SENTRY_DSN, sent to Sentry. */
export function reportError(error: unknown, message: string): void {
  const request = currentRequest();
  logger().error({ err: error, route: request?.route, userId: request?.userId }, message);
  const dsn = loadEnv().SENTRY_DSN;
  if (!dsn) return;
  send(dsn, error, request).catch((failure: unknown) => logger().warn({ err: failure }, "Error report not sent"));
}

/** Waits (at most `timeoutMs`) for reports still on their way: at shutdown. */
export async function flushErrorReports(timeoutMs = 2_000): Promise<void> {
  if (client) await (await client).flush(timeoutMs);
}
