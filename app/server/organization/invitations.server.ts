/**
 * Invitations to an organization (better-auth's organization plugin is the wire contract):
 * inviting by email, the recipient's answer, cancelling, reading and listing. An invitation
 * is pending until accepted, rejected or canceled; only a pending, unexpired one (48 hours)
 * can be answered, and only by its recipient (`addressedTo`, docs/decisions/0021).
 * Permissions come from permissions.server.ts only; every change is audited with category
 * "organization".
 */
import { z } from "zod";
import { localizePath } from "~/i18n/config";
import { emailSchema, normalizeEmail } from "~/server/auth/schemas.server";
import {
  randomToken,
  updateActive,
  type AuthSession,
  type AuthUser,
  type RequestMeta,
} from "~/server/auth/session.server";
import { isUniqueViolation, prisma, type Invitation, type Prisma } from "~/server/db.server";
import { loadEnv } from "~/server/env.server";
import { AppError, fail } from "~/server/errors.server";
import { sendMail } from "~/server/mail/index.server";
import {
  auditOrganization,
  membershipLimit,
  requireMembership,
  requirePermission,
  roleInput,
  roleTableOf,
  TEAM_MEMBER_LIMIT,
} from "./organizations.server";
import { couldInvite, mayAssign, parseRoles } from "./permissions.server";

/** Pending invitations an organization may have at once. */
const INVITATION_LIMIT = 100;
const INVITATION_EXPIRES_IN = 48 * 60 * 60; // seconds

export const inviteMemberInput = z.object({
  email: emailSchema,
  role: roleInput,
  organizationId: z.string().optional(),
  resend: z.boolean().optional(),
  teamId: z.union([z.string(), z.array(z.string())]).optional(),
});

/** Pending and unexpired: the only invitations that can still be answered. */
const open = (): Prisma.InvitationWhereInput => ({ status: "pending", expiresAt: { gt: new Date() } });

const expiry = () => new Date(Date.now() + INVITATION_EXPIRES_IN * 1000);

/** The team an invitation puts the user in: the first one named, in the organization and not full. */
async function invitedTeam(organizationId: string, teamId: string | string[] | undefined): Promise<string | null> {
  const id = Array.isArray(teamId) ? teamId[0] : teamId;
  if (!id) return null;
  const [team, members] = await Promise.all([
    prisma.team.findFirst({ where: { id, organizationId }, select: { id: true } }),
    prisma.teamMember.count({ where: { teamId: id } }),
  ]);
  if (!team) fail("TEAM_NOT_FOUND");
  if (members >= TEAM_MEMBER_LIMIT) fail("TEAM_MEMBER_LIMIT_REACHED");
  return id;
}

/** The invitation email, in the inviter's language: the link opens the invitation page. */
function sendInvitationMail(invitation: Invitation, organizationName: string, auth: AuthSession, meta: RequestMeta) {
  const url = `${loadEnv().BASE_URL}${localizePath(`/invitations/${invitation.id}`, meta.locale)}`;
  return sendMail({
    to: invitation.email,
    template: "organization-invitation",
    locale: meta.locale,
    data: { url, organizationName, inviterName: auth.user.name || auth.user.email, role: invitation.role },
  });
}

/**
 * Invites an email to the caller's (or the named) organization. With `resend`, a pending
 * invitation for the same email is sent again with a new expiry instead of being refused.
 */
