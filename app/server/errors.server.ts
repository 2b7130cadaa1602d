/**
 * The error catalogue: every error the auth services raise, with its HTTP status and its
 * English message. Services throw `AppError` (via `fail`); the JSON API turns it into
 * `{code, message}` with the status, and page actions show `t("auth:errors.<CODE>")` so the
 * same failure reads in the user's language. Codes and messages follow the product spec
 * (section 8) and, where it is silent, the /api/auth contract (better-auth 1.7).
 */

const entries = {
  // ---- sign-in, sign-up, users ----
  INVALID_EMAIL: { status: 400, message: "Invalid email" },
  INVALID_EMAIL_OR_PASSWORD: { status: 401, message: "Invalid email or password" },
  EMAIL_NOT_VERIFIED: { status: 403, message: "Email not verified" },
  BANNED_USER: {
    status: 403,
    message: "You have been banned from this application. Please contact support if you believe this is an error.",
  },
  USER_NOT_FOUND: { status: 404, message: "User not found" },
  USER_ALREADY_EXISTS: { status: 422, message: "User already exists." },
  USER_ALREADY_EXISTS_USE_ANOTHER_EMAIL: { status: 422, message: "User already exists. Use another email." },
  FAILED_TO_CREATE_USER: { status: 500, message: "Failed to create user" },
  FAILED_TO_UPDATE_USER: { status: 500, message: "Failed to update user" },
  EMAIL_AND_PASSWORD_DISABLED: { status: 400, message: "Email and password is not enabled" },

  // ---- sessions ----
  FAILED_TO_CREATE_SESSION: { status: 500, message: "Failed to create session" },
  FAILED_TO_GET_SESSION: { status: 500, message: "Failed to get session" },
  SESSION_NOT_FOUND: { status: 400, message: "Session not found" },
  SESSION_EXPIRED: { status: 400, message: "Session expired. Re-authenticate to perform this action." },
  SESSION_NOT_FRESH: { status: 403, message: "Session is not fresh" },
  UNAUTHORIZED: { status: 401, message: "Unauthorized" },
  METHOD_NOT_ALLOWED_DEFER_SESSION_REQUIRED: {
    status: 405,
    message: "POST method requires deferSessionRefresh to be enabled in session config",
  },

  // ---- tokens ----
  INVALID_TOKEN: { status: 400, message: "Invalid token" },
  TOKEN_EXPIRED: { status: 401, message: "Token expired" },
  FAILED_TO_CREATE_VERIFICATION: { status: 500, message: "Unable to create verification" },

  // ---- passwords ----
  PASSWORD_TOO_SHORT: { status: 400, message: "Password too short" },
  PASSWORD_TOO_LONG: { status: 400, message: "Password too long" },
  INVALID_PASSWORD: { status: 400, message: "Invalid password" },
  CREDENTIAL_ACCOUNT_NOT_FOUND: { status: 400, message: "Credential account not found" },
  USER_ALREADY_HAS_PASSWORD: { status: 400, message: "user already has a password" },
  RESET_PASSWORD_DISABLED: { status: 400, message: "Reset password isn't enabled" },

  // ---- email ----
  VERIFICATION_EMAIL_NOT_ENABLED: { status: 400, message: "Verification email isn't enabled" },
  EMAIL_ALREADY_VERIFIED: { status: 400, message: "Email is already verified" },
  EMAIL_MISMATCH: { status: 400, message: "Email mismatch" },
  EMAIL_CAN_NOT_BE_UPDATED: { status: 400, message: "Email can not be updated" },
  EMAIL_IS_THE_SAME: { status: 400, message: "Email is the same" },
  COULD_NOT_UPDATE_EMAIL: { status: 400, message: "Couldn't update your email" },
  CHANGE_EMAIL_DISABLED: { status: 400, message: "Change email is disabled" },
  NO_FIELDS_TO_UPDATE: { status: 400, message: "No fields to update" },

  // ---- accounts (social) ----
  ACCOUNT_NOT_FOUND: { status: 400, message: "Account not found" },
  FAILED_TO_UNLINK_LAST_ACCOUNT: { status: 400, message: "You can't unlink your last account" },
  PROVIDER_NOT_FOUND: { status: 404, message: "Provider not found" },
  ID_TOKEN_NOT_SUPPORTED: { status: 404, message: "id_token not supported" },
  FAILED_TO_GET_USER_INFO: { status: 400, message: "Failed to get user info" },
  USER_EMAIL_NOT_FOUND: { status: 400, message: "User email not found" },
  SOCIAL_ACCOUNT_ALREADY_LINKED: { status: 409, message: "Social account already linked" },
  ACCOUNT_NOT_LINKED: { status: 401, message: "Account not linked" },
  SIGN_UP_DISABLED: { status: 403, message: "Sign up is disabled" },
  LINKING_NOT_ALLOWED: { status: 401, message: "Account not linked - linking not allowed" },
  LINKING_DIFFERENT_EMAILS_NOT_ALLOWED: { status: 401, message: "Account not linked - different emails not allowed" },
  LINKING_FAILED: { status: 417, message: "Account not linked - unable to create account" },

  // ---- request safety ----
  MISSING_OR_NULL_ORIGIN: { status: 403, message: "Missing or null Origin" },
  INVALID_ORIGIN: { status: 403, message: "Invalid origin" },
  CROSS_SITE_NAVIGATION_LOGIN_BLOCKED: {
    status: 403,
    message: "Cross-site navigation login blocked. This request appears to be a CSRF attack.",
  },
  INVALID_CALLBACK_URL: { status: 403, message: "Invalid callbackURL" },
  INVALID_REDIRECT_URL: { status: 403, message: "Invalid redirectURL" },
  INVALID_ERROR_CALLBACK_URL: { status: 403, message: "Invalid errorCallbackURL" },
  INVALID_NEW_USER_CALLBACK_URL: { status: 403, message: "Invalid newUserCallbackURL" },
  CALLBACK_URL_REQUIRED: { status: 400, message: "callbackURL is required" },
  TOO_MANY_REQUESTS: { status: 429, message: "Too many requests. Please try again later." },

  // ---- request shape (the API framework) ----
  VALIDATION_ERROR: { status: 400, message: "Invalid body parameters" },
  BAD_REQUEST: { status: 400, message: "Invalid JSON in request body" },
  UNSUPPORTED_MEDIA_TYPE: { status: 415, message: "Unsupported media type" },
  NOT_FOUND: { status: 404, message: "Not found" },
  INTERNAL_SERVER_ERROR: { status: 500, message: "Internal Server Error" },
} as const satisfies Record<string, { status: number; message: string }>;

