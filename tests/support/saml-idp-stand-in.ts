/**
 * A SAML 2.0 identity provider on loopback for the tests, built on samlify in IdP mode: it
 * reads the product's AuthnRequest (HTTP-Redirect binding) and answers with a Response that
 * samlify signs with the stand-in's own key (RSA-SHA256, exclusive c14n, the signature after
 * the Issuer, as real IdPs do). Its key pairs are fixed test fixtures (fixtures/saml-*.key,
 * self-signed certificates), so nothing is generated at start.
 *
 * Beside the good response it makes the bad ones a real attacker or a broken IdP would send:
 * unsigned, signed by another key, altered after signing, wrapped (signature-wrapping), expired,
 * for another audience / recipient / destination, unsolicited, an IdP error status, and an
 * old signed assertion presented again for a new request.
 *
 * Over HTTP it serves its metadata (GET /metadata, also its entity id) and its single sign-on
 * address (GET /sso): there every request signs in the current user (setUser) at once and the
 * page posts the response to the ACS by itself (a button without JavaScript).
 */
import { readFileSync } from "node:fs";
import { createServer, type Server } from "node:http";
import { promisify } from "node:util";
import { inflateRaw } from "node:zlib";
import { DOMParser, XMLSerializer } from "@xmldom/xmldom";
import * as samlify from "samlify";
import { escapeHtml, listen } from "./stand-in-http";

const fixture = (name: string) => readFileSync(new URL(`./fixtures/${name}`, import.meta.url), "utf8");

/** The stand-in's signing key and certificate, and a second pair it does not publish (the "wrong key"). */
export const SAML_IDP_KEYS = {
  idp: { key: fixture("saml-idp.key"), cert: fixture("saml-idp.crt") },
  other: { key: fixture("saml-other-idp.key"), cert: fixture("saml-other-idp.crt") },
};

const NS = {
  protocol: "urn:oasis:names:tc:SAML:2.0:protocol",
  assertion: "urn:oasis:names:tc:SAML:2.0:assertion",
  dsig: "http://www.w3.org/2000/09/xmldsig#",
};
const BINDING = {
  redirect: "urn:oasis:names:tc:SAML:2.0:bindings:HTTP-Redirect",
  post: "urn:oasis:names:tc:SAML:2.0:bindings:HTTP-POST",
};
export const NAMEID_FORMAT = {
  email: "urn:oasis:names:tc:SAML:1.1:nameid-format:emailAddress",
  persistent: "urn:oasis:names:tc:SAML:2.0:nameid-format:persistent",
  unspecified: "urn:oasis:names:tc:SAML:1.1:nameid-format:unspecified",
};

// The product never asks samlify to parse anything here; samlify wants a validator set anyway.
samlify.setSchemaValidator({ validate: async () => "skipped: the stand-in only writes messages" });

export interface SamlUser {
  nameId: string;
  /** Default: emailAddress. */
  nameIdFormat?: string;
  /** Attribute name -> value(s), e.g. { email: "...", displayName: "..." }. */
  attributes?: Record<string, string | string[]>;
}

/** What the stand-in read from an AuthnRequest. */
export interface SeenRequest {
  id: string;
  /** The SP entity id (the request's Issuer). */
  issuer: string;
  /** AssertionConsumerServiceURL: where the response goes. */
  acsUrl: string;
  destination: string | null;
  relayState: string | null;
  nameIdFormat: string | null;
}

export interface ResponseOptions {
  user?: SamlUser;
  /** What is signed: default the assertion (what WantAssertionsSigned asks for). "none" strips every signature. */
  sign?: "assertion" | "response" | "both" | "none";
  /** Which key signs: "other" is a key the product does not know. */
  key?: "idp" | "other";
  /** Response@InResponseTo (and SubjectConfirmationData's); default the request's id; null = unsolicited. */
  inResponseTo?: string | null;
  /** Whether SubjectConfirmationData repeats InResponseTo (the profile says it should; some IdPs omit it). Default true. */
  subjectInResponseTo?: boolean;
  /** Default the request's Issuer. */
  audience?: string;
  /** SubjectConfirmationData@Recipient; default the request's ACS URL. */
  recipient?: string;
  /** Response@Destination; default the request's ACS URL. */
  destination?: string;
  /** The Issuer of response and assertion; default the stand-in's entity id. */
  issuer?: string;
  /** When the IdP says it issued it; the assertion is valid from then for `lifetimeMs`. */
  issuedAt?: Date;
  /** Default 5 minutes (samlify's, and what most IdPs give). */
  lifetimeMs?: number;
  assertionId?: string;
}