export async function inviteMember(auth: AuthSession, input: z.infer<typeof inviteMemberInput>, meta: RequestMeta) {
  const inviter = await requireMembership(auth, input.organizationId, { notMember: "MEMBER_NOT_FOUND" });
  requirePermission(inviter, "invitation", ["create"], "YOU_ARE_NOT_ALLOWED_TO_INVITE_USERS_TO_THIS_ORGANIZATION");
  const role = parseRoles(input.role, inviter.roleTable);
  // better-auth answers an unknown role with a 400 that has no code.
  if (!role) throw new AppError(null, `Role not found: ${String(input.role)}`, 400);
  if (!mayAssign(inviter, role)) fail("YOU_ARE_NOT_ALLOWED_TO_INVITE_USER_WITH_THIS_ROLE");
  const { organizationId } = inviter;
  const email = normalizeEmail(input.email);
  if (await prisma.member.findFirst({ where: { organizationId, user: { email } }, select: { id: true } })) {
    fail("USER_IS_ALREADY_A_MEMBER_OF_THIS_ORGANIZATION");
  }
  const pending = await prisma.invitation.findFirst({ where: { organizationId, email, ...open() } });
  if (pending && !input.resend) fail("USER_IS_ALREADY_INVITED_TO_THIS_ORGANIZATION");
  if (pending && !mayAssign(inviter, pending.role)) {
    fail("YOU_ARE_NOT_ALLOWED_TO_INVITE_USER_WITH_THIS_ROLE");
  }
  const organization = await prisma.organization.findUniqueOrThrow({ where: { id: organizationId } });

  let invitation: Invitation;
  if (pending) {
    invitation = await prisma.invitation.update({ where: { id: pending.id }, data: { expiresAt: expiry() } });
  } else {
    if ((await prisma.invitation.count({ where: { organizationId, ...open() } })) >= INVITATION_LIMIT) {
      fail("INVITATION_LIMIT_REACHED");
    }
    invitation = await prisma.invitation.create({
      data: {
        // The id is what the emailed link carries: as unguessable as better-auth's default ids.
        id: randomToken(),
        organizationId,
        email,
        role,
        teamId: await invitedTeam(organizationId, input.teamId),
        inviterId: auth.user.id,
        expiresAt: expiry(),
      },
    });
  }
  await sendInvitationMail(invitation, organization.name, auth, meta);
  const action = pending ? "resend-invitation" : "invite-member";
  await auditOrganization(meta, auth.user.id, organizationId, action, "invitation", invitation.id, {
    organizationId,
    email,
    role: invitation.role,
    teamId: invitation.teamId,
  });
  return invitation;
}

/**
 * The one recipient rule, for answering, reading, listing and exporting invitations: they are
 * addressed to the user's email only once that email is verified. Anyone can sign up with, or
 * change their account to, an address they do not own; an invitation's id alone (it is in a
 * data download, a browser history) must not let them join as its owner. Null when unverified.
 */
export function addressedTo(user: Pick<AuthUser, "email" | "emailVerified">): { email: string } | null {
  return user.emailVerified ? { email: normalizeEmail(user.email) } : null;
}

/** Invitation `id` as its recipient may answer it: open, and addressed to the caller (see addressedTo). */
async function recipientsInvitation(auth: AuthSession, id: string) {
  const recipient = addressedTo(auth.user);
  if (!recipient) fail("EMAIL_VERIFICATION_REQUIRED_FOR_INVITATION");
  const invitation = await prisma.invitation.findFirst({ where: { id, ...open() } });
  if (!invitation) fail("INVITATION_NOT_FOUND");
  if (normalizeEmail(invitation.email) !== recipient.email) fail("YOU_ARE_NOT_THE_RECIPIENT_OF_THE_INVITATION");
  return invitation;
}

/**
 * Closes an open invitation with `status`. The status check is part of the update, so of two
 * answers arriving together only one finds the invitation still open.
 */
async function close(db: Pick<Prisma.TransactionClient, "invitation">, id: string, status: "accepted" | "rejected") {
  const { count } = await db.invitation.updateMany({ where: { id, ...open() }, data: { status } });
  if (count === 0) fail("INVITATION_NOT_FOUND");
  return db.invitation.findUniqueOrThrow({ where: { id } });
}

/**
 * An invitation speaks for its inviter: it stands only while they are a member who could still
 * send it (couldInvite). An admin removed or demoted since would otherwise still bring in the
 * admins they invited.
 */
async function requireInviterStands(db: Prisma.TransactionClient | typeof prisma, invitation: Invitation) {
  const inviter = await db.member.findUnique({
    where: { organizationId_userId: { organizationId: invitation.organizationId, userId: invitation.inviterId } },
    select: { role: true },
  });
  if (!inviter) fail("INVITER_IS_NO_LONGER_A_MEMBER_OF_THE_ORGANIZATION");
  const roleTable = await roleTableOf(invitation.organizationId, db);
  if (!couldInvite({ role: inviter.role, roleTable }, invitation.role))
    fail("INVITER_MAY_NO_LONGER_SEND_THIS_INVITATION");
}

/**
 * Accepts an invitation: the caller becomes a member with the invited role (and team), and
 * the organization becomes the session's active one. Returns the Set-Cookie lines of the
 * session's cookie cache.
 */
