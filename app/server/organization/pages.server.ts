/**
 * What the organization pages need around the organization verbs: the organization of a
 * page's `:slug` (a 404 to anyone outside it), the caller's organizations with their roles,
 * a free slug for a name, the page strings, and the invitations and teams the page lists.
 */
import type { RouterContextProvider } from "react-router";
import { SLUG_MAX, slugify } from "~/lib/organization-forms";
import type { AuthSession } from "~/server/auth/session.server";
import { prisma } from "~/server/db.server";
import { getAuthSession, requireUser } from "~/server/auth/guards.server";
import { fail, isAppError } from "~/server/errors.server";
import { pageLocale } from "~/server/forms.server";
import { getInstance, notFound } from "~/server/i18n.server";
import { listInvitations } from "./invitations.server";
import { checkSlug, getFullOrganization, setActiveOrganization } from "./organizations.server";

/** The organization strings in the page's language (toasts, titles). */
export function organizationT(context: Readonly<RouterContextProvider>) {
  return getInstance(context).getFixedT(pageLocale(context), "organization");
}

const OUTSIDE = ["ORGANIZATION_NOT_FOUND", "USER_IS_NOT_A_MEMBER_OF_THE_ORGANIZATION"];

/**
 * The organization named by the URL, with its members and the caller's membership. One the
 * caller does not belong to is answered like one that does not exist: its slug tells
 * outsiders nothing.
 */
export async function organizationOfPage(request: Request, auth: AuthSession, slug: string) {
  const missing: () => never = () => notFound(new URL(request.url).pathname);
  let organization;
  try {
    organization = await getFullOrganization(auth, { organizationSlug: slug });
  } catch (error) {
    if (isAppError(error) && OUTSIDE.includes(error.code ?? "")) missing();
    throw error;
  }
  if (!organization) missing();
  // The membership was checked; the list holds every member (at most MEMBERSHIP_LIMIT).
  const caller = organization.members.find((member) => member.userId === auth.user.id);
  if (!caller) missing();
  return { organization, caller };
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

/** An organization's invitations for its page, newest first; a pending one past its expiry reads "expired". */
export async function invitationsOfPage(auth: AuthSession, organizationId: string) {
  const now = Date.now();
  return (await listInvitations(auth, organizationId)).map((invitation) => ({
    id: invitation.id,
    email: invitation.email,
    role: invitation.role,
    status: invitation.status === "pending" && invitation.expiresAt.getTime() <= now ? "expired" : invitation.status,
    expiresAt: invitation.expiresAt.toISOString(),
  }));
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
    include: { _count: { select: { members: true } } },
    orderBy: { createdAt: "asc" },
  });
  return teams.map(({ id, name, _count }) => ({ id, name, memberCount: _count.members }));
}

/**
 * The team of a page's `:teamId` in the page's organization (a 404 otherwise) and the ids of
 * the users in it. Read here rather than with listTeamMembers, which answers only the team's
 * own members: an admin manages teams they are not in.
 */
export async function teamOfPage(request: Request, organizationId: string, teamId: string) {
  const team = await prisma.team.findFirst({
    where: { id: teamId, organizationId },
    include: { members: { select: { userId: true }, orderBy: { createdAt: "asc" } } },
  });
  if (!team) notFound(new URL(request.url).pathname);
  return { id: team.id, name: team.name, userIds: team.members.map((member) => member.userId) };
}

/**
 * The organization of the URL and its team `teamId`, for a signed-in caller (the menu layout
 * makes sure); a 404 to outsiders and for another organization's team.
 */
export async function teamOfRequest({
  request,
  context,
  params,
}: {
  request: Request;
  context: Readonly<RouterContextProvider>;
  params: { slug: string; teamId: string };
}) {
  requireUser(request, context);
  const auth = getAuthSession(context)!;
  const { organization, caller } = await organizationOfPage(request, auth, params.slug);
  const team = await teamOfPage(request, organization.id, params.teamId);
  return { auth, organization, caller, team };
}
