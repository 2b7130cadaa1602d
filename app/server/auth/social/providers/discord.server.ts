import { z } from "zod";
import { define, flag, mapWith, profile, text } from "./define.server";

/** Discord's CDN avatar, or the default avatar Discord itself shows for the account. */
function discordAvatar(id: string, avatar: string | null, discriminator: string | null): string {
  if (avatar) return `https://cdn.discordapp.com/avatars/${id}/${avatar}.${avatar.startsWith("a_") ? "gif" : "png"}`;
  const index = !discriminator || discriminator === "0" ? Number((BigInt(id) >> 22n) % 6n) : Number(discriminator) % 5;
  return `https://cdn.discordapp.com/embed/avatars/${index}.png`;
}

export const discord = define({
  id: "discord",
  name: "Discord",
  endpoints: () => ({
    authorizationUrl: "https://discord.com/api/oauth2/authorize",
    tokenUrl: "https://discord.com/api/oauth2/token",
    userInfoUrl: "https://discord.com/api/users/@me",
  }),
  scopes: ["identify", "email"],
  pkce: false,
  tokenAuth: "body",
  // A user who already authorized the app is not asked again.
  authorizationParams: () => ({ prompt: "none" }),
  mapProfile: mapWith(
    z.object({
      id: z.string().regex(/^\d+$/),
      username: text,
      global_name: text,
      discriminator: text,
      avatar: text,
      email: text,
      verified: flag,
    }),
    (user) =>
      profile({
        id: user.id,
        email: user.email,
        emailVerified: user.verified,
        name: user.global_name ?? user.username,
        image: discordAvatar(user.id, user.avatar, user.discriminator),
      }),
  ),
});
