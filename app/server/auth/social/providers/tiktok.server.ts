import { z } from "zod";
import { define, mapWith, profile, text, userId } from "./define.server";

export const tiktok = define({
  id: "tiktok",
  name: "TikTok",
  endpoints: () => ({
    authorizationUrl: "https://www.tiktok.com/v2/auth/authorize",
    tokenUrl: "https://open.tiktokapis.com/v2/oauth/token/",
    userInfoUrl: "https://open.tiktokapis.com/v2/user/info/?fields=open_id,avatar_large_url,display_name,username",
  }),
  // user.info.basic covers open_id, display_name and the avatar; user.info.profile the username.
  scopes: ["user.info.basic", "user.info.profile"],
  pkce: false,
  scopeSeparator: ",",
  clientIdParam: "client_key",
  tokenAuth: "body",
  mapProfile: mapWith(
    z.object({
      data: z.object({
        user: z.object({ open_id: userId, display_name: text, username: text, avatar_large_url: text }),
      }),
    }),
    ({ data: { user } }) =>
      profile({
        id: user.open_id,
        // TikTok never discloses an email address.
        email: null,
        emailVerified: false,
        name: user.display_name ?? user.username,
        image: user.avatar_large_url,
      }),
  ),
});
