/**
 * SAML 2.0 against a real IdP (samlify in IdP mode, tests/support/saml-idp-stand-in.ts) that
 * signs with its own key: the AuthnRequest the product sends, the reading of the IdP's
 * response into an identity and every refusal (unsigned, wrongly signed, altered, wrapped,
 * expired, wrong audience / recipient / destination / issuer, unsolicited, unknown or spent
 * request, replayed assertion, IdP error), and the SP metadata endpoint through the running
 * app. The responses are read in-process against the app's database, as the ACS reads them.
 */
import { inflateRawSync } from "node:zlib";
import { DOMParser } from "@xmldom/xmldom";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { LoadedProvider } from "~/server/sso/config.server";
import {
  DEFAULT_SAML_USER,
  NAMEID_FORMAT,
  alterNameId,
  reuseAssertion,
  startSamlIdpStandIn,
  wrapSignature,
  type ResponseOptions,
  type SamlIdpStandIn,
} from "../support/saml-idp-stand-in";
import { startTestApp, type TestApp } from "./helpers/app";
import { createOrganization, unique } from "./helpers/factories";

const SECRET = "sso-saml-test-secret-0123456789abcdefghijklmnopqrstuvwxyz";

let app: TestApp;
let idp: SamlIdpStandIn;
let saml: typeof import("~/server/sso/saml.server");
let config: typeof import("~/server/sso/config.server");
let metadata: typeof import("~/server/sso/saml-metadata.server");
type SamlProvider = LoadedProvider & { kind: "saml" };
let provider: SamlProvider;

beforeAll(async () => {
  idp = await startSamlIdpStandIn();
  app = await startTestApp({ secret: SECRET });
  saml = await import("~/server/sso/saml.server");
  config = await import("~/server/sso/config.server");
  metadata = await import("~/server/sso/saml-metadata.server");
  provider = await samlConnection();
});

afterAll(async () => {
  await app?.stop();
  await idp?.close();
});

/**
 * A SAML connection registered from the stand-in's metadata URL, as the connection page does
 * it: the IdP metadata read by parseIdpMetadata, stored in the shared form.
 */
async function samlConnection(overrides: Record<string, unknown> = {}): Promise<SamlProvider> {
  const idpMetadata = await metadata.parseIdpMetadata(await (await fetch(idp.metadataUrl)).text());
  const organization = await createOrganization();
  const providerId = unique("saml");
  await app.prisma.ssoProvider.create({
    data: {
      providerId,
      issuer: idpMetadata.entityId,
      domain: "example.com",
      organizationId: organization.id,
      samlConfig: JSON.stringify({
        entryPoint: idpMetadata.entryPoint,
        certs: idpMetadata.certs,
        idpEntityId: idpMetadata.entityId,
        ...overrides,
      }),
    },
  });
  const loaded = await config.loadProvider(providerId);
  if (loaded?.kind !== "saml") throw new Error("not a SAML provider");
  return loaded;
}

/** The product's sign-in URL, and the stand-in's answer to it. */
async function signIn(options?: ResponseOptions, through = provider) {
  const url = await saml.samlSignInUrl(through, "relay-state-value");
  const request = await idp.readRequest(url);
  return { url, request, response: await idp.respond(request, options) };
}

/** The refusal readSamlResponse throws for `response`, as `{reason, detail}`. */
async function refusal(response: string, through = provider) {
  try {
    await saml.readSamlResponse(through, response);
  } catch (error) {
    if (error instanceof saml.SamlRefused) return { reason: error.reason, detail: error.detail };
    throw error;
  }
  throw new Error("the response was accepted");
}

const MINUTE = 60 * 1000;

