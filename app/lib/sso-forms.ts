import { z } from "zod";
import { PROVIDER_ID_MAX } from "~/lib/form-limits";
import { isSingleLine } from "~/lib/text";

/**
 * The single sign-on pages' form schemas, shared by the actions and the browser. Like the
 * other page forms they check shape only; discovery, certificates and who may do what are
 * the services' (app/server/sso). An empty optional field is "not given": on the edit forms,
 * "keep what is stored".
 */

const REQUIRED = "auth:form.required";
const SINGLE_LINE = { error: "auth:form.invalidCharacters" } as const;

/** The sign-in page's single sign-on step: a work email, a domain or an organization's slug. */
export const ssoSignInSchema = z.object({ identifier: z.string().trim().min(1).max(320) });

const providerId = z
  .string({ error: REQUIRED })
  .trim()
  .max(PROVIDER_ID_MAX, { error: "sso:form.providerIdFormat" })
  .regex(/^[A-Za-z0-9][A-Za-z0-9._-]*$/, { error: "sso:form.providerIdFormat" });

const DOMAIN = /^(?:[\p{L}\p{N}](?:[\p{L}\p{N}-]{0,61}[\p{L}\p{N}])?\.)+[\p{L}\p{N}-]{2,63}$/u;

/** Email domains, comma-separated ("example.com, example.org"). */
const domains = z
  .string({ error: REQUIRED })
  .trim()
  .max(4096)
  .refine(
    (value) => {
      const parts = value.split(",").map((part) => part.trim());
      return parts.length > 0 && parts.every((part) => DOMAIN.test(part));
    },
    { error: "sso:form.domains" },
  );

const url = z.url({ protocol: /^https?$/, error: "sso:form.url" }).max(2048);
const line = (max: number) => z.string().trim().max(max).refine(isSingleLine, SINGLE_LINE);
const required = (max: number) => z.string({ error: REQUIRED }).trim().min(1, { error: REQUIRED }).max(max);
/** Multi-line text: a certificate, a metadata document. */
const block = (max: number) => z.string().max(max);

const endpoints = {
  discoveryEndpoint: url.optional(),
  authorizationEndpoint: url.optional(),
  tokenEndpoint: url.optional(),
  jwksEndpoint: url.optional(),
  userInfoEndpoint: url.optional(),
};

export const registerOidcSchema = z.object({
  intent: z.literal("register-oidc"),
  providerId,
  domain: domains,
  issuer: url,
  clientId: required(512).refine(isSingleLine, SINGLE_LINE),
  clientSecret: required(4096).refine(isSingleLine, SINGLE_LINE),
  ...endpoints,
  skipDiscovery: z.boolean().default(false),
});

/** IdP metadata (pasted, or its address), else the three settings by hand. */
const samlSource = {
  metadata: block(100 * 1024).optional(),
  metadataUrl: url.optional(),
  entityId: line(2048).optional(),
  entryPoint: url.optional(),
  cert: block(16_384).optional(),
};

/** Without metadata, each of the three settings is needed: said next to each. */
function manualWithoutMetadata(
  value: { metadata?: string; metadataUrl?: string; entityId?: string; entryPoint?: string; cert?: string },
  ctx: z.RefinementCtx,
) {
  if (value.metadata || value.metadataUrl) return;
  for (const field of ["entityId", "entryPoint", "cert"] as const) {
    if (!value[field]) ctx.addIssue({ code: "custom", path: [field], message: "sso:form.samlSource" });
  }
}

export const registerSamlSchema = z
  .object({ intent: z.literal("register-saml"), providerId, domain: domains, ...samlSource })
  .superRefine(manualWithoutMetadata);

/** The edit forms: what is left empty stays as it is (the secret, the client id, the certificate…). */
export const updateOidcSchema = z.object({
  intent: z.literal("update-oidc"),
  issuer: url,
  domain: domains,
  clientId: line(512).optional(),
  clientSecret: line(4096).optional(),
  ...endpoints,
});

export const updateSamlSchema = z.object({ intent: z.literal("update-saml"), domain: domains, ...samlSource });

export const verifyDomainSchema = z.object({ intent: z.literal("verify-domain"), domain: required(253) });

export const removeProviderSchema = z.object({ intent: z.literal("remove-provider") });

export const ssoRequiredSchema = z.object({
  intent: z.literal("set-sso-required"),
  required: z.enum(["true", "false"]).transform((value) => value === "true"),
});
