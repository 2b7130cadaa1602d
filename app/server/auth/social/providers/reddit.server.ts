import { z } from "zod";
import { define, mapWith, profile, text, userId } from "./define.server";

export const reddit = define({
  id: "reddit",
  name: "Reddit",
  endpoints: () => ({
    authorizationUrl: "https://www.reddit.com/api/v1/authorize",
    tokenUrl: "https://www.reddit.com/api/v1/access_token",
    userInfoUrl: "https://oauth.reddit.com/api/v1/me",
  }),
  scopes: ["identity"],
  pkce: false,
  tokenAuth: "basic",
  mapProfile: mapWith(z.object({ id: userId, name: text, icon_img: text }), (user) =>
    profile({
      id: user.id,
      // Reddit never discloses an email address.
      email: null,
      emailVerified: false,
      name: user.name,
      // The query holds HTML-escaped resizing parameters; the bare URL is the full icon.
      image: user.icon_img?.split("?")[0] ?? null,
    }),
  ),
});
