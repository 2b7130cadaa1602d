/**
 * Every service verb checks its caller itself, whoever calls it (an endpoint, a page action,
 * another service): each one is called here directly, in-process, by someone it must refuse
 * (a plain member of the organization, a user outside it, a user who is not an admin), and
 * must answer the refusal's code before changing anything. The verbs are enumerated from the
 * modules' exports: an exported function that is neither checked here nor in a module's
 * "needs no caller check" list, with its reason, fails the first test.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { AuthSession, RequestMeta } from "~/server/auth/session.server";
import type { ErrorCode } from "~/server/errors.server";
import { createTestDatabase, type TestDatabase } from "./helpers/database";
import { createOrganization, createUser, sessionFor } from "./helpers/factories";

const SECRET = "policy-verbs-test-secret-0123456789abcdefghij";
const meta: RequestMeta = { ipAddress: null, userAgent: null, locale: "en" };

const loadModules = async () => ({
  organizations: await import("~/server/organization/organizations.server"),
  invitations: await import("~/server/organization/invitations.server"),
  teams: await import("~/server/organization/teams.server"),
  roles: await import("~/server/organization/roles.server"),
  organizationAuditLog: await import("~/server/organization/audit-log.server"),
  billing: await import("~/server/billing/billing.server"),
  adminUsers: await import("~/server/admin/users.server"),
  adminDatabase: await import("~/server/admin/database.server"),
  adminMigrations: await import("~/server/admin/migrations.server"),
  adminAuditLog: await import("~/server/admin/audit-log.server"),
  adminDashboard: await import("~/server/admin/dashboard.server"),
  adminSubscriptions: await import("~/server/admin/subscriptions.server"),
  scimTokens: await import("~/server/sso/scim/tokens.server"),
  scimUsers: await import("~/server/sso/scim/users.server"),
  scimGroups: await import("~/server/sso/scim/groups.server"),
  ssoConnections: await import("~/server/sso/connections.server"),
  ssoDomains: await import("~/server/sso/domains.server"),
  ssoSignIn: await import("~/server/sso/sign-in.server"),
  apiKeys: await import("~/server/organization/api-keys.server"),
  apiKeyStore: await import("~/server/auth/api-keys.server"),
  webhookEndpoints: await import("~/server/webhooks/endpoints.server"),
  webhookDelivery: await import("~/server/webhooks/delivery.server"),
});
type Modules = Awaited<ReturnType<typeof loadModules>>;

/** Who is calling and about what, made in beforeAll. */
interface World {
  /** A plain member (role member) of the organization, with a verified email. */
  member: AuthSession;
  /** A signed-in user outside the organization. */
  outsider: AuthSession;
  /** A user (role user) calling the admin verbs. */
  user: AuthSession;
  organizationId: string;
  ownerId: string;
  ownerMemberId: string;
  teamId: string;
  /** A pending invitation addressed to someone else. */
  invitationId: string;
  /** The wire name of the organization's SSO connection, and a SCIM token of it. */
  providerId: string;
  scimTokenId: string;
  /** An organization key the owner made. */
  apiKeyId: string;
  /** A webhook endpoint of the organization and a delivery of it. */
  webhookEndpointId: string;
  webhookDeliveryId: string;
}

/** Who calls (the call passes them), the code of the refusal, and the call. */
type Check = [who: "a plain member" | "an outsider" | "a non-admin", code: ErrorCode, call: Call];
type Call = (m: Modules, w: World) => Promise<unknown>;

const org = (w: World) => ({ referenceId: w.organizationId, customerType: "organization" as const });

/**
 * Per module: each exported verb that checks its caller, called by someone it must refuse;
 * then the exported functions that need no caller check, and why.
 */
