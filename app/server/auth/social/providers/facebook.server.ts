import { z } from "zod";
import { define, mapWith, profile, text, userId } from "./define.server";

export const facebook = define({
  id: "facebook",
  name: "Facebook",
  endpoints: () => ({
    authorizationUrl: "https://www.facebook.com/v24.0/dialog/oauth",
    tokenUrl: "https://graph.facebook.com/v24.0/oauth/access_token",
    userInfoUrl: "https://graph.facebook.com/me?fields=id,name,email,picture",
  }),
  scopes: ["email", "public_profile"],
  pkce: false,
  tokenAuth: "body",
  mapProfile: mapWith(
    z.object({
      id: userId,
      name: text,
      email: text,
      picture: z
        .object({ data: z.object({ url: text }) })
        .optional()
        .catch(undefined),
    }),
    (user) =>
      profile({
        id: user.id,
        email: user.email,
        // The Graph API does not say whether the address was confirmed.
        emailVerified: false,
        name: user.name,
        image: user.picture?.data.url ?? null,
      }),
  ),
});
