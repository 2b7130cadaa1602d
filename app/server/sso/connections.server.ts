/**
 * An organization's identity providers ("connections"), as @better-auth/sso's provider
 * routes take and answer them: register, list, get, update, delete. Owners and admins
 * manage them (the `sso: manage` permission); each verb checks its caller first.
 *
 * OpenID Connect settings are discovered at registration (the issuer's
 * /.well-known/openid-configuration, fetched through idpFetch: https at a public address, or
 * an SSO_IDP_ORIGIN origin), its issuer must be the one registered, and the endpoints are
 * stored; explicit endpoints win over discovered ones. SAML settings come from IdP metadata
 * (XML, or fetched from `idpMetadata.metadataUrl`, the product's addition) or by hand
 * (`entryPoint`, `cert`, `idpMetadata.entityID`); explicit values win over the metadata's.
 * The client secret is stored encrypted, and no answer carries it (`clientIdLastFour`).
 *
 * What better-auth offers and the product does not, refused with SSO_SETTING_NOT_SUPPORTED
 * rather than ignored: private_key_jwt client authentication, signed AuthnRequests (SP keys,
 * `authnRequestsSigned`), encrypted assertions, custom SP metadata, IdP-initiated sign-in
 * (`idpInitiatedCallbackUrl`), single logout, `wantAssertionsSigned: false`,
 * `overrideUserInfo`, and `mapping.extraFields`.
 */
import { X509Certificate } from "node:crypto";
import { domainToASCII } from "node:url";
import { z } from "zod";
import { safeRedirect } from "~/lib/safe-redirect";
import { audit } from "~/server/audit.server";
import { SOCIAL_PROVIDER_IDS } from "~/server/auth/social/providers/index.server";
import type { AuthSession, RequestMeta } from "~/server/auth/session.server";
import { encryptSecret } from "~/server/crypto.server";
import { isUniqueViolation, prisma, type Prisma } from "~/server/db.server";
import { loadEnv } from "~/server/env.server";
import { AppError, fail, type ErrorCode } from "~/server/errors.server";
import { requireMembership, requirePermission, roleTableOf } from "~/server/organization/organizations.server";
import { can } from "~/server/organization/permissions.server";
import {
  attributeMapping,
  domainList,
  oidcRedirectUri,
  samlMetadataUrl,
  storedOidcConfig,
  storedSamlConfig,
  TOKEN_ENDPOINT_AUTHENTICATIONS,
  type StoredOidcConfig,
  type StoredSamlConfig,
} from "./config.server";
import { domainRecord, releaseRequirementWithoutDomains, syncDomains } from "./domains.server";
import { isPublicAddress } from "~/server/outbound-fetch.server";
import { checkIdpUrl, idpFetch, IdpFetchError } from "./idp-fetch.server";
import { parseIdpMetadata } from "./saml-metadata.server";

// ---- wire input ----

const httpUrl = z.url({ protocol: /^https?$/ }).max(2048);
const MAX_DOMAINS = 50;

/** `mapping` with better-auth's extraFields accepted by the schema, to be refused by name. */
const mappingInput = attributeMapping.extend({ extraFields: z.unknown().optional() });

/** One PEM certificate, or several while the IdP rotates its key. */
const certInput = z.union([z.string().min(1).max(16_384), z.array(z.string().min(1).max(16_384)).min(1).max(10)]);

const oidcConfigInput = z.object({
  clientId: z.string().trim().min(1).max(512),
  clientSecret: z.string().min(1).max(4096).optional(),
  discoveryEndpoint: httpUrl.optional(),
  authorizationEndpoint: httpUrl.optional(),
  tokenEndpoint: httpUrl.optional(),
  jwksEndpoint: httpUrl.optional(),
  userInfoEndpoint: httpUrl.optional(),
  skipDiscovery: z.boolean().optional(),
  scopes: z.array(z.string().trim().min(1).max(200)).min(1).max(50).optional(),
  pkce: z.boolean().optional(),
  tokenEndpointAuthentication: z.enum([...TOKEN_ENDPOINT_AUTHENTICATIONS, "private_key_jwt"]).optional(),
  privateKeyId: z.string().optional(),
  privateKeyAlgorithm: z.string().optional(),
  overrideUserInfo: z.boolean().optional(),
  mapping: mappingInput.optional(),
});