const MODULES: {
  [K in keyof Modules]: {
    checked: { [name: string]: Check };
    noCallerCheck: { [name: string]: string };
  };
} = {
  organizations: {
    checked: {
      updateOrganization: [
        "a plain member",
        "YOU_ARE_NOT_ALLOWED_TO_UPDATE_THIS_ORGANIZATION",
        (m, w) => m.organizations.updateOrganization(w.member, { organizationId: w.organizationId, data: {} }, meta),
      ],
      deleteOrganization: [
        "a plain member",
        "YOU_ARE_NOT_ALLOWED_TO_DELETE_THIS_ORGANIZATION",
        (m, w) => m.organizations.deleteOrganization(w.member, w.organizationId, meta),
      ],
      setActiveOrganization: [
        "an outsider",
        "USER_IS_NOT_A_MEMBER_OF_THE_ORGANIZATION",
        (m, w) => m.organizations.setActiveOrganization(w.outsider, { organizationId: w.organizationId }),
      ],
      getFullOrganization: [
        "an outsider",
        "USER_IS_NOT_A_MEMBER_OF_THE_ORGANIZATION",
        (m, w) => m.organizations.getFullOrganization(w.outsider, { organizationId: w.organizationId }),
      ],
      listMembers: [
        "an outsider",
        "YOU_ARE_NOT_A_MEMBER_OF_THIS_ORGANIZATION",
        (m, w) => m.organizations.listMembers(w.outsider, { organizationId: w.organizationId }),
      ],
      getActiveMember: [
        "an outsider",
        "USER_IS_NOT_A_MEMBER_OF_THE_ORGANIZATION",
        (m, w) => m.organizations.getActiveMember(w.outsider, w.organizationId),
      ],
      getActiveMemberRole: [
        "an outsider",
        "USER_IS_NOT_A_MEMBER_OF_THE_ORGANIZATION",
        (m, w) => m.organizations.getActiveMemberRole(w.outsider, { organizationId: w.organizationId }),
      ],
      updateMemberRole: [
        "a plain member",
        "YOU_ARE_NOT_ALLOWED_TO_UPDATE_THIS_MEMBER",
        (m, w) =>
          m.organizations.updateMemberRole(
            w.member,
            { memberId: w.ownerMemberId, role: "member", organizationId: w.organizationId },
            meta,
          ),
      ],
      removeMember: [
        "a plain member",
        "YOU_ARE_NOT_ALLOWED_TO_DELETE_THIS_MEMBER",
        (m, w) =>
          m.organizations.removeMember(
            w.member,
            { memberIdOrEmail: w.ownerMemberId, organizationId: w.organizationId },
            meta,
          ),
      ],
      leaveOrganization: [
        "an outsider",
        "MEMBER_NOT_FOUND",
        (m, w) => m.organizations.leaveOrganization(w.outsider, w.organizationId, meta),
      ],
    },
    noCallerCheck: {
      membershipLimit: "reads configuration",
      organizationOut: "shapes a row",
      membershipOf: "a lookup the checks themselves use",
      ownerCount: "a count the last-owner rule and the pages read",
      requireMembership: "the membership check itself",
      requirePermission: "the permission check itself",
      roleTableOf: "reads the roles the checks decide with",
      callerOf: "attaches those roles to a membership already found",
      storedGrants: "reads a stored role's grants",
      auditOrganization: "writes the audit row of a verb that has checked",
      createOrganization:
        "any user may create one, within ORGANIZATION_CREATION and ORGANIZATION_LIMIT; they become its owner",
      checkSlug: "tells only whether a slug is free",
      listOrganizations: "the caller's own organizations",
      addMember: "server only (no route): the server code calling it decides, as with better-auth",
    },
  },

  invitations: {
    checked: {
      inviteMember: [
        "a plain member",
        "YOU_ARE_NOT_ALLOWED_TO_INVITE_USERS_TO_THIS_ORGANIZATION",
        (m, w) =>
          m.invitations.inviteMember(
            w.member,
            { email: "someone@example.com", role: "member", organizationId: w.organizationId },
            meta,
          ),
      ],
      cancelInvitation: [
        "a plain member",
        "YOU_ARE_NOT_ALLOWED_TO_CANCEL_THIS_INVITATION",
        (m, w) => m.invitations.cancelInvitation(w.member, w.invitationId, meta),
      ],
      listInvitations: [
        "an outsider",
        "YOU_ARE_NOT_A_MEMBER_OF_THIS_ORGANIZATION",
        (m, w) => m.invitations.listInvitations(w.outsider, w.organizationId),
      ],
      // Answered only by the invitation's recipient.
      acceptInvitation: [
        "a plain member",
        "YOU_ARE_NOT_THE_RECIPIENT_OF_THE_INVITATION",
        (m, w) => m.invitations.acceptInvitation(w.member, w.invitationId, meta),
      ],
      rejectInvitation: [
        "a plain member",
        "YOU_ARE_NOT_THE_RECIPIENT_OF_THE_INVITATION",
        (m, w) => m.invitations.rejectInvitation(w.member, w.invitationId, meta),
      ],
      getInvitation: [
        "a plain member",
        "YOU_ARE_NOT_THE_RECIPIENT_OF_THE_INVITATION",
        (m, w) => m.invitations.getInvitation(w.member, w.invitationId),
      ],
    },
    noCallerCheck: {
      addressedTo: "the recipient rule itself",
      invitedAddress: "the invitation's id is the secret of its own link; its holder already has the address",
      listUserInvitations: "only the invitations addressed to the caller",
    },
  },

  roles: {
    checked: {
      createRole: [
        "a plain member",
        "YOU_ARE_NOT_ALLOWED_TO_CREATE_A_ROLE",
        (m, w) =>
          m.roles.createRole(w.member, { role: "helper", permission: {}, organizationId: w.organizationId }, meta),
      ],
      listRoles: [
        "a plain member",
        "YOU_ARE_NOT_ALLOWED_TO_LIST_A_ROLE",
        (m, w) => m.roles.listRoles(w.member, w.organizationId),
      ],
      getRole: [
        "a plain member",
        "YOU_ARE_NOT_ALLOWED_TO_READ_A_ROLE",
        (m, w) => m.roles.getRole(w.member, { roleName: "helper", organizationId: w.organizationId }),
      ],
      updateRole: [
        "a plain member",
        "YOU_ARE_NOT_ALLOWED_TO_UPDATE_A_ROLE",
        (m, w) =>
          m.roles.updateRole(
            w.member,
            { roleName: "helper", organizationId: w.organizationId, data: { permission: {} } },
            meta,
          ),
      ],
      deleteRole: [
        "a plain member",
        "YOU_ARE_NOT_ALLOWED_TO_DELETE_A_ROLE",
        (m, w) => m.roles.deleteRole(w.member, { roleName: "helper", organizationId: w.organizationId }, meta),
      ],
      hasPermission: [
        "an outsider",
        "USER_IS_NOT_A_MEMBER_OF_THE_ORGANIZATION",
        (m, w) =>
          m.roles.hasPermission(w.outsider, { permissions: { team: ["create"] }, organizationId: w.organizationId }),
      ],
    },
    noCallerCheck: {},
  },

  teams: {
    checked: {
      createTeam: [
        "a plain member",
        "YOU_ARE_NOT_ALLOWED_TO_CREATE_TEAMS_IN_THIS_ORGANIZATION",
        (m, w) => m.teams.createTeam(w.member, { name: "New", organizationId: w.organizationId }, meta),
      ],
      updateTeam: [
        "a plain member",
        "YOU_ARE_NOT_ALLOWED_TO_UPDATE_THIS_TEAM",
        (m, w) =>
          m.teams.updateTeam(
            w.member,
            { teamId: w.teamId, data: { name: "Renamed", organizationId: w.organizationId } },
            meta,
          ),
      ],
      removeTeam: [
        "a plain member",
        "YOU_ARE_NOT_ALLOWED_TO_DELETE_TEAMS_IN_THIS_ORGANIZATION",
        (m, w) => m.teams.removeTeam(w.member, { teamId: w.teamId, organizationId: w.organizationId }, meta),
      ],
      listTeams: [
        "an outsider",
        "YOU_ARE_NOT_A_MEMBER_OF_THIS_ORGANIZATION",
        (m, w) => m.teams.listTeams(w.outsider, w.organizationId),
      ],
      setActiveTeam: [
        "a plain member",
        "USER_IS_NOT_A_MEMBER_OF_THE_TEAM",
        (m, w) =>
          m.teams.setActiveTeam(
            { ...w.member, session: { ...w.member.session, activeOrganizationId: w.organizationId } },
            w.teamId,
          ),
      ],
      listUserTeams: [
        "a plain member",
        "YOU_ARE_NOT_ALLOWED_TO_UPDATE_THIS_MEMBER",
        (m, w) => m.teams.listUserTeams(w.member, { userId: w.ownerId, organizationId: w.organizationId }),
      ],
      listTeamMembers: [
        "a plain member",
        "YOU_CAN_NOT_ACCESS_THE_MEMBERS_OF_THIS_TEAM",
        (m, w) => m.teams.listTeamMembers(w.member, w.teamId),
      ],
      addTeamMember: [
        "a plain member",
        "YOU_ARE_NOT_ALLOWED_TO_CREATE_A_NEW_TEAM_MEMBER",
        (m, w) =>
          m.teams.addTeamMember(
            w.member,
            { teamId: w.teamId, userId: w.member.user.id, organizationId: w.organizationId },
            meta,
          ),
      ],
      removeTeamMember: [
        "a plain member",
        "YOU_ARE_NOT_ALLOWED_TO_REMOVE_A_TEAM_MEMBER",
        (m, w) =>
          m.teams.removeTeamMember(
            w.member,
            { teamId: w.teamId, userId: w.ownerId, organizationId: w.organizationId },
            meta,
          ),
      ],
    },
    noCallerCheck: {},
  },

  // The organization's own audit log needs auditLog: read (a member has it not).
  organizationAuditLog: {
    checked: {
      organizationAuditLog: [
        "a plain member",
        "YOU_ARE_NOT_ALLOWED_TO_READ_THE_AUDIT_LOG",
        (m, w) => m.organizationAuditLog.organizationAuditLog(w.member, w.organizationId, { page: 1, size: 20 }),
      ],
      organizationAuditLogCsv: [
        "a plain member",
        "YOU_ARE_NOT_ALLOWED_TO_READ_THE_AUDIT_LOG",
        (m, w) => m.organizationAuditLog.organizationAuditLogCsv(w.member, w.organizationId, {}),
      ],
    },
    noCallerCheck: {},
  },

  // The organization's subscription needs billing: manage (a member has it not).
  billing: {
    checked: {
      listSubscriptions: [
        "a plain member",
        "YOU_ARE_NOT_ALLOWED_TO_MANAGE_BILLING",
        (m, w) => m.billing.listSubscriptions(w.member, org(w)),
      ],
      polarSubscriptionPage: [
        "a plain member",
        "YOU_ARE_NOT_ALLOWED_TO_MANAGE_BILLING",
        (m, w) => m.billing.polarSubscriptionPage(w.member, { ...org(w), page: 1, limit: 10 }),
      ],
      upgrade: [
        "a plain member",
        "YOU_ARE_NOT_ALLOWED_TO_MANAGE_BILLING",
        (m, w) => m.billing.upgrade(w.member, m.billing.upgradeInput.parse({ ...org(w), plan: "pro" }), meta),
      ],
      cancelSubscription: [
        "a plain member",
        "YOU_ARE_NOT_ALLOWED_TO_MANAGE_BILLING",
        (m, w) => m.billing.cancelSubscription(w.member, org(w), meta),
      ],
      restoreSubscription: [
        "a plain member",
        "YOU_ARE_NOT_ALLOWED_TO_MANAGE_BILLING",
        (m, w) => m.billing.restoreSubscription(w.member, org(w), meta),
      ],
      billingPortal: [
        "a plain member",
        "YOU_ARE_NOT_ALLOWED_TO_MANAGE_BILLING",
        (m, w) => m.billing.billingPortal(w.member, org(w)),
      ],
    },
    noCallerCheck: {
      activeProviderId: "reads configuration",
      paymentsState: "reads configuration: whether payments are off, unconfigured or ready",
      referenceOf: "names a reference; resolveReference checks it",
      activeSubscriptions: "a lookup by ids its callers have checked (the verbs, the caller's own billing page)",
      subscriptionOut: "shapes a row",
      customerState: "the caller's own customer",
      sessionSubscriptions: "the session's own user and active organization",
      absolute: "makes a URL absolute",
      ensureUserCustomers: "a data operation: startDataOperation checks its caller",
      receiveWebhook: "the provider's calls, checked by their signature",
    },
  },

  adminUsers: {
    checked: {
      createUser: [
        "a non-admin",
        "YOU_ARE_NOT_ALLOWED_TO_CREATE_USERS",
        (m, w) => m.adminUsers.createUser(w.user, { email: "new@example.com", name: "New" }, meta),
      ],
      listUsers: [
        "a non-admin",
        "YOU_ARE_NOT_ALLOWED_TO_LIST_USERS",
        (m, w) => m.adminUsers.listUsers(w.user, m.adminUsers.listUsersQuery.parse({})),
      ],
      getUser: ["a non-admin", "YOU_ARE_NOT_ALLOWED_TO_GET_USER", (m, w) => m.adminUsers.getUser(w.user, w.ownerId)],
      updateUser: [
        "a non-admin",
        "YOU_ARE_NOT_ALLOWED_TO_UPDATE_USERS",
        (m, w) => m.adminUsers.updateUser(w.user, { userId: w.ownerId, data: { name: "Renamed" } }, meta),
      ],
      setRole: [
        "a non-admin",
        "YOU_ARE_NOT_ALLOWED_TO_CHANGE_USERS_ROLE",
        (m, w) => m.adminUsers.setRole(w.user, { userId: w.user.user.id, role: "admin" }, meta),
      ],
      banUser: [
        "a non-admin",
        "YOU_ARE_NOT_ALLOWED_TO_BAN_USERS",
        (m, w) => m.adminUsers.banUser(w.user, { userId: w.ownerId }, meta),
      ],
      unbanUser: [
        "a non-admin",
        "YOU_ARE_NOT_ALLOWED_TO_BAN_USERS",
        (m, w) => m.adminUsers.unbanUser(w.user, w.ownerId, meta),
      ],
      resetTwoFactor: [
        "a non-admin",
        "YOU_ARE_NOT_ALLOWED_TO_UPDATE_USERS",
        (m, w) => m.adminUsers.resetTwoFactor(w.user, { userId: w.ownerId, reason: "Lost the phone" }, meta),
      ],
      listUserSessions: [
        "a non-admin",
        "YOU_ARE_NOT_ALLOWED_TO_LIST_USERS_SESSIONS",
        (m, w) => m.adminUsers.listUserSessions(w.user, w.ownerId),
      ],
      revokeUserSession: [
        "a non-admin",
        "YOU_ARE_NOT_ALLOWED_TO_REVOKE_USERS_SESSIONS",
        (m, w) => m.adminUsers.revokeUserSession(w.user, w.member.session.token, meta),
      ],
      revokeUserSessions: [
        "a non-admin",
        "YOU_ARE_NOT_ALLOWED_TO_REVOKE_USERS_SESSIONS",
        (m, w) => m.adminUsers.revokeUserSessions(w.user, w.ownerId, meta),
      ],
      setUserPassword: [
        "a non-admin",
        "YOU_ARE_NOT_ALLOWED_TO_SET_USERS_PASSWORD",
        (m, w) => m.adminUsers.setUserPassword(w.user, { userId: w.ownerId, newPassword: "a-new-password-1" }, meta),
      ],
      removeUser: [
        "a non-admin",
        "YOU_ARE_NOT_ALLOWED_TO_DELETE_USERS",
        (m, w) => m.adminUsers.removeUser(w.user, w.ownerId, meta),
      ],
      impersonateUser: [
        "a non-admin",
        "YOU_ARE_NOT_ALLOWED_TO_IMPERSONATE_USERS",
        (m, w) => m.adminUsers.impersonateUser(w.user, w.ownerId, new Request("http://localhost/"), meta),
      ],
    },
    noCallerCheck: {
      stopImpersonating: "ends the caller's own impersonation session; only one an admin started has one to end",
      hasPermission: "any signed-in user may ask (as with better-auth): it reads the table and changes nothing",
    },
  },

  adminDatabase: {
    checked: {
      quickCheck: [
        "a non-admin",
        "YOU_ARE_NOT_ALLOWED_TO_RUN_MAINTENANCE",
        (m, w) => m.adminDatabase.quickCheck(w.user, meta),
      ],
    },
    noCallerCheck: {
      databaseStats: "a report read only by an admin page's loader, after requireAdminUser",
    },
  },

  adminMigrations: {
    checked: {
      startDataOperation: [
        "a non-admin",
        "YOU_ARE_NOT_ALLOWED_TO_RUN_MAINTENANCE",
        (m, w) => m.adminMigrations.startDataOperation(w.user, "ensure-customers", meta),
      ],
    },
    noCallerCheck: {
      schemaMigrations: "a report read only by an admin page's loader, after requireAdminUser",
      dataOperationRuns: "a report read only by an admin page's loader, after requireAdminUser",
    },
  },

  adminAuditLog: {
    checked: {},
    noCallerCheck: {
      auditLogPage: "a report read only by an admin page's loader, after requireAdminUser",
      auditLogCsv: "a report read only by an admin resource route, after requireAdminUser",
    },
  },

  adminDashboard: {
    checked: {},
    noCallerCheck: {
      dashboard: "a report read only by an admin page's loader, after requireAdminUser",
      monthlyRevenue: "arithmetic",
      lastDays: "arithmetic",
    },
  },

  adminSubscriptions: {
    checked: {},
    noCallerCheck: {
      subscriptionReport: "a report read only by an admin page's loader, after requireAdminUser",
    },
  },

  scimTokens: {
    checked: {
      generateScimToken: [
        "a plain member",
        "YOU_ARE_NOT_ALLOWED_TO_MANAGE_SCIM_TOKENS",
        (m, w) =>
          m.scimTokens.generateScimToken(
            w.member,
            { providerId: w.providerId, organizationId: w.organizationId },
            meta,
          ),
      ],
      listScimTokens: [
        "a plain member",
        "YOU_ARE_NOT_ALLOWED_TO_MANAGE_SCIM_TOKENS",
        (m, w) => m.scimTokens.listScimTokens(w.member, w.providerId),
      ],
      revokeScimToken: [
        "a plain member",
        "YOU_ARE_NOT_ALLOWED_TO_MANAGE_SCIM_TOKENS",
        (m, w) => m.scimTokens.revokeScimToken(w.member, { tokenId: w.scimTokenId }, meta),
      ],
    },
    noCallerCheck: {
      scimCaller: "the check itself: the caller of a SCIM request is the connection its bearer token names",
    },
  },

  scimUsers: {
    checked: {},
    noCallerCheck: {
      listUsers: "acts for the organization whose SCIM token scimCaller verified, and reads nothing outside it",
      getUser: "acts for the organization whose SCIM token scimCaller verified, and reads nothing outside it",
      createUser: "acts for the organization whose SCIM token scimCaller verified, and reads nothing outside it",
      replaceUser: "acts for the organization whose SCIM token scimCaller verified, and reads nothing outside it",
      patchUser: "acts for the organization whose SCIM token scimCaller verified, and reads nothing outside it",
      deleteUser: "acts for the organization whose SCIM token scimCaller verified, and reads nothing outside it",
    },
  },

  scimGroups: {
    checked: {},
    noCallerCheck: {
      listGroups: "acts for the organization whose SCIM token scimCaller verified, and reads nothing outside it",
      getGroup: "acts for the organization whose SCIM token scimCaller verified, and reads nothing outside it",
      createGroup: "acts for the organization whose SCIM token scimCaller verified, and reads nothing outside it",
      replaceGroup: "acts for the organization whose SCIM token scimCaller verified, and reads nothing outside it",
      patchGroup: "acts for the organization whose SCIM token scimCaller verified, and reads nothing outside it",
      deleteGroup: "acts for the organization whose SCIM token scimCaller verified, and reads nothing outside it",
    },
  },

  // The organization's identity providers need sso: manage (a member has it not).
  ssoConnections: {
    checked: {
      registerProvider: [
        "a plain member",
        "YOU_ARE_NOT_ALLOWED_TO_MANAGE_SSO",
        (m, w) =>
          m.ssoConnections.registerProvider(
            w.member,
            {
              providerId: "new-provider",
              issuer: "https://idp.example.com",
              domain: "example.com",
              organizationId: w.organizationId,
              oidcConfig: { clientId: "id", clientSecret: "secret" },
            },
            meta,
          ),
      ],
      getProvider: [
        "a plain member",
        "YOU_ARE_NOT_ALLOWED_TO_MANAGE_SSO",
        (m, w) => m.ssoConnections.getProvider(w.member, w.providerId),
      ],
      organizationProviders: [
        "a plain member",
        "YOU_ARE_NOT_ALLOWED_TO_MANAGE_SSO",
        (m, w) => m.ssoConnections.organizationProviders(w.member, w.organizationId),
      ],
      updateProvider: [
        "a plain member",
        "YOU_ARE_NOT_ALLOWED_TO_MANAGE_SSO",
        (m, w) =>
          m.ssoConnections.updateProvider(w.member, { providerId: w.providerId, domain: "other.example" }, meta),
      ],
      deleteProvider: [
        "an outsider",
        "USER_IS_NOT_A_MEMBER_OF_THE_ORGANIZATION",
        (m, w) => m.ssoConnections.deleteProvider(w.outsider, w.providerId, meta),
      ],
    },
    noCallerCheck: {
      listProviders: "lists only the providers of organizations where the caller may manage SSO",
      providerOut: "shapes a row",
    },
  },

  ssoDomains: {
    checked: {
      verifyDomain: [
        "a plain member",
        "YOU_ARE_NOT_ALLOWED_TO_MANAGE_SSO",
        (m, w) => m.ssoDomains.verifyDomain(w.member, { providerId: w.providerId }, meta),
      ],
      setSsoRequired: [
        "a plain member",
        "YOU_ARE_NOT_ALLOWED_TO_MANAGE_SSO",
        (m, w) => m.ssoDomains.setSsoRequired(w.member, { organizationId: w.organizationId, required: false }, meta),
      ],
    },
    noCallerCheck: {
      domainRecord: "names a TXT record",
      syncDomains: "writes the domain rows of a provider its caller (a verb) has checked",
      releaseRequirementWithoutDomains:
        "clears the requirement for a verb that has checked, when no verified domain is left",
    },
  },

  // Signing in through an organization's identity provider: nobody is signed in yet. The
  // provider's signed answer (and the one-use state of a sign-in started here) is the check.
  ssoSignIn: {
    checked: {},
    noCallerCheck: {
      resolveProvider: "anyone may ask which connection serves an address, as better-auth's sign-in/sso tells",
      startSsoSignIn: "starts a sign-in: anyone may, it changes nothing but a one-use state record",
      finishOidcSignIn: "the provider's answer, checked against the state this browser holds",
      answerSamlResponse: "the IdP's signed response to a request started here",
      finishSamlSignIn: "what the ACS accepted, completed in the browser holding its RelayState",
      completeSsoSignIn: "called only with an identity a provider's verified answer gave",
      clearSsoStateCookie: "a Set-Cookie line",
    },
  },

  // A personal key is its user's alone; an organization's keys need apiKey: manage there.
  apiKeys: {
    checked: {
      createApiKey: [
        "a plain member",
        "INSUFFICIENT_API_KEY_PERMISSIONS",
        (m, w) => m.apiKeys.createApiKey(w.member, { configId: "org", organizationId: w.organizationId }, meta),
      ],
      listApiKeys: [
        "an outsider",
        "USER_NOT_MEMBER_OF_ORGANIZATION",
        (m, w) => m.apiKeys.listApiKeys(w.outsider, { organizationId: w.organizationId }),
      ],
      getApiKey: ["a plain member", "KEY_NOT_FOUND", (m, w) => m.apiKeys.getApiKey(w.member, { keyId: w.apiKeyId })],
      updateApiKey: [
        "an outsider",
        "KEY_NOT_FOUND",
        (m, w) => m.apiKeys.updateApiKey(w.outsider, { keyId: w.apiKeyId, enabled: false }, meta),
      ],
      deleteApiKey: [
        "a plain member",
        "KEY_NOT_FOUND",
        (m, w) => m.apiKeys.deleteApiKey(w.member, { keyId: w.apiKeyId }, meta),
      ],
    },
    noCallerCheck: {
      grantsHeld: "reads what a user holds, to cap the permissions they give a key",
    },
  },

  // Key storage and the session gate: the verbs above check the caller before they store.
  apiKeyStore: {
    checked: {},
    noCallerCheck: {
      withKeyScope: "opens the per-request scope",
      actingKey: "reads the per-request scope",
      keyPermissions: "answers what the request's key allows",
      refuseForKey: "the gate itself: refuses what a key may not do",
      apiKeyOut: "shapes a row",
      storeApiKey: "stores a key for a verb that has checked its caller",
      auditKey: "writes an audit row",
      apiKeyFrom: "reads a header",
      sessionForKey: "the key is the credential: it is verified here",
      requestSession: "the session gate: the cookie or the key is the credential",
    },
  },

  webhookEndpoints: {
    checked: {
      listEndpoints: [
        "a plain member",
        "YOU_ARE_NOT_ALLOWED_TO_MANAGE_WEBHOOKS",
        (m, w) => m.webhookEndpoints.listEndpoints(w.member, w.organizationId),
      ],
      getEndpoint: [
        "an outsider",
        "WEBHOOK_NOT_FOUND",
        (m, w) => m.webhookEndpoints.getEndpoint(w.outsider, w.webhookEndpointId),
      ],
      createEndpoint: [
        "a plain member",
        "YOU_ARE_NOT_ALLOWED_TO_MANAGE_WEBHOOKS",
        (m, w) =>
          m.webhookEndpoints.createEndpoint(
            w.member,
            {
              organizationId: w.organizationId,
              url: "https://hooks.example.com/",
              eventTypes: ["team.changed"],
              locale: "en",
            },
            meta,
          ),
      ],
      setEndpointEnabled: [
        "a plain member",
        "YOU_ARE_NOT_ALLOWED_TO_MANAGE_WEBHOOKS",
        (m, w) => m.webhookEndpoints.setEndpointEnabled(w.member, w.webhookEndpointId, false, meta),
      ],
      deleteEndpoint: [
        "an outsider",
        "WEBHOOK_NOT_FOUND",
        (m, w) => m.webhookEndpoints.deleteEndpoint(w.outsider, w.webhookEndpointId, meta),
      ],
      sendTestEvent: [
        "a plain member",
        "YOU_ARE_NOT_ALLOWED_TO_MANAGE_WEBHOOKS",
        (m, w) => m.webhookEndpoints.sendTestEvent(w.member, w.webhookEndpointId, meta),
      ],
      replayDelivery: [
        "a plain member",
        "YOU_ARE_NOT_ALLOWED_TO_MANAGE_WEBHOOKS",
        (m, w) => m.webhookEndpoints.replayDelivery(w.member, w.webhookEndpointId, w.webhookDeliveryId, meta),
      ],
    },
    noCallerCheck: {},
  },

  // Deliveries run on the job queue, for events the audit write published: no caller.
  webhookDelivery: {
    checked: {},
    noCallerCheck: {
      eventTypesOf: "maps an audited action to event types",
      privateOriginAllowed: "reads configuration",
      enqueueDelivery: "queues a delivery row that a checked verb (or the fan-out of a published event) made",
      startWebhooks: "registers the audit listener at server start",
    },
  },
};

