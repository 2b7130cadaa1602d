/**
 * An organization's identity-provider connections over /api/auth/sso, driven by the official
 * better-auth client with @better-auth/sso's client plugin against the built server: register
 * (OpenID Connect discovered from the OIDC stand-in, SAML by hand), list, get, update, delete
 * and verify-domain, each reply's shape, who may call them (owners and admins; not plain
 * members, outsiders or anonymous callers), the refusals (a taken or reserved providerId,
 * discovery at a private host, an untrusted origin or the wrong issuer, settings the product
 * does not support), that no reply ever carries the client secret, and domain verification
 * through the DNS stand-in: the right TXT record verifies, a missing or wrong one does not, and
 * a domain verified by one organization cannot be verified by another. Requiring SSO needs a
 * verified domain. Runs on SQLite, or on PostgreSQL with TEST_DATABASE_URL.
 */
import { X509Certificate } from "node:crypto";
import { readFileSync } from "node:fs";
import { createServer, type Server } from "node:http";
import { createAuthClient } from "better-auth/client";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startDnsStandIn, type DnsStandIn } from "../support/dns-stand-in";
import { startOidcStandIn, type OidcStandIn } from "../support/oidc-stand-in";
import { ssoClient } from "../support/sso-client";
import { startTestApp, type TestApp } from "./helpers/app";
import { applySetCookies } from "./helpers/auth-client";
import { browserFor } from "./helpers/browser";
import { createUser, sessionFor, signInInProcess, unique, uniqueEmail } from "./helpers/factories";

const SECRET = "sso-connections-test-secret-0123456789abcdefgh";
const CLIENT_SECRET = "s3cr3t-client-secret-never-shown-0123456789";
const CERT = readFileSync(new URL("./fixtures/idp-signing-cert.pem", import.meta.url), "utf8");
const CERT_BODY = CERT.replace(/-----[A-Z ]+-----|\s/g, "");
/** An IdP's metadata document: its entity id, HTTP-Redirect SSO address and signing certificate. */
const METADATA = `<?xml version="1.0"?>
<md:EntityDescriptor xmlns:md="urn:oasis:names:tc:SAML:2.0:metadata" entityID="https://idp.example.com/metadata">
  <md:IDPSSODescriptor protocolSupportEnumeration="urn:oasis:names:tc:SAML:2.0:protocol">
    <md:KeyDescriptor use="signing">
      <ds:KeyInfo xmlns:ds="http://www.w3.org/2000/09/xmldsig#">
        <ds:X509Data><ds:X509Certificate>${CERT_BODY}</ds:X509Certificate></ds:X509Data>
      </ds:KeyInfo>
    </md:KeyDescriptor>
    <md:SingleSignOnService Binding="urn:oasis:names:tc:SAML:2.0:bindings:HTTP-Redirect" Location="https://idp.example.com/sso/redirect"/>
  </md:IDPSSODescriptor>
</md:EntityDescriptor>`;

let app: TestApp;
let oidc: OidcStandIn;
let dns: DnsStandIn;
/** Serves IdP metadata documents, as an IdP publishes them at a URL. */
let metadataServer: Server;
let metadataOrigin: string;
/** Every reply body the clients received, to look for secrets in. */
const replies: string[] = [];

beforeAll(async () => {
  oidc = await startOidcStandIn();
  dns = await startDnsStandIn();
  metadataServer = createServer((req, res) => {
    res.writeHead(req.url === "/metadata.xml" ? 200 : 404, { "content-type": "application/samlmetadata+xml" });
    res.end(req.url === "/metadata.xml" ? METADATA : "");
  });
  await new Promise<void>((resolve) => metadataServer.listen(0, "127.0.0.1", resolve));
  const address = metadataServer.address();
  metadataOrigin = `http://127.0.0.1:${typeof address === "object" && address ? address.port : 0}`;
  const env = { SSO_IDP_ORIGIN: `${oidc.issuer},${metadataOrigin}`, DNS_SERVERS: dns.address };
  app = await startTestApp({ secret: SECRET, env });
  Object.assign(process.env, env);
}, 60_000);

afterAll(async () => {
  await app?.stop();
  await oidc?.close();
  await dns?.close();
  metadataServer?.close();
});

type Reply<T = Record<string, unknown>> = Promise<{
  data: T | null;
  error: { status: number; code?: string; message?: string } | null;
}>;

/** The SSO routes as the proxy client exposes them (the plugin carries no server types to infer them from). */
interface SsoApi {
  register(body: Record<string, unknown>): Reply<Provider & { redirectURI: string }>;
  providers(): Reply<{ providers: Provider[] }>;
  getProvider(options: { query: { providerId: string } }): Reply<Provider>;
  updateProvider(body: Record<string, unknown>): Reply<Provider>;
  deleteProvider(body: { providerId: string }): Reply<{ success: boolean }>;
  verifyDomain(body: { providerId: string; domain?: string }): Reply<null>;
}

interface Provider {
  providerId: string;
  type: "oidc" | "saml";
  issuer: string;
  domain: string;
  organizationId: string;
  domainVerified: boolean;
  oidcConfig?: Record<string, unknown>;
  samlConfig?: Record<string, unknown>;
  spMetadataUrl: string;
  domains: { domain: string; verified: boolean; record: { type: "TXT"; name: string; value: string } }[];
}

