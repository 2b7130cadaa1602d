/**
 * Reads what sign-in needs out of a SAML identity provider's metadata document (the XML an
 * admin pastes, or that the IdP serves at its metadata URL): its entity id, its single
 * sign-on address and its signing certificates. Anything else in the document is ignored.
 *
 * The XML is parsed with @xmldom/xmldom, the parser @node-saml/node-saml itself uses, which
 * never fetches external entities; documents with a DOCTYPE are refused outright since
 * metadata never needs one and entity declarations are how XML bombs work.
 */
import { X509Certificate } from "node:crypto";
import type { DOMParser } from "@xmldom/xmldom";
import { fail } from "~/server/errors.server";

/** Real IdP metadata is a few KB (a handful of certificates); better-auth draws the line at 100 KB too. */
export const MAX_IDP_METADATA_BYTES = 100 * 1024;

const METADATA_NS = "urn:oasis:names:tc:SAML:2.0:metadata";
const DSIG_NS = "http://www.w3.org/2000/09/xmldsig#";
const SAML2_PROTOCOL = "urn:oasis:names:tc:SAML:2.0:protocol";
const BINDING = {
  redirect: "urn:oasis:names:tc:SAML:2.0:bindings:HTTP-Redirect",
  post: "urn:oasis:names:tc:SAML:2.0:bindings:HTTP-POST",
};

export interface IdpMetadata {
  /** The IdP's entityID: the Issuer of its responses. */
  entityId: string;
  /** Its SingleSignOnService for HTTP-Redirect (HTTP-POST when that is all it offers). */
  entryPoint: string;
  /** Its signing certificates as PEM, in document order, without duplicates. */
  certs: string[];
}

const refuse = (why: string): never =>
  fail("SAML_INVALID_IDP_METADATA", `Invalid SAML identity provider metadata: ${why}`);

/** The element children of `parent` named `localName` in namespace `ns` (direct children only). */
function children(parent: Element, ns: string, localName: string): Element[] {
  return Array.from(parent.childNodes).filter(
    (node): node is Element =>
      node.nodeType === 1 && (node as Element).namespaceURI === ns && (node as Element).localName === localName,
  );
}

function parse(Parser: typeof DOMParser, xml: string): Document {
  if (Buffer.byteLength(xml, "utf8") > MAX_IDP_METADATA_BYTES) refuse(`larger than ${MAX_IDP_METADATA_BYTES} bytes`);
  if (/<!DOCTYPE|<!ENTITY/i.test(xml)) refuse("a DOCTYPE is not allowed");
  // xmldom recovers from mismatched tags with only a warning: any complaint at all refuses the document.
  const problems: string[] = [];
  const report = (message: string) => problems.push(message);
  let document: Document;
  try {
    document = new Parser({
      errorHandler: { warning: report, error: report, fatalError: report },
    }).parseFromString(xml, "text/xml");
  } catch {
    return refuse("not well-formed XML");
  }
  if (problems.length > 0 || !document?.documentElement) refuse("not well-formed XML");
  return document;
}

/** The entity to read: the root EntityDescriptor, or the single IdP one of an EntitiesDescriptor. */
function identityProviderEntity(root: Element): Element {
  if (root.namespaceURI === METADATA_NS && root.localName === "EntityDescriptor") return root;
  if (root.namespaceURI === METADATA_NS && root.localName === "EntitiesDescriptor") {
    const idps = children(root, METADATA_NS, "EntityDescriptor").filter(
      (entity) => children(entity, METADATA_NS, "IDPSSODescriptor").length > 0,
    );
    if (idps.length === 1) return idps[0]!;
    refuse(idps.length === 0 ? "no identity provider in the document" : "more than one identity provider");
  }
  return refuse("the root element is not a SAML metadata EntityDescriptor");
}

function absoluteHttpUrl(value: string | null): string | null {
  if (!value) return null;
  try {
    const url = new URL(value.trim());
    return url.protocol === "https:" || url.protocol === "http:" ? url.href : null;
  } catch {
    return null;
  }
}

/** A certificate's base64 (as in ds:X509Certificate) as PEM; null when it is not an X.509 certificate. */
function certificatePem(base64: string): string | null {
  const compact = base64.replace(/\s+/g, "");
  if (!compact || !/^[A-Za-z0-9+/]+={0,2}$/.test(compact)) return null;
  try {
    return new X509Certificate(Buffer.from(compact, "base64")).toString().trim();
  } catch {
    return null;
  }
}

/** Entity id, SSO address and signing certificates of an IdP metadata document; SAML_INVALID_IDP_METADATA (400) otherwise. */
export async function parseIdpMetadata(xml: string): Promise<IdpMetadata> {
  // The parser loads with the first metadata document: most servers never read one.
  const { DOMParser: Parser } = await import("@xmldom/xmldom");
  const entity = identityProviderEntity(parse(Parser, xml).documentElement);

  const entityId = entity.getAttribute("entityID")?.trim();
  if (!entityId) refuse("the EntityDescriptor has no entityID");

  const descriptor = children(entity, METADATA_NS, "IDPSSODescriptor").find((candidate) =>
    (candidate.getAttribute("protocolSupportEnumeration") ?? "").split(/\s+/).includes(SAML2_PROTOCOL),
  );
  if (!descriptor) return refuse("no IDPSSODescriptor for the SAML 2.0 protocol");

  const services = children(descriptor, METADATA_NS, "SingleSignOnService");
  const locationFor = (binding: string) =>
    services
      .filter((service) => service.getAttribute("Binding") === binding)
      .map((service) => absoluteHttpUrl(service.getAttribute("Location")))
      .find(Boolean);
  const entryPoint = locationFor(BINDING.redirect) ?? locationFor(BINDING.post);
  if (!entryPoint) refuse("no HTTP-Redirect or HTTP-POST SingleSignOnService with an http(s) Location");

  // A KeyDescriptor without `use` serves both signing and encryption.
  const certs = children(descriptor, METADATA_NS, "KeyDescriptor")
    .filter((key) => (key.getAttribute("use") || "signing") === "signing")
    .flatMap((key) => children(key, DSIG_NS, "KeyInfo"))
    .flatMap((info) => children(info, DSIG_NS, "X509Data"))
    .flatMap((data) => children(data, DSIG_NS, "X509Certificate"))
    .map((element) => certificatePem(element.textContent ?? ""));
  if (certs.some((cert) => cert === null)) refuse("a signing certificate is not a valid X.509 certificate");
  const unique = [...new Set(certs as string[])];
  if (unique.length === 0) refuse("no signing certificate");

  return { entityId: entityId!, entryPoint: entryPoint!, certs: unique };
}