export async function acceptInvitation(auth: AuthSession, invitationId: string, meta: RequestMeta) {
  const { organizationId, teamId } = await recipientsInvitation(auth, invitationId);
  const { invitation, member } = await prisma
    .$transaction(async (tx) => {
      const invitation = await close(tx, invitationId, "accepted");
      await requireInviterStands(tx, invitation);
      if ((await tx.member.count({ where: { organizationId } })) >= membershipLimit()) {
        fail("ORGANIZATION_MEMBERSHIP_LIMIT_REACHED");
      }
      // The team may have been removed since the invitation was sent.
      if (teamId && !(await tx.team.findFirst({ where: { id: teamId, organizationId }, select: { id: true } }))) {
        fail("TEAM_NOT_FOUND");
      }
      const member = await tx.member.create({
        data: { organizationId, userId: auth.user.id, role: invitation.role, teamId },
      });
      if (teamId) await tx.teamMember.create({ data: { teamId, userId: auth.user.id } });
      return { invitation, member };
    })
    .catch((error: unknown) => {
      if (isUniqueViolation(error)) fail("USER_IS_ALREADY_A_MEMBER_OF_THIS_ORGANIZATION");
      throw error;
    });
  const { setCookies } = await updateActive(auth, { activeOrganizationId: organizationId, activeTeamId: teamId });
  await auditOrganization(meta, auth.user.id, organizationId, "accept-invitation", "invitation", invitationId, {
    organizationId,
    memberId: member.id,
    role: member.role,
  });
  return { invitation, member, setCookies };
}

export async function rejectInvitation(auth: AuthSession, invitationId: string, meta: RequestMeta) {
  const { organizationId } = await recipientsInvitation(auth, invitationId);
  const invitation = await close(prisma, invitationId, "rejected");
  await auditOrganization(meta, auth.user.id, organizationId, "reject-invitation", "invitation", invitationId, {
    organizationId,
  });
  return { invitation, member: null };
}

/** Cancels an invitation, whatever its state, for a member allowed to (invitation:cancel). */
export async function cancelInvitation(auth: AuthSession, invitationId: string, meta: RequestMeta) {
  const invitation = await prisma.invitation.findUnique({ where: { id: invitationId } });
  if (!invitation) fail("INVITATION_NOT_FOUND");
  const member = await requireMembership(auth, invitation.organizationId, { notMember: "MEMBER_NOT_FOUND" });
  requirePermission(member, "invitation", ["cancel"], "YOU_ARE_NOT_ALLOWED_TO_CANCEL_THIS_INVITATION");
  const canceled = await prisma.invitation.update({ where: { id: invitationId }, data: { status: "canceled" } });
  await auditOrganization(
    meta,
    auth.user.id,
    invitation.organizationId,
    "cancel-invitation",
    "invitation",
    invitationId,
    {
      organizationId: invitation.organizationId,
      email: invitation.email,
    },
  );
  return canceled;
}

/**
 * The address an open invitation was sent to, for the sign-up page it links to (which fixes
 * its email field to it); null for an unknown, answered, withdrawn or expired one. The id is
 * the secret of the invitation's own link, so the address tells its holder nothing new.
 */
export async function invitedAddress(invitationId: string): Promise<string | null> {
  const invitation = await prisma.invitation.findFirst({
    where: { id: invitationId, ...open() },
    select: { email: true },
  });
  return invitation?.email ?? null;
}

/** An open invitation for its recipient, with what the invitation page shows about it. */
export async function getInvitation(auth: AuthSession, invitationId: string) {
  const invitation = await recipientsInvitation(auth, invitationId);
  await requireInviterStands(prisma, invitation);
  const inviter = await prisma.member.findUnique({
    where: { organizationId_userId: { organizationId: invitation.organizationId, userId: invitation.inviterId } },
    include: { user: { select: { name: true, email: true } }, organization: { select: { name: true, slug: true } } },
  });
  if (!inviter) fail("INVITER_IS_NO_LONGER_A_MEMBER_OF_THE_ORGANIZATION");
  return {
    ...invitation,
    organizationName: inviter.organization.name,
    organizationSlug: inviter.organization.slug,
    inviterName: inviter.user.name,
    inviterEmail: inviter.user.email,
  };
}

/** Every invitation of the caller's (or the named) organization, whatever its status, newest first. */
export async function listInvitations(auth: AuthSession, organizationId?: string) {
  const member = await requireMembership(auth, organizationId, {
    missing: "ORGANIZATION_ID_REQUIRED",
    notMember: "YOU_ARE_NOT_A_MEMBER_OF_THIS_ORGANIZATION",
  });
  return prisma.invitation.findMany({
    where: { organizationId: member.organizationId },
    orderBy: { createdAt: "desc" },
  });
}

/** The open invitations addressed to the caller, with the organization's name. */
export async function listUserInvitations(auth: AuthSession) {
  const recipient = addressedTo(auth.user);
  if (!recipient) fail("EMAIL_VERIFICATION_REQUIRED_FOR_INVITATION");
  const rows = await prisma.invitation.findMany({
    where: { ...recipient, ...open() },
    include: { organization: { select: { name: true } } },
    orderBy: { createdAt: "desc" },
  });
  return rows.map(({ organization, ...invitation }) => ({ ...invitation, organizationName: organization.name }));
}