/** A client of the official better-auth client with the SSO plugin, with a cookie jar of its own. */
function ssoClientFor(jar: Map<string, string>) {
  const client = createAuthClient({
    baseURL: app.base,
    plugins: [ssoClient()],
    fetchOptions: {
      headers: { origin: app.base },
      onRequest(ctx) {
        if (jar.size) ctx.headers.set("cookie", [...jar].map(([k, v]) => `${k}=${v}`).join("; "));
      },
      async onResponse(ctx) {
        applySetCookies(jar, ctx.response.headers.getSetCookie());
        replies.push(await ctx.response.clone().text());
      },
    },
  });
  return (client as unknown as { sso: SsoApi }).sso;
}

type Person = { id: string; sso: SsoApi };

async function person(name: string): Promise<Person> {
  const { id } = await createUser({ email: uniqueEmail(name), name, password: null });
  const jar = new Map<string, string>();
  await signInInProcess({ jar }, id);
  return { id, sso: ssoClientFor(jar) };
}

/** An organization with an owner, an admin and a plain member. */
async function organization() {
  const [owner, admin, member] = await Promise.all([person("owner"), person("admin"), person("member")]);
  const created = await app.prisma.organization.create({
    data: {
      name: "Acme",
      slug: unique("sso-org"),
      members: {
        create: [
          { userId: owner.id, role: "owner" },
          { userId: admin.id, role: "admin" },
          { userId: member.id, role: "member" },
        ],
      },
    },
  });
  return { id: created.id, owner, admin, member };
}

const domainName = (label: string) => `${unique(label)}.example.com`;

/** A registration body for an OIDC connection discovered from the stand-in. */
const oidcBody = (organizationId: string, overrides: Record<string, unknown> = {}) => ({
  providerId: unique("okta"),
  issuer: oidc.issuer,
  domain: domainName("corp"),
  organizationId,
  oidcConfig: { clientId: "client-id-1234ABCD", clientSecret: CLIENT_SECRET },
  ...overrides,
});

const audited = (action: string, targetId: string, status = "success") =>
  app.prisma.auditLog.findMany({ where: { category: "sso", action, targetId, status } });

