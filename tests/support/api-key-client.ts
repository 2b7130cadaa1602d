/**
 * @better-auth/api-key's client plugin (`apiKeyClient()` from "@better-auth/api-key/client",
 * 1.7.5), in full but for its error-code table. Like @better-auth/sso, the package cannot be
 * installed beside better-auth 1.7.25 (its peer dependencies pin older @better-auth packages).
 * The proxy client turns `client.apiKey.create(...)` into the route's path by itself;
 * `pathMethods` makes the bodiless ones POSTs.
 */
import type { BetterAuthClientPlugin } from "better-auth/client";

export const apiKeyClient = () =>
  ({
    id: "api-key",
    $InferServerPlugin: {},
    pathMethods: {
      "/api-key/create": "POST",
      "/api-key/delete": "POST",
      "/api-key/delete-all-expired-api-keys": "POST",
    },
  }) satisfies BetterAuthClientPlugin;
