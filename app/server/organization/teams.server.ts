/**
 * Teams of an organization (better-auth 1.7's team routes are the wire contract, codes and
 * statuses included; a team name has at least one character, where better-auth accepts an
 * empty one): the verbs the /api/auth/organization team endpoints call. Permissions come
 * from permissions.server.ts only; every change is audited with category "organization".
 */
import { z } from "zod";
import { isUniqueViolation, prisma } from "~/server/db.server";
import { loadEnv } from "~/server/env.server";
import { fail } from "~/server/errors.server";
import { clearActiveTeam, updateActive, type AuthSession, type RequestMeta } from "~/server/auth/session.server";
import {
  auditOrganization,
  membershipOf,
  requireMembership,
  requirePermission,
  TEAM_MEMBER_LIMIT,
} from "./organizations.server";

export const TEAM_LIMIT = 100;

// ---- input schemas ----

const teamName = z.string().trim().min(1);

export const createTeamInput = z.object({ name: teamName, organizationId: z.string().optional() });

export const updateTeamInput = z.object({
  teamId: z.string().min(1),
  // As in better-auth, organizationId only says which organization to find the team in.
  data: z.object({ name: teamName.optional(), organizationId: z.string().optional() }),
});

export const teamInput = z.object({ teamId: z.string().min(1), organizationId: z.string().optional() });

export const teamMemberInput = teamInput.extend({ userId: z.string().min(1) });

// ---- helpers ----

/** The team `teamId` of `organizationId`, or TEAM_NOT_FOUND. */
async function teamOf(teamId: string, organizationId: string) {
  const team = await prisma.team.findFirst({ where: { id: teamId, organizationId } });
  if (!team) fail("TEAM_NOT_FOUND");
  return team;
}

/** Whether `userId` is in the team and still a member of its organization. */
async function inTeam(userId: string, team: { id: string; organizationId: string }) {
  const [member, teamMember] = await Promise.all([
    membershipOf(userId, team.organizationId),
    prisma.teamMember.findUnique({ where: { teamId_userId: { teamId: team.id, userId } } }),
  ]);
  return Boolean(member && teamMember);
}

/** The teams `userId` is in, within organizations they still belong to. */
function teamsOf(userId: string, organizationId?: string) {
  return prisma.team.findMany({
    where: { organizationId, members: { some: { userId } }, organization: { members: { some: { userId } } } },
    orderBy: { createdAt: "asc" },
  });
}

// ---- teams ----

export async function createTeam(auth: AuthSession, input: z.infer<typeof createTeamInput>, meta: RequestMeta) {
  const member = await requireMembership(auth, input.organizationId, {
    missing: "NO_ACTIVE_ORGANIZATION",
    // better-auth's answer to a non-member here, kept so clients see the same code.
    notMember: "YOU_ARE_NOT_ALLOWED_TO_INVITE_USERS_TO_THIS_ORGANIZATION",
  });
  requirePermission(member, "team", ["create"], "YOU_ARE_NOT_ALLOWED_TO_CREATE_TEAMS_IN_THIS_ORGANIZATION");
  const { organizationId } = member;
  if ((await prisma.team.count({ where: { organizationId } })) >= TEAM_LIMIT) {
    fail("YOU_HAVE_REACHED_THE_MAXIMUM_NUMBER_OF_TEAMS");
  }
  const team = await prisma.team.create({ data: { name: input.name, organizationId } });
  await auditOrganization(meta, auth.user.id, organizationId, "create-team", "team", team.id, {
    organizationId,
    name: team.name,
  });
  return team;
}

export async function updateTeam(auth: AuthSession, input: z.infer<typeof updateTeamInput>, meta: RequestMeta) {
  const member = await requireMembership(auth, input.data.organizationId, {
    missing: "NO_ACTIVE_ORGANIZATION",
    notMember: "YOU_ARE_NOT_ALLOWED_TO_UPDATE_THIS_TEAM",
  });
  requirePermission(member, "team", ["update"], "YOU_ARE_NOT_ALLOWED_TO_UPDATE_THIS_TEAM");
  const team = await teamOf(input.teamId, member.organizationId);
  const updated = await prisma.team.update({ where: { id: team.id }, data: { name: input.data.name } });
  await auditOrganization(meta, auth.user.id, team.organizationId, "update-team", "team", team.id, {
    organizationId: team.organizationId,
    from: team.name,
    to: updated.name,
  });
  return updated;
}