describe("samlSignInUrl", () => {
  it("sends the browser to the IdP's SSO URL with a deflated AuthnRequest and the RelayState", async () => {
    const url = new URL(await saml.samlSignInUrl(provider, "state-123"));
    expect(`${url.origin}${url.pathname}`).toBe(idp.ssoUrl);
    expect(url.searchParams.get("RelayState")).toBe("state-123");
    expect(url.searchParams.has("Signature")).toBe(false);
    const xml = inflateRawSync(Buffer.from(url.searchParams.get("SAMLRequest")!, "base64")).toString("utf8");
    const request = new DOMParser().parseFromString(xml, "text/xml").documentElement;
    expect(request.localName).toBe("AuthnRequest");
    expect(request.getAttribute("AssertionConsumerServiceURL")).toBe(config.samlAcsUrl(provider.providerId));
    expect(request.getAttribute("AssertionConsumerServiceURL")).toBe(
      `${app.base}/api/auth/sso/saml2/sp/acs/${provider.providerId}`,
    );
    expect(request.getAttribute("ProtocolBinding")).toBe("urn:oasis:names:tc:SAML:2.0:bindings:HTTP-POST");
    expect(request.getAttribute("Destination")).toBe(idp.ssoUrl);
    expect(request.getElementsByTagNameNS("urn:oasis:names:tc:SAML:2.0:assertion", "Issuer")[0]?.textContent).toBe(
      config.spEntityId(provider),
    );
    // No authentication method is imposed: people who sign in with MFA or a passkey must not be refused.
    expect(xml).not.toContain("RequestedAuthnContext");
  });

  it("remembers the request id for 10 minutes, scoped to the provider", async () => {
    const before = Date.now();
    const { request } = await signIn();
    const rows = await app.prisma.verification.findMany({
      where: { identifier: { startsWith: "saml-request:" }, createdAt: { gte: new Date(before - 1000) } },
    });
    const row = rows.at(-1)!;
    expect(row.expiresAt.getTime() - before).toBeGreaterThanOrEqual(10 * MINUTE - 1000);
    expect(row.expiresAt.getTime() - before).toBeLessThanOrEqual(10 * MINUTE + 5000);
    // The id itself is not stored in the clear.
    expect(row.identifier).not.toContain(request.id);
  });
});

describe("readSamlResponse: responses that sign in", () => {
  it("reads a response whose assertion is signed into the person's identity", async () => {
    const { request, response } = await signIn();
    expect(await saml.readSamlResponse(provider, response)).toEqual({
      subject: "ada@example.com",
      email: "ada@example.com",
      name: "Ada Lovelace",
      inResponseTo: request.id,
    });
  });

  it.each(["response", "both"] as const)("accepts a response signed as a whole (%s)", async (sign) => {
    const { response } = await signIn({ sign });
    expect((await saml.readSamlResponse(provider, response)).subject).toBe("ada@example.com");
  });

  it("accepts a response up to the 60 s clock skew after its NotOnOrAfter", async () => {
    const { response } = await signIn({ issuedAt: new Date(Date.now() - 5 * MINUTE - 30 * 1000) });
    expect((await saml.readSamlResponse(provider, response)).subject).toBe("ada@example.com");
  });

  it("reads email and name from the standard attributes when the NameID is an opaque id", async () => {
    const { response } = await signIn({
      user: {
        nameId: "00u1a2b3c4",
        nameIdFormat: NAMEID_FORMAT.persistent,
        attributes: {
          "http://schemas.xmlsoap.org/ws/2005/05/identity/claims/emailaddress": "Grace@Example.com",
          "http://schemas.xmlsoap.org/ws/2005/05/identity/claims/givenname": "Grace",
          "http://schemas.xmlsoap.org/ws/2005/05/identity/claims/surname": "Hopper",
        },
      },
    });
    expect(await saml.readSamlResponse(provider, response)).toMatchObject({
      subject: "00u1a2b3c4",
      email: "grace@example.com",
      name: "Grace Hopper",
    });
  });

  it("prefers displayName, reads the mail OID, and leaves email null when there is none", async () => {
    const withOid = await signIn({
      user: {
        nameId: "opaque-1",
        nameIdFormat: NAMEID_FORMAT.persistent,
        attributes: {
          "urn:oid:0.9.2342.19200300.100.1.3": "alan@example.com",
          displayName: "Alan T.",
          givenName: "Alan",
        },
      },
    });
    expect(await saml.readSamlResponse(provider, withOid.response)).toMatchObject({
      email: "alan@example.com",
      name: "Alan T.",
    });
    const without = await signIn({ user: { nameId: "opaque-2", nameIdFormat: NAMEID_FORMAT.persistent } });
    expect(await saml.readSamlResponse(provider, without.response)).toMatchObject({
      subject: "opaque-2",
      email: null,
      name: null,
    });
  });

  it("follows the connection's attribute mapping", async () => {
    const mapped = await samlConnection({ mapping: { id: "employeeId", email: "workMail", name: "fullName" } });
    const { response } = await signIn(
      {
        user: {
          nameId: "transient-xyz",
          nameIdFormat: "urn:oasis:names:tc:SAML:2.0:nameid-format:transient",
          attributes: {
            employeeId: "E-42",
            workMail: "kat@example.com",
            email: "other@example.com",
            fullName: "Katherine J.",
          },
        },
      },
      mapped,
    );
    expect(await saml.readSamlResponse(mapped, response)).toMatchObject({
      subject: "E-42",
      email: "kat@example.com",
      name: "Katherine J.",
    });
  });
});

