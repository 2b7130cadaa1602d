/**
 * Each enabled social provider is a remix-auth-oauth2 strategy, registered by its id with one
 * remix-auth Authenticator. `SocialStrategy` is the thin subclass the providers need where
 * they depart from plain OAuth 2.0 (described in their definitions, providers/):
 *
 * - the state (32 characters) and PKCE verifier (128) live in our OAuth state record
 *   (oauth-state.server.ts) instead of remix-auth-oauth2's cookie store;
 * - the client id may have another name (TikTok's `client_key`), credentials may travel in
 *   the form instead of HTTP Basic, scopes may be joined by commas, PKCE may be off;
 * - every call to the provider has a 5-second timeout, so a hung provider fails the sign-in
 *   with a clear error instead of holding the request;
 * - a failed callback ends with one of better-auth's `error=` codes (CallbackError), which
 *   its clients and our error pages know.
 *
 * What the user is (ID-token check, profile) is the verify function's business, given by the
 * social service.
 */
import { OAuth2Tokens } from "arctic";
import { createHash } from "node:crypto";
import { Authenticator } from "remix-auth";
import { importPKCS8, SignJWT } from "jose";
import { OAuth2Strategy } from "remix-auth-oauth2";
import { loadEnv } from "~/server/env.server";
import { CallbackError } from "./callback-error.server";
import { consumeOAuthState, type OAuthState } from "./oauth-state.server";
import { isPrivateKey } from "./providers/apple.server";
import {
  SOCIAL_PROVIDERS,
  type ProviderConfig,
  type ProviderDefinition,
  type SocialProviderId,
} from "./providers/index.server";
import { logger } from "~/server/log.server";

const PROVIDER_TIMEOUT_MS = 5000;
const APPLE_AUDIENCE = "https://appleid.apple.com";
const APPLE_SECRET_LIFETIME_S = 24 * 3600;
const APPLE_SECRET_RENEW_MS = 3600 * 1000;

export interface AuthorizationRequest {
  state: string;
  codeVerifier: string;
  nonce: string;
  scopes?: string[];
  loginHint?: string;
}

export interface SocialVerifyOptions<User> {
  request: Request;
  tokens: OAuth2Tokens;
  state: OAuthState;
  provider: SocialStrategy<User>;
}

export class SocialStrategy<User = unknown> extends OAuth2Strategy<User> {
  override name: SocialProviderId;
  readonly redirectURI: string;

  constructor(
    readonly definition: ProviderDefinition,
    readonly config: ProviderConfig,
    private readonly verifySocial: (options: SocialVerifyOptions<User>) => Promise<User>,
  ) {
    const redirectURI = `${loadEnv().BASE_URL}/api/auth/callback/${definition.id}`;
    super(
      {
        clientId: config.clientId,
        clientSecret: config.clientSecret,
        authorizationEndpoint: config.authorizationUrl,
        tokenEndpoint: config.tokenUrl,
        redirectURI,
        scopes: definition.scopes,
      },
      () => Promise.reject(new Error("SocialStrategy verifies through verifySocial")),
    );
    this.name = definition.id;
    this.redirectURI = redirectURI;
  }

  /** The provider's authorization URL for a flow whose state record exists. */
  authorizationURL({ state, codeVerifier, nonce, scopes = [], loginHint }: AuthorizationRequest): URL {
    const { definition, config } = this;
    const url = new URL(config.authorizationUrl);
    const params = url.searchParams;
    params.set("response_type", "code");
    params.set(definition.clientIdParam ?? "client_id", config.clientId);
    params.set("redirect_uri", this.redirectURI);
    params.set("state", state);
    const allScopes = [...new Set([...definition.scopes, ...scopes])];
    if (allScopes.length) params.set("scope", allScopes.join(definition.scopeSeparator ?? " "));
    if (definition.pkce) {
      params.set("code_challenge", createHash("sha256").update(codeVerifier).digest("base64url"));
      params.set("code_challenge_method", "S256");
    }
    // The ID token must come back with this nonce (replay protection of the ID token).
    if (config.issuer) params.set("nonce", nonce);
    if (loginHint) params.set("login_hint", loginHint);
    for (const [key, value] of Object.entries(definition.authorizationParams?.(config) ?? {})) params.set(key, value);
    return url;
  }