describe("POST /sso/register", () => {
  it("registers an OpenID Connect connection from discovery, without its secret in the reply", async () => {
    const org = await organization();
    const body = oidcBody(org.id, { domain: `${domainName("a")}, ${domainName("b").toUpperCase()}` });
    const { data, error } = await org.owner.sso.register(body);
    expect(error).toBeNull();
    const domains = body.domain.toLowerCase().split(", ");
    expect(data).toMatchObject({
      providerId: body.providerId,
      type: "oidc",
      issuer: oidc.issuer,
      domain: domains.join(","),
      organizationId: org.id,
      domainVerified: false,
      oidcConfig: {
        discoveryEndpoint: `${oidc.issuer}/.well-known/openid-configuration`,
        clientIdLastFour: "****ABCD",
        pkce: true,
        authorizationEndpoint: oidc.authorizationUrl,
        tokenEndpoint: oidc.tokenUrl,
        jwksEndpoint: oidc.jwksUrl,
        userInfoEndpoint: oidc.userInfoUrl,
        scopes: ["openid", "email", "profile"],
        tokenEndpointAuthentication: "client_secret_basic",
      },
      spMetadataUrl: `${app.base}/api/auth/sso/saml2/sp/metadata?providerId=${body.providerId}`,
      redirectURI: `${app.base}/api/auth/sso/callback/${body.providerId}`,
    });
    expect(data!.oidcConfig).not.toHaveProperty("clientSecret");
    expect(data!.oidcConfig).not.toHaveProperty("clientId");
    expect(data!.domains.map((entry) => [entry.domain, entry.verified, entry.record.name])).toEqual(
      domains.map((domain) => [domain, false, `_acme-sso.${domain}`]),
    );
    expect(data!.domains[0]!.record.value).toMatch(/^acme-domain-verification=[\w-]{24}$/);

    // Stored encrypted; the sign-in steps read it decrypted.
    const row = await app.prisma.ssoProvider.findUniqueOrThrow({
      where: { providerId: body.providerId },
      include: { domains: true },
    });
    expect(row.oidcConfig).not.toContain(CLIENT_SECRET);
    expect(row.userId).toBe(org.owner.id);
    expect(row.domains.map((entry) => entry.domain).sort()).toEqual([...domains].sort());
    const { loadProvider } = await import("~/server/sso/config.server");
    expect((await loadProvider(body.providerId))?.oidc?.clientSecret).toBe(CLIENT_SECRET);
    expect(await audited("register-provider", body.providerId)).toHaveLength(1);
  });

  it("lets an admin register, and takes explicit endpoints over discovered ones", async () => {
    const org = await organization();
    const body = oidcBody(org.id, {
      oidcConfig: {
        clientId: "abc",
        clientSecret: CLIENT_SECRET,
        userInfoEndpoint: `${oidc.issuer}/custom-userinfo`,
        scopes: ["openid", "email"],
        pkce: false,
        tokenEndpointAuthentication: "client_secret_post",
      },
    });
    const { data, error } = await org.admin.sso.register(body);
    expect(error).toBeNull();
    expect(data!.oidcConfig).toMatchObject({
      clientIdLastFour: "****",
      userInfoEndpoint: `${oidc.issuer}/custom-userinfo`,
      tokenEndpoint: oidc.tokenUrl,
      scopes: ["openid", "email"],
      pkce: false,
      tokenEndpointAuthentication: "client_secret_post",
    });
  });

  it("registers without discovery when told to, with every endpoint given", async () => {
    const org = await organization();
    const endpoints = {
      authorizationEndpoint: oidc.authorizationUrl,
      tokenEndpoint: oidc.tokenUrl,
      jwksEndpoint: oidc.jwksUrl,
    };
    const missing = await org.owner.sso.register(
      oidcBody(org.id, { oidcConfig: { clientId: "x", clientSecret: "y", skipDiscovery: true } }),
    );
    expect(missing.error).toMatchObject({ status: 400, code: "OIDC_ENDPOINTS_REQUIRED" });
    const { data, error } = await org.owner.sso.register(
      oidcBody(org.id, { oidcConfig: { clientId: "x", clientSecret: "y", skipDiscovery: true, ...endpoints } }),
    );
    expect(error).toBeNull();
    expect(data!.oidcConfig).toMatchObject({ ...endpoints, tokenEndpointAuthentication: "client_secret_basic" });
  });

  it("registers SAML by hand: entry point, certificate and the IdP's entity id", async () => {
    const org = await organization();
    const providerId = unique("saml");
    const issuer = `${app.base}/api/auth/sso/saml2/sp/metadata?providerId=${providerId}`;
    const { data, error } = await org.owner.sso.register({
      providerId,
      issuer,
      domain: domainName("saml"),
      organizationId: org.id,
      samlConfig: {
        entryPoint: "https://idp.example.com/sso",
        cert: CERT,
        idpMetadata: { entityID: "https://idp.example.com/entity" },
        wantAssertionsSigned: true,
        identifierFormat: "urn:oasis:names:tc:SAML:1.1:nameid-format:emailAddress",
      },
    });
    expect(error).toBeNull();
    expect(data).toMatchObject({
      type: "saml",
      issuer,
      samlConfig: {
        entryPoint: "https://idp.example.com/sso",
        audience: issuer,
        wantAssertionsSigned: true,
        idpEntityId: "https://idp.example.com/entity",
        identifierFormat: "urn:oasis:names:tc:SAML:1.1:nameid-format:emailAddress",
      },
    });
    const [certificate] = data!.samlConfig!.certificate as Record<string, string>[];
    expect(certificate).toMatchObject({ publicKeyAlgorithm: "RSA" });
    expect(certificate!.fingerprintSha256).toMatch(/^([0-9A-F]{2}:){31}[0-9A-F]{2}$/);
    expect(JSON.stringify(data)).not.toContain("BEGIN CERTIFICATE");

    const refusals: [Record<string, unknown>, string][] = [
      [{ entryPoint: "https://idp.example.com/sso", idpMetadata: { entityID: "x" } }, "CERT_SOURCE_MISSING"],
      [
        { entryPoint: "https://idp.example.com/sso", cert: "not a certificate", idpMetadata: { entityID: "x" } },
        "SAML_INVALID_CERTIFICATE",
      ],
      [{ entryPoint: "https://idp.example.com/sso", cert: CERT }, "SAML_IDP_ENTITY_ID_REQUIRED"],
      [{ cert: CERT, idpMetadata: { entityID: "x" } }, "SAML_ENTRY_POINT_REQUIRED"],
    ];
    for (const [samlConfig, code] of refusals) {
      const refused = await org.owner.sso.register({ ...oidcBody(org.id), oidcConfig: undefined, samlConfig });
      expect(refused.error, code).toMatchObject({ status: 400, code });
    }
  });

  it("registers SAML from the IdP's metadata, pasted or at its URL", async () => {
    const org = await organization();
    const fingerprint = new X509Certificate(CERT).fingerprint256;
    for (const idpMetadata of [{ metadata: METADATA }, { metadataUrl: `${metadataOrigin}/metadata.xml` }]) {
      const { data, error } = await org.owner.sso.register({
        ...oidcBody(org.id),
        oidcConfig: undefined,
        samlConfig: { idpMetadata },
      });
      expect(error).toBeNull();
      expect(data!.samlConfig).toMatchObject({
        entryPoint: "https://idp.example.com/sso/redirect",
        idpEntityId: "https://idp.example.com/metadata",
        certificate: [{ fingerprintSha256: fingerprint }],
      });
    }
    const refusals: [Record<string, unknown>, string][] = [
      [{ metadata: "<not-metadata/>" }, "SAML_INVALID_IDP_METADATA"],
      [{ metadataUrl: `${metadataOrigin}/missing.xml` }, "discovery_not_found"],
      [{ metadataUrl: "https://10.0.0.9/metadata.xml" }, "discovery_private_host"],
    ];
    for (const [idpMetadata, code] of refusals) {
      const { error } = await org.owner.sso.register({
        ...oidcBody(org.id),
        oidcConfig: undefined,
        samlConfig: { idpMetadata },
      });
      expect(error, code).toMatchObject({ status: 400, code });
    }
  });

  it("refuses a plain member, an outsider and an anonymous caller", async () => {
    const org = await organization();
    const member = await org.member.sso.register(oidcBody(org.id));
    expect(member.error).toMatchObject({ status: 403, code: "YOU_ARE_NOT_ALLOWED_TO_MANAGE_SSO" });
    const outsider = await (await person("outsider")).sso.register(oidcBody(org.id));
    expect(outsider.error).toMatchObject({ status: 403, code: "USER_IS_NOT_A_MEMBER_OF_THE_ORGANIZATION" });
    const anonymous = await ssoClientFor(new Map()).register(oidcBody(org.id));
    expect(anonymous.error).toMatchObject({ status: 401, code: "UNAUTHORIZED" });
    expect(await app.prisma.ssoProvider.count({ where: { organizationId: org.id } })).toBe(0);
  });

  it("refuses a providerId that is taken or reserved", async () => {
    const org = await organization();
    const body = oidcBody(org.id);
    expect((await org.owner.sso.register(body)).error).toBeNull();
    const other = await organization();
    const taken = await other.owner.sso.register({ ...body, organizationId: other.id });
    expect(taken.error).toMatchObject({ status: 422, code: "SSO_PROVIDER_ALREADY_EXISTS" });
    for (const providerId of ["google", "credential"]) {
      const reserved = await org.owner.sso.register(oidcBody(org.id, { providerId }));
      expect(reserved.error).toMatchObject({ status: 422, code: "SSO_PROVIDER_ID_RESERVED" });
    }
  });

  it("refuses discovery at a private host, an untrusted origin, the wrong issuer or nowhere", async () => {
    const org = await organization();
    const port = new URL(oidc.issuer).port;
    const cases: [Record<string, unknown>, number, string][] = [
      // Literal private addresses, and localhost by name (names that resolve to private
      // addresses are refused by idpFetch after resolution: idp-fetch.server.test.ts).
      [{ issuer: "https://10.0.0.7" }, 400, "discovery_private_host"],
      [{ issuer: "https://169.254.169.254" }, 400, "discovery_private_host"],
      [{ issuer: `https://localhost:${port}` }, 400, "discovery_private_host"],
      // Plain http is only for the SSO_IDP_ORIGIN origins.
      [{ issuer: "http://idp.example.com" }, 400, "discovery_untrusted_origin"],
      [{ issuer: `http://127.0.0.1:${Number(port) + 1}` }, 400, "discovery_untrusted_origin"],
      [
        {
          issuer: `${oidc.issuer}/tenant`,
          oidcConfig: {
            clientId: "x",
            clientSecret: "y",
            discoveryEndpoint: `${oidc.issuer}/.well-known/openid-configuration`,
          },
        },
        400,
        "issuer_mismatch",
      ],
      [{ issuer: `${oidc.issuer}/nothing-here` }, 400, "discovery_not_found"],
      [
        {
          oidcConfig: {
            clientId: "x",
            clientSecret: "y",
            skipDiscovery: true,
            authorizationEndpoint: oidc.authorizationUrl,
            tokenEndpoint: "https://192.168.1.10/token",
            jwksEndpoint: oidc.jwksUrl,
          },
        },
        400,
        "discovery_private_host",
      ],
    ];
    for (const [overrides, status, code] of cases) {
      const { error } = await org.owner.sso.register(oidcBody(org.id, overrides));
      expect(error, JSON.stringify(overrides)).toMatchObject({ status, code });
    }
    expect(await app.prisma.ssoProvider.count({ where: { organizationId: org.id } })).toBe(0);
  });

  it("refuses what the product does not support, by name, and malformed domains", async () => {
    const org = await organization();
    const oidcCases = [
      { clientId: "x", clientSecret: "y", tokenEndpointAuthentication: "private_key_jwt" },
      { clientId: "x", clientSecret: "y", mapping: { email: "mail", extraFields: { dept: "department" } } },
    ];
    for (const oidcConfig of oidcCases) {
      const { error } = await org.owner.sso.register(oidcBody(org.id, { oidcConfig }));
      expect(error).toMatchObject({ status: 400, code: "SSO_SETTING_NOT_SUPPORTED" });
    }
    const saml = { entryPoint: "https://idp.example.com/sso", cert: CERT, idpMetadata: { entityID: "x" } };
    const samlCases: [Record<string, unknown>, RegExp][] = [
      [{ ...saml, idpMetadata: { entityID: "x", isAssertionEncrypted: true } }, /Encrypted assertions/],
      [{ ...saml, authnRequestsSigned: true }, /Signing AuthnRequests/],
      [{ ...saml, idpInitiatedCallbackUrl: "/dashboard" }, /IdP-initiated/],
      [{ ...saml, spMetadata: { metadata: "<x/>" } }, /SP metadata/],
      [{ ...saml, wantAssertionsSigned: false }, /wantAssertionsSigned/],
    ];
    for (const [samlConfig, message] of samlCases) {
      const { error } = await org.owner.sso.register({ ...oidcBody(org.id), oidcConfig: undefined, samlConfig });
      expect(error).toMatchObject({ status: 400, code: "SSO_SETTING_NOT_SUPPORTED" });
      expect(error!.message).toMatch(message);
    }
    for (const domain of ["not a domain", "example", "exa_mple.com", ","]) {
      const { error } = await org.owner.sso.register(oidcBody(org.id, { domain }));
      expect(error, domain).toMatchObject({ status: 400, code: "INVALID_DOMAIN" });
    }
    const both = await org.owner.sso.register({ ...oidcBody(org.id), samlConfig: saml });
    expect(both.error).toMatchObject({ status: 400, code: "VALIDATION_ERROR" });
  });
});

