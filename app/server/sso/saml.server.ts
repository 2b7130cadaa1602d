/**
 * SAML 2.0 for single sign-on, the service-provider side, on @node-saml/node-saml (the core
 * of passport-saml): the AuthnRequest that sends a person to their identity provider, the SP
 * metadata the IdP is configured with, and the reading of the IdP's response into an
 * identity. No XML signature code lives here: node-saml checks the signature and hands back
 * only the XML the signature covers; the checks below read that signed XML alone.
 *
 * What a response must pass (each refusal names a short `detail` for the audit log):
 * - a valid signature by one of the provider's certificates over the whole response or over
 *   its one assertion ("unsigned", "signature"; wrapped or duplicated assertions fail here);
 * - InResponseTo naming a request this product sent through this provider within the last
 *   10 minutes and not yet answered ("unsolicited" when absent, "in_response_to");
 * - the validity window with a 60 s clock skew ("expired", "not_yet_valid");
 * - the Audience (SP entity id), the bearer SubjectConfirmation's Recipient and the
 *   response's Destination (the ACS URL), and the Issuer (the IdP entity id, when known);
 * - an assertion id not seen before ("replay"): each is recorded until it expires.
 *
 * The request ids and spent assertion ids live in the database, so a response is checked the
 * same way whichever instance receives it.
 */
import { createHash } from "node:crypto";
import type { CacheItem, CacheProvider, Profile, SAML } from "@node-saml/node-saml";
import { z } from "zod";
import { hashToken } from "~/server/auth/session.server";
import { isDatabaseUnavailable, isUniqueViolation, prisma } from "~/server/db.server";
import { samlAcsUrl, spEntityId, type LoadedProvider } from "./config.server";
import { logger } from "~/server/log.server";

export type SamlProvider = LoadedProvider & { kind: "saml" };

/** Who the identity provider says signed in. `subject` is the NameID (or the mapped id attribute). */
export interface SamlIdentity {
  subject: string;
  email: string | null;
  name: string | null;
  /** The AuthnRequest the response answers. */
  inResponseTo: string | null;
}

/** The `error` the ACS sends the browser on with (better-auth's codes). */
export type SamlRefusalReason = "invalid_saml_response" | "unsolicited_response" | "saml_error";

/** A response that does not sign anyone in: `reason` for the browser, `detail` for the audit log. */
export class SamlRefused extends Error {
  constructor(
    readonly reason: SamlRefusalReason,
    readonly detail: string,
  ) {
    super(`SAML response refused: ${reason} (${detail})`);
    this.name = "SamlRefused";
  }
}

const refuse = (reason: SamlRefusalReason, detail: string): never => {
  throw new SamlRefused(reason, detail);
};

/** How long an AuthnRequest may be answered: a sign-in at the IdP takes minutes, not hours. */
export const REQUEST_TTL_MS = 10 * 60 * 1000;
/**
 * Tolerated clock difference with the IdP. Servers keep time by NTP, so a minute covers real
 * drift, while a captured assertion stays useless soon after the few minutes IdPs give it.
 */
export const CLOCK_SKEW_MS = 60 * 1000;
/** Far above any real response (better-auth's limit too), far below what would strain the parser. */
export const MAX_RESPONSE_BYTES = 256 * 1024;

const NS = {
  protocol: "urn:oasis:names:tc:SAML:2.0:protocol",
  assertion: "urn:oasis:names:tc:SAML:2.0:assertion",
};
const BEARER = "urn:oasis:names:tc:SAML:2.0:cm:bearer";
const EMAIL_FORMATS = new Set([
  "urn:oasis:names:tc:SAML:1.1:nameid-format:emailAddress",
  "urn:oasis:names:tc:SAML:2.0:nameid-format:emailAddress",
]);
const UNSPECIFIED_FORMAT = "urn:oasis:names:tc:SAML:1.1:nameid-format:unspecified";

// ---- where request ids and spent assertion ids are kept ----

const REQUEST_PREFIX = "saml-request:";

/**
 * node-saml's store of AuthnRequest ids, in the `verification` table: one row per request,
 * scoped to the provider (a request sent through one connection cannot be answered through
 * another), expiring after REQUEST_TTL_MS. It also notes which ids this instance removed, so
 * that a response is accepted only by the call that used its request up.
 */
class RequestStore implements CacheProvider {
  readonly #consumed = new Set<string>();

  constructor(private readonly providerRowId: string) {}