/** A response as the browser posts it to the ACS. */
export interface SamlPost {
  action: string;
  SAMLResponse: string;
  RelayState: string | null;
}

export interface SamlIdpStandIn {
  /** http://127.0.0.1:<port> */
  origin: string;
  /** Its entity id, which is also its metadata URL. */
  entityId: string;
  metadataUrl: string;
  /** Its single sign-on URL (HTTP-Redirect binding). */
  ssoUrl: string;
  /** Its signing certificate (PEM). */
  cert: string;
  /** Its IdP metadata document, as served at metadataUrl (samlify's). */
  metadataXml: string;
  /** The user /sso signs in; default ada@example.com with her name attributes. */
  setUser(user: SamlUser): void;
  /** Options for the responses /sso makes from now on (undefined resets). */
  setResponseOptions(options?: ResponseOptions): void;
  /** The AuthnRequest inside a sign-in URL (the product's samlSignInUrl). */
  readRequest(redirectUrl: string): Promise<SeenRequest>;
  /** A base64 SAMLResponse answering `request`. */
  respond(request: SeenRequest, options?: ResponseOptions): Promise<string>;
  /** readRequest + respond: what the browser would post, and where. */
  answer(redirectUrl: string, options?: ResponseOptions): Promise<SamlPost>;
  /** An IdP error (no assertion), e.g. status "urn:oasis:names:tc:SAML:2.0:status:AuthnFailed". */
  failure(request: SeenRequest, status: string): string;
  close(): Promise<void>;
}

export const DEFAULT_SAML_USER: SamlUser = {
  nameId: "ada@example.com",
  nameIdFormat: NAMEID_FORMAT.email,
  attributes: { email: "ada@example.com", givenName: "Ada", surname: "Lovelace" },
};

const b64 = (text: string) => Buffer.from(text, "utf8").toString("base64");
const unb64 = (value: string) => Buffer.from(value, "base64").toString("utf8");
const parse = (xml: string) => new DOMParser().parseFromString(xml, "text/xml");
const serialize = (node: Node) => new XMLSerializer().serializeToString(node);
const elements = (root: Document | Element, ns: string, localName: string) =>
  Array.from(root.getElementsByTagNameNS(ns, localName));