describe("readSamlResponse: refusals", () => {
  it("refuses an unsigned response", async () => {
    const { response } = await signIn({ sign: "none" });
    expect(await refusal(response)).toEqual({ reason: "invalid_saml_response", detail: "unsigned" });
  });

  it.each(["assertion", "response"] as const)(
    "refuses a response (%s) signed by a key the connection does not have",
    async (sign) => {
      const { response } = await signIn({ sign, key: "other" });
      expect(await refusal(response)).toEqual({ reason: "invalid_saml_response", detail: "signature" });
    },
  );

  it.each(["assertion", "response"] as const)("refuses a response (%s signed) altered after signing", async (sign) => {
    const { response } = await signIn({ sign });
    expect(await refusal(alterNameId(response, "mallory@example.com"))).toEqual({
      reason: "invalid_saml_response",
      detail: "signature",
    });
  });

  it.each(["sibling", "extensions", "same-id"] as const)(
    "refuses signature wrapping: a forged assertion beside a genuine signed one (%s)",
    async (style) => {
      const { response } = await signIn();
      expect(await refusal(wrapSignature(response, "mallory@example.com", style))).toEqual({
        reason: "invalid_saml_response",
        detail: "signature",
      });
    },
  );

  it("refuses signature wrapping inside a signed response", async () => {
    const { response } = await signIn({ sign: "both" });
    expect(await refusal(wrapSignature(response, "mallory@example.com", "sibling"))).toMatchObject({
      reason: "invalid_saml_response",
      detail: "signature",
    });
  });

  it("refuses an expired response (past NotOnOrAfter by more than the clock skew)", async () => {
    const { response } = await signIn({ issuedAt: new Date(Date.now() - 7 * MINUTE) });
    expect(await refusal(response)).toEqual({ reason: "invalid_saml_response", detail: "expired" });
  });

  it("refuses a response that is not valid yet", async () => {
    const { response } = await signIn({ issuedAt: new Date(Date.now() + 5 * MINUTE) });
    expect(await refusal(response)).toMatchObject({ reason: "invalid_saml_response" });
  });

  it("refuses an assertion for another audience", async () => {
    const { response } = await signIn({ audience: "https://other-app.example.com/saml/metadata" });
    expect(await refusal(response)).toEqual({ reason: "invalid_saml_response", detail: "audience" });
  });

  it("refuses an assertion for another recipient", async () => {
    const { response } = await signIn({ recipient: "https://other-app.example.com/acs" });
    expect(await refusal(response)).toEqual({ reason: "invalid_saml_response", detail: "recipient" });
  });

  it("refuses a response sent to another destination", async () => {
    const { response } = await signIn({ destination: "https://other-app.example.com/acs" });
    expect(await refusal(response)).toEqual({ reason: "invalid_saml_response", detail: "destination" });
  });

  it("refuses a response from another issuer than the connection's IdP", async () => {
    const { response } = await signIn({ issuer: "https://impostor.example.com/idp" });
    expect(await refusal(response)).toEqual({ reason: "invalid_saml_response", detail: "issuer" });
  });

  it("refuses an unsolicited (IdP-initiated) response", async () => {
    const { response } = await signIn({ inResponseTo: null });
    expect(await refusal(response)).toEqual({ reason: "unsolicited_response", detail: "unsolicited" });
  });

  it("refuses a response to a request the product never sent", async () => {
    const { response } = await signIn({ inResponseTo: "_0123456789abcdef0123456789abcdef" });
    expect(await refusal(response)).toEqual({ reason: "invalid_saml_response", detail: "in_response_to" });
  });

  it("refuses a response to a request sent through another connection", async () => {
    const other = await samlConnection();
    const { response } = await signIn(undefined, other);
    expect(await refusal(response, provider)).toEqual({ reason: "invalid_saml_response", detail: "in_response_to" });
    // The request is still there for its own connection.
    expect((await saml.readSamlResponse(other, response)).subject).toBe(DEFAULT_SAML_USER.nameId);
  });

  it("refuses a response to a request older than 10 minutes", async () => {
    const { response } = await signIn();
    await app.prisma.verification.updateMany({
      where: { identifier: { startsWith: "saml-request:" }, expiresAt: { gt: new Date() } },
      data: { expiresAt: new Date(Date.now() - 1000) },
    });
    expect(await refusal(response)).toEqual({ reason: "invalid_saml_response", detail: "in_response_to" });
  });

  it("answers each request once: the same response again, or a second response to it, is refused", async () => {
    const { request, response } = await signIn();
    await saml.readSamlResponse(provider, response);
    expect(await refusal(response)).toEqual({ reason: "invalid_saml_response", detail: "in_response_to" });
    expect(await refusal(await idp.respond(request))).toEqual({
      reason: "invalid_saml_response",
      detail: "in_response_to",
    });
  });

  it("answers each request once even when the two responses arrive together", async () => {
    const { request, response } = await signIn();
    const second = await idp.respond(request);
    const results = await Promise.allSettled([
      saml.readSamlResponse(provider, response),
      saml.readSamlResponse(provider, second),
    ]);
    expect(results.filter((result) => result.status === "fulfilled")).toHaveLength(1);
  });

  it("refuses a signed assertion replayed as the answer to a new request", async () => {
    // An IdP that leaves InResponseTo out of the assertion: only the assertion id ties it to one use.
    const first = await signIn({ subjectInResponseTo: false });
    await saml.readSamlResponse(provider, first.response);
    const { request } = await signIn();
    expect(await refusal(reuseAssertion(first.response, request))).toEqual({
      reason: "invalid_saml_response",
      detail: "replay",
    });
  });

  it("records a spent assertion id until the assertion expires, and sweeps it afterwards", async () => {
    const issuedAt = new Date(Date.now() - MINUTE);
    const { response } = await signIn({ issuedAt, assertionId: "_spent-assertion-check" });
    await saml.readSamlResponse(provider, response);
    const { createHash } = await import("node:crypto");
    const id = createHash("sha256").update(`saml-assertion:${provider.id}:_spent-assertion-check`).digest("hex");
    const row = await app.prisma.spentIdentifier.findUnique({ where: { id } });
    expect(row?.expiresAt.getTime()).toBe(issuedAt.getTime() + 5 * MINUTE + saml.CLOCK_SKEW_MS);

    await app.prisma.spentIdentifier.update({ where: { id }, data: { expiresAt: new Date(Date.now() - 1000) } });
    await saml.sweepExpired();
    expect(await app.prisma.spentIdentifier.findUnique({ where: { id } })).toBeNull();
  });

  it("refuses an IdP error response with saml_error", async () => {
    const { request } = await signIn();
    const failure = idp.failure(request, "urn:oasis:names:tc:SAML:2.0:status:AuthnFailed");
    expect(await refusal(failure)).toEqual({ reason: "saml_error", detail: "idp_status" });
  });

  it.each([
    ["not base64 XML", "bm90IHhtbA=="],
    ["an empty value", ""],
    [
      "another SAML message",
      Buffer.from('<samlp:LogoutResponse xmlns:samlp="urn:oasis:names:tc:SAML:2.0:protocol"/>').toString("base64"),
    ],
    [
      "a DOCTYPE",
      Buffer.from(
        '<!DOCTYPE x [<!ENTITY a "a">]><samlp:Response xmlns:samlp="urn:oasis:names:tc:SAML:2.0:protocol"/>',
      ).toString("base64"),
    ],
  ])("refuses %s as malformed", async (_, value) => {
    expect(await refusal(value)).toEqual({ reason: "invalid_saml_response", detail: "malformed" });
  });

  it("refuses an oversized response before parsing it", async () => {
    expect(await refusal("A".repeat(400 * 1024))).toEqual({ reason: "invalid_saml_response", detail: "too_large" });
  });
});