  /** The callback: the state record, then the code exchange, then the verify function. */
  override async authenticate(request: Request): Promise<User> {
    const query = new URL(request.url).searchParams;
    const stateParam = query.get("state");
    if (!stateParam) throw new CallbackError("state_not_found");
    const state = await consumeOAuthState(request, stateParam);
    if (!state) throw new CallbackError("please_restart_the_process");
    if (state.providerId !== this.name) throw new CallbackError("invalid_callback_request", undefined, state);
    const providerError = query.get("error");
    if (providerError) throw new CallbackError(providerError, query.get("error_description") ?? undefined, state);
    const code = query.get("code");
    if (!code) throw new CallbackError("no_code", undefined, state);
    let tokens: OAuth2Tokens;
    try {
      tokens = await this.validateAuthorizationCode(code, state.codeVerifier);
    } catch (error) {
      logger().warn({ reason: (error as Error).message }, `[social] ${this.name}: code exchange failed`);
      throw new CallbackError("invalid_code", undefined, state);
    }
    return this.verifySocial({ request, tokens, state, provider: this });
  }

  protected override validateAuthorizationCode(code: string, codeVerifier: string): Promise<OAuth2Tokens> {
    const form: Record<string, string> = { grant_type: "authorization_code", code, redirect_uri: this.redirectURI };
    if (this.definition.pkce) form.code_verifier = codeVerifier;
    return this.tokenRequest(form);
  }

  override refreshToken(refreshToken: string): Promise<OAuth2Tokens> {
    return this.tokenRequest({ grant_type: "refresh_token", refresh_token: refreshToken });
  }

  private signedSecret: { jwt: string; expiresAt: number } | undefined;

  /**
   * The client secret. Apple's is a JWT signed with the team's key: given ready-made, or, when
   * APPLE_CLIENT_SECRET is the .p8 private key, made here (valid a day, renewed an hour early).
   */
  private async clientSecret(): Promise<string> {
    const { config } = this;
    if (!isPrivateKey(config.clientSecret)) return config.clientSecret;
    if (this.signedSecret && this.signedSecret.expiresAt - Date.now() > APPLE_SECRET_RENEW_MS)
      return this.signedSecret.jwt;
    const key = await importPKCS8(config.clientSecret.replace(/\\n/g, "\n"), "ES256");
    const now = Math.floor(Date.now() / 1000);
    const jwt = await new SignJWT({})
      .setProtectedHeader({ alg: "ES256", kid: config.extras.keyId! })
      .setIssuer(config.extras.teamId!)
      .setSubject(config.clientId)
      .setAudience(APPLE_AUDIENCE)
      .setIssuedAt(now)
      .setExpirationTime(now + APPLE_SECRET_LIFETIME_S)
      .sign(key);
    this.signedSecret = { jwt, expiresAt: (now + APPLE_SECRET_LIFETIME_S) * 1000 };
    return jwt;
  }

  private async tokenRequest(form: Record<string, string>): Promise<OAuth2Tokens> {
    const { definition, config } = this;
    const body = new URLSearchParams(form);
    const headers: Record<string, string> = {
      "content-type": "application/x-www-form-urlencoded",
      accept: "application/json",
      // Reddit refuses generic user agents; the others do not mind one.
      "user-agent": "web:saas-app:1.0 (social sign-in)",
    };
    if (definition.tokenAuth === "basic") {
      const encode = (value: string) => encodeURIComponent(value);
      headers.authorization = `Basic ${btoa(`${encode(config.clientId)}:${encode(config.clientSecret)}`)}`;
    } else {
      body.set(definition.clientIdParam ?? "client_id", config.clientId);
      body.set("client_secret", await this.clientSecret());
    }
    const response = await fetch(config.tokenUrl, {
      method: "POST",
      headers,
      body,
      signal: AbortSignal.timeout(PROVIDER_TIMEOUT_MS),
    });
    const data = (await response.json().catch(() => null)) as Record<string, unknown> | null;
    if (!response.ok || !data || typeof data.access_token !== "string") {
      const reason = typeof data?.error === "string" ? data.error : `HTTP ${response.status}`;
      throw new Error(`${config.id} token endpoint refused: ${reason}`);
    }
    return new OAuth2Tokens(data);
  }
}

/** The strategies of the enabled providers, made once per process. */
export function createAuthenticator<User>(verify: (options: SocialVerifyOptions<User>) => Promise<User>): {
  authenticator: Authenticator<User>;
  strategies: Map<SocialProviderId, SocialStrategy<User>>;
} {
  const authenticator = new Authenticator<User>();
  const strategies = new Map<SocialProviderId, SocialStrategy<User>>();
  for (const config of loadEnv().socialProviders) {
    const strategy = new SocialStrategy(SOCIAL_PROVIDERS[config.id], config, verify);
    authenticator.use(strategy, config.id);
    strategies.set(config.id, strategy);
  }
  return { authenticator, strategies };
}
