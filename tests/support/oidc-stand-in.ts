/**
 * A real OpenID Connect server (oidc-provider) on loopback that the tests point the app's
 * Google and Microsoft sign-in at: code flow with PKCE (S256) required, refresh tokens, the
 * `openid email profile` scopes, user info and a key set whose RSA key is made at start.
 *
 * There is no login page: every authorization signs in the "current user" (setUser) and
 * grants the requested scopes, or ends with the error set by setNextError. A browser, or a
 * fetch that follows redirects, goes from the authorization URL straight to the app's
 * callback. Beside oidc-provider the same server answers the two Microsoft Graph calls of a
 * Microsoft sign-in (/me and its photo) for the access tokens it issued.
 *
 * An organization's own identity provider (single sign-on) is the same server with a client of
 * its own (addClient), whose redirect URI is the app's /api/auth/sso/callback/<providerId>.
 * tamperNextIdToken makes the next token response carry an ID token with claims of the test's
 * choosing, signed with the real key, as a provider that got them wrong would.
 */
import { generateKeyPairSync, type KeyObject } from "node:crypto";
import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import { SignJWT } from "jose";
import Provider, { type Interaction } from "oidc-provider";

export type StandInProviderId = "google" | "microsoft";
export const STAND_IN_PROVIDERS: StandInProviderId[] = ["google", "microsoft"];

/** Where the app receives each provider's redirect, below its base URL, e.g. /api/auth/callback/google. */
export const CALLBACK_PATH = "/api/auth/callback/";

/** The `tid` of the stand-in's Microsoft accounts: a work or school directory, not the personal-accounts one. */
export const STAND_IN_TENANT_ID = "3f2b9c4e-8d1a-4c6f-9e2b-7a5d1c3e8f40";

/** Every user's picture and Graph photo: a 1x1 PNG. */
export const STAND_IN_PHOTO = Buffer.from(
  "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA60e6kgAAAABJRU5ErkJggg==",
  "base64",
);

export interface StandInUser {
  sub: string;
  email?: string;
  email_verified?: boolean;
  name?: string;
  picture?: string;
  /** Microsoft only: the directory (tenant) id; default STAND_IN_TENANT_ID. */
  tid?: string;
  /** Microsoft only: the object id, Graph's user id; default `sub`. */
  oid?: string;
}

export interface StandInClient {
  clientId: string;
  clientSecret: string;
  redirectUris: string[];
  /** How the client authenticates at the token endpoint; default client_secret_basic. */
  tokenEndpointAuthMethod?: "client_secret_basic" | "client_secret_post";
}

/** Where the app receives an SSO connection's redirect, below its base URL: /api/auth/sso/callback/<providerId>. */
export const SSO_CALLBACK_PATH = "/api/auth/sso/callback/";

/** What the provider sends to the callback instead of a code, e.g. { error: "access_denied" }. */
export interface StandInError {
  error: string;
  error_description?: string;
}

export interface OidcStandInOptions {
  /** Default: any free port. A fixed one lets another process know the issuer in advance (browser tests). */
  port?: number;
  /** The app's origin, when known before start (otherwise see addAppBaseUrl). */
  appBaseUrl?: string;
  /** Default per provider: `<id>-client` / `<id>-secret`, no extra redirect URIs. */
  clients?: Partial<Record<StandInProviderId, Partial<StandInClient>>>;
  /** The first current user; default Ada Lovelace with a verified address. */
  user?: StandInUser;
}

export interface OidcStandIn {
  /** http://127.0.0.1:<port>, also the issuer of every token. */
  issuer: string;
  url(path: string): string;
  authorizationUrl: string;
  tokenUrl: string;
  userInfoUrl: string;
  jwksUrl: string;
  /** Microsoft Graph's /me; its photo is at `/photos/<n>x<n>/$value` below it. */
  graphMeUrl: string;
  clients: Record<StandInProviderId, StandInClient>;
  /** Registers `<baseUrl>/api/auth/callback/<id>` as a redirect URI of every client. */
  addAppBaseUrl(baseUrl: string): Promise<void>;
  /** The variables that point the app's provider at the stand-in. */
  envFor(providerId: StandInProviderId): Record<string, string>;
  /** The user the next authorizations sign in. */
  setUser(user: StandInUser): void;
  /** Makes the next authorization (only that one) end with this error at the callback. */
  setNextError(error: StandInError): void;
  /** Registers (or replaces) a client of its own, e.g. an SSO connection's. */
  addClient(client: StandInClient): Promise<void>;
  /**
   * The next token response (only that one) carries its ID token with these claims changed
   * (e.g. `{ nonce: "x" }`, `{ aud: "other" }`, `{ iss: "https://elsewhere" }`), re-signed with
   * the stand-in's own key.
   */
  tamperNextIdToken(claims: Record<string, unknown>): void;
  /**
   * An ID token for the current user signed with the stand-in's key: issuer, audience (the
   * provider's client id), iat and exp are set and can be overridden by `claims`.
   */
  signIdToken(claims?: Record<string, unknown>, providerId?: StandInProviderId): Promise<string>;
  /** The same, signed with a key of the same id that the key set does not hold. */
  signIdTokenWithForeignKey(claims?: Record<string, unknown>, providerId?: StandInProviderId): Promise<string>;
  close(): Promise<void>;
}