describe("GET /api/auth/sso/saml2/sp/metadata", () => {
  const metadataOf = (providerId: string) =>
    fetch(`${app.base}/api/auth/sso/saml2/sp/metadata?providerId=${encodeURIComponent(providerId)}`);

  it("serves the SP metadata: entity id, the ACS (HTTP-POST), WantAssertionsSigned", async () => {
    const response = await metadataOf(provider.providerId);
    expect(response.status).toBe(200);
    expect(response.headers.get("content-type")).toMatch(/^application\/xml/);
    const document = new DOMParser().parseFromString(await response.text(), "text/xml");
    const md = "urn:oasis:names:tc:SAML:2.0:metadata";
    const entity = document.documentElement;
    expect(entity.namespaceURI).toBe(md);
    expect(entity.getAttribute("entityID")).toBe(config.samlMetadataUrl(provider.providerId));
    const sp = entity.getElementsByTagNameNS(md, "SPSSODescriptor")[0]!;
    expect(sp.getAttribute("WantAssertionsSigned")).toBe("true");
    expect(sp.getAttribute("protocolSupportEnumeration")).toBe("urn:oasis:names:tc:SAML:2.0:protocol");
    const acs = sp.getElementsByTagNameNS(md, "AssertionConsumerService")[0]!;
    expect(acs.getAttribute("Binding")).toBe("urn:oasis:names:tc:SAML:2.0:bindings:HTTP-POST");
    expect(acs.getAttribute("Location")).toBe(`${app.base}/api/auth/sso/saml2/sp/acs/${provider.providerId}`);
  });

  it("names the connection's own audience as entity id when it has one", async () => {
    const custom = await samlConnection({ audience: "urn:example:product" });
    const xml = await (await metadataOf(custom.providerId)).text();
    expect(xml).toContain('entityID="urn:example:product"');
  });

  it("answers 404 for an unknown provider and for an OpenID Connect one, 400 without providerId", async () => {
    const unknown = await metadataOf("no-such-provider");
    expect(unknown.status).toBe(404);
    expect(await unknown.json()).toMatchObject({ code: "NOT_FOUND" });

    const organization = await createOrganization();
    const oidc = await app.prisma.ssoProvider.create({
      data: {
        providerId: unique("oidc"),
        issuer: "https://idp.example.com",
        domain: "example.org",
        organizationId: organization.id,
        oidcConfig: JSON.stringify({
          clientId: "client",
          clientSecret: (await import("~/server/crypto.server")).encryptSecret(SECRET, "client-secret"),
          authorizationEndpoint: "https://idp.example.com/authorize",
          tokenEndpoint: "https://idp.example.com/token",
          jwksEndpoint: "https://idp.example.com/jwks",
        }),
      },
    });
    const notSaml = await metadataOf(oidc.providerId);
    expect(notSaml.status).toBe(404);

    const missing = await fetch(`${app.base}/api/auth/sso/saml2/sp/metadata`);
    expect(missing.status).toBe(400);
  });
});
