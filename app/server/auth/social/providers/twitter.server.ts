import { z } from "zod";
import { define, mapWith, profile, text, userId } from "./define.server";

export const twitter = define({
  id: "twitter",
  name: "X (Twitter)",
  endpoints: () => ({
    authorizationUrl: "https://x.com/i/oauth2/authorize",
    tokenUrl: "https://api.x.com/2/oauth2/token",
    userInfoUrl: "https://api.x.com/2/users/me?user.fields=profile_image_url,confirmed_email",
  }),
  scopes: ["users.read", "tweet.read", "offline.access", "users.email"],
  pkce: true,
  tokenAuth: "basic",
  mapProfile: mapWith(
    z.object({
      data: z.object({ id: userId, name: text, username: text, profile_image_url: text, confirmed_email: text }),
    }),
    ({ data: user }) =>
      profile({
        id: user.id,
        email: user.confirmed_email,
        emailVerified: true,
        name: user.name ?? user.username,
        image: user.profile_image_url,
      }),
  ),
});
