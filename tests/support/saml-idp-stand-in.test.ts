/**
 * The SAML IdP stand-in itself, checked with @node-saml/node-saml alone (no product code but
 * the metadata reader): its metadata, its single sign-on page, that its good responses verify,
 * and that its wrapped responses still hold a genuine signature (so a refusal of one is about
 * the wrapping, not about a signature the tampering broke by accident).
 */
import { SAML, ValidateInResponseTo } from "@node-saml/node-saml";
import { DOMParser, XMLSerializer } from "@xmldom/xmldom";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { parseIdpMetadata } from "~/server/sso/saml-metadata.server";
import { SAML_IDP_KEYS, startSamlIdpStandIn, wrapSignature, type SamlIdpStandIn } from "./saml-idp-stand-in";

const ACS = "http://127.0.0.1:9/api/auth/sso/saml2/sp/acs/stand-in-test";
const SP_ENTITY_ID = "http://127.0.0.1:9/sp";

let idp: SamlIdpStandIn;
let sp: SAML;

beforeAll(async () => {
  idp = await startSamlIdpStandIn();
  sp = new SAML({
    issuer: SP_ENTITY_ID,
    callbackUrl: ACS,
    entryPoint: idp.ssoUrl,
    idpCert: SAML_IDP_KEYS.idp.cert,
    wantAuthnResponseSigned: false,
    wantAssertionsSigned: false,
    // Not what is tested here (and a refused response would use its request up).
    validateInResponseTo: ValidateInResponseTo.never,
  });
});
afterAll(() => idp?.close());

const signInUrl = () => sp.getAuthorizeUrlAsync("relay", undefined, {});

/** Puts a wrapped response back as the IdP sent it: the forgery removed, the genuine assertion in its place. */
function unwrap(samlResponse: string): string {
  const ns = "urn:oasis:names:tc:SAML:2.0:assertion";
  const document = new DOMParser().parseFromString(Buffer.from(samlResponse, "base64").toString("utf8"), "text/xml");
  const response = document.documentElement;
  const assertions = Array.from(response.getElementsByTagNameNS(ns, "Assertion"));
  const genuine = assertions.find(
    (assertion) => assertion.getElementsByTagNameNS(ns, "NameID")[0]?.textContent === "ada@example.com",
  )!;
  const forged = assertions.find((assertion) => assertion !== genuine)!;
  const extensions = genuine.parentNode as Element;
  response.replaceChild(genuine, forged);
  if (extensions !== response) response.removeChild(extensions);
  return Buffer.from(new XMLSerializer().serializeToString(document)).toString("base64");
}

describe("SAML IdP stand-in", () => {
  it("serves metadata naming its entity id, single sign-on URL and certificate", async () => {
    const response = await fetch(idp.metadataUrl);
    expect(response.headers.get("content-type")).toBe("application/samlmetadata+xml");
    expect(await parseIdpMetadata(await response.text())).toEqual({
      entityId: idp.entityId,
      entryPoint: idp.ssoUrl,
      certs: [idp.cert.trim()],
    });
  });

  it("answers a sign-in at its SSO URL with a page that posts a verifiable response to the ACS", async () => {
    const page = await (await fetch(await signInUrl())).text();
    const form = new DOMParser().parseFromString(page, "text/html");
    const inputs = Object.fromEntries(
      Array.from(form.getElementsByTagName("input")).map((input) => [
        input.getAttribute("name"),
        input.getAttribute("value"),
      ]),
    );
    expect(form.getElementsByTagName("form")[0]?.getAttribute("action")).toBe(ACS);
    expect(inputs.RelayState).toBe("relay");
    const { profile } = await sp.validatePostResponseAsync({ SAMLResponse: inputs.SAMLResponse! });
    expect(profile).toMatchObject({ nameID: "ada@example.com", issuer: idp.entityId, email: "ada@example.com" });
  });

  it.each(["sibling", "extensions", "same-id"] as const)(
    "keeps the genuine signature intact in a wrapped response (%s)",
    async (style) => {
      const { SAMLResponse } = await idp.answer(await signInUrl());
      const wrapped = wrapSignature(SAMLResponse, "mallory@example.com", style);
      await expect(sp.validatePostResponseAsync({ SAMLResponse: wrapped })).rejects.toThrow(/signature/i);
      const { profile } = await sp.validatePostResponseAsync({ SAMLResponse: unwrap(wrapped) });
      expect(profile?.nameID).toBe("ada@example.com");
    },
  );
});
