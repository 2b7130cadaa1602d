import { z } from "zod";
import { define, joinName, mapWith, profile, text, userId } from "./define.server";

export const zoom = define({
  id: "zoom",
  name: "Zoom",
  endpoints: () => ({
    authorizationUrl: "https://zoom.us/oauth/authorize",
    tokenUrl: "https://zoom.us/oauth/token",
    userInfoUrl: "https://api.zoom.us/v2/users/me",
  }),
  // Zoom grants the scopes chosen in the app's settings.
  scopes: [],
  pkce: true,
  tokenAuth: "body",
  mapProfile: mapWith(
    z.object({
      id: userId,
      display_name: text,
      first_name: text,
      last_name: text,
      email: text,
      verified: z.unknown().optional(),
      pic_url: text,
    }),
    (user) =>
      profile({
        id: user.id,
        email: user.email,
        // 1 when the user verified the account's email address.
        emailVerified: user.verified === 1 || user.verified === true,
        name: user.display_name ?? joinName(user.first_name, user.last_name),
        image: user.pic_url,
      }),
  ),
});
