/**
 * How a social sign-in callback fails, apart from the strategies themselves: the pages and the
 * dispatcher name these without loading the OAuth libraries (strategy.server.ts loads with the
 * first sign-in through a provider).
 */
import type { OAuthState } from "./oauth-state.server";

/**
 * The `error=` codes a callback can end with, besides a provider's own (passed on with its
 * `error_description`): better-auth's, so that clients written for it understand them, and
 * each explained in every language on the sign-in and sign-up pages and /api/auth/error.
 */
export const CALLBACK_ERROR_CODES = [
  "invalid_callback_request",
  "state_not_found",
  "please_restart_the_process",
  "no_code",
  "oauth_provider_not_found",
  "invalid_code",
  "unable_to_get_user_info",
  "email_not_found",
  "no_callback_url",
  "unable_to_link_account",
  "account_already_linked_to_different_user",
  "account_not_linked",
  "signup_disabled",
  "unable_to_create_user",
  "unable_to_create_session",
  "internal_server_error",
  // The admin plugin's: a suspended user.
  "banned",
  // The address's organization requires its own single sign-on (the callback adds `email=`).
  "sso_required",
] as const;

/**
 * A callback that ends on the error page. `state` is known once the record was found: its
 * errorURL then takes the visitor back to where the flow started.
 */
export class CallbackError extends Error {
  constructor(
    readonly code: string,
    readonly description?: string,
    readonly state?: OAuthState,
  ) {
    super(description ? `${code}: ${description}` : code);
    this.name = "CallbackError";
  }
}
