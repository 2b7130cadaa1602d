/**
 * Entry of the SSR bundle (vite.config.ts points the server build here; the output is
 * build/server/index.js). server.ts imports it and gets everything that has to share this
 * bundle's module instances: the request handler, the validated environment, start-up and
 * the database client's health check and shutdown.
 */
import * as build from "virtual:react-router/server-build";
import { createRequestHandler, RouterContextProvider } from "react-router";
import { clientAddressContext } from "~/context";
import { BASE_PATH as AUTH_BASE_PATH, handleAuthRequest, sessionFromCookieCache } from "~/server/api.server";
import { originCheckedContext, untrustedOriginResponse } from "~/server/auth/origin.server";
import { stopRevocationListener } from "~/server/auth/revocation.server";
import { startBackgroundWork } from "~/server/background.server";
import { closeDatabase as closeClient } from "~/server/db.server";
import { stopQueue } from "~/server/jobs/queue.server";
import { ensureAdmin } from "~/server/db/admin-seed.server";
import { migrate } from "~/server/db/migrate.server";
import { loadEnv } from "~/server/env.server";
import { logger } from "~/server/log.server";
import { cachedPage, keepPage, noteMiss } from "~/server/page-cache.server";
import type { QuickAnswer, RequestHead } from "~/server/request-head.server";
import { routeInstrumentations, startTracing } from "~/server/tracing.server";

export { clientAddress } from "~/server/client-address.server";
export { checkDatabase } from "~/server/db.server";
export { formatProblems, loadEnv, parseEnv } from "~/server/env.server";
export { flushErrorReports, reportError } from "~/server/error-report.server";
export { logAccess, logger, noteRequest, requestIdFor, runInRequest } from "~/server/log.server";
export { stopTracing, traceRequest } from "~/server/tracing.server";
export { bearerMatches, metricsText, observeRequest } from "~/server/metrics.server";

// import.meta.env.MODE is "production" in a built bundle, so error details are never sent to
// browsers, whatever NODE_ENV the process runs with.
let requestHandler = createRequestHandler(build, import.meta.env.MODE);

/**
 * The answer to a request that needs neither React Router nor the dispatcher's fetch objects,
 * or null: an anonymous page from the page cache, or get-session from its cookie cache.
 * server.ts asks before building the request handleRequest takes.
 */
export async function quickAnswer(head: RequestHead, client: { address: string | null }): Promise<QuickAnswer | null> {
  return new URL(head.url).pathname.startsWith(`${AUTH_BASE_PATH}/`)
    ? sessionFromCookieCache(head, client.address)
    : cachedPage(head);
}

/**
 * Answers one request (quickAnswer had none). `client.address` is the client's IP as
 * server.ts determined it.
 */
export function handleRequest(request: Request, client: { address: string | null }): Promise<Response> {
  // With middleware enabled, the load context must be a RouterContextProvider.
  const context = new RouterContextProvider();
  context.set(clientAddressContext, client.address);
  // Cookie-carrying posts from an untrusted origin get their 403 here: React Router's own
  // action check would otherwise answer a foreign Origin with a bare 400 before any middleware.
  const refused = untrustedOriginResponse(request);
  if (refused) return Promise.resolve(refused);
  context.set(originCheckedContext, true);
  // The JSON API goes straight to its dispatcher (the same one its resource route calls in
  // development): React Router's matching walks the whole localized route tree on every
  // request, which is most of the cost of a small API call and buys the API nothing.
  if (new URL(request.url).pathname.startsWith(`${AUTH_BASE_PATH}/`)) return handleAuthRequest(request, context);
  noteMiss(request, context);
  return requestHandler(request, context).then((response) => {
    keepPage(response, context);
    return response;
  });
}

/** Runs once before the server listens: validate env, start traces, migrate the database, ensure the admin. */
export async function startup(): Promise<void> {
  const env = loadEnv();
  // With traces on, the router runs every loader and action in a span of its own; off, the
  // handler above is left as it is.
  if (await startTracing(env)) {
    const entry = { ...build.entry, module: { ...build.entry.module, instrumentations: routeInstrumentations() } };
    requestHandler = createRequestHandler({ ...build, entry }, import.meta.env.MODE);
  }

  const applied = await migrate(env.DATABASE_URL);
  if (applied.length > 0) logger().info(`Applied ${applied.length} migration(s): ${applied.join(", ")}`);
  await startBackgroundWork();

  if (env.admin) {
    const { created } = await ensureAdmin({ email: env.admin.email, password: env.admin.password, name: "Admin" });
    if (env.admin.isDemo) {
      // Only the well-known demo credentials are printed; a configured password never is.
      logger().info(
        `Demo admin: ${env.admin.email} / ${env.admin.password} (set ADMIN_EMAIL and ADMIN_PASSWORD to change)`,
      );
    } else if (created) {
      logger().info(`Created admin ${env.admin.email}`);
    }
  }
}

/** Closes the database connections on shutdown (the job queue's and the revocation listener's too). */
export async function closeDatabase(): Promise<void> {
  await stopQueue();
  await stopRevocationListener();
  await closeClient();
}
