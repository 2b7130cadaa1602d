/**
 * The OpenID Connect stand-in itself, driven by fetch the way the app's OAuth client and a
 * browser use it: discovery, authorization code with PKCE, both client authentications,
 * ID token against the key set, user info, refresh, error redirects and the Graph routes.
 */
import { createHash, randomBytes } from "node:crypto";
import { createRemoteJWKSet, jwtVerify } from "jose";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { parseEnv } from "~/server/env.server";
import {
  STAND_IN_PHOTO,
  STAND_IN_TENANT_ID,
  startOidcStandIn,
  type OidcStandIn,
  type StandInProviderId,
  type StandInUser,
} from "./oidc-stand-in";

// Nothing listens there: a flow ends at the redirect to it.
const APP = "http://127.0.0.1:9";
const GRACE: StandInUser = {
  sub: "grace-1906",
  email: "grace@example.com",
  email_verified: true,
  name: "Grace Hopper",
  picture: "https://pictures.example/grace.png",
};

let standIn: OidcStandIn;

beforeAll(async () => {
  standIn = await startOidcStandIn();
  await standIn.addAppBaseUrl(APP);
});

afterAll(() => standIn.close());

const callbackUrl = (providerId: StandInProviderId) => `${APP}/api/auth/callback/${providerId}`;

/** Follows the stand-in's redirects by hand, as a browser would, up to the app's callback. */
async function authorize(providerId: StandInProviderId, params: Record<string, string> = {}) {
  const verifier = randomBytes(32).toString("base64url");
  const query = new URLSearchParams({
    response_type: "code",
    client_id: standIn.clients[providerId].clientId,
    redirect_uri: callbackUrl(providerId),
    scope: "openid email profile",
    state: "state-42",
    nonce: "nonce-42",
    code_challenge: createHash("sha256").update(verifier).digest("base64url"),
    code_challenge_method: "S256",
    ...params,
  });
  let location = `${standIn.authorizationUrl}?${query}`;
  for (let hop = 0; !location.startsWith(APP); hop++) {
    const response = await fetch(location, { redirect: "manual" });
    const next = response.headers.get("location");
    if (!next || hop > 5) throw new Error(`no redirect to the app: ${response.status} ${await response.text()}`);
    location = new URL(next, location).href;
  }
  return { callback: new URL(location), verifier };
}

async function tokenRequest(providerId: StandInProviderId, fields: Record<string, string>, auth: "basic" | "post") {
  const { clientId, clientSecret } = standIn.clients[providerId];
  const body = new URLSearchParams(fields);
  const headers: Record<string, string> = {};
  if (auth === "basic") {
    headers.authorization = `Basic ${Buffer.from(`${clientId}:${clientSecret}`).toString("base64")}`;
  } else {
    body.set("client_id", clientId);
    body.set("client_secret", clientSecret);
  }
  const response = await fetch(standIn.tokenUrl, { method: "POST", headers, body });
  return { status: response.status, body: (await response.json()) as Record<string, string> };
}

/** A full sign-in: authorization, then the code exchanged for tokens. */
async function signIn(providerId: StandInProviderId, auth: "basic" | "post" = "post", params = {}) {
  const { callback, verifier } = await authorize(providerId, params);
  const code = callback.searchParams.get("code");
  if (!code) throw new Error(`no code: ${callback}`);
  const fields = {
    grant_type: "authorization_code",
    code,
    redirect_uri: callbackUrl(providerId),
    code_verifier: verifier,
  };
  const { status, body } = await tokenRequest(providerId, fields, auth);
  expect(status, JSON.stringify(body)).toBe(200);
  return { callback, tokens: body };
}

const verifyIdToken = (token: string, providerId: StandInProviderId) =>
  jwtVerify(token, createRemoteJWKSet(new URL(standIn.jwksUrl)), {
    issuer: standIn.issuer,
    audience: standIn.clients[providerId].clientId,
  });

const bearer = (token: string) => ({ headers: { authorization: `Bearer ${token}` } });

