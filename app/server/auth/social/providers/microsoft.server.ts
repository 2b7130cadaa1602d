import { z } from "zod";
import {
  bearer,
  call,
  define,
  idTokenClaims,
  mapWith,
  profile,
  text,
  userId,
  userInfoUrl,
  type FetchProfileContext,
} from "./define.server";

const DEFAULT_TENANT = "common";
const MULTI_TENANTS = ["common", "organizations", "consumers"];
// Personal Microsoft accounts all carry this `tid`.
const CONSUMER_TENANT = "9188040d-6c67-4c5b-b112-36a304b66dad";
/** The photo sizes Microsoft Graph serves. */
const GRAPH_PHOTO_SIZES = [48, 64, 96, 120, 240, 360, 432, 504, 648];
const DEFAULT_PHOTO_SIZE = 48;

/** The Graph photo as a data: URL; no photo or a failed call just means no image. */
async function graphPhoto(ctx: FetchProfileContext): Promise<string | null> {
  if (!ctx.tokens.accessToken) return null;
  const size = ctx.config.extras.profilePhotoSize ?? DEFAULT_PHOTO_SIZE;
  try {
    const url = `${userInfoUrl(ctx.config)}/photos/${size}x${size}/$value`;
    const response = await call(ctx, url, { headers: bearer(ctx) });
    if (!response.ok) return null;
    const type = response.headers.get("content-type")?.split(";")[0]?.trim() ?? "";
    const bytes = Buffer.from(await response.arrayBuffer());
    return `data:${type.startsWith("image/") ? type : "image/jpeg"};base64,${bytes.toString("base64")}`;
  } catch {
    return null;
  }
}

export const microsoft = define({
  id: "microsoft",
  name: "Microsoft",
  variables: {
    tenantId: {
      name: "MICROSOFT_TENANT_ID",
      schema: z
        .string()
        .regex(/^([0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}|common|organizations|consumers)$/i, {
          message: 'must be the directory (tenant) id, a GUID, or "common", "organizations" or "consumers"',
        }),
    },
    profilePhotoSize: {
      name: "MICROSOFT_PROFILE_PHOTO_SIZE",
      schema: z.string().transform((value, ctx) => {
        const size = Number(value);
        if (!GRAPH_PHOTO_SIZES.includes(size)) {
          ctx.addIssue({ code: "custom", message: `must be one of ${GRAPH_PHOTO_SIZES.join(", ")}, got "${value}"` });
          return z.NEVER;
        }
        return size;
      }),
    },
  },
  endpoints: ({ tenantId = DEFAULT_TENANT }) => {
    const authority = `https://login.microsoftonline.com/${tenantId}`;
    return {
      authorizationUrl: `${authority}/oauth2/v2.0/authorize`,
      tokenUrl: `${authority}/oauth2/v2.0/token`,
      // Microsoft Graph's /me: the profile photo is read below it.
      userInfoUrl: "https://graph.microsoft.com/v1.0/me",
      issuer: MULTI_TENANTS.includes(tenantId)
        ? "https://login.microsoftonline.com/{tenantid}/v2.0"
        : `${authority}/v2.0`,
      jwksUrl: `${authority}/discovery/v2.0/keys`,
    };
  },
  scopes: ["openid", "profile", "email", "User.Read", "offline_access"],
  pkce: true,
  tokenAuth: "body",
  fetchProfile: async (ctx) => {
    const claims = idTokenClaims(ctx);
    // The organizations and consumers endpoints share one key set, so the account class is
    // only told apart by the token's tenant.
    const tenant = ctx.config.extras.tenantId;
    const personal = claims.tid === CONSUMER_TENANT;
    if ((tenant === "organizations" && personal) || (tenant === "consumers" && !personal)) {
      throw new Error(`microsoft: the account is not one the "${tenant}" tenant setting allows`);
    }
    return { claims, photo: await graphPhoto(ctx) };
  },
  mapProfile: mapWith(
    z.object({
      // `oid` is the user's id across apps; `sub` differs per app.
      claims: z.object({
        oid: userId,
        email: text,
        email_verified: z.unknown().optional(),
        verified_primary_email: z.array(z.string()).catch([]),
        verified_secondary_email: z.array(z.string()).catch([]),
        name: text,
      }),
      photo: text,
    }),
    ({ claims, photo }) =>
      profile({
        id: claims.oid,
        email: claims.email,
        emailVerified:
          claims.email_verified !== undefined
            ? claims.email_verified === true || claims.email_verified === "true"
            : [...claims.verified_primary_email, ...claims.verified_secondary_email].includes(claims.email ?? ""),
        name: claims.name,
        image: photo,
      }),
  ),
});