const samlConfigInput = z.object({
  entryPoint: httpUrl.optional(),
  cert: certInput.optional(),
  audience: z.string().trim().min(1).max(2048).optional(),
  callbackUrl: z.string().trim().min(1).max(2048).optional(),
  idpMetadata: z
    .object({
      metadata: z.string().min(1).optional(),
      /** The product's addition: where the IdP publishes its metadata (fetched once, through idpFetch). */
      metadataUrl: httpUrl.optional(),
      entityID: z.string().trim().min(1).max(2048).optional(),
      cert: certInput.optional(),
      privateKey: z.string().optional(),
      privateKeyPass: z.string().optional(),
      isAssertionEncrypted: z.boolean().optional(),
      encPrivateKey: z.string().optional(),
      encPrivateKeyPass: z.string().optional(),
      singleSignOnService: z.array(z.unknown()).optional(),
      singleLogoutService: z.array(z.unknown()).optional(),
    })
    .optional(),
  spMetadata: z.record(z.string(), z.unknown()).optional(),
  wantAssertionsSigned: z.boolean().optional(),
  authnRequestsSigned: z.boolean().optional(),
  signatureAlgorithm: z.string().max(200).optional(),
  digestAlgorithm: z.string().max(200).optional(),
  identifierFormat: z.string().trim().min(1).max(200).optional(),
  privateKey: z.string().optional(),
  idpInitiatedCallbackUrl: z.string().optional(),
  mapping: mappingInput.optional(),
});

type OidcInput = z.infer<typeof oidcConfigInput>;
type SamlInput = z.infer<typeof samlConfigInput>;

/**
 * `POST /sso/register`. `providerId` names the callback URLs (`/sso/callback/:providerId`),
 * so it is kept to URL-safe characters; better-auth takes any string.
 */
export const registerProviderInput = z
  .object({
    providerId: z
      .string()
      .trim()
      .min(1)
      .max(64)
      .regex(/^[A-Za-z0-9][A-Za-z0-9._-]*$/, "letters, digits, dots, hyphens and underscores only"),
    issuer: z.url().max(2048),
    domain: z.string().min(1).max(4096),
    organizationId: z.string().min(1).max(200).optional(),
    overrideUserInfo: z.boolean().optional(),
    oidcConfig: oidcConfigInput.optional(),
    samlConfig: samlConfigInput.optional(),
  })
  .refine((input) => Boolean(input.oidcConfig) !== Boolean(input.samlConfig), {
    message: "give exactly one of oidcConfig and samlConfig",
  });

/** `POST /sso/update-provider`: only the fields given change. */
export const updateProviderInput = z.object({
  providerId: z.string().min(1).max(200),
  issuer: z.url().max(2048).optional(),
  domain: z.string().min(1).max(4096).optional(),
  oidcConfig: oidcConfigInput.partial().optional(),
  samlConfig: samlConfigInput.partial().optional(),
});

export const providerIdInput = z.object({ providerId: z.string().min(1).max(200) });

// ---- refusals of what the product does not offer ----

const unsupported = (what: string): never => fail("SSO_SETTING_NOT_SUPPORTED", `${what} is not supported`);

function refuseUnsupported(oidc: Partial<OidcInput> | undefined, saml: Partial<SamlInput> | undefined, top = false) {
  if (top) unsupported("overrideUserInfo");
  if (oidc) {
    if (oidc.tokenEndpointAuthentication === "private_key_jwt" || oidc.privateKeyId || oidc.privateKeyAlgorithm) {
      unsupported("private_key_jwt client authentication (use client_secret_basic or client_secret_post)");
    }
    if (oidc.overrideUserInfo) unsupported("overrideUserInfo");
    if (oidc.mapping?.extraFields !== undefined) unsupported("mapping.extraFields");
  }
  if (saml) {
    const idp = saml.idpMetadata;
    if (saml.spMetadata) unsupported("Custom SP metadata (the product publishes its own at spMetadataUrl)");
    if (saml.authnRequestsSigned || saml.privateKey || idp?.privateKey || idp?.privateKeyPass) {
      unsupported("Signing AuthnRequests");
    }
    if (idp?.isAssertionEncrypted || idp?.encPrivateKey || idp?.encPrivateKeyPass) unsupported("Encrypted assertions");
    if (saml.idpInitiatedCallbackUrl) unsupported("IdP-initiated sign-in (idpInitiatedCallbackUrl)");
    if (idp?.singleLogoutService) unsupported("Single logout (idpMetadata.singleLogoutService)");
    if (idp?.singleSignOnService) unsupported("idpMetadata.singleSignOnService (give entryPoint)");
    if (saml.wantAssertionsSigned === false) unsupported("wantAssertionsSigned: false (responses are always checked)");
    if (saml.mapping?.extraFields !== undefined) unsupported("mapping.extraFields");
  }
}

// ---- checks shared by the verbs ----

