/**
 * Pages while the database is down: the app's own error page with 503 "temporarily
 * unavailable", in the page's language, instead of a 500 "Internal Server Error".
 *
 * React Router hides every thrown Error behind a 500 (and sanitizes it) before the error
 * boundary renders, and a middleware's `next()` never throws: loader and middleware errors
 * come back as an already rendered response. What does see the raw error is the server
 * entry's `handleError`, which calls `noteOutage` with the request's context. The root
 * middleware below reads that note once the page is rendered and, when the database was the
 * cause, throws a 503 instead, which React Router renders through the root error boundary
 * (root.tsx words it). The JSON API maps the same errors itself (api.server.ts).
 */
import { createContext, data, type MiddlewareFunction, type RouterContextProvider } from "react-router";
import { isDatabaseUnavailable } from "~/server/db.server";

interface OutageNote {
  database: boolean;
}

const outageContext = createContext<OutageNote | null>(null);

/** Seconds a client is asked to wait before trying again. */
export const RETRY_AFTER_SECONDS = 5;

/**
 * Notes that `error` was the database being unreachable, for the request of `context`.
 * True when it was (the caller then logs one line instead of a stack).
 */
export function noteOutage(error: unknown, context: Readonly<RouterContextProvider> | undefined): boolean {
  if (!isDatabaseUnavailable(error)) return false;
  const note = context?.get(outageContext);
  if (note) note.database = true;
  return true;
}

/** The first middleware of the root route (see the header). */
export const outageMiddleware: MiddlewareFunction<Response> = async ({ context }, next) => {
  const note: OutageNote = { database: false };
  context.set(outageContext, note);
  const response = await next();
  if (note.database) {
    await response.body?.cancel().catch(() => undefined);
    // (entry.server.tsx adds Retry-After to the 503 document: a thrown response's headers
    // only reach it through a route's `headers` export.)
    throw data({ message: "Service Unavailable" }, { status: 503 });
  }
  return response;
};
