import { z } from "zod";
import { callJson, define, joinName, mapWith, profile, text, userId, userInfoUrl } from "./define.server";

export const vk = define({
  id: "vk",
  name: "VK",
  endpoints: () => ({
    authorizationUrl: "https://id.vk.com/authorize",
    tokenUrl: "https://id.vk.com/oauth2/auth",
    userInfoUrl: "https://id.vk.com/oauth2/user_info",
  }),
  scopes: ["email", "phone"],
  pkce: true,
  tokenAuth: "body",
  // VK ID takes the token and the client id as form fields, not as a Bearer header.
  fetchProfile: (ctx) =>
    callJson(ctx, userInfoUrl(ctx.config), {
      method: "POST",
      headers: { "content-type": "application/x-www-form-urlencoded" },
      body: new URLSearchParams({ access_token: ctx.tokens.accessToken, client_id: ctx.config.clientId }).toString(),
    }),
  mapProfile: mapWith(
    z.object({
      user: z.object({ user_id: userId, first_name: text, last_name: text, email: text, avatar: text }),
    }),
    ({ user }) =>
      profile({
        id: user.user_id,
        email: user.email,
        // VK does not say whether the address was confirmed.
        emailVerified: false,
        name: joinName(user.first_name, user.last_name),
        image: user.avatar,
      }),
  ),
});