const KEY_ID = "stand-in-key";
const GRAPH_ME_PATH = "/graph/v1.0/me";
const PICTURE_PATH = "/picture.png";
// oidc-provider's resume step checks a cookie that holds the interaction id; see route().
const RESUME_PATH = /^\/auth\/([\w-]+)$/;

function json(res: ServerResponse, status: number, body: unknown) {
  res.writeHead(status, { "content-type": "application/json" });
  res.end(JSON.stringify(body));
}

function sendPhoto(res: ServerResponse) {
  res.writeHead(200, { "content-type": "image/png" });
  res.end(STAND_IN_PHOTO);
}

/** Graph's answer to a missing, unknown or expired token. */
const graphUnauthorized = {
  error: { code: "InvalidAuthenticationToken", message: "Access token is empty or invalid." },
};

function rsaKey(): KeyObject {
  return generateKeyPairSync("rsa", { modulusLength: 2048 }).privateKey;
}

/** The variables that point the app's `providerId` at a stand-in with this issuer (default clients unless given). */
export function standInEnv(
  issuer: string,
  providerId: StandInProviderId,
  client: Pick<StandInClient, "clientId" | "clientSecret"> = {
    clientId: `${providerId}-client`,
    clientSecret: `${providerId}-secret`,
  },
): Record<string, string> {
  const prefix = providerId.toUpperCase();
  return {
    [`${prefix}_CLIENT_ID`]: client.clientId,
    [`${prefix}_CLIENT_SECRET`]: client.clientSecret,
    [`${prefix}_AUTHORIZATION_URL`]: `${issuer}/auth`,
    [`${prefix}_TOKEN_URL`]: `${issuer}/token`,
    [`${prefix}_ISSUER`]: issuer,
    [`${prefix}_JWKS_URL`]: `${issuer}/jwks`,
    // Google's profile comes from the ID token alone: the app refuses a GOOGLE_USERINFO_URL.
    ...(providerId === "microsoft" ? { MICROSOFT_USERINFO_URL: `${issuer}${GRAPH_ME_PATH}` } : {}),
  };
}

