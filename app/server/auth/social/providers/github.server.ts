import { z } from "zod";
import { bearer, callJson, define, flag, mapWith, profile, text, userId, userInfoUrl } from "./define.server";

export const github = define({
  id: "github",
  name: "GitHub",
  endpoints: () => ({
    authorizationUrl: "https://github.com/login/oauth/authorize",
    tokenUrl: "https://github.com/login/oauth/access_token",
    userInfoUrl: "https://api.github.com/user",
  }),
  scopes: ["read:user", "user:email"],
  pkce: true,
  tokenAuth: "body",
  // /user shows only a public email; /user/emails has the others and who verified which.
  fetchProfile: async (ctx) => {
    const headers = { ...bearer(ctx), accept: "application/vnd.github+json" };
    const url = userInfoUrl(ctx.config);
    const [user, emails] = await Promise.all([
      callJson(ctx, url, { headers }),
      callJson(ctx, `${url}/emails`, { headers }).catch(() => []),
    ]);
    return { user, emails };
  },
  mapProfile: mapWith(
    z.object({
      user: z.object({ id: userId, login: text, name: text, email: text, avatar_url: text }),
      emails: z.array(z.object({ email: z.string(), primary: flag, verified: flag })).catch([]),
    }),
    ({ user, emails }) => {
      const email = user.email ?? emails.find((entry) => entry.primary && entry.verified)?.email ?? null;
      return profile({
        id: user.id,
        email,
        emailVerified: emails.find((entry) => entry.email === email)?.verified ?? false,
        name: user.name ?? user.login,
        image: user.avatar_url,
      });
    },
  ),
});