/**
 * Removes a team with its memberships; pending invitations stop naming it and sessions that
 * had it active lose it. An organization keeps its last team unless
 * ORGANIZATION_ALLOW_REMOVING_ALL_TEAMS.
 */
export async function removeTeam(auth: AuthSession, input: z.infer<typeof teamInput>, meta: RequestMeta) {
  const member = await requireMembership(auth, input.organizationId, {
    missing: "NO_ACTIVE_ORGANIZATION",
    notMember: "YOU_ARE_NOT_ALLOWED_TO_DELETE_THIS_TEAM",
  });
  // As in better-auth: not the team the caller's own session is working in.
  if (auth.session.activeTeamId === input.teamId) fail("YOU_ARE_NOT_ALLOWED_TO_DELETE_THIS_TEAM");
  requirePermission(member, "team", ["delete"], "YOU_ARE_NOT_ALLOWED_TO_DELETE_TEAMS_IN_THIS_ORGANIZATION");
  const { organizationId } = member;
  const team = await teamOf(input.teamId, organizationId);
  const mayRemoveLast = loadEnv().ORGANIZATION_ALLOW_REMOVING_ALL_TEAMS;
  if (!mayRemoveLast && (await prisma.team.count({ where: { organizationId } })) <= 1) {
    fail("UNABLE_TO_REMOVE_LAST_TEAM");
  }
  await prisma.$transaction(async (tx) => {
    await tx.team.delete({ where: { id: team.id } }); // its team members go by cascade
    // An invitation's teamId is a comma-separated list.
    const invitations = await tx.invitation.findMany({
      where: { organizationId, status: "pending", teamId: { contains: team.id } },
    });
    for (const invitation of invitations) {
      const rest = invitation.teamId!.split(",").filter((id) => id !== team.id);
      await tx.invitation.update({ where: { id: invitation.id }, data: { teamId: rest.join(",") || null } });
    }
    await clearActiveTeam(team.id, tx);
  });
  await auditOrganization(meta, auth.user.id, organizationId, "remove-team", "team", team.id, {
    organizationId,
    name: team.name,
  });
  return { message: "Team removed successfully." };
}

/** The teams of the named (else the active) organization; the caller must belong to it. */
export async function listTeams(auth: AuthSession, organizationId: string | undefined) {
  const member = await requireMembership(auth, organizationId, {
    missing: "NO_ACTIVE_ORGANIZATION",
    notMember: "YOU_ARE_NOT_A_MEMBER_OF_THIS_ORGANIZATION",
  });
  return prisma.team.findMany({ where: { organizationId: member.organizationId }, orderBy: { createdAt: "asc" } });
}

/**
 * Sets the session's active team, a team of its active organization that the caller is in;
 * null unsets it, and no teamId keeps (and re-checks) the current one.
 */
export async function setActiveTeam(auth: AuthSession, teamId: string | null | undefined) {
  if (teamId === null) {
    if (!auth.session.activeTeamId) return { team: null, setCookies: [] };
    const { setCookies } = await updateActive(auth, { activeTeamId: null });
    return { team: null, setCookies };
  }
  const id = teamId || auth.session.activeTeamId;
  if (!id) return { team: null, setCookies: [] };
  const organizationId = auth.session.activeOrganizationId;
  if (!organizationId) fail("NO_ACTIVE_ORGANIZATION");
  const team = await teamOf(id, organizationId);
  if (!(await inTeam(auth.user.id, team))) fail("USER_IS_NOT_A_MEMBER_OF_THE_TEAM", undefined, 403);
  const { setCookies } = await updateActive(auth, { activeTeamId: team.id });
  return { team, setCookies };
}

/**
 * The caller's teams, across all their organizations unless one is named. Another member's
 * teams (in the named or active organization) need member:update there.
 */