describe("POST /sign-in/sso through the official client", () => {
  it("starts a sign-in at the registered provider, and says when no connection serves the address", async () => {
    const org = await organization();
    const body = oidcBody(org.id);
    expect((await org.owner.sso.register(body)).error).toBeNull();
    // The plugin infers nothing from the server (its $InferServerPlugin is empty): the route is
    // the proxy's own `signIn.sso`, typed here by hand.
    type SignInSso = (body: Record<string, string>) => Promise<{
      data: { url: string; redirect: boolean } | null;
      error: { status: number; code?: string } | null;
    }>;
    const client = createAuthClient({
      baseURL: app.base,
      plugins: [ssoClient()],
      fetchOptions: { headers: { origin: app.base } },
    }) as unknown as { signIn: { sso: SignInSso } };
    const { data, error } = await client.signIn.sso({ email: `new.hire@${body.domain}`, callbackURL: "/dashboard" });
    expect(error).toBeNull();
    expect(data).toMatchObject({ redirect: true });
    const url = new URL(data!.url);
    expect(`${url.origin}${url.pathname}`).toBe(oidc.authorizationUrl);
    expect(url.searchParams.get("client_id")).toBe("client-id-1234ABCD");
    expect(url.searchParams.get("redirect_uri")).toBe(`${app.base}/api/auth/sso/callback/${body.providerId}`);
    expect(url.searchParams.get("code_challenge_method")).toBe("S256");
    for (const name of ["state", "nonce", "code_challenge"]) expect(url.searchParams.get(name)).toBeTruthy();

    const unknown = await client.signIn.sso({ email: `someone@${domainName("nobody")}`, callbackURL: "/dashboard" });
    expect(unknown.error).toMatchObject({ status: 404, code: "NO_PROVIDER_FOUND" });
  });
});

