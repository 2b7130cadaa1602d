import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { isAppError } from "~/server/errors.server";
import { MAX_IDP_METADATA_BYTES, parseIdpMetadata } from "./saml-metadata.server";

const fixture = (name: string) =>
  readFileSync(new URL(`../../../tests/support/fixtures/${name}`, import.meta.url), "utf8");
const pem = fixture("saml-idp.crt").trim();
const otherPem = fixture("saml-other-idp.crt").trim();
/** A certificate as metadata carries it: the base64 body, here wrapped at 64 characters. */
const body = (cert: string) => cert.replace(/-----(BEGIN|END) CERTIFICATE-----/g, "").trim();

const keyDescriptor = (cert: string, use?: string) => `
    <md:KeyDescriptor${use ? ` use="${use}"` : ""}>
      <ds:KeyInfo xmlns:ds="http://www.w3.org/2000/09/xmldsig#">
        <ds:X509Data><ds:X509Certificate>${body(cert)}</ds:X509Certificate></ds:X509Data>
      </ds:KeyInfo>
    </md:KeyDescriptor>`;

const REDIRECT = "urn:oasis:names:tc:SAML:2.0:bindings:HTTP-Redirect";
const POST = "urn:oasis:names:tc:SAML:2.0:bindings:HTTP-POST";

function metadata({
  entityId = "https://idp.example.com/metadata",
  keys = keyDescriptor(pem, "signing"),
  services = `<md:SingleSignOnService Binding="${POST}" Location="https://idp.example.com/sso/post"/>
    <md:SingleSignOnService Binding="${REDIRECT}" Location="https://idp.example.com/sso/redirect"/>`,
  protocols = "urn:oasis:names:tc:SAML:2.0:protocol",
} = {}) {
  return `<?xml version="1.0" encoding="UTF-8"?>
<md:EntityDescriptor xmlns:md="urn:oasis:names:tc:SAML:2.0:metadata" entityID="${entityId}">
  <md:IDPSSODescriptor WantAuthnRequestsSigned="false" protocolSupportEnumeration="${protocols}">
    ${keys}
    <md:NameIDFormat>urn:oasis:names:tc:SAML:1.1:nameid-format:emailAddress</md:NameIDFormat>
    ${services}
  </md:IDPSSODescriptor>
</md:EntityDescriptor>`;
}

/** The catalogue code (and status) a call fails with. */
async function failure(xml: string) {
  try {
    await parseIdpMetadata(xml);
  } catch (error) {
    if (isAppError(error)) return { code: error.code, status: error.status, message: error.message };
    throw error;
  }
  throw new Error("parseIdpMetadata accepted the document");
}

