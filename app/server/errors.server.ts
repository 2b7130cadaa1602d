/**
 * The error catalogue: every error the auth services raise, with its HTTP status and its
 * English message. Services throw `AppError` (via `fail`); the JSON API turns it into
 * `{code, message}` with the status, and page actions show `t("auth:errors.<CODE>")` so the
 * same failure reads in the user's language. Codes and messages are better-auth 1.7's
 * wherever it has one for the case, so clients written for it understand ours; the rest
 * (outages, mail, request safety) are the product's own.
 *
 * Codes commented "published by better-auth" are raised by nothing here. They stay because
 * better-auth publishes them (the `$ERROR_CODES` of its client and of its organization
 * plugin), so a client written against that contract may switch on them.
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
  // Published by better-auth; not raised here.
  FAILED_TO_UPDATE_USER: { status: 500, message: "Failed to update user" },

  // ---- sessions ----
  // Published by better-auth; not raised here.
  FAILED_TO_CREATE_SESSION: { status: 500, message: "Failed to create session" },
  // Published by better-auth; not raised here.
  FAILED_TO_GET_SESSION: { status: 500, message: "Failed to get session" },
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
  // Published by better-auth; not raised here.
  FAILED_TO_CREATE_VERIFICATION: { status: 500, message: "Unable to create verification" },

  // ---- passwords ----
  PASSWORD_TOO_SHORT: { status: 400, message: "Password too short" },
  PASSWORD_TOO_LONG: { status: 400, message: "Password too long" },
  INVALID_PASSWORD: { status: 400, message: "Invalid password" },
  CREDENTIAL_ACCOUNT_NOT_FOUND: { status: 400, message: "Credential account not found" },
  USER_ALREADY_HAS_PASSWORD: { status: 400, message: "user already has a password" },

  // ---- email ----
  // Published by better-auth; not raised here.
  VERIFICATION_EMAIL_NOT_ENABLED: { status: 400, message: "Verification email isn't enabled" },
  EMAIL_ALREADY_VERIFIED: { status: 400, message: "Email is already verified" },
  EMAIL_MISMATCH: { status: 400, message: "Email mismatch" },
  EMAIL_CAN_NOT_BE_UPDATED: { status: 400, message: "Email can not be updated" },
  EMAIL_IS_THE_SAME: { status: 400, message: "Email is the same" },
  COULD_NOT_UPDATE_EMAIL: { status: 400, message: "Couldn't update your email" },
  // Published by better-auth; not raised here.
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

  // ---- two-factor (better-auth's two-factor plugin codes) ----
  INVALID_TWO_FACTOR_COOKIE: { status: 401, message: "Invalid two factor cookie" },
  INVALID_CODE: { status: 401, message: "Invalid code" },
  INVALID_BACKUP_CODE: { status: 401, message: "Invalid backup code" },
  OTP_HAS_EXPIRED: { status: 400, message: "OTP has expired" },
  OTP_NOT_CONFIGURED: { status: 400, message: "OTP is not available" },
  TOTP_NOT_ENABLED: { status: 400, message: "TOTP not enabled" },
  TOTP_ALREADY_ENABLED: { status: 400, message: "TOTP is already enabled" },
  TWO_FACTOR_NOT_ENABLED: { status: 400, message: "Two factor isn't enabled" },
  BACKUP_CODES_NOT_ENABLED: { status: 400, message: "Backup codes aren't enabled" },
  TOO_MANY_ATTEMPTS_REQUEST_NEW_CODE: { status: 400, message: "Too many attempts. Please request a new code." },
  ACCOUNT_TEMPORARILY_LOCKED: {
    status: 429,
    message: "Too many failed verification attempts. Your account is temporarily locked. Please try again later.",
  },

  // ---- passkeys (@better-auth/passkey codes) ----
  CHALLENGE_NOT_FOUND: { status: 400, message: "Challenge not found" },
  YOU_ARE_NOT_ALLOWED_TO_REGISTER_THIS_PASSKEY: {
    status: 401,
    message: "You are not allowed to register this passkey",
  },
  // 400, not better-auth's 500: a response that does not verify is the caller's fault.
  FAILED_TO_VERIFY_REGISTRATION: { status: 400, message: "Failed to verify registration" },
  PASSKEY_NOT_FOUND: { status: 404, message: "Passkey not found" },
  AUTHENTICATION_FAILED: { status: 401, message: "Authentication failed" },

  // ---- the admin console (better-auth's admin plugin) ----
  YOU_ARE_NOT_ALLOWED_TO_CREATE_USERS: { status: 403, message: "You are not allowed to create users" },
  YOU_ARE_NOT_ALLOWED_TO_LIST_USERS: { status: 403, message: "You are not allowed to list users" },
  YOU_ARE_NOT_ALLOWED_TO_GET_USER: { status: 403, message: "You are not allowed to get user" },
  YOU_ARE_NOT_ALLOWED_TO_UPDATE_USERS: { status: 403, message: "You are not allowed to update users" },
  YOU_ARE_NOT_ALLOWED_TO_CHANGE_USERS_ROLE: { status: 403, message: "You are not allowed to change users role" },
  YOU_ARE_NOT_ALLOWED_TO_BAN_USERS: { status: 403, message: "You are not allowed to ban users" },
  YOU_ARE_NOT_ALLOWED_TO_IMPERSONATE_USERS: { status: 403, message: "You are not allowed to impersonate users" },
  YOU_ARE_NOT_ALLOWED_TO_LIST_USERS_SESSIONS: { status: 403, message: "You are not allowed to list users sessions" },
  YOU_ARE_NOT_ALLOWED_TO_REVOKE_USERS_SESSIONS: {
    status: 403,
    message: "You are not allowed to revoke users sessions",
  },
  YOU_ARE_NOT_ALLOWED_TO_SET_USERS_PASSWORD: { status: 403, message: "You are not allowed to set users password" },
  YOU_ARE_NOT_ALLOWED_TO_DELETE_USERS: { status: 403, message: "You are not allowed to delete users" },
  // The console's own maintenance (the database check, data operations), beyond better-auth's plugin.
  YOU_ARE_NOT_ALLOWED_TO_RUN_MAINTENANCE: { status: 403, message: "You are not allowed to run maintenance tasks" },
  YOU_ARE_NOT_ALLOWED_TO_SET_NON_EXISTENT_VALUE: {
    status: 400,
    message: "You are not allowed to set a non-existent role value",
  },
  YOU_CANNOT_BAN_YOURSELF: { status: 400, message: "You cannot ban yourself" },
  YOU_CANNOT_REMOVE_YOURSELF: { status: 400, message: "You cannot remove yourself" },
  YOU_CANNOT_IMPERSONATE_ADMINS: { status: 403, message: "You cannot impersonate admins" },
  NO_DATA_TO_UPDATE: { status: 400, message: "No data to update" },

  // ---- subscriptions (better-auth's Stripe plugin codes, shared by both providers) ----
  SUBSCRIPTION_NOT_FOUND: { status: 400, message: "Subscription not found" },
  SUBSCRIPTION_PLAN_NOT_FOUND: { status: 400, message: "Subscription plan not found" },
  ALREADY_SUBSCRIBED_PLAN: { status: 400, message: "You're already subscribed to this plan" },
  SUBSCRIPTION_NOT_SCHEDULED_FOR_CANCELLATION: {
    status: 400,
    message: "Subscription is not scheduled for cancellation",
  },
  REFERENCE_ID_NOT_ALLOWED: { status: 400, message: "Reference id is not allowed" },
  YOU_ARE_NOT_ALLOWED_TO_MANAGE_BILLING: {
    status: 403,
    message: "Only the organization's owners and admins can manage its subscription",
  },
  CUSTOMER_NOT_FOUND: { status: 400, message: "Customer not found" },
  PAYMENT_PROVIDER_UNAVAILABLE: {
    status: 502,
    message: "The payment provider could not be reached. Nothing was charged; please try again.",
  },
  // The server has no payment provider set up (development without keys): nothing to retry
  // until an admin sets it up, so 503 with what to do rather than the outage's 502.
  PAYMENT_PROVIDER_NOT_CONFIGURED: {
    status: 503,
    message: "Payments are not set up on this server yet, so plans cannot be bought. Nothing was charged.",
  },
  // PAYMENT_PROVIDER=none: the server shows its plans but does not sell them.
  PAYMENTS_DISABLED: { status: 403, message: "Plans are not on sale on this server yet. Nothing was charged." },
  INVALID_WEBHOOK_SIGNATURE: { status: 400, message: "Invalid webhook signature" },

  // ---- organizations (better-auth's organization plugin) ----
  YOU_ARE_NOT_ALLOWED_TO_CREATE_A_NEW_ORGANIZATION: {
    status: 403,
    message: "You are not allowed to create a new organization",
  },
  YOU_HAVE_REACHED_THE_MAXIMUM_NUMBER_OF_ORGANIZATIONS: {
    status: 403,
    message: "You have reached the maximum number of organizations",
  },
  ORGANIZATION_ALREADY_EXISTS: { status: 400, message: "Organization already exists" },
  ORGANIZATION_SLUG_ALREADY_TAKEN: { status: 400, message: "Organization slug already taken" },
  ORGANIZATION_NOT_FOUND: { status: 400, message: "Organization not found" },
  USER_IS_NOT_A_MEMBER_OF_THE_ORGANIZATION: { status: 403, message: "User is not a member of the organization" },
  YOU_ARE_NOT_A_MEMBER_OF_THIS_ORGANIZATION: { status: 403, message: "You are not a member of this organization" },
  YOU_ARE_NOT_ALLOWED_TO_UPDATE_THIS_ORGANIZATION: {
    status: 403,
    message: "You are not allowed to update this organization",
  },
  YOU_ARE_NOT_ALLOWED_TO_DELETE_THIS_ORGANIZATION: {
    status: 403,
    message: "You are not allowed to delete this organization",
  },
  NO_ACTIVE_ORGANIZATION: { status: 400, message: "No active organization" },
  ORGANIZATION_ID_REQUIRED: { status: 400, message: "Organization ID is required" },
  USER_IS_ALREADY_A_MEMBER_OF_THIS_ORGANIZATION: {
    status: 400,
    message: "User is already a member of this organization",
  },
  MEMBER_NOT_FOUND: { status: 400, message: "Member not found" },
  ROLE_NOT_FOUND: { status: 400, message: "Role not found" },
  YOU_CANNOT_LEAVE_THE_ORGANIZATION_AS_THE_ONLY_OWNER: {
    status: 400,
    message: "You cannot leave the organization as the only owner",
  },
  YOU_CANNOT_LEAVE_THE_ORGANIZATION_WITHOUT_AN_OWNER: {
    status: 400,
    message: "You cannot leave the organization without an owner",
  },
  YOU_ARE_NOT_ALLOWED_TO_DELETE_THIS_MEMBER: { status: 403, message: "You are not allowed to delete this member" },
  YOU_ARE_NOT_ALLOWED_TO_UPDATE_THIS_MEMBER: { status: 403, message: "You are not allowed to update this member" },
  ORGANIZATION_MEMBERSHIP_LIMIT_REACHED: { status: 403, message: "Organization membership limit reached" },
  YOU_ARE_NOT_ALLOWED_TO_INVITE_USERS_TO_THIS_ORGANIZATION: {
    status: 403,
    message: "You are not allowed to invite users to this organization",
  },
  YOU_ARE_NOT_ALLOWED_TO_INVITE_USER_WITH_THIS_ROLE: {
    status: 403,
    message: "You are not allowed to invite a user with this role",
  },
  USER_IS_ALREADY_INVITED_TO_THIS_ORGANIZATION: {
    status: 400,
    message: "User is already invited to this organization",
  },
  INVITATION_NOT_FOUND: { status: 400, message: "Invitation not found" },
  YOU_ARE_NOT_THE_RECIPIENT_OF_THE_INVITATION: { status: 403, message: "You are not the recipient of the invitation" },
  YOU_ARE_NOT_ALLOWED_TO_CANCEL_THIS_INVITATION: {
    status: 403,
    message: "You are not allowed to cancel this invitation",
  },
  // Published by better-auth; not raised here.
  YOU_ARE_NOT_ALLOWED_TO_LIST_INVITATIONS: {
    status: 403,
    message: "You are not allowed to list invitations for this organization",
  },
  INVITER_IS_NO_LONGER_A_MEMBER_OF_THE_ORGANIZATION: {
    status: 400,
    message: "Inviter is no longer a member of the organization",
  },
  INVITER_MAY_NO_LONGER_SEND_THIS_INVITATION: {
    status: 403,
    message: "The person who sent this invitation may no longer give this role.",
  },
  // Published by better-auth; not raised here.
  FAILED_TO_RETRIEVE_INVITATION: { status: 400, message: "Failed to retrieve invitation" },
  INVITATION_LIMIT_REACHED: { status: 403, message: "Invitation limit reached" },
  EMAIL_VERIFICATION_REQUIRED_FOR_INVITATION: {
    status: 403,
    message: "Email verification required to view or list invitations for the session email",
  },
  YOU_ARE_NOT_ALLOWED_TO_CREATE_TEAMS_IN_THIS_ORGANIZATION: {
    status: 403,
    message: "You are not allowed to create teams in this organization",
  },
  YOU_ARE_NOT_ALLOWED_TO_DELETE_TEAMS_IN_THIS_ORGANIZATION: {
    status: 403,
    message: "You are not allowed to delete teams in this organization",
  },
  YOU_ARE_NOT_ALLOWED_TO_UPDATE_THIS_TEAM: { status: 403, message: "You are not allowed to update this team" },
  YOU_ARE_NOT_ALLOWED_TO_DELETE_THIS_TEAM: { status: 403, message: "You are not allowed to delete this team" },
  TEAM_NOT_FOUND: { status: 400, message: "Team not found" },
  // Published by better-auth; not raised here.
  TEAM_ALREADY_EXISTS: { status: 400, message: "Team already exists" },
  UNABLE_TO_REMOVE_LAST_TEAM: { status: 400, message: "Unable to remove last team" },
  YOU_HAVE_REACHED_THE_MAXIMUM_NUMBER_OF_TEAMS: {
    status: 400,
    message: "You have reached the maximum number of teams",
  },
  TEAM_MEMBER_LIMIT_REACHED: { status: 403, message: "Team member limit reached" },
  USER_IS_NOT_A_MEMBER_OF_THE_TEAM: { status: 400, message: "User is not a member of the team" },
  YOU_ARE_NOT_ALLOWED_TO_CREATE_A_NEW_TEAM_MEMBER: {
    status: 403,
    message: "You are not allowed to create a new member",
  },
  YOU_ARE_NOT_ALLOWED_TO_REMOVE_A_TEAM_MEMBER: { status: 403, message: "You are not allowed to remove a team member" },
  YOU_CAN_NOT_ACCESS_THE_MEMBERS_OF_THIS_TEAM: {
    status: 403,
    message: "You are not allowed to list the members of this team",
  },
  YOU_DO_NOT_HAVE_AN_ACTIVE_TEAM: { status: 400, message: "You do not have an active team" },

  // ---- organizations: custom roles (better-auth's dynamic access control) ----
  YOU_ARE_NOT_ALLOWED_TO_CREATE_A_ROLE: { status: 403, message: "You are not allowed to create a role" },
  YOU_ARE_NOT_ALLOWED_TO_UPDATE_A_ROLE: { status: 403, message: "You are not allowed to update a role" },
  YOU_ARE_NOT_ALLOWED_TO_DELETE_A_ROLE: { status: 403, message: "You are not allowed to delete a role" },
  YOU_ARE_NOT_ALLOWED_TO_READ_A_ROLE: { status: 403, message: "You are not allowed to read a role" },
  YOU_ARE_NOT_ALLOWED_TO_LIST_A_ROLE: { status: 403, message: "You are not allowed to list a role" },
  // A resource, or (beyond better-auth, which stores them) an action, outside the permission table.
  INVALID_RESOURCE: { status: 400, message: "The provided permission includes an invalid resource" },
  ROLE_NAME_IS_ALREADY_TAKEN: { status: 400, message: "That role name is already taken" },
  CANNOT_DELETE_A_PRE_DEFINED_ROLE: { status: 400, message: "Cannot delete a pre-defined role" },
  ROLE_IS_ASSIGNED_TO_MEMBERS: {
    status: 400,
    message: "Cannot delete a role that is assigned to members. Please reassign the members to a different role first",
  },

  // ---- organizations: the audit log (beyond better-auth: auditLog: read) ----
  YOU_ARE_NOT_ALLOWED_TO_READ_THE_AUDIT_LOG: {
    status: 403,
    message: "You are not allowed to read the audit log of this organization",
  },

  // ---- single sign-on: SCIM ----
  SCIM_CONNECTION_NOT_FOUND: { status: 404, message: "Provider not found" },
  SCIM_TOKEN_NOT_FOUND: { status: 404, message: "SCIM token not found" },
  YOU_ARE_NOT_ALLOWED_TO_MANAGE_SCIM_TOKENS: {
    status: 403,
    message: "You are not allowed to manage the SCIM tokens of this organization",
  },

  // ---- outgoing webhooks ----
  WEBHOOK_NOT_FOUND: { status: 404, message: "Webhook endpoint not found" },
  WEBHOOK_DELIVERY_NOT_FOUND: { status: 404, message: "Webhook delivery not found" },
  YOU_ARE_NOT_ALLOWED_TO_MANAGE_WEBHOOKS: {
    status: 403,
    message: "You are not allowed to manage the webhooks of this organization",
  },
  // Not https, with credentials, or a loopback, private or link-local address.
  INVALID_WEBHOOK_URL: {
    status: 400,
    message: "A webhook URL must be an https address on the public internet",
  },
  WEBHOOK_EVENT_TYPES_REQUIRED: { status: 400, message: "Choose at least one event type" },
  TOO_MANY_WEBHOOKS: { status: 422, message: "This organization has as many webhook endpoints as it may have" },
  WEBHOOK_DISABLED: { status: 409, message: "This webhook endpoint is turned off" },

  // ---- single sign-on: signin ----
  // No connection for the email's domain, the domain, the provider id or the organization asked for.
  NO_PROVIDER_FOUND: { status: 404, message: "No provider found for the issuer" },
  // A connection whose stored settings can no longer be used (neither OIDC nor SAML).
  INVALID_SSO_PROVIDER: { status: 400, message: "Invalid SSO provider" },
  // The email's domain is a verified domain of an organization that requires single sign-on.
  SSO_REQUIRED: {
    status: 403,
    message: "Your organization requires you to sign in through its identity provider (single sign-on).",
  },

  // ---- single sign-on: SAML ----
  // An identity provider's metadata that is not XML, too large, or lacks what sign-in needs
  // (entity id, single sign-on address, signing certificate). better-auth's name style.
  SAML_INVALID_IDP_METADATA: { status: 400, message: "Invalid SAML identity provider metadata" },

  // ---- single sign-on: connections (@better-auth/sso's messages; its lower-case codes as it sends them) ----
  YOU_ARE_NOT_ALLOWED_TO_MANAGE_SSO: {
    status: 403,
    message: "You must be an organization owner or admin to manage SSO providers",
  },
  SSO_PROVIDER_ALREADY_EXISTS: { status: 422, message: "SSO provider with this providerId already exists" },
  SSO_PROVIDER_ID_RESERVED: {
    status: 422,
    message: "This providerId is reserved and cannot be used for an SSO provider",
  },
  SSO_PROVIDER_TYPE_MISMATCH: {
    status: 400,
    message: "Cannot update the settings of a protocol the provider does not use",
  },
  SSO_PROVIDER_HAS_LINKED_ACCOUNTS: {
    status: 409,
    message: "Cannot change SSO provider identity fields while linked accounts exist",
  },
  // The product's: a setting better-auth has that the product does not offer (named in the message).
  SSO_SETTING_NOT_SUPPORTED: { status: 400, message: "This SSO setting is not supported" },
  OIDC_ENDPOINTS_REQUIRED: {
    status: 400,
    message: "Without discovery, authorizationEndpoint, tokenEndpoint and jwksEndpoint are required",
  },
  INVALID_DOMAIN: { status: 400, message: "Invalid domain" },
  CERT_SOURCE_MISSING: {
    status: 400,
    message:
      "samlConfig requires either a signing certificate (cert or idpMetadata.cert) or an idpMetadata.metadata XML document.",
  },
  SAML_INVALID_CERTIFICATE: { status: 400, message: "The SAML signing certificate is not a valid X.509 certificate" },
  SAML_IDP_ENTITY_ID_REQUIRED: {
    status: 400,
    message:
      "SAML manual IdP configuration requires idpMetadata.entityID; issuer identifies the service provider and cannot identify the IdP",
  },
  SAML_ENTRY_POINT_REQUIRED: {
    status: 400,
    message: "SAML configuration requires either idpMetadata.metadata (IdP metadata XML) or a valid entryPoint URL",
  },
  discovery_invalid_url: { status: 400, message: "Invalid OIDC endpoint URL" },
  discovery_not_found: {
    status: 400,
    message: "OIDC discovery endpoint not found. The issuer may not support OIDC discovery, or the URL is incorrect.",
  },
  discovery_untrusted_origin: { status: 400, message: "Untrusted OIDC discovery URL" },
  discovery_private_host: { status: 400, message: "The identity provider's address is not publicly routable" },
  oidc_endpoint_redirect: { status: 400, message: "The OIDC endpoint answered with a redirect" },
  discovery_invalid_json: { status: 400, message: "OIDC discovery returned invalid data" },
  discovery_incomplete: { status: 400, message: "OIDC discovery document is missing required fields" },
  issuer_mismatch: { status: 400, message: "OIDC issuer mismatch" },
  unsupported_token_auth_method: { status: 400, message: "Incompatible OIDC provider" },
  discovery_timeout: { status: 502, message: "OIDC discovery timed out" },
  discovery_unexpected_error: { status: 502, message: "OIDC discovery failed" },
  DOMAIN_VERIFIED: { status: 409, message: "Domain has already been verified" },
  DOMAIN_VERIFICATION_FAILED: { status: 502, message: "Unable to verify domain ownership. Try again later" },
  DOMAIN_VERIFIED_BY_ANOTHER_ORGANIZATION: {
    status: 409,
    message: "This domain is already verified by another organization",
  },
  SSO_REQUIRES_VERIFIED_DOMAIN: {
    status: 400,
    message: "Single sign-on can only be required for an organization with a verified domain",
  },

  // ---- API keys (@better-auth/api-key's codes, and the product's own limits) ----
  INVALID_API_KEY: { status: 401, message: "Invalid API key." },
  KEY_DISABLED: { status: 401, message: "API Key is disabled" },
  KEY_EXPIRED: { status: 401, message: "API Key has expired" },
  KEY_NOT_FOUND: { status: 404, message: "API Key not found" },
  USAGE_EXCEEDED: { status: 429, message: "API Key has reached its usage limit" },
  RATE_LIMITED: { status: 429, message: "Rate limit exceeded." },
  SERVER_ONLY_PROPERTY: {
    status: 400,
    message: "The property you're trying to set can only be set from the server auth instance only.",
  },
  INVALID_NAME_LENGTH: { status: 400, message: "The name length is either too large or too small." },
  INVALID_PREFIX_LENGTH: { status: 400, message: "The prefix length is either too large or too small." },
  EXPIRES_IN_IS_TOO_SMALL: { status: 400, message: "The expiresIn is smaller than the predefined minimum value." },
  EXPIRES_IN_IS_TOO_LARGE: { status: 400, message: "The expiresIn is larger than the predefined maximum value." },
  NO_VALUES_TO_UPDATE: { status: 400, message: "No values to update." },
  USER_NOT_MEMBER_OF_ORGANIZATION: {
    status: 403,
    message: "You are not a member of the organization that owns this API key.",
  },
  INSUFFICIENT_API_KEY_PERMISSIONS: {
    status: 403,
    message: "You do not have permission to perform this action on organization API keys.",
  },
  API_KEY_NOT_ALLOWED: { status: 403, message: "An API key cannot be used for this request." },
  NOT_ALLOWED_WHILE_IMPERSONATING: {
    status: 403,
    message: "This cannot be done while impersonating a user: it changes how the account is reached.",
  },
  API_KEY_PERMISSIONS_TOO_BROAD: {
    status: 403,
    message: "An API key cannot have a permission its creator does not hold.",
  },

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
  // Published by better-auth; not raised here.
  CALLBACK_URL_REQUIRED: { status: 400, message: "callbackURL is required" },
  TOO_MANY_REQUESTS: { status: 429, message: "Too many requests. Please try again later." },

  // ---- request shape (the API framework) ----
  VALIDATION_ERROR: { status: 400, message: "Invalid body parameters" },
  BAD_REQUEST: { status: 400, message: "Invalid JSON in request body" },
  UNSUPPORTED_MEDIA_TYPE: { status: 415, message: "Unsupported media type" },
  NOT_FOUND: { status: 404, message: "Not found" },

  // ---- outages (nothing wrong with the request: the same call works once the service is back) ----
  SERVICE_UNAVAILABLE: {
    status: 503,
    message: "The service is temporarily unavailable. Please try again in a moment.",
  },
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