describe("reading connections", () => {
  it("lists the connections of the organizations the caller manages; get-provider answers managers only", async () => {
    const [first, second] = await Promise.all([organization(), organization()]);
    const a = (await first.owner.sso.register(oidcBody(first.id))).data!;
    const b = (await second.owner.sso.register(oidcBody(second.id))).data!;
    // The first owner is a plain member of the second organization: not theirs to manage.
    await app.prisma.member.create({ data: { organizationId: second.id, userId: first.owner.id, role: "member" } });

    const listed = await first.owner.sso.providers();
    expect(listed.error).toBeNull();
    expect(listed.data!.providers.map((p) => p.providerId)).toEqual([a.providerId]);
    expect(listed.data!.providers[0]).toMatchObject({ type: "oidc", oidcConfig: { clientIdLastFour: "****ABCD" } });
    expect((await first.member.sso.providers()).data).toEqual({ providers: [] });

    const got = await first.admin.sso.getProvider({ query: { providerId: a.providerId } });
    expect(got.error).toBeNull();
    expect(got.data).toMatchObject({ providerId: a.providerId, organizationId: first.id });
    const refused = await first.owner.sso.getProvider({ query: { providerId: b.providerId } });
    expect(refused.error).toMatchObject({ status: 403, code: "YOU_ARE_NOT_ALLOWED_TO_MANAGE_SSO" });
    const outsider = await (await person("outsider")).sso.getProvider({ query: { providerId: a.providerId } });
    expect(outsider.error).toMatchObject({ status: 403, code: "USER_IS_NOT_A_MEMBER_OF_THE_ORGANIZATION" });
    const missing = await first.owner.sso.getProvider({ query: { providerId: "no-such-provider" } });
    expect(missing.error).toMatchObject({ status: 404, code: "PROVIDER_NOT_FOUND" });
    const anonymous = await ssoClientFor(new Map()).providers();
    expect(anonymous.error).toMatchObject({ status: 401 });
  });
});

describe("POST /sso/update-provider", () => {
  it("changes only the given fields, keeps the secret unless a new one is given", async () => {
    const org = await organization();
    const created = (await org.owner.sso.register(oidcBody(org.id))).data!;
    const { data, error } = await org.admin.sso.updateProvider({
      providerId: created.providerId,
      oidcConfig: { scopes: ["openid", "email", "groups"], pkce: false },
    });
    expect(error).toBeNull();
    expect(data!.oidcConfig).toMatchObject({
      scopes: ["openid", "email", "groups"],
      pkce: false,
      tokenEndpoint: oidc.tokenUrl,
      clientIdLastFour: "****ABCD",
    });
    const { loadProvider } = await import("~/server/sso/config.server");
    expect((await loadProvider(created.providerId))?.oidc?.clientSecret).toBe(CLIENT_SECRET);
    await org.owner.sso.updateProvider({
      providerId: created.providerId,
      oidcConfig: { clientSecret: "a-brand-new-secret" },
    });
    expect((await loadProvider(created.providerId))?.oidc?.clientSecret).toBe("a-brand-new-secret");
    expect(await audited("update-provider", created.providerId)).toHaveLength(2);

    const none = await org.owner.sso.updateProvider({ providerId: created.providerId });
    expect(none.error).toMatchObject({ status: 400, code: "NO_FIELDS_TO_UPDATE" });
    const wrongKind = await org.owner.sso.updateProvider({
      providerId: created.providerId,
      samlConfig: { entryPoint: "https://idp.example.com/sso" },
    });
    expect(wrongKind.error).toMatchObject({ status: 400, code: "SSO_PROVIDER_TYPE_MISMATCH" });
    const member = await org.member.sso.updateProvider({ providerId: created.providerId, issuer: oidc.issuer });
    expect(member.error).toMatchObject({ status: 403, code: "YOU_ARE_NOT_ALLOWED_TO_MANAGE_SSO" });
    const privateIssuer = await org.owner.sso.updateProvider({
      providerId: created.providerId,
      issuer: "https://10.1.2.3",
    });
    expect(privateIssuer.error).toMatchObject({ status: 400, code: "discovery_private_host" });
  });

  it("keeps the identity provider once accounts signed in through it, but not its other settings", async () => {
    const org = await organization();
    const created = (await org.owner.sso.register(oidcBody(org.id))).data!;
    await app.prisma.account.create({
      data: { providerId: created.providerId, accountId: "subject-1", userId: org.member.id },
    });
    const clientId = await org.owner.sso.updateProvider({
      providerId: created.providerId,
      oidcConfig: { clientId: "another-client" },
    });
    expect(clientId.error).toMatchObject({ status: 409, code: "SSO_PROVIDER_HAS_LINKED_ACCOUNTS" });
    const scopes = await org.owner.sso.updateProvider({
      providerId: created.providerId,
      oidcConfig: { scopes: ["openid", "email"] },
    });
    expect(scopes.error).toBeNull();
  });
});