  #identifier(requestId: string) {
    return `${REQUEST_PREFIX}${hashToken(`${this.providerRowId}:${requestId}`)}`;
  }

  async saveAsync(requestId: string, value: string): Promise<CacheItem> {
    await prisma.verification.create({
      data: { identifier: this.#identifier(requestId), value, expiresAt: new Date(Date.now() + REQUEST_TTL_MS) },
    });
    // Most requests are answered (and removed); the abandoned ones are swept now and then.
    if (Math.random() < 0.01) void sweepExpired();
    return { value, createdAt: Date.now() };
  }

  async getAsync(requestId: string): Promise<string | null> {
    const row = await prisma.verification.findFirst({
      where: { identifier: this.#identifier(requestId), expiresAt: { gt: new Date() } },
      select: { value: true },
    });
    return row?.value ?? null;
  }

  async removeAsync(requestId: string | null): Promise<string | null> {
    if (!requestId) return null;
    const { count } = await prisma.verification.deleteMany({ where: { identifier: this.#identifier(requestId) } });
    if (count === 0) return null;
    this.#consumed.add(requestId);
    return requestId;
  }

  /** Whether this call used the request up (node-saml removes it on most paths; the delete decides the rest). */
  async consume(requestId: string): Promise<boolean> {
    return this.#consumed.has(requestId) || (await this.removeAsync(requestId)) !== null;
  }
}

/** Deletes expired AuthnRequest ids and spent assertion ids. */
export async function sweepExpired(): Promise<void> {
  try {
    const now = new Date();
    await prisma.verification.deleteMany({
      where: { identifier: { startsWith: REQUEST_PREFIX }, expiresAt: { lt: now } },
    });
    await prisma.spentIdentifier.deleteMany({ where: { expiresAt: { lt: now } } });
  } catch (error) {
    logger().error({ err: error }, "SAML request cleanup failed");
  }
}

/** Records an assertion id as used until `expiresAt`; false when it was already used. */
async function spendAssertionId(provider: SamlProvider, assertionId: string, expiresAt: Date): Promise<boolean> {
  const id = createHash("sha256").update(`saml-assertion:${provider.id}:${assertionId}`).digest("hex");
  try {
    await prisma.spentIdentifier.create({ data: { id, expiresAt } });
    return true;
  } catch (error) {
    if (isUniqueViolation(error)) return false;
    throw error;
  }
}

// ---- node-saml, configured for one provider ----

type Libraries = { saml: typeof import("@node-saml/node-saml"); xml: typeof import("@xmldom/xmldom") };
let libraries: Promise<Libraries> | undefined;

/** node-saml and its XML parser load with the first SAML operation: most servers never use SAML. */
function loadLibraries(): Promise<Libraries> {
  return (libraries ??= Promise.all([import("@node-saml/node-saml"), import("@xmldom/xmldom")]).then(([saml, xml]) => ({
    saml,
    xml,
  })));
}

function serviceProvider({ saml }: Libraries, provider: SamlProvider, store: RequestStore): SAML {
  const acs = samlAcsUrl(provider.providerId);
  return new saml.SAML({
    issuer: spEntityId(provider),
    audience: spEntityId(provider),
    callbackUrl: acs,
    entryPoint: provider.saml.entryPoint,
    idpCert: provider.saml.certs,
    // Either a signed response or a signed assertion (node-saml then requires one of the two).
    wantAuthnResponseSigned: false,
    wantAssertionsSigned: false,
    acceptedClockSkewMs: CLOCK_SKEW_MS,
    validateInResponseTo: saml.ValidateInResponseTo.always,
    requestIdExpirationPeriodMs: REQUEST_TTL_MS,
    cacheProvider: store,
    // No NameID format unless the connection names one: the IdP's configured one then applies,
    // where asking for a format it does not offer makes some IdPs refuse the request.
    identifierFormat: provider.saml.identifierFormat ?? null,
    // Asking for password authentication would make IdPs refuse people who signed in with a
    // passkey or MFA; how people authenticate is the IdP's policy.
    disableRequestedAuthnContext: true,
  });
}

// ---- the three operations ----

/**
 * The IdP's single sign-on URL with a deflated AuthnRequest (HTTP-Redirect binding) and
 * `relayState`. The request id is remembered for REQUEST_TTL_MS, to be answered once.
 */
export async function samlSignInUrl(provider: SamlProvider, relayState: string): Promise<string> {
  const sp = serviceProvider(await loadLibraries(), provider, new RequestStore(provider.id));
  return sp.getAuthorizeUrlAsync(relayState, undefined, {});
}

/** The SP metadata to give the IdP: entity id, the ACS (HTTP-POST) and WantAssertionsSigned. */
export async function spMetadataXml(provider: SamlProvider): Promise<string> {
  const { saml } = await loadLibraries();
  return saml.generateServiceProviderMetadata({
    issuer: spEntityId(provider),
    callbackUrl: samlAcsUrl(provider.providerId),
    identifierFormat: provider.saml.identifierFormat ?? null,
    wantAssertionsSigned: true,
  });
}

/**
 * Reads the IdP's `SAMLResponse` (the base64 form field, as posted to the ACS) into an
 * identity, or throws SamlRefused. Each response signs in once.
 */
export async function readSamlResponse(provider: SamlProvider, samlResponse: string): Promise<SamlIdentity> {
  const encoded = samlResponse.replace(/\s+/g, "");
  if (encoded.length > (MAX_RESPONSE_BYTES * 4) / 3) refuse("invalid_saml_response", "too_large");
  const libs = await loadLibraries();
  const response = parseXml(libs, Buffer.from(encoded, "base64").toString("utf8"))?.documentElement;
  if (!response || !is(response, NS.protocol, "Response")) return refuse("invalid_saml_response", "malformed");

  const store = new RequestStore(provider.id);
  let profile: Profile | null;
  try {
    ({ profile } = await serviceProvider(libs, provider, store).validatePostResponseAsync({ SAMLResponse: encoded }));
  } catch (error) {
    if (isDatabaseUnavailable(error)) throw error; // an outage, not a verdict on the response
    throw refusalFor(libs, error, response);
  }
  if (!profile?.getAssertionXml) return refuse("invalid_saml_response", "no_assertion");

  // From here on only the signed assertion is read (getAssertionXml is what the signature covers).
  const assertion = parseXml(libs, profile.getAssertionXml())?.documentElement;
  if (!assertion || !is(assertion, NS.assertion, "Assertion")) return refuse("invalid_saml_response", "malformed");
  const acs = samlAcsUrl(provider.providerId);

  const idpEntityId = provider.saml.idpEntityId;
  const responseIssuer = child(response, NS.assertion, "Issuer")?.textContent?.trim();
  if (idpEntityId && (profile.issuer !== idpEntityId || (responseIssuer && responseIssuer !== idpEntityId))) {
    refuse("invalid_saml_response", "issuer");
  }

  // The profile's bearer confirmation: where the assertion may be delivered, and until when.
  const confirmations = children(child(assertion, NS.assertion, "Subject"), NS.assertion, "SubjectConfirmation")
    .filter((confirmation) => confirmation.getAttribute("Method") === BEARER)
    .map((confirmation) => child(confirmation, NS.assertion, "SubjectConfirmationData"));
  const delivery = confirmations.find((data) => data?.getAttribute("Recipient") === acs);
  if (!delivery) return refuse("invalid_saml_response", "recipient");
  // The profile requires this NotOnOrAfter (node-saml has checked it against the clock); it
  // also bounds how long the assertion id must be remembered.
  const deliverBefore = Date.parse(delivery.getAttribute("NotOnOrAfter") ?? "");
  if (!Number.isFinite(deliverBefore)) refuse("invalid_saml_response", "subject_confirmation");

  const destination = response.getAttribute("Destination");
  if (destination && destination !== acs) refuse("invalid_saml_response", "destination");

  const inResponseTo = response.getAttribute("InResponseTo") || null;
  if (!inResponseTo) return refuse("unsolicited_response", "unsolicited");
  if (!(await store.consume(inResponseTo))) refuse("invalid_saml_response", "in_response_to");

  const assertionId = assertion.getAttribute("ID");
  if (!assertionId) return refuse("invalid_saml_response", "malformed");
  const conditionsEnd = Date.parse(child(assertion, NS.assertion, "Conditions")?.getAttribute("NotOnOrAfter") ?? "");
  const usableUntil = Math.max(deliverBefore, Number.isFinite(conditionsEnd) ? conditionsEnd : 0) + CLOCK_SKEW_MS;
  if (!(await spendAssertionId(provider, assertionId, new Date(usableUntil))))
    refuse("invalid_saml_response", "replay");

  return { ...identityOf(provider, profile), inResponseTo };
}

// ---- reading the identity ----

const emailSchema = z.email();
const STANDARD = {
  email: [
    "email",
    "mail",
    "http://schemas.xmlsoap.org/ws/2005/05/identity/claims/emailaddress",
    "urn:oid:0.9.2342.19200300.100.1.3",
  ],
  name: [
    "displayName",
    "http://schemas.microsoft.com/identity/claims/displayname",
    "urn:oid:2.16.840.1.113730.3.1.241",
  ],
  firstName: [
    "givenName",
    "firstName",
    "http://schemas.xmlsoap.org/ws/2005/05/identity/claims/givenname",
    "urn:oid:2.5.4.42",
  ],
  lastName: [
    "surname",
    "sn",
    "lastName",
    "http://schemas.xmlsoap.org/ws/2005/05/identity/claims/surname",
    "urn:oid:2.5.4.4",
  ],
};

function identityOf(provider: SamlProvider, profile: Profile): Omit<SamlIdentity, "inResponseTo"> {
  const attributes = (profile.attributes ?? {}) as Record<string, unknown>;
  const mapping = provider.saml.mapping ?? {};
  /** The first non-empty text value among the named attributes. */
  const first = (...names: (string | undefined)[]) => {
    for (const name of names) {
      if (!name) continue;
      const values = ([] as unknown[]).concat(attributes[name]);
      const text = values.find((value): value is string => typeof value === "string" && value.trim() !== "");
      if (text) return text.trim();
    }
    return null;
  };
  const asEmail = (value: string | null | undefined) =>
    value && emailSchema.safeParse(value.trim()).success ? value.trim().toLowerCase() : null;

  const subject = (mapping.id ? first(mapping.id) : null) ?? profile.nameID?.trim();
  if (!subject) return refuse("invalid_saml_response", "no_subject");

  const format = profile.nameIDFormat ?? UNSPECIFIED_FORMAT;
  const email =
    (mapping.email ? asEmail(first(mapping.email)) : null) ??
    (EMAIL_FORMATS.has(format) ? asEmail(profile.nameID) : null) ??
    asEmail(first(...STANDARD.email)) ??
    (format === UNSPECIFIED_FORMAT ? asEmail(profile.nameID) : null);

  const fullName = [first(mapping.firstName, ...STANDARD.firstName), first(mapping.lastName, ...STANDARD.lastName)]
    .filter(Boolean)
    .join(" ");
  const name = first(mapping.name, ...STANDARD.name) ?? (fullName || null);

  return { subject, email, name };
}

// ---- XML reading helpers (DOM only: nothing here decides about signatures) ----

/** A strictly parsed document, or null; a DOCTYPE is refused (SAML never has one; entity bombs do). */
function parseXml({ xml: { DOMParser } }: Libraries, xml: string): Document | null {
  if (!xml.trimStart().startsWith("<") || /<!DOCTYPE|<!ENTITY/i.test(xml)) return null;
  let problems = 0;
  const report = () => void problems++;
  try {
    const document = new DOMParser({
      errorHandler: { warning: report, error: report, fatalError: report },
    }).parseFromString(xml, "text/xml");
    return problems === 0 && document?.documentElement ? document : null;
  } catch {
    return null;
  }
}

const is = (node: Node, ns: string, localName: string): node is Element =>
  node.nodeType === 1 && (node as Element).namespaceURI === ns && (node as Element).localName === localName;

function children(parent: Element | null | undefined, ns: string, localName: string): Element[] {
  return parent ? Array.from(parent.childNodes).filter((node): node is Element => is(node, ns, localName)) : [];
}

const child = (parent: Element | null | undefined, ns: string, localName: string): Element | null =>
  children(parent, ns, localName)[0] ?? null;

/** Whether the response carries any XML signature at all (to tell "unsigned" from "signature"). */
function hasSignature(response: Element): boolean {
  return response.getElementsByTagNameNS("http://www.w3.org/2000/09/xmldsig#", "Signature").length > 0;
}

/** node-saml's error, as a refusal: which check failed, in a word. */
function refusalFor({ saml }: Libraries, error: unknown, response: Element): SamlRefused {
  if (error instanceof saml.SamlStatusError) return new SamlRefused("saml_error", "idp_status");
  const message = error instanceof Error ? error.message : String(error);
  const rules: [RegExp, SamlRefusalReason, string][] = [
    [/^InResponseTo is missing/, "unsolicited_response", "unsolicited"],
    [/InResponseTo/i, "invalid_saml_response", "in_response_to"],
    [/signature|signed|transforms|ID cannot refer|Referenced node/i, "invalid_saml_response", "signature"],
    [/not yet valid/i, "invalid_saml_response", "not_yet_valid"],
    [/expired|subject confirmation/i, "invalid_saml_response", "expired"],
    [/audience/i, "invalid_saml_response", "audience"],
    [/decrypt|EncryptedAssertion/i, "invalid_saml_response", "encrypted"],
    [
      /Missing SAML assertion|multiple conditions|Unknown SAML response|Error parsing|not a valid date/i,
      "invalid_saml_response",
      "malformed",
    ],
  ];
  const rule = rules.find(([pattern]) => pattern.test(message));
  if (!rule) {
    // Not a property of the response (a stored certificate node-saml cannot read, a database
    // error, ...): the operator needs the message.
    logger().error({ err: error }, "SAML response could not be checked");
    return new SamlRefused("saml_error", "error");
  }
  const [, reason, detail] = rule;
  return new SamlRefused(reason, detail === "signature" && !hasSignature(response) ? "unsigned" : detail);
}
