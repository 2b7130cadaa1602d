/**
 * "Download my data": one JSON document of everything the product stores about a user
 * (docs/decisions/0017-data-download.md). Every query names its columns: a column added to
 * the schema later stays out of the file until someone decides it belongs there, so a new
 * secret can never slip in. Never included: password hashes, OAuth tokens, session tokens
 * (or their hashes), the TOTP secret, backup codes and their hashes, trusted-device and
 * pending sign-in tokens, passkeys' public keys and credential ids, invitation ids (answering
 * takes nothing else), API keys' hashes; invitations to the user's address only once it is
 * verified.
 */
import { audit } from "~/server/audit.server";
import type { RequestMeta } from "~/server/auth/session.server";
import { prisma } from "~/server/db.server";
import { addressedTo } from "~/server/organization/invitations.server";

const organizationSelect = { id: true, name: true, slug: true } as const;
// Without ids: an invitation's id is what answering it takes (see addressedTo).
const invitationSelect = {
  email: true,
  role: true,
  status: true,
  teamId: true,
  organization: { select: organizationSelect },
  expiresAt: true,
  createdAt: true,
} as const;

/** The document for `userId`. */
async function accountData(userId: string) {
  const user = await prisma.user.findUniqueOrThrow({
    where: { id: userId },
    select: {
      id: true,
      email: true,
      emailVerified: true,
      name: true,
      image: true,
      role: true,
      banned: true,
      banReason: true,
      banExpires: true,
      stripeCustomerId: true,
      polarCustomerId: true,
      twoFactorEnabled: true,
      createdAt: true,
      updatedAt: true,
    },
  });
  // The invitations the user is the recipient of, by the one recipient rule.
  const received = addressedTo(user);
  const [
    accounts,
    sessions,
    twoFactor,
    backupCodesLeft,
    trustedDevices,
    passkeys,
    memberships,
    teams,
    invitationsReceived,
    invitationsSent,
    auditLog,
    apiKeys,
  ] = await Promise.all([
    prisma.account.findMany({
      where: { userId },
      select: {
        id: true,
        providerId: true,
        accountId: true,
        scope: true,
        accessTokenExpiresAt: true,
        refreshTokenExpiresAt: true,
        createdAt: true,
        updatedAt: true,
      },
      orderBy: { createdAt: "asc" },
    }),
    prisma.session.findMany({
      // An admin's impersonation session carries the admin's address and browser, not the user's.
      where: { userId, impersonatedBy: null },
      select: {
        id: true,
        ipAddress: true,
        userAgent: true,
        activeOrganizationId: true,
        activeTeamId: true,
        createdAt: true,
        updatedAt: true,
        expiresAt: true,
      },
      orderBy: { createdAt: "desc" },
    }),
    prisma.twoFactor.findUnique({ where: { userId }, select: { verified: true, createdAt: true } }),
    prisma.backupCode.count({ where: { userId } }),
    prisma.trustedDevice.findMany({
      where: { userId },
      select: { id: true, userAgent: true, createdAt: true, expiresAt: true },
      orderBy: { createdAt: "desc" },
    }),
    prisma.passkey.findMany({
      where: { userId },
      select: { id: true, name: true, deviceType: true, backedUp: true, transports: true, createdAt: true },
      orderBy: { createdAt: "asc" },
    }),
    prisma.member.findMany({
      where: { userId },
      select: { role: true, createdAt: true, organization: { select: { ...organizationSelect, createdAt: true } } },
      orderBy: { createdAt: "asc" },
    }),
    prisma.teamMember.findMany({
      where: { userId },
      select: { createdAt: true, team: { select: { id: true, name: true, organizationId: true } } },
    }),
    received
      ? prisma.invitation.findMany({ where: received, select: invitationSelect, orderBy: { createdAt: "desc" } })
      : [],
    prisma.invitation.findMany({
      where: { inviterId: userId },
      select: invitationSelect,
      orderBy: { createdAt: "desc" },
    }),
    prisma.auditLog.findMany({
      // What an admin did while impersonating the user is the admin's doing, from their address.
      where: { userId, impersonatedBy: null },
      select: {
        id: true,
        category: true,
        action: true,
        status: true,
        targetType: true,
        targetId: true,
        details: true,
        ipAddress: true,
        userAgent: true,
        createdAt: true,
      },
      orderBy: { createdAt: "desc" },
    }),
    // The user's own keys by name and first characters; an organization's keys are its own.
    prisma.apiKey.findMany({
      where: { userId, organizationId: null },
      select: { id: true, name: true, start: true, enabled: true, expiresAt: true, lastRequest: true, createdAt: true },
      orderBy: { createdAt: "asc" },
    }),
  ]);
  const organizationIds = memberships.map((membership) => membership.organization.id);
  const subscriptions = await prisma.subscription.findMany({
    where: { referenceId: { in: [userId, ...organizationIds] } },
    select: {
      id: true,
      referenceId: true,
      plan: true,
      provider: true,
      customerId: true,
      providerSubscriptionId: true,
      status: true,
      seats: true,
      billingInterval: true,
      periodStart: true,
      periodEnd: true,
      trialStart: true,
      trialEnd: true,
      cancelAtPeriodEnd: true,
      cancelAt: true,
      createdAt: true,
      updatedAt: true,
    },
    orderBy: { createdAt: "asc" },
  });

  return {
    exportedAt: new Date(),
    profile: user,
    linkedAccounts: accounts,
    sessions,
    twoFactor: {
      enabled: user.twoFactorEnabled,
      setUpAt: twoFactor?.createdAt ?? null,
      backupCodesLeft,
      trustedDevices,
    },
    passkeys: passkeys.map(({ transports, ...passkey }) => ({
      ...passkey,
      transports: transports ? transports.split(",") : [],
    })),
    organizations: memberships.map(({ organization, role, createdAt }) => ({
      ...organization,
      role,
      joinedAt: createdAt,
      teams: teams
        .filter(({ team }) => team.organizationId === organization.id)
        .map(({ team, createdAt }) => ({ id: team.id, name: team.name, joinedAt: createdAt })),
    })),
    invitations: { received: invitationsReceived, sent: invitationsSent },
    apiKeys,
    // `referenceId` is the user's id or one of their organizations' ids.
    subscriptions,
    auditLog: auditLog.map(({ details, ...entry }) => ({
      ...entry,
      // Stored as a JSON string (audit.server.ts): given back as the object it was.
      details: details === null ? null : (JSON.parse(details) as unknown),
    })),
  };
}

/** The download as the profile page's link answers it: the JSON text, audited. */
export async function downloadAccountData(userId: string, meta: RequestMeta): Promise<string> {
  const document = JSON.stringify(await accountData(userId), null, 2);
  await audit({ userId, category: "security", action: "data-download", status: "success", meta });
  return document;
}
