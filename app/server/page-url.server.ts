import { createContext, type MiddlewareFunction, type RouterContextProvider } from "react-router";

const pageUrlContext = createContext<URL>();

/**
 * The root's first middleware keeps the page's URL for the helpers loaders and actions call.
 * React Router hands every loader, action and middleware the raw request
 * (`future.v8_passThroughRequests`: no copy of it per route), so a client navigation's
 * `request.url` is its data URL (`/fr/pricing.data?_routes=…`); the `url` argument is the
 * page's (`/fr/pricing`). Paths, languages, queries and redirect targets come from this one.
 */
export const pageUrlMiddleware: MiddlewareFunction<Response> = ({ url, context }) => {
  context.set(pageUrlContext, url);
};

export const pageUrl = (context: Readonly<RouterContextProvider>): URL => context.get(pageUrlContext);
