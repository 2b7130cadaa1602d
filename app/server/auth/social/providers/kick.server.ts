import { z } from "zod";
import { define, mapWith, profile, text, userId } from "./define.server";

export const kick = define({
  id: "kick",
  name: "Kick",
  endpoints: () => ({
    authorizationUrl: "https://id.kick.com/oauth/authorize",
    tokenUrl: "https://id.kick.com/oauth/token",
    userInfoUrl: "https://api.kick.com/public/v1/users",
  }),
  scopes: ["user:read"],
  pkce: true,
  tokenAuth: "body",
  mapProfile: mapWith(
    z.object({
      data: z.array(z.object({ user_id: userId, name: text, email: text, profile_picture: text })).min(1),
    }),
    ({ data: [user] }) =>
      profile({
        id: user!.user_id,
        email: user!.email,
        // Kick does not say whether the address was confirmed.
        emailVerified: false,
        name: user!.name,
        image: user!.profile_picture,
      }),
  ),
});
