import { z } from "zod";
import { define, mapWith, profile, text, userId } from "./define.server";

export const spotify = define({
  id: "spotify",
  name: "Spotify",
  endpoints: () => ({
    authorizationUrl: "https://accounts.spotify.com/authorize",
    tokenUrl: "https://accounts.spotify.com/api/token",
    userInfoUrl: "https://api.spotify.com/v1/me",
  }),
  scopes: ["user-read-email"],
  pkce: true,
  tokenAuth: "body",
  mapProfile: mapWith(
    z.object({ id: userId, display_name: text, email: text, images: z.array(z.object({ url: text })).catch([]) }),
    (user) =>
      profile({
        id: user.id,
        email: user.email,
        // Spotify does not say whether the address was confirmed.
        emailVerified: false,
        name: user.display_name,
        image: user.images[0]?.url ?? null,
      }),
  ),
});
