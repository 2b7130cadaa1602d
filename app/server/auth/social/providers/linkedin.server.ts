import { z } from "zod";
import { define, flag, mapWith, profile, text, userId } from "./define.server";

export const linkedin = define({
  id: "linkedin",
  name: "LinkedIn",
  endpoints: () => ({
    authorizationUrl: "https://www.linkedin.com/oauth/v2/authorization",
    tokenUrl: "https://www.linkedin.com/oauth/v2/accessToken",
    userInfoUrl: "https://api.linkedin.com/v2/userinfo",
    issuer: "https://www.linkedin.com/oauth",
    jwksUrl: "https://www.linkedin.com/oauth/openid/jwks",
  }),
  scopes: ["profile", "email", "openid"],
  pkce: false,
  tokenAuth: "body",
  mapProfile: mapWith(z.object({ sub: userId, name: text, email: text, email_verified: flag, picture: text }), (user) =>
    profile({
      id: user.sub,
      email: user.email,
      emailVerified: user.email_verified,
      name: user.name,
      image: user.picture,
    }),
  ),
});