export type ErrorCode = keyof typeof entries;

export const catalogue: Record<ErrorCode, { status: number; message: string }> = entries;

/** The one error type of the services: a catalogue code with its status and English message. */
export class AppError extends Error {
  readonly code: ErrorCode | null;
  readonly status: number;
  /** Extra response headers, e.g. X-Retry-After on TOO_MANY_REQUESTS. */
  readonly headers: Record<string, string>;

  constructor(code: ErrorCode | null, message?: string, status?: number, headers: Record<string, string> = {}) {
    const entry = code ? catalogue[code] : undefined;
    super(message ?? entry?.message ?? "Error");
    this.name = "AppError";
    this.code = code;
    this.status = status ?? entry?.status ?? 400;
    this.headers = headers;
  }

  /** The API body; the message stays English (pages translate the code instead). */
  toJSON(): { code?: ErrorCode; message: string } {
    return this.code ? { code: this.code, message: this.message } : { message: this.message };
  }
}

/** Throws the catalogue error `code`; `message`/`status` override the catalogue's when given. */
export function fail(code: ErrorCode, message?: string, status?: number): never {
  throw new AppError(code, message, status);
}

export function isAppError(error: unknown): error is AppError {
  return error instanceof AppError;
}

export function isErrorCode(value: unknown): value is ErrorCode {
  return typeof value === "string" && Object.hasOwn(catalogue, value);
}

/** The JSON response `{code, message}` for an AppError, with its status and headers. */
export function errorResponse(error: AppError): Response {
  return Response.json(error.toJSON(), { status: error.status, headers: error.headers });
}