describe("domain verification through DNS", () => {
  /** Registers a connection for `domains` and returns it with each domain's record. */
  async function connection(org: Awaited<ReturnType<typeof organization>>, domains: string[]) {
    const { data, error } = await org.owner.sso.register(oidcBody(org.id, { domain: domains.join(",") }));
    expect(error).toBeNull();
    return data!;
  }
  const record = (provider: Provider, domain: string) => provider.domains.find((d) => d.domain === domain)!.record;

  it("verifies a domain whose TXT record is right, and refuses a missing or wrong one", async () => {
    const org = await organization();
    const [first, second] = [domainName("first"), domainName("second")];
    const provider = await connection(org, [first, second]);
    const firstRecord = record(provider, first);

    const missing = await org.owner.sso.verifyDomain({ providerId: provider.providerId, domain: first });
    expect(missing.error).toMatchObject({ status: 502, code: "DOMAIN_VERIFICATION_FAILED" });
    dns.setTxt(firstRecord.name, ["acme-domain-verification=not-the-token", "v=spf1 -all"]);
    const wrong = await org.owner.sso.verifyDomain({ providerId: provider.providerId, domain: first });
    expect(wrong.error).toMatchObject({ status: 502, code: "DOMAIN_VERIFICATION_FAILED" });
    const failures = await app.prisma.auditLog.findMany({
      where: { category: "sso", action: "verify-domain", status: "failure", userId: org.owner.id },
      orderBy: { createdAt: "asc" },
    });
    expect(failures.map((row) => JSON.parse(row.details!).reason)).toEqual(["record-missing", "record-mismatch"]);
    const member = await org.member.sso.verifyDomain({ providerId: provider.providerId, domain: first });
    expect(member.error).toMatchObject({ status: 403, code: "YOU_ARE_NOT_ALLOWED_TO_MANAGE_SSO" });

    dns.setTxt(firstRecord.name, ["v=spf1 -all", firstRecord.value]);
    const verified = await org.admin.sso.verifyDomain({ providerId: provider.providerId, domain: first });
    expect(verified.error).toBeNull();
    expect(verified.data).toBeNull();
    const after = (await org.owner.sso.getProvider({ query: { providerId: provider.providerId } })).data!;
    expect(after.domains.map((d) => [d.domain, d.verified])).toEqual([
      [first, true],
      [second, false],
    ]);
    expect(after.domainVerified).toBe(false);
    const again = await org.owner.sso.verifyDomain({ providerId: provider.providerId, domain: first });
    expect(again.error).toMatchObject({ status: 409, code: "DOMAIN_VERIFIED" });
    const foreign = await org.owner.sso.verifyDomain({ providerId: provider.providerId, domain: "other.example.com" });
    expect(foreign.error).toMatchObject({ status: 400, code: "INVALID_DOMAIN" });

    // Without a domain: every one left, as better-auth verifies a provider.
    dns.setTxt(record(provider, second).name, [record(provider, second).value]);
    expect((await org.owner.sso.verifyDomain({ providerId: provider.providerId })).error).toBeNull();
    const done = (await org.owner.sso.getProvider({ query: { providerId: provider.providerId } })).data!;
    expect(done.domainVerified).toBe(true);
    const none = await org.owner.sso.verifyDomain({ providerId: provider.providerId });
    expect(none.error).toMatchObject({ status: 409, code: "DOMAIN_VERIFIED" });
    expect(
      await app.prisma.auditLog.count({ where: { category: "sso", action: "verify-domain", status: "success" } }),
    ).toBeGreaterThanOrEqual(2);
  });

  it("refuses a domain that another organization has verified, whatever its record says", async () => {
    const [first, second] = await Promise.all([organization(), organization()]);
    const domain = domainName("contested");
    const theirs = await connection(first, [domain]);
    dns.setTxt(record(theirs, domain).name, [record(theirs, domain).value]);
    expect((await first.owner.sso.verifyDomain({ providerId: theirs.providerId })).error).toBeNull();

    // The second organization may name the domain, and even publish its own record beside the first's.
    const ours = await connection(second, [domain]);
    expect(record(ours, domain).value).not.toBe(record(theirs, domain).value);
    dns.setTxt(record(ours, domain).name, [record(theirs, domain).value, record(ours, domain).value]);
    const refused = await second.owner.sso.verifyDomain({ providerId: ours.providerId });
    expect(refused.error).toMatchObject({ status: 409, code: "DOMAIN_VERIFIED_BY_ANOTHER_ORGANIZATION" });
    const row = await app.prisma.ssoDomain.findFirstOrThrow({
      where: { domain, provider: { organizationId: second.id } },
    });
    expect(row.verifiedAt).toBeNull();
  });

  it("keeps the verification of the domains that stay when the domains change", async () => {
    const org = await organization();
    const [kept, dropped, added] = [domainName("kept"), domainName("dropped"), domainName("added")];
    const provider = await connection(org, [kept, dropped]);
    dns.setTxt(record(provider, kept).name, [record(provider, kept).value]);
    expect((await org.owner.sso.verifyDomain({ providerId: provider.providerId, domain: kept })).error).toBeNull();
    const before = await app.prisma.ssoDomain.findFirstOrThrow({ where: { domain: kept } });

    const { data, error } = await org.owner.sso.updateProvider({
      providerId: provider.providerId,
      domain: `${kept}, ${added.toUpperCase()}`,
    });
    expect(error).toBeNull();
    expect(data!.domain).toBe(`${kept},${added}`);
    expect(data!.domains.map((d) => [d.domain, d.verified])).toEqual([
      [kept, true],
      [added, false],
    ]);
    const after = await app.prisma.ssoDomain.findFirstOrThrow({ where: { domain: kept } });
    expect(after).toMatchObject({ id: before.id, token: before.token, verifiedAt: before.verifiedAt });
    expect(await app.prisma.ssoDomain.count({ where: { domain: dropped } })).toBe(0);
  });
});