let db: TestDatabase;
let modules: Modules;
let world: World;

beforeAll(async () => {
  db = await createTestDatabase();
  Object.assign(process.env, { DATABASE_URL: db.url, AUTH_SECRET: SECRET, BASE_URL: "http://localhost:3000" });
  const { migrate } = await import("~/server/db/migrate.server");
  await migrate(db.url);
  const { prisma } = await import("~/server/db.server");
  modules = await loadModules();
  const person = async (name: string) => sessionFor((await createUser({ name, password: null })).id);
  const [owner, plain, outside, notAdmin] = await Promise.all(
    ["owner", "member", "outsider", "user"].map((name) => person(name)),
  );
  const created = await createOrganization({
    name: "Acme",
    members: [
      { userId: owner!.user.id, role: "owner" },
      { userId: plain!.user.id, role: "member" },
    ],
  });
  const organization = {
    ...created,
    teams: [await prisma.team.create({ data: { name: "Core", organizationId: created.id } })],
  };
  const teamId = organization.teams[0]!.id;
  await prisma.teamMember.create({ data: { teamId, userId: owner!.user.id } });
  const invitation = await prisma.invitation.create({
    data: {
      id: "policy-verbs-invitation",
      organizationId: organization.id,
      email: "invitee@example.com",
      role: "member",
      inviterId: owner!.user.id,
      expiresAt: new Date(Date.now() + 86_400_000),
    },
  });
  const provider = await prisma.ssoProvider.create({
    data: {
      providerId: "policy-verbs-provider",
      issuer: "https://idp.example.com",
      domain: "example.com",
      organizationId: organization.id,
      samlConfig: JSON.stringify({ entryPoint: "https://idp.example.com/sso", certs: ["unused"] }),
      domains: { create: { domain: "example.com", token: "token" } },
    },
  });
  const scimToken = await prisma.scimToken.create({
    data: { providerId: provider.id, organizationId: organization.id, tokenHash: "0".repeat(64), start: "scim_policy" },
  });
  const apiKey = await prisma.apiKey.create({
    data: {
      configId: "org",
      keyHash: "1".repeat(64),
      start: "policy",
      userId: owner!.user.id,
      organizationId: organization.id,
    },
  });
  const webhookEndpoint = await prisma.webhookEndpoint.create({
    data: {
      organizationId: organization.id,
      url: "https://hooks.example.com/",
      eventTypes: "team.changed",
      secret: "v1.unused",
      deliveries: { create: { eventId: "msg_policy", eventType: "team.changed", payload: "{}", status: "failed" } },
    },
    include: { deliveries: true },
  });
  world = {
    apiKeyId: apiKey.id,
    member: plain!,
    outsider: outside!,
    user: notAdmin!,
    organizationId: organization.id,
    ownerId: owner!.user.id,
    ownerMemberId: organization.members.find((row) => row.role === "owner")!.id,
    teamId,
    invitationId: invitation.id,
    providerId: provider.providerId,
    scimTokenId: scimToken.id,
    webhookEndpointId: webhookEndpoint.id,
    webhookDeliveryId: webhookEndpoint.deliveries[0]!.id,
  };
}, 60_000);

