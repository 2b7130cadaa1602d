import { z } from "zod";
import { define, flag, idTokenClaims, joinName, mapWith, profile, text, userId } from "./define.server";

/** A PEM private key (Apple's .p8 file), as opposed to a ready-made client-secret JWT. */
export function isPrivateKey(value: string | undefined): boolean {
  return Boolean(value?.includes("-----BEGIN PRIVATE KEY-----"));
}

function parseJson(text: string | undefined): unknown {
  if (!text) return undefined;
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}

export const apple = define({
  id: "apple",
  name: "Apple",
  variables: {
    appBundleIdentifier: { name: "APPLE_APP_BUNDLE_IDENTIFIER", schema: z.string() },
    // With APPLE_CLIENT_SECRET holding the .p8 private key, the app signs Apple's client-secret JWT itself.
    teamId: { name: "APPLE_TEAM_ID", schema: z.string() },
    keyId: { name: "APPLE_KEY_ID", schema: z.string() },
  },
  checkVariables: (input) =>
    isPrivateKey(input.APPLE_CLIENT_SECRET)
      ? ["APPLE_TEAM_ID", "APPLE_KEY_ID"]
          .filter((variable) => !input[variable])
          .map((variable) => `${variable}: is required when APPLE_CLIENT_SECRET is a private key`)
      : [],
  endpoints: () => ({
    authorizationUrl: "https://appleid.apple.com/auth/authorize",
    tokenUrl: "https://appleid.apple.com/auth/token",
    issuer: "https://appleid.apple.com",
    jwksUrl: "https://appleid.apple.com/auth/keys",
  }),
  scopes: ["email", "name"],
  pkce: true,
  tokenAuth: "body",
  // Apple only grants the name and email scopes with a form post to the callback.
  authorizationParams: () => ({ response_mode: "form_post" }),
  fetchProfile: async (ctx) => ({ claims: idTokenClaims(ctx), user: parseJson(ctx.callbackUser) }),
  mapProfile: mapWith(
    z.object({
      claims: z.object({ sub: userId, email: text, email_verified: flag, name: text }),
      user: z
        .object({ name: z.object({ firstName: text, lastName: text }).optional().catch(undefined) })
        .optional()
        .catch(undefined),
    }),
    ({ claims, user }) =>
      profile({
        id: claims.sub,
        email: claims.email,
        emailVerified: claims.email_verified,
        name: joinName(user?.name?.firstName ?? null, user?.name?.lastName ?? null) ?? claims.name,
        image: null,
      }),
  ),
});
