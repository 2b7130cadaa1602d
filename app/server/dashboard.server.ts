/**
 * The signed-in home: the active organization at a glance, what the user could do next, and
 * their own recent account activity. It reads across the domains (accounts, organizations,
 * billing, the audit log), so it sits above them.
 */
import type { AuthSession } from "~/server/auth/session.server";
import { activeProviderId, activeSubscriptions } from "~/server/billing/billing.server";
import { prisma } from "~/server/db.server";
import { can } from "~/server/organization/permissions.server";
import { roleTableOfRequest } from "~/server/organization/pages.server";

/** How many of the user's own audit rows the home lists. */
export const RECENT_ACTIVITY = 8;

export type NextStep = "verify-email" | "two-factor" | "passkey" | "invite" | "plan";

export async function dashboardOf(auth: AuthSession) {
  const { user } = auth;
  const organizationId = auth.session.activeOrganizationId;
  const [passkeys, membership, activity] = await Promise.all([
    prisma.passkey.count({ where: { userId: user.id } }),
    organizationId
      ? prisma.member.findFirst({
          where: { organizationId, userId: user.id },
          select: {
            role: true,
            organization: { select: { id: true, name: true, slug: true, logo: true } },
          },
        })
      : null,
    prisma.auditLog.findMany({
      where: { userId: user.id },
      orderBy: [{ createdAt: "desc" }, { id: "desc" }],
      take: RECENT_ACTIVITY,
      select: {
        id: true,
        category: true,
        action: true,
        status: true,
        createdAt: true,
        ipAddress: true,
        userAgent: true,
      },
    }),
  ]);

  const organization = membership ? await organizationGlance(auth, membership) : null;
  const steps: { step: NextStep; done: boolean; href: string }[] = [
    { step: "verify-email", done: user.emailVerified, href: "/profile/email" },
    { step: "two-factor", done: user.twoFactorEnabled, href: "/profile/security" },
    { step: "passkey", done: passkeys > 0, href: "/profile/security" },
  ];
  if (organization?.canInvite) {
    steps.push({
      step: "invite",
      done: organization.members > 1 || organization.pendingInvitations > 0,
      href: `/organizations/${organization.slug}/invitations`,
    });
  }
  if (organization?.canManageBilling && organization.billingEnabled) {
    steps.push({ step: "plan", done: organization.subscription !== null, href: "/pricing" });
  }

  return {
    name: user.name,
    organization,
    steps,
    activity: activity.map((row) => ({ ...row, createdAt: row.createdAt.toISOString() })),
  };
}

type Membership = {
  role: string;
  organization: { id: string; name: string; slug: string; logo: string | null };
};

async function organizationGlance(auth: AuthSession, { role, organization }: Membership) {
  const organizationId = organization.id;
  const [members, teams, pendingInvitations, [subscription], roleTable] = await Promise.all([
    prisma.member.count({ where: { organizationId } }),
    prisma.team.count({ where: { organizationId } }),
    prisma.invitation.count({ where: { organizationId, status: "pending", expiresAt: { gt: new Date() } } }),
    activeSubscriptions([organizationId]),
    roleTableOfRequest(auth, organizationId),
  ]);
  return {
    name: organization.name,
    slug: organization.slug,
    logo: organization.logo,
    role,
    members,
    teams,
    pendingInvitations,
    subscription: subscription
      ? {
          plan: subscription.plan,
          status: subscription.status,
          periodEnd: subscription.periodEnd?.toISOString() ?? null,
          cancelAtPeriodEnd: subscription.cancelAtPeriodEnd,
        }
      : null,
    canInvite: can({ role, roleTable }, "invitation", ["create"]),
    canManageBilling: can({ role, roleTable }, "billing", ["manage"]),
    // A deployment that sells nothing (PAYMENT_PROVIDER=none) has no plan to choose.
    billingEnabled: Boolean(activeProviderId()),
  };
}