describe("parseIdpMetadata", async () => {
  it("reads the entity id, the HTTP-Redirect SSO address and the signing certificate as PEM", async () => {
    expect(await parseIdpMetadata(metadata())).toEqual({
      entityId: "https://idp.example.com/metadata",
      entryPoint: "https://idp.example.com/sso/redirect",
      certs: [pem],
    });
  });

  it("reads metadata written with the default namespace and a wrapped certificate (as Okta serves it)", async () => {
    const xml =
      `<?xml version="1.0" encoding="UTF-8"?><md:EntityDescriptor xmlns:md="urn:oasis:names:tc:SAML:2.0:metadata" entityID="http://www.okta.com/exk1"><md:IDPSSODescriptor WantAuthnRequestsSigned="false" protocolSupportEnumeration="urn:oasis:names:tc:SAML:2.0:protocol"><md:KeyDescriptor use="signing"><ds:KeyInfo xmlns:ds="http://www.w3.org/2000/09/xmldsig#"><ds:X509Data><ds:X509Certificate>
${body(pem)}
</ds:X509Certificate></ds:X509Data></ds:KeyInfo></md:KeyDescriptor><md:SingleSignOnService Binding="${REDIRECT}" Location="https://acme.okta.com/app/acme_app_1/exk1/sso/saml"/></md:IDPSSODescriptor></md:EntityDescriptor>`
        .replaceAll("md:", "")
        .replace("xmlns:md=", "xmlns=");
    expect(await parseIdpMetadata(xml)).toEqual({
      entityId: "http://www.okta.com/exk1",
      entryPoint: "https://acme.okta.com/app/acme_app_1/exk1/sso/saml",
      certs: [pem],
    });
  });

  it("falls back to the HTTP-POST address when the IdP offers no redirect binding", async () => {
    const xml = metadata({
      services: `<md:SingleSignOnService Binding="${POST}" Location="https://idp.example.com/sso/post"/>`,
    });
    expect((await parseIdpMetadata(xml)).entryPoint).toBe("https://idp.example.com/sso/post");
  });

  it("keeps every signing certificate (key rotation), counts a KeyDescriptor without use as signing, skips encryption keys", async () => {
    const xml = metadata({
      keys: keyDescriptor(pem, "signing") + keyDescriptor(otherPem) + keyDescriptor(pem, "encryption"),
    });
    expect((await parseIdpMetadata(xml)).certs).toEqual([pem, otherPem]);
    const onlyEncryption = metadata({ keys: keyDescriptor(otherPem, "encryption") + keyDescriptor(pem, "signing") });
    expect((await parseIdpMetadata(onlyEncryption)).certs).toEqual([pem]);
  });

  it("reads the one identity provider of an EntitiesDescriptor (a federation's aggregate)", async () => {
    const entity = metadata({ entityId: "https://idp.example.org/" }).replace(/<\?xml[^>]*>/, "");
    const sp = `<md:EntityDescriptor xmlns:md="urn:oasis:names:tc:SAML:2.0:metadata" entityID="https://sp.example.org/">
      <md:SPSSODescriptor protocolSupportEnumeration="urn:oasis:names:tc:SAML:2.0:protocol"/></md:EntityDescriptor>`;
    const xml = `<md:EntitiesDescriptor xmlns:md="urn:oasis:names:tc:SAML:2.0:metadata">${sp}${entity}</md:EntitiesDescriptor>`;
    expect((await parseIdpMetadata(xml)).entityId).toBe("https://idp.example.org/");
    expect(
      (
        await failure(
          `<md:EntitiesDescriptor xmlns:md="urn:oasis:names:tc:SAML:2.0:metadata">${entity}${entity}</md:EntitiesDescriptor>`,
        )
      ).code,
    ).toBe("SAML_INVALID_IDP_METADATA");
  });

  it.each([
    ["not XML at all", "this is not xml", /well-formed/],
    ["malformed XML", metadata().replace("</md:IDPSSODescriptor>", ""), /well-formed/],
    ["an empty document", "", /well-formed/],
    ["another root element", `<html><body>metadata</body></html>`, /root element/],
    [
      "an EntityDescriptor outside the metadata namespace",
      metadata().replaceAll("urn:oasis:names:tc:SAML:2.0:metadata", "urn:example"),
      /root element/,
    ],
    ["no entityID", metadata({ entityId: "" }), /entityID/],
    [
      "no SAML 2.0 protocol support",
      metadata({ protocols: "urn:oasis:names:tc:SAML:1.1:protocol" }),
      /SAML 2.0 protocol/,
    ],
    ["no single sign-on service", metadata({ services: "" }), /SingleSignOnService/],
    [
      "only an artifact-binding service",
      metadata({
        services: `<md:SingleSignOnService Binding="urn:oasis:names:tc:SAML:2.0:bindings:HTTP-Artifact" Location="https://idp.example.com/a"/>`,
      }),
      /SingleSignOnService/,
    ],
    [
      "an SSO address that is not http(s)",
      metadata({ services: `<md:SingleSignOnService Binding="${REDIRECT}" Location="javascript:alert(1)"/>` }),
      /SingleSignOnService/,
    ],
    ["no signing certificate", metadata({ keys: keyDescriptor(pem, "encryption") }), /no signing certificate/],
    [
      "a certificate that is not one",
      metadata({ keys: keyDescriptor("-----BEGIN CERTIFICATE-----\nQUJDRA==\n-----END CERTIFICATE-----") }),
      /not a valid X.509/,
    ],
    [
      "a DOCTYPE (entity expansion)",
      `<!DOCTYPE lol [<!ENTITY lol "lol">]>${metadata().replace(/<\?xml[^>]*>/, "")}`,
      /DOCTYPE/,
    ],
  ])("refuses %s with a 400 SAML_INVALID_IDP_METADATA", async (_, xml, why) => {
    expect(await failure(xml)).toMatchObject({
      code: "SAML_INVALID_IDP_METADATA",
      status: 400,
      message: expect.stringMatching(why),
    });
  });

  it("refuses a document over the size limit before parsing it", async () => {
    const padding = `<!-- ${"x".repeat(MAX_IDP_METADATA_BYTES)} -->`;
    const xml = metadata().replace("<md:IDPSSODescriptor", `${padding}<md:IDPSSODescriptor`);
    expect(await failure(xml)).toMatchObject({ code: "SAML_INVALID_IDP_METADATA", status: 400 });
    expect((await failure(xml)).message).toMatch(/larger than/);
  });
});