describe("requiring single sign-on", () => {
  it("ends the other sessions of a domain verified while it is required, and only there", async () => {
    const org = await organization();
    const [first, second] = [domainName("required-first"), domainName("required-second")];
    const provider = (await org.owner.sso.register(oidcBody(org.id, { domain: `${first},${second}` }))).data!;
    const record = (domain: string) => provider.domains.find((entry) => entry.domain === domain)!.record;
    const verify = async (domain: string) => {
      dns.setTxt(record(domain).name, [record(domain).value]);
      const { error } = await org.owner.sso.verifyDomain({ providerId: provider.providerId, domain });
      expect(error).toBeNull();
    };
    await verify(first);
    await app.prisma.organization.update({ where: { id: org.id }, data: { ssoRequired: true } });
    const signedIn = async (email: string) => {
      const { jar } = await signInInProcess({ jar: new Map<string, string>() }, (await createUser({ email })).id);
      return () =>
        fetch(`${app.base}/api/auth/get-session`, {
          headers: { Cookie: [...jar].map(([name, value]) => `${name}=${value}`).join("; ") },
        }).then((response) => response.json());
    };
    const onSecond = await signedIn(`someone.${Date.now()}@${second}`);
    const elsewhere = await signedIn(uniqueEmail("elsewhere"));
    expect(await onSecond()).not.toBeNull();

    await verify(second);
    expect(await onSecond()).toBeNull();
    expect(await elsewhere()).not.toBeNull();
    const [row] = await app.prisma.auditLog.findMany({
      where: { category: "sso", action: "verify-domain", status: "success", details: { contains: second } },
    });
    expect(JSON.parse(row!.details!)).toMatchObject({ domain: second, endedSessions: 1, deletedApiKeys: 0 });
  });

  it("needs a verified domain, is audited, and goes with the last verified domain", async () => {
    const { setSsoRequired } = await import("~/server/sso/domains.server");
    const meta = { ipAddress: null, userAgent: null, locale: "en" as const };
    const org = await organization();
    const owner = await sessionFor(org.owner.id);
    const member = await sessionFor(org.member.id);
    await expect(setSsoRequired(owner, { organizationId: org.id, required: true }, meta)).rejects.toMatchObject({
      code: "SSO_REQUIRES_VERIFIED_DOMAIN",
      status: 400,
    });
    const domain = domainName("required");
    const provider = (await org.owner.sso.register(oidcBody(org.id, { domain }))).data!;
    await expect(setSsoRequired(owner, { organizationId: org.id, required: true }, meta)).rejects.toMatchObject({
      code: "SSO_REQUIRES_VERIFIED_DOMAIN",
    });
    dns.setTxt(provider.domains[0]!.record.name, [provider.domains[0]!.record.value]);
    expect((await org.owner.sso.verifyDomain({ providerId: provider.providerId })).error).toBeNull();
    await expect(setSsoRequired(member, { organizationId: org.id, required: true }, meta)).rejects.toMatchObject({
      code: "YOU_ARE_NOT_ALLOWED_TO_MANAGE_SSO",
    });
    expect(await setSsoRequired(owner, { organizationId: org.id, required: true }, meta)).toEqual({
      organizationId: org.id,
      ssoRequired: true,
    });
    expect(await audited("require-sso", org.id)).toHaveLength(1);

    // Removing the connection removes its verified domain, and the requirement with it.
    const member403 = await org.member.sso.deleteProvider({ providerId: provider.providerId });
    expect(member403.error).toMatchObject({ status: 403, code: "YOU_ARE_NOT_ALLOWED_TO_MANAGE_SSO" });
    await app.prisma.account.create({
      data: { providerId: provider.providerId, accountId: "subject-2", userId: org.member.id },
    });
    const deleted = await org.owner.sso.deleteProvider({ providerId: provider.providerId });
    expect(deleted).toMatchObject({ data: { success: true }, error: null });
    expect(await app.prisma.ssoProvider.count({ where: { providerId: provider.providerId } })).toBe(0);
    expect(await app.prisma.ssoDomain.count({ where: { domain } })).toBe(0);
    expect(await app.prisma.account.count({ where: { providerId: provider.providerId } })).toBe(0);
    expect(await app.prisma.user.count({ where: { id: org.member.id } })).toBe(1);
    expect((await app.prisma.organization.findUniqueOrThrow({ where: { id: org.id } })).ssoRequired).toBe(false);
    expect(await audited("delete-provider", provider.providerId)).toHaveLength(1);
    const gone = await org.owner.sso.deleteProvider({ providerId: provider.providerId });
    expect(gone.error).toMatchObject({ status: 404, code: "PROVIDER_NOT_FOUND" });
  });
});

