/**
 * @better-auth/sso's client plugin (`ssoClient()` from "@better-auth/sso/client", 1.7.5), in
 * full. The package cannot be installed beside better-auth 1.7.25: its peer dependency pins
 * @better-auth/utils 0.4.2, which 1.7.25 replaces with 0.5.x. Its whole content is this object:
 * the proxy client turns `client.sso.getProvider(...)` into the route's path by itself, and
 * `pathMethods` makes the two reads GETs.
 */
import type { BetterAuthClientPlugin } from "better-auth/client";

export const ssoClient = () =>
  ({
    id: "sso-client",
    $InferServerPlugin: {},
    pathMethods: {
      "/sso/providers": "GET",
      "/sso/get-provider": "GET",
    },
  }) satisfies BetterAuthClientPlugin;
