import { PassThrough } from "node:stream";
import { createReadableStreamFromReadable } from "@react-router/node";
import { renderToPipeableStream } from "react-dom/server";
import { I18nextProvider } from "react-i18next";
import {
  isRouteErrorResponse,
  ServerRouter,
  type EntryContext,
  type HandleErrorFunction,
  type RouterContextProvider,
} from "react-router";
import { splitLocale } from "~/i18n/config";
import { HydrationProvider, hydrates } from "~/lib/hydration";
import { NonceProvider } from "~/lib/nonce";
import { startBackgroundWork } from "~/server/background.server";
import { hostedPageOrigins } from "~/server/billing/pages.server";
import { errorText } from "~/server/db.server";
import { loadEnv } from "~/server/env.server";
import { reportError } from "~/server/error-report.server";
import { logger } from "~/server/log.server";
import { isBot } from "~/server/request-head.server";
import { i18nFor } from "~/server/i18n.server";
import { noteOutage, RETRY_AFTER_SECONDS } from "~/server/outage.server";
import { mayKeep, newNonce, offerPage } from "~/server/page-cache.server";

export const streamTimeout = 5_000;

// In production server.ts starts the background work (app.server.ts's startup()). The
// development server has no such start: its first request loads this module, which starts it
// here, or no email or webhook would ever leave. A reload finds it running and leaves it be.
if (import.meta.env.DEV) {
  startBackgroundWork().catch((error: unknown) => reportError(error, "Starting the background work failed"));
}

/**
 * Forms post to us, and social sign-in buttons and checkout forms are followed by a redirect
 * to the provider: browsers hold that redirect to `form-action` too, so the providers'
 * authorization origins and the payment provider's hosted pages are allowed there.
 */
let formActions: string | undefined;
const formActionSources = () =>
  (formActions ??= [
    "'self'",
    ...new Set([
      ...loadEnv().socialProviders.map((provider) => new URL(provider.authorizationUrl).origin),
      ...hostedPageOrigins(),
    ]),
  ].join(" "));

/** One CSP per document: scripts only from us or carrying this response's nonce. */
function contentSecurityPolicy(nonce: string): string {
  return [
    "default-src 'self'",
    `script-src 'self' 'nonce-${nonce}'`,
    "style-src 'self' 'unsafe-inline'",
    "img-src 'self' data: https:",
    "font-src 'self'",
    "connect-src 'self'",
    `form-action ${formActionSources()}`,
    "frame-ancestors 'none'",
    "base-uri 'self'",
    "object-src 'none'",
  ].join("; ");
}

export default function handleRequest(
  request: Request,
  responseStatusCode: number,
  responseHeaders: Headers,
  routerContext: EntryContext,
  loadContext: RouterContextProvider,
) {
  const userAgent = request.headers.get("user-agent");
  // Crawlers get a bare status instead of an error page; the server log keeps the details.
  // Only when an error boundary is rendering (a route error was thrown): a form re-rendered
  // after a refused action (401 on a wrong password, 429, …) is a page for every user agent,
  // headless browsers without JavaScript included.
  const errorPage = Boolean(routerContext.staticHandlerContext.errors);
  // The database is down (server/outage.server.ts): tell clients and load balancers when to come back.
  if (responseStatusCode === 503) responseHeaders.set("Retry-After", String(RETRY_AFTER_SECONDS));

  if (responseStatusCode >= 400 && errorPage && isBot(userAgent)) {
    // The status alone: the path may carry a token, and the access line has the route.
    logger().warn({ userAgent }, `[crawler] ${responseStatusCode} ${request.method}`);
    responseHeaders.set("Content-Type", "text/plain; charset=utf-8");
    return new Response(String(responseStatusCode), { status: responseStatusCode, headers: responseHeaders });
  }

  // A page that does not hydrate (root.tsx leaves its scripts out) needs no loader data in the
  // browser, nor a manifest: ServerRouter builds its route tree from the manifest on every
  // render, and with only the matched routes in it that is a few objects instead of the
  // whole localized tree. The loader data's stream is left unread, not cancelled: cancelled,
  // its encoder fails before it clears its 5-second timer, which then holds the request.
  const matches = routerContext.staticHandlerContext.matches;
  const hydrating = hydrates(matches.map((match) => routerContext.routeModules[match.route.id]?.handle));
  if (!hydrating) {
    const routes = Object.fromEntries(matches.map(({ route }) => [route.id, routerContext.manifest.routes[route.id]!]));
    routerContext = {
      ...routerContext,
      serverHandoffStream: undefined,
      manifest: { ...routerContext.manifest, routes },
    };
  }

  const nonce = newNonce();
  const keep = mayKeep(loadContext, responseStatusCode, routerContext);
  responseHeaders.set("Content-Type", "text/html; charset=utf-8");
  responseHeaders.set("Content-Security-Policy", contentSecurityPolicy(nonce));
  // Bots and SPA-mode builds want the whole document; browsers get it streamed.
  const readyEvent = isBot(userAgent) || routerContext.isSpaMode ? "onAllReady" : "onShellReady";

  return new Promise<Response>((resolve, reject) => {
    let shellRendered = false;
    const { pipe, abort } = renderToPipeableStream(
      <NonceProvider value={nonce}>
        <HydrationProvider value={hydrating}>
          <I18nextProvider i18n={i18nFor(splitLocale(new URL(request.url).pathname).locale)}>
            <ServerRouter context={routerContext} url={request.url} nonce={nonce} />
          </I18nextProvider>
        </HydrationProvider>
      </NonceProvider>,
      {
        nonce,
        onShellReady() {
          if (readyEvent === "onShellReady") send();
        },
        onAllReady() {
          clearTimeout(timer);
          if (readyEvent === "onAllReady") send();
        },
        onShellError(error: unknown) {
          clearTimeout(timer);
          reject(error);
        },
        onError(error: unknown) {
          responseStatusCode = 500;
          // Errors after the shell are already reported by handleError below.
          if (shellRendered) reportError(error, "Rendering a page failed after its first bytes were sent");
        },
      },
    );
    // Cleared when the document is complete: a pending timer keeps the whole render
    // (request, tree, stream) alive for seconds after it was sent, which under load was
    // most of the heap and of the garbage collector's work.
    const timer = setTimeout(abort, streamTimeout + 1000);

    function send() {
      shellRendered = true;
      const body = new PassThrough();
      if (keep) {
        // A copy of what is sent, for the page cache once the whole document rendered fine.
        const chunks: Buffer[] = [];
        body.on("data", (chunk: Buffer) => chunks.push(chunk));
        const html = new Promise<string | null>((done) => {
          body.on("end", () => done(responseStatusCode === 200 ? Buffer.concat(chunks).toString("utf8") : null));
          body.on("close", () => done(null)); // destroyed before the end: a client that left
        });
        offerPage(loadContext, { nonce, html });
      }
      resolve(
        new Response(createReadableStreamFromReadable(body), {
          headers: responseHeaders,
          status: responseStatusCode,
        }),
      );
      pipe(body);
    }
  });
}

export const handleError: HandleErrorFunction = (error, { request, context }) => {
  if (request.signal.aborted) return;
  // The database is down: the page becomes a 503 (server/outage.server.ts), logged in one line.
  if (noteOutage(error, context)) {
    logger().error(`${request.method}: database unavailable (${errorText(error)})`);
    return;
  }
  // React Router's own refusals (a POST to a page without an action: 405) are the client's
  // doing, not a fault: the access line has their status.
  if (isRouteErrorResponse(error) && error.status < 500) return;
  reportError(error, "A page failed");
};