describe("secrets", () => {
  it("never came back in any reply of this file", () => {
    expect(replies.length).toBeGreaterThan(50);
    const leaks = replies.filter((text) => text.includes(CLIENT_SECRET) || text.includes("a-brand-new-secret"));
    expect(leaks).toEqual([]);
  });
});

describe("the organization's single sign-on pages, without JavaScript", () => {
  it("add a connection, show what to enter at the provider, verify its domain, require SSO, remove it", async () => {
    const org = await organization();
    const [ownerRow, memberRow] = await Promise.all(
      [org.owner.id, org.member.id].map((id) => app.prisma.user.findUniqueOrThrow({ where: { id } })),
    );
    const owner = await browserFor(app, ownerRow!);
    const member = await browserFor(app, memberRow!);
    const { slug } = await app.prisma.organization.findUniqueOrThrow({ where: { id: org.id } });
    const base = `/organizations/${slug}/sso`;

    // The section is the managers': a member finds nothing there, and no tab.
    expect((await member.get(base)).status).toBe(404);
    expect(await member.page(`/organizations/${slug}`)).not.toContain(`href="${base}"`);
    const list = await owner.page(base);
    expect(list).toContain(`href="${base}"`);
    expect(list).toContain(`href="${base}/new"`);

    // A refused registration answers the form, without the secret typed into it.
    const providerId = unique("pageidp");
    const domain = domainName("page");
    const form = {
      intent: "register-oidc",
      providerId,
      domain,
      issuer: oidc.issuer,
      clientId: "page-client-WXYZ",
      clientSecret: CLIENT_SECRET,
    };
    const refused = await owner.post(`${base}/new`, { ...form, issuer: "https://10.0.0.1" });
    expect(refused.status).toBe(400);
    const refusedHtml = await refused.text();
    expect(refusedHtml).toContain('data-testid="form-errors"');
    expect(refusedHtml).not.toContain(CLIENT_SECRET);

    const added = await owner.post(`${base}/new`, form);
    expect(added.status).toBe(302);
    expect(added.headers.get("location")).toBe(`${base}/${providerId}`);
    const page = await owner.page(`${base}/${providerId}`);
    expect(page).toContain(`value="${app.base}/api/auth/sso/callback/${providerId}"`);
    expect(page).toContain(`value="_acme-sso.${domain}"`);
    const token = /value="(acme-domain-verification=[\w-]+)"/.exec(page)?.[1];
    expect(token).toBeTruthy();
    expect(page).toContain("WXYZ");
    expect(page).not.toContain(CLIENT_SECRET);
    expect(page).toContain(`href="${base}/${providerId}/scim"`);
    expect(page).toContain(`href="${base}/${providerId}/remove"`);

    // Verify: refused while the record is missing (422 on the page, not better-auth's 502), then verified.
    const missing = await owner.post(`${base}/${providerId}`, { intent: "verify-domain", domain });
    expect(missing.status).toBe(422);
    expect(await missing.text()).toContain('data-testid="form-errors"');
    dns.setTxt(`_acme-sso.${domain}`, [token!]);
    const verified = await owner.post(`${base}/${providerId}`, { intent: "verify-domain", domain });
    expect(verified.status).toBe(302);
    expect(await owner.page(`${base}/${providerId}`)).toMatch(/data-verified="true"/);

    // Require, in French.
    const french = await owner.page(`/fr${base}`);
    expect(french).toContain("Exiger l’authentification unique");
    const required = await owner.post(`/fr${base}`, { intent: "set-sso-required", required: "true" });
    expect(required.status).toBe(302);
    expect((await app.prisma.organization.findUniqueOrThrow({ where: { id: org.id } })).ssoRequired).toBe(true);
    const refusedRequire = await member.post(base, { intent: "set-sso-required", required: "false" });
    expect(refusedRequire.status).toBe(404);

    // Remove, through its confirmation.
    expect(await owner.page(`/ja${base}/${providerId}/remove`)).toContain(`${providerId} を削除しますか?`);
    const removed = await owner.post(`${base}/${providerId}/remove`, { intent: "remove-provider" });
    expect(removed.status).toBe(302);
    expect(removed.headers.get("location")).toBe(base);
    expect(await app.prisma.ssoProvider.count({ where: { providerId } })).toBe(0);
    expect((await owner.get(`${base}/${providerId}`)).status).toBe(404);
  });
});
