/**
 * What a SCIM User's state means in the organization: an active one is a member (role
 * `member`, or `admin` while in the SCIM Group named Admins); a deactivated or deleted one is
 * not, and every session of theirs ends at once on every instance (the same path as an
 * admin's ban). The directory never makes or unmakes an owner: an owner keeps their role and
 * their membership (deactivating or deleting one is refused), as no admin may remove an owner;
 * owners are managed in the organization.
 */
import { audit } from "~/server/audit.server";
import { deleteSessions, type RequestMeta } from "~/server/auth/session.server";
import type { Prisma } from "~/server/db.server";
import { membershipLimit } from "~/server/organization/organizations.server";
import { isOwner } from "~/server/organization/permissions.server";
import { scimFail } from "./protocol.server";
import type { ScimCaller } from "./tokens.server";

type Tx = Prisma.TransactionClient;

/** The Group whose members are the organization's admins (any case). */
export const isAdminsGroup = (displayName: string) => displayName.trim().toLowerCase() === "admins";

/** What a sync changed in the organization. */
export type MembershipChange =
  { kind: "added"; role: string } | { kind: "removed" } | { kind: "role"; from: string; to: string } | null;

/** Makes the membership of a SCIM User's product user what its state says, in transaction `tx`. */
export async function syncMembership(
  tx: Tx,
  organizationId: string,
  scimUser: { id: string; userId: string; active: boolean },
): Promise<MembershipChange> {
  const { userId } = scimUser;
  const member = await tx.member.findUnique({ where: { organizationId_userId: { organizationId, userId } } });
  if (!scimUser.active) {
    if (!member) return null;
    if (isOwner(member.role)) {
      scimFail(400, "An owner of the organization cannot be deactivated or deleted by its directory", "mutability");
    }
    await tx.teamMember.deleteMany({ where: { userId, team: { organizationId } } });
    await tx.member.delete({ where: { id: member.id } });
    return { kind: "removed" };
  }
  const groups = await tx.scimGroupMember.findMany({
    where: { scimUserId: scimUser.id },
    select: { group: { select: { displayName: true } } },
  });
  const role = groups.some(({ group }) => isAdminsGroup(group.displayName)) ? "admin" : "member";
  if (!member) {
    if ((await tx.member.count({ where: { organizationId } })) >= membershipLimit()) {
      scimFail(403, "The organization has reached its membership limit");
    }
    await tx.member.create({ data: { organizationId, userId, role } });
    return { kind: "added", role };
  }
  if (isOwner(member.role) || member.role === role) return null;
  await tx.member.update({ where: { id: member.id }, data: { role } });
  return { kind: "role", from: member.role, to: role };
}

/**
 * Ends every session of `userId` now, on every instance, and every sign-in waiting for its
 * second step (as a ban does), in transaction `tx`. The account itself stays.
 */
export async function endAccess(tx: Tx, userId: string): Promise<void> {
  await deleteSessions(userId, {}, tx);
  await tx.pendingSignIn.deleteMany({ where: { userId } });
}

/** What every SCIM audit row says about who acted: the token, its connection and organization. */
export const scimDetails = (caller: ScimCaller) => ({
  organizationId: caller.organizationId,
  providerId: caller.providerId,
  tokenId: caller.tokenId,
});

/** Audits a role that a sync changed (joining or leaving Admins); the other changes are their verb's. */
export async function auditRoleChange(caller: ScimCaller, meta: RequestMeta, userId: string, change: MembershipChange) {
  if (change?.kind !== "role") return;
  await audit({
    userId: null,
    category: "scim",
    action: "scim-set-role",
    status: "success",
    targetType: "user",
    targetId: userId,
    organizationId: caller.organizationId,
    details: { ...scimDetails(caller), from: change.from, to: change.to },
    meta,
  });
}
