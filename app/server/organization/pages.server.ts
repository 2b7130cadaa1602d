/**
 * What the organization pages need around the organization verbs: the organization of a
 * page's `:slug` (a 404 to anyone outside it), a page of its members, the caller's
 * organizations with their roles, a free slug for a name, the page strings, and the
 * invitations and teams the page lists.
 */
import type { RouterContextProvider } from "react-router";
import { SLUG_MAX } from "~/lib/form-limits";
import { slugify } from "~/lib/organization-paths";
import type { AuthSession } from "~/server/auth/session.server";
import { containing, prisma } from "~/server/db.server";
import { requireAuthSession } from "~/server/auth/guards.server";
import { fail, isAppError } from "~/server/errors.server";
import { getInstance, getLocale, notFound } from "~/server/i18n.server";
import { listInvitations } from "./invitations.server";
import { can, holds, type RoleTable } from "./permissions.server";
import { listRoles } from "./roles.server";
import {
  checkSlug,
  type Caller,
  memberUser,
  membershipOf,
  organizationOut,
  roleTableOf,
  setActiveOrganization,
} from "./organizations.server";

/** How many members the organization page lists at once. */
const MEMBERS_PAGE_SIZE = 50;
/** How many members outside a team its dialog offers to add at once; a search finds the others. */
const TEAM_CANDIDATES = 10;

/** The organization strings in the page's language (toasts, titles). */
export function organizationT(context: Readonly<RouterContextProvider>) {
  return getInstance(context).getFixedT(getLocale(context), "organization");
}

/**
 * The organization named by the URL and the caller's membership in it. One the caller does
 * not belong to is answered like one that does not exist: its slug tells outsiders nothing.
 *
 * The workspace's layout and its section ask at the same moment: while one request's read
 * is under way, a second ask joins it. A read that has ended is not kept, so what a page's
 * loaders read after its action is always new.
 */
export function organizationOfPage(url: URL, auth: AuthSession, slug: string) {
  let reads = readsUnderWay.get(auth);
  if (!reads) readsUnderWay.set(auth, (reads = new Map()));
  let read = reads.get(slug);
  if (!read) {
    read = readOrganizationOfPage(url, auth, slug).finally(() => reads.delete(slug));
    reads.set(slug, read);
  }
  return read;
}

/** The reads of organizationOfPage under way, by the request's session (one object per request) and slug. */
const readsUnderWay = new WeakMap<AuthSession, Map<string, ReturnType<typeof readOrganizationOfPage>>>();

async function readOrganizationOfPage(url: URL, auth: AuthSession, slug: string) {
  const organization = await prisma.organization.findUnique({ where: { slug } });
  const member = organization && (await membershipOf(auth.user.id, organization.id));
  if (!organization || !member) notFound(url.pathname);
  const caller: Caller = { ...member, roleTable: await roleTableOfRequest(auth, organization.id) };
  return { organization: organizationOut(organization), caller };
}

/**
 * The role table of `organizationId` as one request's loaders read it: the shell's menu, an
 * organization's pages and the dashboard each need it, and read it once between them. Kept
 * by the request's session (one object per request), so for that request only: an action
 * that changes a role runs before the loaders that read this, and the next request reads
 * the table anew. Actions decide with their own read (roleTableOf, in their transaction).
 */
export function roleTableOfRequest(auth: AuthSession, organizationId: string): Promise<RoleTable> {
  let tables = roleTablesOfRequest.get(auth);
  if (!tables) roleTablesOfRequest.set(auth, (tables = new Map()));
  let table = tables.get(organizationId);
  if (!table) tables.set(organizationId, (table = roleTableOf(organizationId)));
  return table;
}

const roleTablesOfRequest = new WeakMap<AuthSession, Map<string, Promise<RoleTable>>>();

/**
 * Page `requested` of an organization's members with their users, oldest first, and how
 * many there are in all. A page past the last shows the last, which a removal may have
 * emptied. The id breaks ties: members added together share a createdAt, and paging by
 * offset needs one fixed order.
 */
export async function membersOfPage(organizationId: string, requested: number) {
  const where = { organizationId };
  const total = await prisma.member.count({ where });
  const pages = Math.max(1, Math.ceil(total / MEMBERS_PAGE_SIZE));
  const page = Math.min(requested, pages);
  const members = await prisma.member.findMany({
    where,
    include: { user: memberUser },
    orderBy: [{ createdAt: "asc" }, { id: "asc" }],
    skip: (page - 1) * MEMBERS_PAGE_SIZE,
    take: MEMBERS_PAGE_SIZE,
  });
  return { members, total, page, pages };
}

/** The member of the organization that `where` names, with their user; null when there is none. */
export function memberOfPage(organizationId: string, where: { id: string } | { userId: string }) {
  return prisma.member.findFirst({ where: { organizationId, ...where }, include: { user: memberUser } });
}