/** `domain` as stored: comma-separated, lower-case, ASCII (IDNA), each a host name. */
function checkedDomains(domain: string): string {
  const domains = domainList(domain).map((name) => domainToASCII(name));
  const hostname = /^(?=.{1,253}$)(?:[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?\.)+(?!\d+$)[a-z0-9-]{2,63}$/;
  const bad = domains.find((name) => !hostname.test(name));
  if (!domains.length || bad !== undefined) fail("INVALID_DOMAIN", bad ? `Invalid domain: ${bad}` : undefined);
  if (domains.length > MAX_DOMAINS) fail("INVALID_DOMAIN", `At most ${MAX_DOMAINS} domains per provider`);
  return domains.join(",");
}

/**
 * A provider id no account of another kind uses: the sign-in methods' own names are account
 * provider ids, and "new" would hide behind the page that adds a connection.
 */
const RESERVED_PROVIDER_IDS = new Set<string>(["credential", "email-password", "new", ...SOCIAL_PROVIDER_IDS]);

/** The membership that may manage the organization's SSO, or the refusal. */
async function managerOf(auth: AuthSession, organizationId: string | undefined) {
  const member = await requireMembership(auth, organizationId);
  requirePermission(member, "sso", ["manage"], "YOU_ARE_NOT_ALLOWED_TO_MANAGE_SSO");
  return member;
}

/** The provider `providerId` with its domains, for a caller who may manage it. */
async function managedProvider(auth: AuthSession, providerId: string) {
  const row = await prisma.ssoProvider.findUnique({ where: { providerId }, include: { domains: true } });
  if (!row) fail("PROVIDER_NOT_FOUND");
  await managerOf(auth, row.organizationId);
  return row;
}

// ---- OpenID Connect discovery ----

const discoveryFailure = (code: ErrorCode, message: string): never => {
  throw new AppError(code, message);
};

/** An endpoint the server may call (or send a browser to): a URL, https or allowed, not a private literal. */
function checkEndpoint(name: string, raw: string, base?: string): string {
  let url: URL;
  try {
    url = new URL(raw, base);
  } catch {
    return discoveryFailure("discovery_invalid_url", `The url "${name}" must be valid: ${raw}`);
  }
  if (url.protocol !== "http:" && url.protocol !== "https:") {
    discoveryFailure("discovery_invalid_url", `The url "${name}" must use http or https: ${raw}`);
  }
  try {
    checkIdpUrl(url.href);
  } catch (error) {
    if (error instanceof IdpFetchError)
      discoveryFailure(fetchFailure(error), `The ${name} "${url.href}": ${error.message}`);
    throw error;
  }
  const allowed = loadEnv().SSO_IDP_ORIGIN.includes(url.origin);
  const host = url.hostname.replace(/^\[|\]$/g, "");
  const literal = /^[\d.]+$/.test(host) || host.includes(":");
  const localName = host === "localhost" || host.endsWith(".localhost");
  if (!allowed && ((literal && !isPublicAddress(host)) || localName)) {
    discoveryFailure("discovery_private_host", `The ${name} URL (${url.href}) is not publicly routable: ${host}`);
  }
  return url.href;
}

/** better-auth's discovery code for why idpFetch did not get an answer. */
function fetchFailure(error: IdpFetchError): ErrorCode {
  switch (error.reason) {
    case "discovery_private_host":
    case "discovery_untrusted_origin":
      return error.reason;
    case "timeout":
      return "discovery_timeout";
    case "too_large":
      return "discovery_invalid_json";
    case "unreachable":
      return "discovery_unexpected_error";
  }
}

const withoutSlash = (value: string) => value.replace(/\/+$/, "");

/** The JSON document at `url`, fetched through idpFetch, with better-auth's discovery codes for each failure. */
async function fetchJson(url: string): Promise<unknown> {
  let response: Response;
  try {
    response = await idpFetch(url, { headers: { accept: "application/json" } });
  } catch (error) {
    if (!(error instanceof IdpFetchError)) throw error;
    return discoveryFailure(fetchFailure(error), error.message);
  }
  if (response.status >= 300 && response.status < 400) {
    discoveryFailure(
      "oidc_endpoint_redirect",
      `The discovery endpoint (${url}) returned an HTTP ${response.status} redirect`,
    );
  }
  if (response.status === 404) discoveryFailure("discovery_not_found", `Discovery endpoint not found: ${url}`);
  if (response.status === 408) discoveryFailure("discovery_timeout", "Discovery request timed out");
  if (!response.ok)
    discoveryFailure("discovery_unexpected_error", `Unexpected discovery error: HTTP ${response.status}`);
  try {
    return JSON.parse(await response.text()) as unknown;
  } catch {
    return discoveryFailure("discovery_invalid_json", "Discovery endpoint returned invalid JSON");
  }
}

const discoveryDocument = z.object({
  issuer: z.string(),
  authorization_endpoint: z.string(),
  token_endpoint: z.string(),
  jwks_uri: z.string(),
  userinfo_endpoint: z.string().optional(),
  token_endpoint_auth_methods_supported: z.array(z.string()).optional(),
});

/**
 * The OpenID Connect settings to store: discovered (unless skipped or, on an update, unless
 * `rediscover`), explicit endpoints winning over discovered and current ones.
 */
async function resolveOidc(
  issuer: string,
  input: Partial<OidcInput>,
  current?: StoredOidcConfig,
  rediscover = true,
): Promise<Omit<StoredOidcConfig, "clientId" | "clientSecret">> {
  const explicit = {
    authorizationEndpoint: input.authorizationEndpoint,
    tokenEndpoint: input.tokenEndpoint,
    jwksEndpoint: input.jwksEndpoint,
    userInfoEndpoint: input.userInfoEndpoint,
  };
  const given = { ...explicit, discoveryEndpoint: input.discoveryEndpoint };
  for (const [name, value] of Object.entries(given)) if (value) checkEndpoint(name, value);
  const chosen = input.tokenEndpointAuthentication ?? current?.tokenEndpointAuthentication;
  const common = {
    scopes: input.scopes ?? current?.scopes ?? ["openid", "email", "profile"],
    pkce: input.pkce ?? current?.pkce ?? true,
    mapping: input.mapping ? attributeMapping.parse({ ...input.mapping, extraFields: undefined }) : current?.mapping,
  };

  if (input.skipDiscovery || !rediscover) {
    const endpoints = {
      authorizationEndpoint: explicit.authorizationEndpoint ?? current?.authorizationEndpoint,
      tokenEndpoint: explicit.tokenEndpoint ?? current?.tokenEndpoint,
      jwksEndpoint: explicit.jwksEndpoint ?? current?.jwksEndpoint,
      userInfoEndpoint: explicit.userInfoEndpoint ?? current?.userInfoEndpoint,
    };
    if (!endpoints.authorizationEndpoint || !endpoints.tokenEndpoint || !endpoints.jwksEndpoint) {
      fail("OIDC_ENDPOINTS_REQUIRED");
    }
    return {
      ...common,
      ...endpoints,
      authorizationEndpoint: endpoints.authorizationEndpoint,
      tokenEndpoint: endpoints.tokenEndpoint,
      jwksEndpoint: endpoints.jwksEndpoint,
      discoveryEndpoint: input.discoveryEndpoint ?? current?.discoveryEndpoint,
      tokenEndpointAuthentication: chosen === "private_key_jwt" || !chosen ? "client_secret_basic" : chosen,
    };
  }

  const discoveryEndpoint = checkEndpoint(
    "discoveryEndpoint",
    input.discoveryEndpoint ?? `${withoutSlash(issuer)}/.well-known/openid-configuration`,
  );
  const parsed = discoveryDocument.safeParse(await fetchJson(discoveryEndpoint));
  if (!parsed.success) {
    const missing = parsed.error.issues.map((issue) => issue.path.join(".")).join(", ");
    return discoveryFailure("discovery_incomplete", `Discovery document is missing required fields: ${missing}`);
  }
  const doc = parsed.data;
  if (withoutSlash(doc.issuer) !== withoutSlash(issuer)) {
    discoveryFailure(
      "issuer_mismatch",
      `Discovered issuer "${doc.issuer}" does not match configured issuer "${issuer}"`,
    );
  }
  const discovered = (name: string, value: string) => checkEndpoint(name, value, `${withoutSlash(issuer)}/`);
  const supported = doc.token_endpoint_auth_methods_supported;
  const fromDocument = supported?.length
    ? TOKEN_ENDPOINT_AUTHENTICATIONS.find((method) => supported.includes(method))
    : "client_secret_basic";
  const tokenEndpointAuthentication = (chosen === "private_key_jwt" ? undefined : chosen) ?? fromDocument;
  if (!tokenEndpointAuthentication) {
    discoveryFailure(
      "unsupported_token_auth_method",
      `The provider supports none of ${TOKEN_ENDPOINT_AUTHENTICATIONS.join(", ")}: ${supported?.join(", ")}`,
    );
  }
  return {
    ...common,
    discoveryEndpoint,
    authorizationEndpoint:
      explicit.authorizationEndpoint ?? discovered("authorization_endpoint", doc.authorization_endpoint),
    tokenEndpoint: explicit.tokenEndpoint ?? discovered("token_endpoint", doc.token_endpoint),
    jwksEndpoint: explicit.jwksEndpoint ?? discovered("jwks_uri", doc.jwks_uri),
    userInfoEndpoint:
      explicit.userInfoEndpoint ??
      (doc.userinfo_endpoint ? discovered("userinfo_endpoint", doc.userinfo_endpoint) : undefined),
    tokenEndpointAuthentication: tokenEndpointAuthentication!,
  };
}

// ---- SAML ----

/** A certificate as PEM, from PEM or its bare base64 body; SAML_INVALID_CERTIFICATE otherwise. */
function pemOf(cert: string): string {
  const text = cert.includes("-----BEGIN")
    ? cert
    : `-----BEGIN CERTIFICATE-----\n${cert.replace(/\s+/g, "")}\n-----END CERTIFICATE-----`;
  try {
    return new X509Certificate(text).toString();
  } catch {
    return fail("SAML_INVALID_CERTIFICATE");
  }
}

const certList = (cert: string | string[] | undefined) =>
  cert === undefined ? undefined : (Array.isArray(cert) ? cert : [cert]).map(pemOf);

const ALGORITHMS = { sha256: "sha256", sha512: "sha512" } as const;
const ALGORITHM_URIS: Record<string, keyof typeof ALGORITHMS> = {
  "http://www.w3.org/2001/04/xmldsig-more#rsa-sha256": "sha256",
  "http://www.w3.org/2001/04/xmldsig-more#rsa-sha512": "sha512",
  "http://www.w3.org/2001/04/xmlenc#sha256": "sha256",
  "http://www.w3.org/2001/04/xmlenc#sha512": "sha512",
};

/** sha256 or sha512, short or as its URI; sha1 and the unknown are refused. */
function algorithm(name: string, value: string | undefined): string | undefined {
  if (value === undefined) return undefined;
  const short = ALGORITHMS[value.toLowerCase() as keyof typeof ALGORITHMS] ?? ALGORITHM_URIS[value];
  return short ?? unsupported(`${name} "${value}" (use sha256 or sha512)`);
}

/** The IdP metadata XML given, or fetched from its URL. */
async function metadataXml(idp: SamlInput["idpMetadata"]): Promise<string | undefined> {
  if (idp?.metadata) return idp.metadata;
  if (!idp?.metadataUrl) return undefined;
  const url = checkEndpoint("idpMetadata.metadataUrl", idp.metadataUrl);
  let response: Response;
  try {
    response = await idpFetch(url, { headers: { accept: "application/samlmetadata+xml, application/xml, text/xml" } });
  } catch (error) {
    if (!(error instanceof IdpFetchError)) throw error;
    return discoveryFailure(fetchFailure(error), error.message);
  }
  if (!response.ok) discoveryFailure("discovery_not_found", `The IdP metadata URL answered HTTP ${response.status}`);
  return response.text();
}

/** The SAML settings to store from the input (over the current ones on an update). */
async function resolveSaml(
  issuer: string,
  input: Partial<SamlInput>,
  current?: StoredSamlConfig,
): Promise<StoredSamlConfig> {
  const xml = await metadataXml(input.idpMetadata);
  const parsed = xml === undefined ? undefined : await parseIdpMetadata(xml);
  const manual = Boolean(input.entryPoint || input.cert || input.idpMetadata?.cert || input.idpMetadata?.entityID);
  const certs = certList(input.idpMetadata?.cert ?? input.cert) ?? parsed?.certs ?? current?.certs;
  if (!certs?.length) fail("CERT_SOURCE_MISSING");
  const entryPoint = input.entryPoint ?? parsed?.entryPoint ?? current?.entryPoint;
  if (!entryPoint) fail("SAML_ENTRY_POINT_REQUIRED");
  checkEndpoint("entryPoint", entryPoint);
  const idpEntityId = input.idpMetadata?.entityID ?? parsed?.entityId ?? current?.idpEntityId;
  if (!idpEntityId) fail("SAML_IDP_ENTITY_ID_REQUIRED");
  if (input.callbackUrl !== undefined && safeRedirect(input.callbackUrl, loadEnv().trustedOrigins) === null) {
    fail("INVALID_CALLBACK_URL");
  }
  return storedSamlConfig.parse({
    entryPoint,
    certs,
    idpEntityId,
    // Kept while it still describes the IdP: settings given by hand replace it.
    idpMetadataXml: xml ?? (manual ? undefined : current?.idpMetadataXml),
    // better-auth's SP entity id is the registered issuer unless an audience is given.
    audience: input.audience ?? current?.audience ?? issuer,
    callbackUrl: input.callbackUrl ?? current?.callbackUrl,
    identifierFormat: input.identifierFormat ?? current?.identifierFormat,
    signatureAlgorithm: algorithm("signatureAlgorithm", input.signatureAlgorithm) ?? current?.signatureAlgorithm,
    digestAlgorithm: algorithm("digestAlgorithm", input.digestAlgorithm) ?? current?.digestAlgorithm,
    mapping: input.mapping ? attributeMapping.parse({ ...input.mapping, extraFields: undefined }) : current?.mapping,
  });
}

// ---- the answer: a provider without its secrets ----

type ProviderRow = Prisma.SsoProviderGetPayload<{ include: { domains: true } }>;

/** better-auth's `clientIdLastFour`. */
const lastFour = (clientId: string) => (clientId.length <= 4 ? "****" : `****${clientId.slice(-4)}`);

function certificateSummary(pem: string) {
  try {
    const cert = new X509Certificate(pem);
    return {
      fingerprintSha256: cert.fingerprint256,
      notBefore: cert.validFrom,
      notAfter: cert.validTo,
      publicKeyAlgorithm: cert.publicKey.asymmetricKeyType?.toUpperCase() ?? "UNKNOWN",
    };
  } catch {
    return { error: "Failed to parse certificate" };
  }
}

/**
 * The provider as better-auth's sanitizer shapes it (no client secret, the client id's last
 * four characters, certificate summaries rather than PEM), plus the product's `domains`: each
 * domain with its verification and the TXT record that verifies it. `domainVerified` is
 * better-auth's: every domain verified.
 */
export function providerOut(row: ProviderRow) {
  const oidc = row.oidcConfig ? storedOidcConfig.parse(JSON.parse(row.oidcConfig)) : null;
  const saml = row.samlConfig ? storedSamlConfig.parse(JSON.parse(row.samlConfig)) : null;
  const domains = domainList(row.domain).map((domain) => {
    const found = row.domains.find((entry) => entry.domain === domain);
    return {
      domain,
      verified: Boolean(found?.verifiedAt),
      verifiedAt: found?.verifiedAt ?? null,
      record: found ? domainRecord(domain, found.token) : null,
    };
  });
  return {
    providerId: row.providerId,
    type: saml ? ("saml" as const) : ("oidc" as const),
    issuer: row.issuer,
    domain: row.domain,
    organizationId: row.organizationId,
    domainVerified: domains.length > 0 && domains.every((entry) => entry.verified),
    oidcConfig: oidc
      ? {
          discoveryEndpoint: oidc.discoveryEndpoint,
          clientIdLastFour: lastFour(oidc.clientId),
          pkce: oidc.pkce,
          authorizationEndpoint: oidc.authorizationEndpoint,
          tokenEndpoint: oidc.tokenEndpoint,
          userInfoEndpoint: oidc.userInfoEndpoint,
          jwksEndpoint: oidc.jwksEndpoint,
          scopes: oidc.scopes,
          tokenEndpointAuthentication: oidc.tokenEndpointAuthentication,
        }
      : undefined,
    samlConfig: saml
      ? {
          entryPoint: saml.entryPoint,
          callbackUrl: saml.callbackUrl,
          audience: saml.audience,
          wantAssertionsSigned: true,
          authnRequestsSigned: false,
          identifierFormat: saml.identifierFormat,
          signatureAlgorithm: saml.signatureAlgorithm,
          digestAlgorithm: saml.digestAlgorithm,
          certificate: saml.certs.map(certificateSummary),
          // The product's: the IdP's entity id (a response's Issuer), not secret.
          idpEntityId: saml.idpEntityId,
        }
      : undefined,
    spMetadataUrl: samlMetadataUrl(row.providerId),
    domains,
    createdAt: row.createdAt,
    updatedAt: row.updatedAt,
  };
}
export type ProviderOut = ReturnType<typeof providerOut>;

// ---- the verbs ----

/** `POST /sso/register`: the provider without secrets, with `redirectURI` (the OIDC callback to register at the IdP). */
export async function registerProvider(
  auth: AuthSession,
  input: z.infer<typeof registerProviderInput>,
  meta: RequestMeta,
) {
  const member = await managerOf(auth, input.organizationId);
  if (RESERVED_PROVIDER_IDS.has(input.providerId.toLowerCase())) fail("SSO_PROVIDER_ID_RESERVED");
  if (await prisma.ssoProvider.findUnique({ where: { providerId: input.providerId }, select: { id: true } })) {
    fail("SSO_PROVIDER_ALREADY_EXISTS");
  }
  refuseUnsupported(input.oidcConfig, input.samlConfig, input.overrideUserInfo === true);
  const domain = checkedDomains(input.domain);

  let oidcConfig: string | null = null;
  let samlConfig: string | null = null;
  if (input.oidcConfig) {
    const { clientId, clientSecret } = input.oidcConfig;
    if (!clientSecret) {
      fail(
        "VALIDATION_ERROR",
        "clientSecret is required when using client_secret_basic or client_secret_post authentication",
      );
    }
    const resolved = await resolveOidc(input.issuer, input.oidcConfig);
    const stored = storedOidcConfig.parse({
      ...resolved,
      clientId,
      clientSecret: encryptSecret(loadEnv().AUTH_SECRET, clientSecret),
    });
    oidcConfig = JSON.stringify(stored);
  } else {
    samlConfig = JSON.stringify(await resolveSaml(input.issuer, input.samlConfig!));
  }

  let row: ProviderRow;
  try {
    row = await prisma.$transaction(async (tx) => {
      const created = await tx.ssoProvider.create({
        data: {
          providerId: input.providerId,
          issuer: input.issuer,
          domain,
          organizationId: member.organizationId,
          userId: auth.user.id,
          oidcConfig,
          samlConfig,
        },
      });
      await syncDomains(tx, created.id, domainList(domain));
      return tx.ssoProvider.findUniqueOrThrow({ where: { id: created.id }, include: { domains: true } });
    });
  } catch (error) {
    if (isUniqueViolation(error)) fail("SSO_PROVIDER_ALREADY_EXISTS");
    throw error;
  }
  await audit({
    userId: auth.user.id,
    category: "sso",
    status: "success",
    targetType: "sso-provider",
    action: "register-provider",
    targetId: row.providerId,
    organizationId: row.organizationId,
    details: { organizationId: row.organizationId, type: oidcConfig ? "oidc" : "saml", issuer: row.issuer, domain },
    meta,
  });
  return { ...providerOut(row), redirectURI: oidcRedirectUri(row.providerId) };
}

/** `GET /sso/providers`: the providers of every organization where the caller may manage SSO. */
export async function listProviders(auth: AuthSession) {
  const memberships = await prisma.member.findMany({
    where: { userId: auth.user.id },
    select: { organizationId: true, role: true },
  });
  const managed = await Promise.all(
    memberships.map(async ({ organizationId, role }) =>
      can({ role, roleTable: await roleTableOf(organizationId) }, "sso", ["manage"]) ? organizationId : null,
    ),
  );
  const organizationIds = managed.filter((id) => id !== null);
  const rows = await prisma.ssoProvider.findMany({
    where: { organizationId: { in: organizationIds } },
    include: { domains: true },
    orderBy: [{ createdAt: "asc" }, { id: "asc" }],
  });
  return { providers: rows.map(providerOut) };
}

/** One organization's providers and whether it requires SSO, for its page. */
export async function organizationProviders(auth: AuthSession, organizationId: string) {
  const member = await managerOf(auth, organizationId);
  const [organization, rows] = await Promise.all([
    prisma.organization.findUniqueOrThrow({ where: { id: member.organizationId }, select: { ssoRequired: true } }),
    prisma.ssoProvider.findMany({
      where: { organizationId: member.organizationId },
      include: { domains: true },
      orderBy: [{ createdAt: "asc" }, { id: "asc" }],
    }),
  ]);
  return { ssoRequired: organization.ssoRequired, providers: rows.map(providerOut) };
}

/** `GET /sso/get-provider`. */
export async function getProvider(auth: AuthSession, providerId: string) {
  return providerOut(await managedProvider(auth, providerId));
}

/** Whether accounts have signed in through the provider (its account rows carry its providerId). */
const hasLinkedAccounts = async (providerId: string) => (await prisma.account.count({ where: { providerId } })) > 0;

const IDENTITY_FIELDS = {
  oidc: ["clientId", "discoveryEndpoint", "authorizationEndpoint", "tokenEndpoint", "jwksEndpoint", "userInfoEndpoint"],
  saml: ["entryPoint", "certs", "idpEntityId", "audience", "callbackUrl", "identifierFormat"],
} as const;

const changed = (a: unknown, b: unknown) => JSON.stringify(a) !== JSON.stringify(b);

/**
 * `POST /sso/update-provider`: only the given fields change (better-auth's merge). A new
 * issuer or discovery endpoint runs discovery again; changing the domains keeps the rows (and
 * verification) of the domains that stay. What says which identity provider this is (issuer,
 * client id, endpoints, IdP entity and certificates, audience) cannot change once accounts
 * have signed in through it (409), as with better-auth: another IdP could otherwise assert
 * their subjects.
 */
export async function updateProvider(auth: AuthSession, input: z.infer<typeof updateProviderInput>, meta: RequestMeta) {
  const { providerId, issuer, domain, oidcConfig, samlConfig } = input;
  if (issuer === undefined && domain === undefined && !oidcConfig && !samlConfig) {
    fail("NO_FIELDS_TO_UPDATE", "No fields provided for update");
  }
  const row = await managedProvider(auth, providerId);
  refuseUnsupported(oidcConfig, samlConfig);
  const currentOidc = row.oidcConfig ? storedOidcConfig.parse(JSON.parse(row.oidcConfig)) : null;
  const currentSaml = row.samlConfig ? storedSamlConfig.parse(JSON.parse(row.samlConfig)) : null;
  if (oidcConfig && !currentOidc) {
    fail("SSO_PROVIDER_TYPE_MISMATCH", "Cannot update OIDC config for a provider that doesn't have OIDC configured");
  }
  if (samlConfig && !currentSaml) {
    fail("SSO_PROVIDER_TYPE_MISMATCH", "Cannot update SAML config for a provider that doesn't have SAML configured");
  }
  const nextIssuer = issuer ?? row.issuer;
  const nextDomain = domain === undefined ? row.domain : checkedDomains(domain);
  let identityChanged = nextIssuer !== row.issuer;

  let nextOidc: string | null = row.oidcConfig;
  if (currentOidc && (oidcConfig || identityChanged)) {
    // A new issuer or discovery endpoint is discovered again (unless skipDiscovery says not to).
    const rediscover = nextIssuer !== row.issuer || oidcConfig?.discoveryEndpoint !== undefined;
    const resolved = await resolveOidc(nextIssuer, oidcConfig ?? {}, currentOidc, rediscover);
    const updated = storedOidcConfig.parse({
      ...resolved,
      clientId: oidcConfig?.clientId ?? currentOidc.clientId,
      clientSecret: oidcConfig?.clientSecret
        ? encryptSecret(loadEnv().AUTH_SECRET, oidcConfig.clientSecret)
        : currentOidc.clientSecret,
    });
    identityChanged ||= IDENTITY_FIELDS.oidc.some((field) => changed(currentOidc[field], updated[field]));
    nextOidc = JSON.stringify(updated);
  }
  let nextSaml: string | null = row.samlConfig;
  if (currentSaml && samlConfig) {
    const updated = await resolveSaml(nextIssuer, samlConfig, currentSaml);
    identityChanged ||= IDENTITY_FIELDS.saml.some((field) => changed(currentSaml[field], updated[field]));
    nextSaml = JSON.stringify(updated);
  }
  if (identityChanged && (await hasLinkedAccounts(providerId))) fail("SSO_PROVIDER_HAS_LINKED_ACCOUNTS");

  const updated = await prisma.$transaction(async (tx) => {
    await tx.ssoProvider.update({
      where: { id: row.id },
      data: { issuer: nextIssuer, domain: nextDomain, oidcConfig: nextOidc, samlConfig: nextSaml },
    });
    await syncDomains(tx, row.id, domainList(nextDomain));
    await releaseRequirementWithoutDomains(tx, row.organizationId);
    return tx.ssoProvider.findUniqueOrThrow({ where: { id: row.id }, include: { domains: true } });
  });
  await audit({
    userId: auth.user.id,
    category: "sso",
    status: "success",
    targetType: "sso-provider",
    action: "update-provider",
    targetId: providerId,
    organizationId: row.organizationId,
    details: {
      organizationId: row.organizationId,
      fields: Object.keys(input).filter((key) => key !== "providerId"),
      ...(nextDomain !== row.domain ? { domain: nextDomain } : {}),
    },
    meta,
  });
  return providerOut(updated);
}

/**
 * `POST /sso/delete-provider`: the provider, its domains and SCIM tokens, and the accounts
 * signed in through it (their users stay, as with better-auth).
 */
export async function deleteProvider(auth: AuthSession, providerId: string, meta: RequestMeta) {
  const row = await managedProvider(auth, providerId);
  await prisma.$transaction(async (tx) => {
    await tx.account.deleteMany({ where: { providerId } });
    await tx.ssoProvider.delete({ where: { id: row.id } });
    await releaseRequirementWithoutDomains(tx, row.organizationId);
  });
  await audit({
    userId: auth.user.id,
    category: "sso",
    status: "success",
    targetType: "sso-provider",
    action: "delete-provider",
    targetId: providerId,
    organizationId: row.organizationId,
    details: { organizationId: row.organizationId, issuer: row.issuer, domain: row.domain },
    meta,
  });
  return { success: true };
}
