import type { Config } from "@react-router/dev/config";

export default {
  ssr: true,
  // The whole route manifest is one small, cached file: rendering a page then needs no
  // partial manifest (a route match per path prefix), and navigations no discovery requests.
  routeDiscovery: { mode: "initial" },
  // v8 behaviours opted into now, so the upgrade to React Router 8 (Node 22) is a version
  // bump. With v8_passThroughRequests every loader, action and middleware gets the request
  // itself, not a copy per route; a client navigation's `request.url` is then its `.data`
  // URL, so pages read paths and queries from the `url` argument (server/page-url.server.ts).
  future: {
    v8_middleware: true,
    v8_splitRouteModules: true,
    v8_viteEnvironmentApi: true,
    v8_trailingSlashAwareDataRequests: true,
    v8_passThroughRequests: true,
  },
} satisfies Config;