/** The caller's organizations, oldest first, each with the caller's role in it. */
export async function organizationsWithRoles(userId: string) {
  const memberships = await prisma.member.findMany({
    where: { userId },
    include: { organization: { select: { id: true, name: true, slug: true, logo: true } } },
    orderBy: { organization: { createdAt: "asc" } },
  });
  return memberships.map(({ organization, role }) => ({ ...organization, role }));
}

/**
 * A slug for `name` that no organization holds yet: the name's own, else with a number or a
 * random suffix (room is kept for one). A name in another script gives "org…".
 */
export async function freeSlug(name: string): Promise<string> {
  const base =
    slugify(name)
      .slice(0, SLUG_MAX - 7)
      .replace(/-+$/, "") || "org";
  const candidates = [base, ...[2, 3, 4, 5].map((n) => `${base}-${n}`)];
  for (const candidate of candidates) {
    if (await isFree(candidate)) return candidate;
  }
  return `${base}-${crypto.randomUUID().slice(0, 6)}`;
}

async function isFree(slug: string): Promise<boolean> {
  try {
    await checkSlug(slug);
    return true;
  } catch (error) {
    if (isAppError(error)) return false;
    throw error;
  }
}

/**
 * Leaving or deleting the active organization clears it in the database; this is the
 * caller's cookie cache without it, which would otherwise still name it for a minute.
 */
export async function clearedActive(auth: AuthSession, organizationId: string): Promise<string[]> {
  if (auth.session.activeOrganizationId !== organizationId) return [];
  return (await setActiveOrganization(auth, { organizationId: null })).setCookies;
}

/** Name and slug of an organization the caller just joined (for where to go next). */
export function organizationById(id: string) {
  return prisma.organization.findUniqueOrThrow({ where: { id }, select: { name: true, slug: true } });
}

/**
 * An organization's invitations for its page, newest first, split in two: the open ones (to
 * resend or cancel) and the history (answered, canceled, or past their expiry, which read
 * "expired"), of which only the latest HISTORY_SHOWN are listed, with how many there are.
 */
export async function invitationsOfPage(auth: AuthSession, organizationId: string) {
  const now = Date.now();
  const rows = (await listInvitations(auth, organizationId)).map((invitation) => ({
    id: invitation.id,
    email: invitation.email,
    role: invitation.role,
    status: invitation.status === "pending" && invitation.expiresAt.getTime() <= now ? "expired" : invitation.status,
    expiresAt: invitation.expiresAt.toISOString(),
  }));
  const history = rows.filter((invitation) => invitation.status !== "pending");
  return {
    pending: rows.filter((invitation) => invitation.status === "pending"),
    history: history.slice(0, HISTORY_SHOWN),
    historyTotal: history.length,
  };
}

/** How many invitations of its history the invitations section lists (the latest). */
const HISTORY_SHOWN = 20;

/** What an organization's overview counts: its members, open invitations and teams. */
export async function organizationCounts(organizationId: string) {
  const [members, invitations, teams] = await Promise.all([
    prisma.member.count({ where: { organizationId } }),
    prisma.invitation.count({ where: { organizationId, status: "pending", expiresAt: { gt: new Date() } } }),
    prisma.team.count({ where: { organizationId } }),
  ]);
  return { members, invitations, teams };
}

/**
 * Invitation `id` of the page's organization, for its Resend and Cancel buttons: one of
 * another organization, or one no longer pending, is not found here.
 */
export async function pendingInvitationOfPage(auth: AuthSession, organizationId: string, id: string) {
  const invitation = (await listInvitations(auth, organizationId)).find((row) => row.id === id);
  if (invitation?.status !== "pending") fail("INVITATION_NOT_FOUND");
  return invitation;
}

/** An organization's teams, oldest first, with how many people each has. */
export async function teamsOfPage(organizationId: string) {
  const teams = await prisma.team.findMany({
    where: { organizationId },
    select: { id: true, name: true },
    orderBy: { createdAt: "asc" },
  });
  const counts = await prisma.teamMember.groupBy({
    by: ["teamId"],
    where: { teamId: { in: teams.map((team) => team.id) } },
    _count: { _all: true },
  });
  const members = new Map(counts.map((row) => [row.teamId, row._count._all]));
  return teams.map(({ id, name }) => ({ id, name, memberCount: members.get(id) ?? 0 }));
}

/**
 * The team of a page's `:teamId` in the page's organization (a 404 otherwise) and the people
 * in it, at most TEAM_MEMBER_LIMIT. Read here rather than with listTeamMembers, which answers
 * only the team's own members: an admin manages teams they are not in.
 */
