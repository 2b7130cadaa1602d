/**
 * Every request the server makes to an identity provider (OIDC discovery, key sets, token and
 * user-info endpoints, SAML metadata) goes through `idpFetch`: the shared outbound fetch
 * (`~/server/outbound-fetch.server`: https only, public addresses checked after DNS
 * resolution, the socket pinned to them, no redirects) with the identity providers' limits
 * (1 MB, 5 s). Origins listed in SSO_IDP_ORIGIN are exempt: tests, and identity providers
 * inside a company's network. Refusals carry the SSO error reasons the connection forms show.
 */
import { loadEnv } from "~/server/env.server";
import {
  checkOutboundUrl,
  outboundFetch,
  OutboundFetchError,
  type OutboundFailure,
} from "~/server/outbound-fetch.server";

export const IDP_FETCH_TIMEOUT_MS = 5_000;
export const IDP_FETCH_MAX_BYTES = 1_000_000;

export type IdpFetchFailure =
  /** The host resolves to a loopback, private, link-local or otherwise non-public address. */
  | "discovery_private_host"
  /** Not https, or not a URL the server may call at all. */
  | "discovery_untrusted_origin"
  | "timeout"
  | "too_large"
  | "unreachable";

export class IdpFetchError extends Error {
  constructor(
    readonly reason: IdpFetchFailure,
    message: string,
  ) {
    super(message);
    this.name = "IdpFetchError";
  }
}

const REASONS: Record<OutboundFailure, IdpFetchFailure> = {
  private_host: "discovery_private_host",
  untrusted_origin: "discovery_untrusted_origin",
  timeout: "timeout",
  too_large: "too_large",
  unreachable: "unreachable",
};

const asIdpError = (error: unknown) =>
  error instanceof OutboundFetchError ? new IdpFetchError(REASONS[error.reason], error.message) : error;

const allowedOrigin = (url: URL) => loadEnv().SSO_IDP_ORIGIN.includes(url.origin);

/**
 * Checks `url` before any request: https (or an SSO_IDP_ORIGIN origin) and no user info.
 * Throws IdpFetchError("discovery_untrusted_origin").
 */
export function checkIdpUrl(raw: string): URL {
  try {
    return checkOutboundUrl(raw, allowedOrigin);
  } catch (error) {
    throw asIdpError(error);
  }
}

export interface IdpRequest {
  method?: "GET" | "POST";
  headers?: Record<string, string>;
  body?: string;
  timeoutMs?: number;
}

/** Calls an identity provider under the rules above and returns its answer as a Response. */
export async function idpFetch(raw: string, init: IdpRequest = {}): Promise<Response> {
  try {
    return await outboundFetch(raw, {
      ...init,
      timeoutMs: init.timeoutMs ?? IDP_FETCH_TIMEOUT_MS,
      maxBytes: IDP_FETCH_MAX_BYTES,
      overflow: "fail",
      exempt: allowedOrigin,
      userAgent: "sso-client",
    });
  } catch (error) {
    throw asIdpError(error);
  }
}
