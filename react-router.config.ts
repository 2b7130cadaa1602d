import type { Config } from "@react-router/dev/config";

export default {
  ssr: true,
  // The whole route manifest is one small, cached file: rendering a page then needs no
  // partial manifest (a route match per path prefix), and navigations no discovery requests.
  routeDiscovery: { mode: "initial" },
  // v8 behaviours opted into now, so the upgrade to React Router 8 (Node 22) is a version
  // bump. Not yet v8_passThroughRequests: with it, loaders and middleware see the raw `.data`
  // URL, and the code that reads the locale and paths from `request.url` must move to the
  // `url` argument first.
  future: {
    v8_middleware: true,
    v8_splitRouteModules: true,
    v8_viteEnvironmentApi: true,
    v8_trailingSlashAwareDataRequests: true,
  },
} satisfies Config;
