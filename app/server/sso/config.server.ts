/**
 * An identity provider as the product keeps it: the stored forms of its OpenID Connect and
 * SAML settings (the JSON in `sso_provider.oidcConfig` / `samlConfig`), the addresses the
 * product gives the provider (callback, ACS, SP entity id, SP metadata), and the one lookup
 * every sign-in step uses. The client secret is stored encrypted and only decrypted here,
 * for the token request; nothing that leaves the server carries it.
 */
import { z } from "zod";
import { decryptSecret } from "~/server/crypto.server";
import { prisma } from "~/server/db.server";
import { loadEnv } from "~/server/env.server";

/** Which claim (OIDC) or attribute (SAML) holds each profile field, when not the standard one. */
export const attributeMapping = z
  .object({
    id: z.string().optional(),
    email: z.string().optional(),
    emailVerified: z.string().optional(),
    name: z.string().optional(),
    firstName: z.string().optional(),
    lastName: z.string().optional(),
    image: z.string().optional(),
  })
  .strict();
export type AttributeMapping = z.infer<typeof attributeMapping>;

export const TOKEN_ENDPOINT_AUTHENTICATIONS = ["client_secret_basic", "client_secret_post"] as const;

/** `sso_provider.oidcConfig`: the endpoints as discovered (or given) at registration. */
export const storedOidcConfig = z.object({
  clientId: z.string().min(1),
  /** encryptSecret(AUTH_SECRET, secret). */
  clientSecret: z.string().min(1),
  discoveryEndpoint: z.string().optional(),
  authorizationEndpoint: z.string().min(1),
  tokenEndpoint: z.string().min(1),
  jwksEndpoint: z.string().min(1),
  userInfoEndpoint: z.string().optional(),
  tokenEndpointAuthentication: z.enum(TOKEN_ENDPOINT_AUTHENTICATIONS).default("client_secret_basic"),
  scopes: z.array(z.string()).default(["openid", "email", "profile"]),
  pkce: z.boolean().default(true),
  mapping: attributeMapping.optional(),
});
export type StoredOidcConfig = z.infer<typeof storedOidcConfig>;

/** `sso_provider.samlConfig`: what the SP needs to ask for and to check an IdP's responses. */
export const storedSamlConfig = z.object({
  /** The IdP's single sign-on URL (HTTP-Redirect binding). */
  entryPoint: z.string().min(1),
  /** The IdP's signing certificates (PEM), more than one while the IdP rotates its key. */
  certs: z.array(z.string().min(1)).min(1),
  /** The IdP's entity id: a response's Issuer must be it. */
  idpEntityId: z.string().optional(),
  /** The IdP metadata XML as registered, when it came that way. */
  idpMetadataXml: z.string().optional(),
  /** The SP entity id the IdP puts in the assertion's Audience; default `spEntityId(providerId)`. */
  audience: z.string().optional(),
  /** Where the browser goes after an IdP-initiated or callback-less sign-in. */
  callbackUrl: z.string().optional(),
  identifierFormat: z.string().optional(),
  signatureAlgorithm: z.string().optional(),
  digestAlgorithm: z.string().optional(),
  mapping: attributeMapping.optional(),
});
export type StoredSamlConfig = z.infer<typeof storedSamlConfig>;

export type LoadedProvider = {
  /** The row's own id (foreign keys point at it). */
  id: string;
  /** The wire name, in URLs. */
  providerId: string;
  issuer: string;
  /** Lower-case email domains, as registered. */
  domains: string[];
  organizationId: string;
} & (
  | { kind: "oidc"; oidc: StoredOidcConfig & { clientSecret: string }; saml?: undefined }
  | { kind: "saml"; saml: StoredSamlConfig; oidc?: undefined }
);

/** `domain` as stored: comma-separated, lower-case, without blanks or duplicates. */
export function domainList(domain: string): string[] {
  return [
    ...new Set(
      domain
        .split(",")
        .map((part) => part.trim().toLowerCase())
        .filter(Boolean),
    ),
  ];
}

/** A stored row with its settings parsed and the client secret decrypted; null when unusable. */
export function loadedProvider(row: {
  id: string;
  providerId: string;
  issuer: string;
  domain: string;
  organizationId: string;
  oidcConfig: string | null;
  samlConfig: string | null;
}): LoadedProvider | null {
  const base = {
    id: row.id,
    providerId: row.providerId,
    issuer: row.issuer,
    domains: domainList(row.domain),
    organizationId: row.organizationId,
  };
  if (row.oidcConfig) {
    const oidc = storedOidcConfig.parse(JSON.parse(row.oidcConfig));
    return {
      ...base,
      kind: "oidc",
      oidc: { ...oidc, clientSecret: decryptSecret(loadEnv().AUTH_SECRET, oidc.clientSecret) },
    };
  }
  if (row.samlConfig) return { ...base, kind: "saml", saml: storedSamlConfig.parse(JSON.parse(row.samlConfig)) };
  return null;
}

/** The provider named `providerId` on the wire, ready for a sign-in step; null when there is none. */
export async function loadProvider(providerId: string): Promise<LoadedProvider | null> {
  const row = await prisma.ssoProvider.findUnique({ where: { providerId } });
  return row ? loadedProvider(row) : null;
}

// ---- the addresses the product gives an identity provider ----

const authUrl = (path: string) => new URL(`/api/auth${path}`, loadEnv().BASE_URL).href;

/** OpenID Connect: the redirect URI to register at the provider. */
export const oidcRedirectUri = (providerId: string) => authUrl(`/sso/callback/${encodeURIComponent(providerId)}`);

/** SAML: where the IdP posts its response (Assertion Consumer Service, HTTP-POST). */
export const samlAcsUrl = (providerId: string) => authUrl(`/sso/saml2/sp/acs/${encodeURIComponent(providerId)}`);
/** SAML: where the ACS sends the browser on to complete the sign-in (sign-in.server.ts). */
export const samlFinishUrl = (providerId: string, handoff: string) =>
  authUrl(`/sso/saml2/sp/finish/${encodeURIComponent(providerId)}?${new URLSearchParams({ handoff })}`);

/** SAML: the SP metadata document, whose address is also the SP entity id by default. */
export const samlMetadataUrl = (providerId: string) =>
  authUrl(`/sso/saml2/sp/metadata?providerId=${encodeURIComponent(providerId)}`);

/** SAML: the SP entity id (the Audience an assertion must name). */
export const spEntityId = (provider: { providerId: string; saml?: StoredSamlConfig }) =>
  provider.saml?.audience ?? samlMetadataUrl(provider.providerId);