afterAll(async () => {
  const { closeDatabase } = await import("~/server/db.server");
  await closeDatabase();
  await db?.drop();
});

describe("the verbs' caller checks", () => {
  it("cover every exported function: each is checked below or says why it needs no check", () => {
    for (const [module, { checked, noCallerCheck }] of Object.entries(MODULES)) {
      const exported = Object.entries(modules[module as keyof Modules])
        .filter(([, value]) => typeof value === "function")
        .map(([name]) => name)
        .sort();
      const listed = [...Object.keys(checked), ...Object.keys(noCallerCheck)].sort();
      expect(exported, `${module}: exported functions against the lists`).toEqual(listed);
    }
  });

  for (const [module, { checked }] of Object.entries(MODULES)) {
    for (const [name, [who, code, call]] of Object.entries(checked)) {
      it(`${module}.${name} refuses ${who}: ${code}`, async () => {
        await expect(Promise.resolve().then(() => call(modules, world))).rejects.toMatchObject({ code });
      });
    }
  }

  it("changed nothing on their behalf", async () => {
    const { prisma } = await import("~/server/db.server");
    const callers = [world.member, world.outsider, world.user].map((auth) => auth.user.id);
    expect(await prisma.auditLog.count({ where: { userId: { in: callers } } })).toBe(0);
    expect(await prisma.member.count({ where: { organizationId: world.organizationId } })).toBe(2);
    expect(await prisma.user.count({ where: { role: "admin" } })).toBe(0);
    expect(await prisma.scimToken.count()).toBe(1);
    expect(await prisma.webhookEndpoint.count({ where: { enabled: true } })).toBe(1);
    expect(await prisma.webhookDelivery.count()).toBe(1);
  });
});