export async function startOidcStandIn(options: OidcStandInOptions = {}): Promise<OidcStandIn> {
  const server = createServer((req, res) => {
    route(req, res).catch((error: unknown) => json(res, 500, { error: "server_error", message: String(error) }));
  });
  const port = await new Promise<number>((resolve, reject) => {
    server.once("error", reject);
    server.listen(options.port ?? 0, "127.0.0.1", () => {
      const address = server.address();
      resolve(typeof address === "object" && address ? address.port : 0);
    });
  });
  const issuer = `http://127.0.0.1:${port}`;
  const url = (path: string) => new URL(path, issuer).href;

  const signingKey = rsaKey();
  // Tokens stay valid after the user changes, so findAccount and Graph look users up by id.
  const users = new Map<string, StandInUser>();
  let currentUser: StandInUser = options.user ?? {
    sub: "stand-in-user",
    email: "ada@example.com",
    email_verified: true,
    name: "Ada Lovelace",
    picture: url(PICTURE_PATH),
  };
  users.set(currentUser.sub, currentUser);
  let nextError: StandInError | undefined;
  let nextIdTokenClaims: Record<string, unknown> | undefined;

  const clients = Object.fromEntries(
    STAND_IN_PROVIDERS.map((id) => {
      const given = options.clients?.[id];
      const redirectUris = [...(given?.redirectUris ?? [])];
      if (options.appBaseUrl) redirectUris.push(`${options.appBaseUrl}${CALLBACK_PATH}${id}`);
      return [id, { clientId: `${id}-client`, clientSecret: `${id}-secret`, ...given, redirectUris }];
    }),
  ) as Record<StandInProviderId, StandInClient>;
  const providerIdOf = (clientId: string | undefined) =>
    STAND_IN_PROVIDERS.find((id) => clients[id].clientId === clientId);

  /** The user's claims as the provider's tokens carry them: Microsoft's add `tid` and `oid`. */
  function claimsOf(user: StandInUser, providerId: StandInProviderId | undefined): Record<string, unknown> {
    const { tid, oid, ...claims } = user;
    return providerId === "microsoft" ? { ...claims, tid: tid ?? STAND_IN_TENANT_ID, oid: oid ?? user.sub } : claims;
  }

  /** The result of an interaction, given without asking anyone: the current user, every requested scope. */
  async function finishInteraction(interaction: Interaction): Promise<Record<string, unknown>> {
    if (nextError) {
      const error = nextError;
      nextError = undefined;
      return { ...error };
    }
    const grant = new provider.Grant({ accountId: currentUser.sub, clientId: String(interaction.params.client_id) });
    grant.addOIDCScope(String(interaction.params.scope ?? "openid"));
    return { login: { accountId: currentUser.sub }, consent: { grantId: await grant.save() } };
  }

  const provider = new Provider(issuer, {
    jwks: { keys: [{ ...signingKey.export({ format: "jwk" }), kid: KEY_ID, alg: "RS256", use: "sig" }] },
    features: { devInteractions: { enabled: false } },
    pkce: { required: () => true },
    claims: { openid: ["sub", "tid", "oid"], email: ["email", "email_verified"], profile: ["name", "picture"] },
    // Otherwise a code flow's ID token holds only `sub`, while Google's carries the profile.
    conformIdTokenClaims: false,
    // Google gives refresh tokens for access_type=offline, without the offline_access scope.
    issueRefreshToken: () => true,
    // No stand-in session outlives a request (see route), so tokens must not depend on one.
    expiresWithSession: () => false,
    // Given, though close to the defaults, because oidc-provider logs a notice for each default it uses.
    ttl: {
      AccessToken: 3600,
      AuthorizationCode: 60,
      IdToken: 3600,
      RefreshToken: 86400,
      Interaction: 600,
      Session: 600,
      Grant: 86400,
    },
    findAccount(ctx, sub) {
      const user = users.get(sub);
      const providerId = providerIdOf(ctx.oidc.client?.clientId);
      return user && { accountId: sub, claims: () => claimsOf(user, providerId) };
    },
    interactions: {
      // Instead of sending the browser to a login page, finish the interaction at once and go on.
      async url(_ctx, interaction) {
        interaction.result = await finishInteraction(interaction);
        await interaction.persist();
        return interaction.returnTo;
      },
    },
    // JSON instead of an HTML page: what a test shows when, say, a redirect URI is refused.
    renderError(ctx, out) {
      ctx.type = "json";
      ctx.body = out;
    },
  });
  const handle = provider.callback();

  async function upsertClient({ clientId, clientSecret, redirectUris, tokenEndpointAuthMethod }: StandInClient) {
    if (redirectUris.length === 0) return; // oidc-provider refuses a client without one
    // Kept in oidc-provider's store rather than its static configuration so redirect URIs can be added later.
    await provider.Client.adapter.upsert(clientId, {
      client_id: clientId,
      client_secret: clientSecret,
      redirect_uris: redirectUris,
      grant_types: ["authorization_code", "refresh_token"],
      response_types: ["code"],
      token_endpoint_auth_method: tokenEndpointAuthMethod ?? "client_secret_basic",
    });
  }
  const register = (providerId: StandInProviderId) => upsertClient(clients[providerId]);
  for (const id of STAND_IN_PROVIDERS) await register(id);

  /** Holds back the token endpoint's answer and sends it with its ID token's claims replaced. */
  function tamperTokenResponse(res: ServerResponse, claims: Record<string, unknown>) {
    const chunks: Buffer[] = [];
    const end = res.end.bind(res);
    res.write = ((chunk: string | Buffer) => {
      chunks.push(Buffer.from(chunk));
      return true;
    }) as typeof res.write;
    res.end = ((chunk?: string | Buffer) => {
      if (chunk && typeof chunk !== "function") chunks.push(Buffer.from(chunk));
      void (async () => {
        const body = JSON.parse(Buffer.concat(chunks).toString("utf8")) as Record<string, unknown>;
        if (typeof body.id_token === "string") {
          const original = JSON.parse(
            Buffer.from(body.id_token.split(".")[1]!, "base64url").toString("utf8"),
          ) as Record<string, unknown>;
          body.id_token = await new SignJWT({ ...original, ...claims })
            .setProtectedHeader({ alg: "RS256", kid: KEY_ID })
            .sign(signingKey);
        }
        const text = JSON.stringify(body);
        res.setHeader("content-length", Buffer.byteLength(text));
        end(text);
      })();
      return res;
    }) as typeof res.end;
  }

  async function graph(req: IncomingMessage, res: ServerResponse, rest: string) {
    const token = /^Bearer (.+)$/i.exec(req.headers.authorization ?? "")?.[1];
    const issued = token ? await provider.AccessToken.find(token) : undefined;
    const user = issued && users.get(issued.accountId);
    if (!user) return json(res, 401, graphUnauthorized);
    if (rest === "") {
      return json(res, 200, {
        id: user.oid ?? user.sub,
        displayName: user.name ?? null,
        mail: user.email ?? null,
        userPrincipalName: user.email ?? `${user.sub}@stand-in.example`,
      });
    }
    // Graph answers 404 for a user without a photo.
    if (/^\/photos\/(\d+)x\1\/\$value$/.test(rest) && user.picture) return sendPhoto(res);
    return json(res, 404, { error: { code: "ImageNotFound", message: "The photo wasn't found." } });
  }

  async function route(req: IncomingMessage, res: ServerResponse) {
    const path = new URL(req.url ?? "/", issuer).pathname;
    if (path === PICTURE_PATH) return sendPhoto(res);
    if (path === GRAPH_ME_PATH || path.startsWith(`${GRAPH_ME_PATH}/`)) {
      return graph(req, res, path.slice(GRAPH_ME_PATH.length));
    }
    // The client's cookies are ignored so that every authorization signs in the current user
    // afresh (a test may switch users within one browser) and fetch, without a cookie jar, can
    // follow the redirects. The resume cookie only ties an authorization's end to the browser
    // that started it; its value is the interaction id, which the resume URL holds too.
    const resume = RESUME_PATH.exec(path);
    if (resume) req.headers.cookie = `_interaction_resume=${resume[1]}`;
    else delete req.headers.cookie;
    if (path === "/token" && nextIdTokenClaims) {
      tamperTokenResponse(res, nextIdTokenClaims);
      nextIdTokenClaims = undefined;
    }
    handle(req, res);
  }

  function sign(key: KeyObject, claims: Record<string, unknown>, providerId: StandInProviderId) {
    const now = Math.floor(Date.now() / 1000);
    const payload = {
      iss: issuer,
      aud: clients[providerId].clientId,
      iat: now,
      exp: now + 3600,
      ...claimsOf(currentUser, providerId),
      ...claims,
    };
    return new SignJWT(payload).setProtectedHeader({ alg: "RS256", kid: KEY_ID }).sign(key);
  }

  return {
    issuer,
    url,
    authorizationUrl: url("/auth"),
    tokenUrl: url("/token"),
    userInfoUrl: url("/me"),
    jwksUrl: url("/jwks"),
    graphMeUrl: url(GRAPH_ME_PATH),
    clients,
    async addAppBaseUrl(baseUrl) {
      for (const id of STAND_IN_PROVIDERS) {
        const uri = `${baseUrl}${CALLBACK_PATH}${id}`;
        if (!clients[id].redirectUris.includes(uri)) clients[id].redirectUris.push(uri);
        await register(id);
      }
    },
    envFor: (providerId) => standInEnv(issuer, providerId, clients[providerId]),
    setUser(user) {
      users.set(user.sub, user);
      currentUser = user;
    },
    setNextError(error) {
      nextError = error;
    },
    addClient: (client) => upsertClient(client),
    tamperNextIdToken(claims) {
      nextIdTokenClaims = claims;
    },
    signIdToken: (claims = {}, providerId = "google") => sign(signingKey, claims, providerId),
    signIdTokenWithForeignKey: (claims = {}, providerId = "google") => sign(rsaKey(), claims, providerId),
    close() {
      server.closeAllConnections();
      return new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
