import { z } from "zod";
import { define, flag, idTokenClaims, mapWith, profile, text, userId } from "./define.server";

export const google = define({
  id: "google",
  name: "Google",
  variables: { hostedDomain: { name: "GOOGLE_HOSTED_DOMAIN", schema: z.string() } },
  endpoints: () => ({
    authorizationUrl: "https://accounts.google.com/o/oauth2/v2/auth",
    tokenUrl: "https://oauth2.googleapis.com/token",
    issuer: "https://accounts.google.com",
    jwksUrl: "https://www.googleapis.com/oauth2/v3/certs",
  }),
  scopes: ["email", "profile", "openid"],
  pkce: true,
  tokenAuth: "body",
  // offline: a refresh token, so the account's access token can be renewed.
  authorizationParams: ({ extras }) => ({
    include_granted_scopes: "true",
    access_type: "offline",
    ...(extras.hostedDomain ? { hd: extras.hostedDomain } : {}),
  }),
  fetchProfile: async (ctx) => {
    const claims = idTokenClaims(ctx);
    // `hd` in the authorization URL only preselects; the token's claim is what proves the domain.
    const wanted = ctx.config.extras.hostedDomain;
    const domain = typeof claims.hd === "string" ? claims.hd : undefined;
    if (wanted && !(wanted === "*" ? domain : domain === wanted)) {
      throw new Error(`google: the account is not in the hosted domain "${wanted}"`);
    }
    return claims;
  },
  mapProfile: mapWith(
    z.object({ sub: userId, email: text, email_verified: flag, name: text, picture: text }),
    (claims) =>
      profile({
        id: claims.sub,
        email: claims.email,
        emailVerified: claims.email_verified,
        name: claims.name,
        image: claims.picture,
      }),
  ),
});
