import { z } from "zod";
import { define, getUserInfo, mapWith, profile, text, userId } from "./define.server";

// Outside the definition because Twitch's own fetchProfile checks the subject with it.
const mapTwitch = mapWith(
  z.object({
    data: z
      .array(z.object({ id: userId, login: text, display_name: text, email: text, profile_image_url: text }))
      .min(1),
  }),
  ({ data: [user] }) =>
    profile({
      id: user!.id,
      email: user!.email,
      // Twitch only returns an address once it is verified.
      emailVerified: true,
      name: user!.display_name ?? user!.login,
      image: user!.profile_image_url,
    }),
);

export const twitch = define({
  id: "twitch",
  name: "Twitch",
  endpoints: () => ({
    authorizationUrl: "https://id.twitch.tv/oauth2/authorize",
    tokenUrl: "https://id.twitch.tv/oauth2/token",
    userInfoUrl: "https://api.twitch.tv/helix/users",
    issuer: "https://id.twitch.tv/oauth2",
    jwksUrl: "https://id.twitch.tv/oauth2/keys",
  }),
  scopes: ["user:read:email", "openid"],
  pkce: false,
  tokenAuth: "body",
  // The Helix API wants the client id besides the token.
  fetchProfile: (ctx) => getUserInfo(ctx, mapTwitch, { "client-id": ctx.config.clientId }),
  mapProfile: mapTwitch,
});