export async function startSamlIdpStandIn(options: { port?: number } = {}): Promise<SamlIdpStandIn> {
  let user = DEFAULT_SAML_USER;
  let ssoOptions: ResponseOptions | undefined;

  const server: Server = createServer((req, res) => {
    void (async () => {
      const url = new URL(req.url ?? "/", origin);
      if (req.method === "GET" && url.pathname === "/metadata") {
        res.writeHead(200, { "content-type": "application/samlmetadata+xml" });
        res.end(metadataXml);
        return;
      }
      if (req.method === "GET" && url.pathname === "/sso") {
        const post = await answer(url.href, ssoOptions);
        res.writeHead(200, { "content-type": "text/html; charset=utf-8" });
        res.end(autoPostForm(post));
        return;
      }
      res.writeHead(404).end();
    })().catch((error: Error) => {
      res.writeHead(400, { "content-type": "text/plain" }).end(error.message);
    });
  });
  const port = await listen(server, options.port);
  const origin = `http://127.0.0.1:${port}`;
  const entityId = `${origin}/metadata`;
  const ssoUrl = `${origin}/sso`;

  const identityProvider = (key: "idp" | "other") =>
    samlify.IdentityProvider({
      entityID: entityId,
      privateKey: SAML_IDP_KEYS[key].key,
      signingCert: SAML_IDP_KEYS[key].cert,
      singleSignOnService: [{ Binding: BINDING.redirect, Location: ssoUrl }],
      // Never called (the product does not do single logout); samlify warns without one.
      singleLogoutService: [{ Binding: BINDING.redirect, Location: `${origin}/slo` }],
      nameIDFormat: Object.values(NAMEID_FORMAT),
      wantAuthnRequestsSigned: false,
    });
  const metadataXml = identityProvider("idp").getMetadata();

  async function readRequest(redirectUrl: string): Promise<SeenRequest> {
    const url = new URL(redirectUrl);
    const encoded = url.searchParams.get("SAMLRequest");
    if (!encoded) throw new Error("no SAMLRequest in the URL");
    const xml = (await promisify(inflateRaw)(Buffer.from(encoded, "base64"))).toString("utf8");
    const request = parse(xml).documentElement;
    if (request.namespaceURI !== NS.protocol || request.localName !== "AuthnRequest")
      throw new Error("not an AuthnRequest");
    const policy = elements(request, NS.protocol, "NameIDPolicy")[0];
    return {
      id: request.getAttribute("ID") ?? "",
      issuer: elements(request, NS.assertion, "Issuer")[0]?.textContent?.trim() ?? "",
      acsUrl: request.getAttribute("AssertionConsumerServiceURL") ?? "",
      destination: request.getAttribute("Destination") || null,
      relayState: url.searchParams.get("RelayState"),
      nameIdFormat: policy?.getAttribute("Format") || null,
    };
  }

  async function respond(request: SeenRequest, options: ResponseOptions = {}): Promise<string> {
    const who = options.user ?? user;
    const sign = options.sign ?? "assertion";
    const issuedAt = options.issuedAt ?? new Date();
    const until = new Date(issuedAt.getTime() + (options.lifetimeMs ?? 5 * 60 * 1000));
    const inResponseTo = options.inResponseTo === undefined ? request.id : options.inResponseTo;
    const idp = identityProvider(options.key ?? "idp");
    // samlify signs what this SP entity asks for: the assertion when it wants assertions signed,
    // the whole response when it wants messages signed (or does not want assertions signed).
    const sp = samlify.ServiceProvider({
      entityID: request.issuer,
      assertionConsumerService: [{ Binding: BINDING.post, Location: request.acsUrl }],
      wantAssertionsSigned: sign !== "response",
      wantMessageSigned: sign === "response" || sign === "both",
    });
    const responseId = `_resp${crypto.randomUUID().replaceAll("-", "")}`;
    const values = {
      ID: responseId,
      AssertionID: options.assertionId ?? `_assert${crypto.randomUUID().replaceAll("-", "")}`,
      Destination: options.destination ?? request.acsUrl,
      Audience: options.audience ?? request.issuer,
      SubjectRecipient: options.recipient ?? request.acsUrl,
      Issuer: options.issuer ?? entityId,
      IssueInstant: issuedAt.toISOString(),
      StatusCode: "urn:oasis:names:tc:SAML:2.0:status:Success",
      ConditionsNotBefore: issuedAt.toISOString(),
      ConditionsNotOnOrAfter: until.toISOString(),
      SubjectConfirmationDataNotOnOrAfter: until.toISOString(),
      NameIDFormat: who.nameIdFormat ?? NAMEID_FORMAT.email,
      NameID: who.nameId,
      InResponseTo: inResponseTo,
      AuthnStatement: "",
    };
    const attributeStatement = attributeStatementOf(who.attributes ?? {});
    const { context } = await idp.createLoginResponse(
      sp,
      { extract: { request: { id: request.id } } },
      "post",
      {},
      {
        customTagReplacement: (template: string) => {
          let xml = samlify.SamlLib.replaceTagsByValue(template, values);
          if (options.subjectInResponseTo === false) xml = dropSubjectInResponseTo(xml);
          return { id: responseId, context: xml.replace("{AttributeStatement}", attributeStatement) };
        },
      },
    );
    return sign === "none" ? stripSignatures(context) : context;
  }

  async function answer(redirectUrl: string, options?: ResponseOptions): Promise<SamlPost> {
    const request = await readRequest(redirectUrl);
    return { action: request.acsUrl, SAMLResponse: await respond(request, options), RelayState: request.relayState };
  }

  function failure(request: SeenRequest, status: string): string {
    return b64(
      `<samlp:Response xmlns:samlp="${NS.protocol}" xmlns:saml="${NS.assertion}" ID="_err${Date.now()}" Version="2.0" ` +
        `IssueInstant="${new Date().toISOString()}" Destination="${request.acsUrl}" InResponseTo="${request.id}">` +
        `<saml:Issuer>${entityId}</saml:Issuer><samlp:Status><samlp:StatusCode Value="urn:oasis:names:tc:SAML:2.0:status:Responder">` +
        `<samlp:StatusCode Value="${status}"/></samlp:StatusCode><samlp:StatusMessage>Sign-in failed</samlp:StatusMessage>` +
        `</samlp:Status></samlp:Response>`,
    );
  }

  return {
    origin,
    entityId,
    metadataUrl: entityId,
    ssoUrl,
    cert: SAML_IDP_KEYS.idp.cert,
    metadataXml,
    setUser: (next) => void (user = next),
    setResponseOptions: (next) => void (ssoOptions = next),
    readRequest,
    respond,
    answer,
    failure,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

/** The HTML page an IdP answers with: a form that posts the response to the ACS (by itself with JavaScript). */
export function autoPostForm(post: SamlPost): string {
  const relay =
    post.RelayState === null ? "" : `<input type="hidden" name="RelayState" value="${escapeHtml(post.RelayState)}">`;
  return (
    `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>Signing in</title></head>` +
    `<body onload="document.forms[0].submit()"><form method="post" action="${escapeHtml(post.action)}">` +
    `<input type="hidden" name="SAMLResponse" value="${escapeHtml(post.SAMLResponse)}">${relay}` +
    `<button type="submit">Continue</button></form></body></html>`
  );
}

/** The form body of `post`, as a browser would send it. */
export const formBody = (post: SamlPost) =>
  new URLSearchParams({
    SAMLResponse: post.SAMLResponse,
    ...(post.RelayState === null ? {} : { RelayState: post.RelayState }),
  });

/** The user's attributes as an AttributeStatement (xs and xsi are declared on samlify's Assertion). */
function attributeStatementOf(attributes: Record<string, string | string[]>): string {
  const entries = Object.entries(attributes);
  if (entries.length === 0) return "";
  const attribute = ([name, value]: [string, string | string[]]) =>
    `<saml:Attribute Name="${escapeHtml(name)}" NameFormat="urn:oasis:names:tc:SAML:2.0:attrname-format:basic">` +
    ([] as string[])
      .concat(value)
      .map((one) => `<saml:AttributeValue xsi:type="xs:string">${escapeHtml(one)}</saml:AttributeValue>`)
      .join("") +
    `</saml:Attribute>`;
  return `<saml:AttributeStatement>${entries.map(attribute).join("")}</saml:AttributeStatement>`;
}

// ---- tampering: what an attacker does to a response on its way ----

function dropSubjectInResponseTo(xml: string): string {
  const document = parse(xml);
  for (const data of elements(document, NS.assertion, "SubjectConfirmationData")) data.removeAttribute("InResponseTo");
  return serialize(document);
}

/** The response without any XML signature. */
export function stripSignatures(samlResponse: string): string {
  const document = parse(unb64(samlResponse));
  for (const signature of elements(document, NS.dsig, "Signature")) signature.parentNode?.removeChild(signature);
  return b64(serialize(document));
}

/** The response with the signed assertion's NameID changed after signing. */
export function alterNameId(samlResponse: string, nameId: string): string {
  const document = parse(unb64(samlResponse));
  const element = elements(document, NS.assertion, "NameID")[0]!;
  element.textContent = nameId;
  return b64(serialize(document));
}

/**
 * Signature wrapping: an unsigned assertion for `nameId` made from the signed one, placed
 * where a careless reader looks, while the genuine signed assertion stays in the document so
 * its signature still verifies.
 * - "sibling": the forged assertion beside the signed one (two assertions in the response);
 * - "extensions": the forged assertion where the assertion was, the signed one moved into the
 *   response's Extensions;
 * - "same-id": like "extensions", the forged assertion also carrying the signed one's ID and
 *   signature, so that a lookup by ID finds the forgery.
 */
export function wrapSignature(
  samlResponse: string,
  nameId: string,
  style: "sibling" | "extensions" | "same-id",
): string {
  const document = parse(unb64(samlResponse));
  const response = document.documentElement;
  const signed = elements(response, NS.assertion, "Assertion")[0]!;
  const forged = signed.cloneNode(true) as Element;
  elements(forged, NS.assertion, "NameID")[0]!.textContent = nameId;
  const forgedSignature = elements(forged, NS.dsig, "Signature")[0];
  if (style === "same-id") {
    // Keep the copied signature: it names the ID both assertions now share.
  } else {
    forgedSignature?.parentNode?.removeChild(forgedSignature);
    forged.setAttribute("ID", `_forged${Date.now()}`);
  }
  if (style === "sibling") {
    response.insertBefore(forged, signed);
  } else {
    const extensions = document.createElementNS(NS.protocol, "samlp:Extensions");
    response.replaceChild(forged, signed);
    extensions.appendChild(signed);
    const issuer = elements(response, NS.assertion, "Issuer")[0]!;
    response.insertBefore(extensions, issuer.nextSibling);
  }
  return b64(serialize(document));
}

/**
 * A signed assertion seen before, presented again as the answer to `request`: the (unsigned)
 * Response around it names the new request, as an attacker holding an old response would.
 */
export function reuseAssertion(samlResponse: string, request: SeenRequest): string {
  const document = parse(unb64(samlResponse));
  document.documentElement.setAttribute("InResponseTo", request.id);
  for (const signature of elements(document, NS.dsig, "Signature")) {
    if (signature.parentNode === document.documentElement) document.documentElement.removeChild(signature);
  }
  return b64(serialize(document));
}