async function teamOfPage(url: URL, organizationId: string, teamId: string) {
  const team = await prisma.team.findFirst({
    where: { id: teamId, organizationId },
    include: { members: { include: { user: memberUser }, orderBy: { createdAt: "asc" } } },
  });
  if (!team) notFound(url.pathname);
  const members = team.members.map(({ user }) => ({ userId: user.id, name: user.name, email: user.email }));
  return { id: team.id, name: team.name, members };
}

/**
 * Members of the organization outside `team` whose name or email contains `query` (all of
 * them for an empty one), oldest first: at most TEAM_CANDIDATES, and whether there are more.
 */
export async function teamCandidates(organizationId: string, team: { members: { userId: string }[] }, query: string) {
  const rows = await prisma.member.findMany({
    where: {
      organizationId,
      userId: { notIn: team.members.map((member) => member.userId) },
      // A banned user cannot work in a team: they are not offered (a ban past its expiry is over).
      user: {
        AND: [
          { OR: [{ banned: false }, { banExpires: { lte: new Date() } }] },
          ...(query ? [{ OR: [{ name: containing(query) }, { email: containing(query) }] }] : []),
        ],
      },
    },
    include: { user: memberUser },
    orderBy: [{ createdAt: "asc" }, { id: "asc" }],
    take: TEAM_CANDIDATES + 1,
  });
  const candidates = rows
    .slice(0, TEAM_CANDIDATES)
    .map(({ user }) => ({ userId: user.id, name: user.name, email: user.email }));
  return { candidates, more: rows.length > TEAM_CANDIDATES };
}

/**
 * The organization of the URL and its team `teamId`, for a signed-in caller (the menu layout
 * makes sure); a 404 to outsiders and for another organization's team.
 */
export async function teamOfRequest({
  url,
  context,
  params,
}: {
  url: URL;
  context: Readonly<RouterContextProvider>;
  params: { slug: string; teamId: string };
}) {
  const auth = requireAuthSession(context);
  const { organization, caller } = await organizationOfPage(url, auth, params.slug);
  const team = await teamOfPage(url, organization.id, params.teamId);
  return { auth, organization, caller, team };
}

/** The signed-in shell's switcher: the user's organizations and the session's active one. */
export async function shellOf(auth: AuthSession) {
  const activeOrganizationId = auth.session.activeOrganizationId ?? null;
  const memberships = await prisma.member.findMany({
    where: { userId: auth.user.id },
    select: { role: true, organization: { select: { id: true, name: true, slug: true } } },
    orderBy: { organization: { createdAt: "asc" } },
  });
  const membership = memberships.find(({ organization }) => organization.id === activeOrganizationId);
  const active = membership && {
    role: membership.role,
    roleTable: await roleTableOfRequest(auth, membership.organization.id),
  };
  return {
    organizations: memberships.map(({ organization }) => organization),
    activeOrganizationId,
    // The invitations section is for the roles that send or withdraw invitations.
    mayInvite: active ? can(active, "invitation", ["create"]) || can(active, "invitation", ["cancel"]) : false,
    // The single sign-on section is for the roles that manage it.
    mayManageSso: active ? can(active, "sso", ["manage"]) : false,
    // The audit log is for the roles that may read it.
    mayReadAuditLog: active ? can(active, "auditLog", ["read"]) : false,
    // Outgoing webhooks are for the roles that manage them.
    mayManageWebhooks: active ? can(active, "webhook", ["manage"]) : false,
  };
}

/** Whether `name` is one of the roles of the comma-separated `role`. */
const hasRole = (role: string, name: string) => role.split(",").some((part) => part.trim() === name);

/** The organization's custom roles for its roles section (the caller may read them), with how many members have each. */
export async function rolesOfPage(auth: AuthSession, organizationId: string) {
  const [roles, members] = await Promise.all([
    listRoles(auth, organizationId),
    prisma.member.findMany({ where: { organizationId }, select: { role: true } }),
  ]);
  return roles.map(({ id, role, permission }) => ({
    id,
    role,
    permission,
    memberCount: members.filter((member) => hasRole(member.role, role)).length,
  }));
}

/**
 * The organization of the URL and its custom role `roleId`, for a caller who may read its
 * roles; a 404 to everyone else and for another organization's role. `editable` when the
 * caller may change roles and holds all the role grants (no one trims a role above them).
 */
export async function roleOfPage(url: URL, auth: AuthSession, slug: string, roleId: string) {
  const { organization, caller } = await organizationOfPage(url, auth, slug);
  if (!can(caller, "ac", ["read"])) notFound(url.pathname);
  const role = (await rolesOfPage(auth, organization.id)).find((row) => row.id === roleId);
  if (!role) notFound(url.pathname);
  const editable = can(caller, "ac", ["update"]) && holds(caller, role.permission);
  return { organization, caller, role, editable };
}
