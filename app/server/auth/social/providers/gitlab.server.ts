import { z } from "zod";
import { httpUrl } from "~/server/env-fields.server";
import { define, mapWith, profile, text, userId } from "./define.server";

export const gitlab = define({
  id: "gitlab",
  name: "GitLab",
  variables: {
    baseUrl: {
      name: "GITLAB_BASE_URL",
      schema: httpUrl("https://gitlab.example.com").transform((value) => value.replace(/\/+$/, "")),
    },
  },
  endpoints: ({ baseUrl = "https://gitlab.com" }) => ({
    authorizationUrl: `${baseUrl}/oauth/authorize`,
    tokenUrl: `${baseUrl}/oauth/token`,
    userInfoUrl: `${baseUrl}/api/v4/user`,
  }),
  scopes: ["read_user"],
  pkce: true,
  tokenAuth: "body",
  mapProfile: mapWith(
    // A blocked or locked GitLab account does not sign in here either.
    z.object({
      id: userId,
      username: text,
      name: text,
      email: text,
      avatar_url: text,
      state: z.literal("active"),
      locked: z.literal(false).optional(),
    }),
    (user) =>
      profile({
        id: user.id,
        email: user.email,
        // GitLab's user API does not say whether the address was confirmed.
        emailVerified: false,
        name: user.name ?? user.username,
        image: user.avatar_url,
      }),
  ),
});
