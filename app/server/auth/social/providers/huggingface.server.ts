import { z } from "zod";
import { define, flag, mapWith, profile, text, userId } from "./define.server";

export const huggingface = define({
  id: "huggingface",
  name: "Hugging Face",
  endpoints: () => ({
    authorizationUrl: "https://huggingface.co/oauth/authorize",
    tokenUrl: "https://huggingface.co/oauth/token",
    userInfoUrl: "https://huggingface.co/oauth/userinfo",
    issuer: "https://huggingface.co",
    jwksUrl: "https://huggingface.co/oauth/jwks",
  }),
  scopes: ["openid", "profile", "email"],
  pkce: true,
  tokenAuth: "body",
  mapProfile: mapWith(
    z.object({ sub: userId, name: text, preferred_username: text, email: text, email_verified: flag, picture: text }),
    (user) =>
      profile({
        id: user.sub,
        email: user.email,
        emailVerified: user.email_verified,
        name: user.name ?? user.preferred_username,
        image: user.picture,
      }),
  ),
});
