import { z } from "zod";
import { define, mapWith, profile, text, userId } from "./define.server";

export const roblox = define({
  id: "roblox",
  name: "Roblox",
  endpoints: () => ({
    authorizationUrl: "https://apis.roblox.com/oauth/v1/authorize",
    tokenUrl: "https://apis.roblox.com/oauth/v1/token",
    userInfoUrl: "https://apis.roblox.com/oauth/v1/userinfo",
    issuer: "https://apis.roblox.com/oauth/",
    jwksUrl: "https://apis.roblox.com/oauth/v1/certs",
  }),
  scopes: ["openid", "profile"],
  pkce: false,
  tokenAuth: "body",
  authorizationParams: () => ({ prompt: "select_account consent" }),
  mapProfile: mapWith(z.object({ sub: userId, nickname: text, preferred_username: text, picture: text }), (user) =>
    profile({
      id: user.sub,
      // Roblox never discloses an email address.
      email: null,
      emailVerified: false,
      name: user.nickname ?? user.preferred_username,
      image: user.picture,
    }),
  ),
});