describe("OpenID Connect stand-in", () => {
  it("publishes a discovery document with its endpoints, PKCE and the profile claims", async () => {
    const response = await fetch(standIn.url("/.well-known/openid-configuration"));
    const discovery = (await response.json()) as Record<string, unknown>;
    expect(discovery).toMatchObject({
      issuer: standIn.issuer,
      authorization_endpoint: standIn.authorizationUrl,
      token_endpoint: standIn.tokenUrl,
      userinfo_endpoint: standIn.userInfoUrl,
      jwks_uri: standIn.jwksUrl,
      code_challenge_methods_supported: ["S256"],
    });
    expect(discovery.scopes_supported).toEqual(expect.arrayContaining(["openid", "email", "profile"]));
    expect(discovery.claims_supported).toEqual(
      expect.arrayContaining(["sub", "email", "email_verified", "name", "picture", "tid", "oid"]),
    );
    expect(discovery.token_endpoint_auth_methods_supported).toEqual(
      expect.arrayContaining(["client_secret_basic", "client_secret_post"]),
    );
    expect(discovery.grant_types_supported).toEqual(expect.arrayContaining(["authorization_code", "refresh_token"]));
  });

  it("signs in the current user with code + PKCE, client_secret_basic, and an ID token that verifies", async () => {
    standIn.setUser(GRACE);
    const { callback, tokens } = await signIn("google", "basic");
    expect(callback.origin + callback.pathname).toBe(callbackUrl("google"));
    expect(callback.searchParams.get("state")).toBe("state-42");
    expect(callback.searchParams.get("iss")).toBe(standIn.issuer);
    expect(tokens).toMatchObject({ token_type: "Bearer", refresh_token: expect.any(String) });

    const { payload, protectedHeader } = await verifyIdToken(tokens.id_token!, "google");
    expect(protectedHeader.alg).toBe("RS256");
    expect(payload).toMatchObject({ ...GRACE, nonce: "nonce-42" });
    // Only Microsoft's tokens carry a tenant and an object id.
    expect(payload.tid).toBeUndefined();

    const userInfo = await fetch(standIn.userInfoUrl, bearer(tokens.access_token!));
    expect(await userInfo.json()).toEqual(GRACE);
  });

  it("takes client_secret_post too, and adds tid and oid to Microsoft's ID token", async () => {
    standIn.setUser({ ...GRACE, oid: "00000000-0000-0000-66f3-3332eca7ea81" });
    const { tokens } = await signIn("microsoft", "post", {
      scope: "openid profile email User.Read offline_access",
    });
    const { payload } = await verifyIdToken(tokens.id_token!, "microsoft");
    expect(payload).toMatchObject({
      sub: GRACE.sub,
      email: GRACE.email,
      tid: STAND_IN_TENANT_ID,
      oid: "00000000-0000-0000-66f3-3332eca7ea81",
    });
    expect(tokens.refresh_token).toEqual(expect.any(String));
  });

  it("signs in whoever is the current user now, without a stale session", async () => {
    standIn.setUser(GRACE);
    await signIn("google");
    standIn.setUser({ sub: "alan-1912", email: "alan@example.com", email_verified: false, name: "Alan Turing" });
    const { tokens } = await signIn("google");
    const { payload } = await verifyIdToken(tokens.id_token!, "google");
    expect(payload).toMatchObject({ sub: "alan-1912", email_verified: false });
  });

  it("renews the access token with the refresh token", async () => {
    standIn.setUser(GRACE);
    const { tokens } = await signIn("google");
    const refreshed = await tokenRequest(
      "google",
      { grant_type: "refresh_token", refresh_token: tokens.refresh_token! },
      "post",
    );
    expect(refreshed.status).toBe(200);
    expect(refreshed.body.access_token).not.toBe(tokens.access_token);
    const userInfo = await fetch(standIn.userInfoUrl, bearer(refreshed.body.access_token!));
    expect(((await userInfo.json()) as { sub: string }).sub).toBe(GRACE.sub);
  });

  it("refuses a code without its PKCE verifier, a wrong secret and an unregistered redirect URI", async () => {
    const { callback } = await authorize("google");
    const code = callback.searchParams.get("code")!;
    const fields = { grant_type: "authorization_code", code, redirect_uri: callbackUrl("google") };
    expect(await tokenRequest("google", { ...fields, code_verifier: "x".repeat(43) }, "post")).toMatchObject({
      status: 400,
      body: { error: "invalid_grant" },
    });

    const withoutChallenge = await authorize("google", { code_challenge: "", code_challenge_method: "" });
    expect(withoutChallenge.callback.searchParams.get("error")).toBe("invalid_request");

    const wrongSecret = await fetch(standIn.tokenUrl, {
      method: "POST",
      body: new URLSearchParams({ ...fields, client_id: "google-client", client_secret: "wrong" }),
    });
    expect(wrongSecret.status).toBe(401);

    const query = new URLSearchParams({
      response_type: "code",
      client_id: "google-client",
      redirect_uri: "http://127.0.0.1:9/elsewhere",
      scope: "openid",
      code_challenge: "E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM",
      code_challenge_method: "S256",
    });
    const refused = await fetch(`${standIn.authorizationUrl}?${query}`, { redirect: "manual" });
    expect(refused.status).toBe(400);
    expect(await refused.json()).toMatchObject({ error: "invalid_redirect_uri" });
  });

  it("ends the next authorization, and only that one, with the error it was given", async () => {
    standIn.setNextError({ error: "access_denied", error_description: "The user said no" });
    const { callback } = await authorize("microsoft");
    expect(Object.fromEntries(callback.searchParams)).toMatchObject({
      error: "access_denied",
      error_description: "The user said no",
      state: "state-42",
    });
    expect(callback.searchParams.has("code")).toBe(false);
    const { callback: next } = await authorize("microsoft");
    expect(next.searchParams.get("code")).toEqual(expect.any(String));
  });

  it("answers Graph's /me and photo for its access tokens and refuses without one", async () => {
    standIn.setUser({ ...GRACE, oid: "graph-object-id" });
    const { tokens } = await signIn("microsoft");

    const me = await fetch(standIn.graphMeUrl, bearer(tokens.access_token!));
    expect(await me.json()).toEqual({
      id: "graph-object-id",
      displayName: GRACE.name,
      mail: GRACE.email,
      userPrincipalName: GRACE.email,
    });

    const photo = await fetch(`${standIn.graphMeUrl}/photos/48x48/$value`, bearer(tokens.access_token!));
    expect(photo.headers.get("content-type")).toBe("image/png");
    expect(Buffer.from(await photo.arrayBuffer())).toEqual(STAND_IN_PHOTO);

    expect((await fetch(standIn.graphMeUrl)).status).toBe(401);
    expect((await fetch(standIn.graphMeUrl, bearer("not-a-token"))).status).toBe(401);
    expect((await fetch(`${standIn.graphMeUrl}/photos/48x48/$value`)).status).toBe(401);

    standIn.setUser({ sub: "no-photo", email: "np@example.com", name: "No Photo" });
    const { tokens: other } = await signIn("microsoft");
    expect((await fetch(`${standIn.graphMeUrl}/photos/48x48/$value`, bearer(other.access_token!))).status).toBe(404);
  });

  it("signs ID tokens for the idToken sign-in path, and foreign ones that do not verify", async () => {
    standIn.setUser(GRACE);
    const token = await standIn.signIdToken({ nonce: "native-nonce" }, "microsoft");
    const { payload } = await verifyIdToken(token, "microsoft");
    expect(payload).toMatchObject({ sub: GRACE.sub, nonce: "native-nonce", tid: STAND_IN_TENANT_ID });

    const foreign = await standIn.signIdTokenWithForeignKey({}, "google");
    await expect(verifyIdToken(foreign, "google")).rejects.toMatchObject({
      code: "ERR_JWS_SIGNATURE_VERIFICATION_FAILED",
    });
  });

  it("gives variables the app's environment accepts and resolves to the stand-in", () => {
    const parsed = parseEnv({ ...standIn.envFor("google"), ...standIn.envFor("microsoft") });
    if (!parsed.success) throw new Error(parsed.problems.join("\n"));
    const byId = Object.fromEntries(parsed.data.socialProviders.map((config) => [config.id, config]));
    expect(byId.google).toMatchObject({
      clientId: "google-client",
      authorizationUrl: standIn.authorizationUrl,
      tokenUrl: standIn.tokenUrl,
      issuer: standIn.issuer,
      jwksUrl: standIn.jwksUrl,
    });
    expect(byId.microsoft).toMatchObject({ clientSecret: "microsoft-secret", userInfoUrl: standIn.graphMeUrl });
  });
});