export async function listUserTeams(auth: AuthSession, input: { userId?: string; organizationId?: string }) {
  const userId = input.userId || auth.user.id;
  const self = userId === auth.user.id;
  if (self && !input.organizationId) return teamsOf(userId);
  const caller = await requireMembership(auth, input.organizationId, {
    missing: "NO_ACTIVE_ORGANIZATION",
    notMember: "YOU_ARE_NOT_A_MEMBER_OF_THIS_ORGANIZATION",
  });
  if (!self) {
    requirePermission(caller, "member", ["update"], "YOU_ARE_NOT_ALLOWED_TO_UPDATE_THIS_MEMBER");
    if (!(await membershipOf(userId, caller.organizationId))) {
      fail("USER_IS_NOT_A_MEMBER_OF_THE_ORGANIZATION", undefined, 400);
    }
  }
  return teamsOf(userId, caller.organizationId);
}

/** The members of the named (else the active) team; only its own members may list them. */
export async function listTeamMembers(auth: AuthSession, teamId: string | undefined) {
  const id = teamId || auth.session.activeTeamId;
  if (!id) fail("YOU_DO_NOT_HAVE_AN_ACTIVE_TEAM");
  const team = await prisma.team.findUnique({ where: { id } });
  if (!team) fail("TEAM_NOT_FOUND");
  if (!(await inTeam(auth.user.id, team))) fail("YOU_CAN_NOT_ACCESS_THE_MEMBERS_OF_THIS_TEAM");
  return prisma.teamMember.findMany({ where: { teamId: id }, orderBy: { createdAt: "asc" } });
}

// ---- team members ----

/**
 * Puts a member of the organization in one of its teams (member:update, as in better-auth),
 * within TEAM_MEMBER_LIMIT. Adding someone already there answers their team member row.
 */
export async function addTeamMember(auth: AuthSession, input: z.infer<typeof teamMemberInput>, meta: RequestMeta) {
  const caller = await requireMembership(auth, input.organizationId, {
    missing: "NO_ACTIVE_ORGANIZATION",
    status: 400,
  });
  requirePermission(caller, "member", ["update"], "YOU_ARE_NOT_ALLOWED_TO_CREATE_A_NEW_TEAM_MEMBER");
  const { organizationId } = caller;
  if (!(await membershipOf(input.userId, organizationId))) {
    fail("USER_IS_NOT_A_MEMBER_OF_THE_ORGANIZATION", undefined, 400);
  }
  const team = await teamOf(input.teamId, organizationId);
  const key = { teamId_userId: { teamId: team.id, userId: input.userId } };
  const existing = await prisma.teamMember.findUnique({ where: key });
  if (existing) return existing;
  if ((await prisma.teamMember.count({ where: { teamId: team.id } })) >= TEAM_MEMBER_LIMIT) {
    fail("TEAM_MEMBER_LIMIT_REACHED");
  }
  try {
    const teamMember = await prisma.teamMember.create({ data: { teamId: team.id, userId: input.userId } });
    await auditOrganization(meta, auth.user.id, organizationId, "add-team-member", "team", team.id, {
      organizationId,
      userId: input.userId,
    });
    return teamMember;
  } catch (error) {
    // A concurrent call added them first.
    if (isUniqueViolation(error)) return prisma.teamMember.findUniqueOrThrow({ where: key });
    throw error;
  }
}

/** Takes a member out of a team (member:delete). */
export async function removeTeamMember(auth: AuthSession, input: z.infer<typeof teamMemberInput>, meta: RequestMeta) {
  const caller = await requireMembership(auth, input.organizationId, {
    missing: "NO_ACTIVE_ORGANIZATION",
    status: 400,
  });
  requirePermission(caller, "member", ["delete"], "YOU_ARE_NOT_ALLOWED_TO_REMOVE_A_TEAM_MEMBER");
  const { organizationId } = caller;
  if (!(await membershipOf(input.userId, organizationId))) {
    fail("USER_IS_NOT_A_MEMBER_OF_THE_ORGANIZATION", undefined, 400);
  }
  const team = await teamOf(input.teamId, organizationId);
  const { count } = await prisma.teamMember.deleteMany({ where: { teamId: team.id, userId: input.userId } });
  if (!count) fail("USER_IS_NOT_A_MEMBER_OF_THE_TEAM");
  await auditOrganization(meta, auth.user.id, organizationId, "remove-team-member", "team", team.id, {
    organizationId,
    userId: input.userId,
  });
  return { message: "Team member removed successfully." };
}
