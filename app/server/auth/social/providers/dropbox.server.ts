import { z } from "zod";
import { bearer, callJson, define, flag, mapWith, profile, text, userId, userInfoUrl } from "./define.server";

export const dropbox = define({
  id: "dropbox",
  name: "Dropbox",
  endpoints: () => ({
    authorizationUrl: "https://www.dropbox.com/oauth2/authorize",
    tokenUrl: "https://api.dropboxapi.com/oauth2/token",
    userInfoUrl: "https://api.dropboxapi.com/2/users/get_current_account",
  }),
  scopes: ["account_info.read"],
  pkce: true,
  tokenAuth: "body",
  // An RPC endpoint: POST without a body (Dropbox rejects an empty JSON body).
  fetchProfile: (ctx) => callJson(ctx, userInfoUrl(ctx.config), { method: "POST", headers: bearer(ctx) }),
  mapProfile: mapWith(
    z.object({
      account_id: userId,
      name: z.object({ display_name: text }).optional().catch(undefined),
      email: text,
      email_verified: flag,
      profile_photo_url: text,
    }),
    (account) =>
      profile({
        id: account.account_id,
        email: account.email,
        emailVerified: account.email_verified,
        name: account.name?.display_name ?? null,
        image: account.profile_photo_url,
      }),
  ),
});
