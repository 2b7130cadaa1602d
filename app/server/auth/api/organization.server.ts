/**
 * Organization and member endpoints of /api/auth/organization (better-auth's organization
 * plugin contract). The verbs are in app/server/organization/organizations.server.ts;
 * invitations and teams have their own endpoint modules.
 */
import { z } from "zod";
import {
  checkSlug,
  createOrganization,
  createOrganizationInput,
  deleteOrganization,
  getActiveMember,
  getActiveMemberRole,
  getFullOrganization,
  leaveOrganization,
  listMembers,
  listMembersInput,
  listOrganizations,
  removeMember,
  roleInput,
  setActiveOrganization,
  updateMemberRole,
  updateOrganization,
  updateOrganizationInput,
} from "~/server/organization/organizations.server";
import { endpoint, param, type Endpoint } from "./endpoint.server";

const P = "/organization";

export const endpoints: Endpoint[] = [
  endpoint({
    method: "POST",
    path: `${P}/create`,
    body: createOrganizationInput,
    async handler({ body, meta, cookies, requireSession }) {
      const { organization, setCookies } = await createOrganization({ auth: await requireSession() }, body, meta);
      cookies.push(...setCookies);
      return organization;
    },
  }),

  endpoint({
    method: "POST",
    path: `${P}/check-slug`,
    body: z.object({ slug: z.string().min(1) }),
    async handler({ body, requireSession }) {
      await requireSession();
      await checkSlug(body.slug);
      return { status: true };
    },
  }),

  endpoint({
    method: "POST",
    path: `${P}/update`,
    body: updateOrganizationInput,
    async handler({ body, meta, requireSession }) {
      return updateOrganization(await requireSession(), body, meta);
    },
  }),

  endpoint({
    method: "POST",
    path: `${P}/delete`,
    body: z.object({ organizationId: z.string().min(1) }),
    async handler({ body, meta, cookies, requireSession }) {
      const auth = await requireSession();
      const deleted = await deleteOrganization(auth, body.organizationId, meta);
      // The caller's own cookie cache still names it as active.
      if (auth.session.activeOrganizationId === body.organizationId) cookies.push(...(await clearedActive(auth)));
      return deleted;
    },
  }),

  endpoint({
    method: "GET",
    path: `${P}/list`,
    async handler({ requireSession }) {
      return listOrganizations((await requireSession()).user.id);
    },
  }),

  endpoint({
    method: "POST",
    path: `${P}/set-active`,
    body: z.object({ organizationId: z.string().nullish(), organizationSlug: z.string().optional() }),
    async handler({ body, cookies, requireSession }) {
      const { organization, setCookies } = await setActiveOrganization(await requireSession(), body);
      cookies.push(...setCookies);
      return organization;
    },
  }),

  endpoint({
    method: "GET",
    path: `${P}/get-full-organization`,
    query: z.object({
      organizationId: param(z.string()).optional(),
      organizationSlug: param(z.string()).optional(),
      membersLimit: param(z.coerce.number().int().min(1)).optional(),
    }),
    async handler({ query, requireSession }) {
      return getFullOrganization(await requireSession(), query);
    },
  }),

  endpoint({
    method: "GET",
    path: `${P}/get-active-member`,
    async handler({ requireSession }) {
      return getActiveMember(await requireSession());
    },
  }),

  endpoint({
    method: "GET",
    path: `${P}/get-active-member-role`,
    query: z.object({ userId: param(z.string()).optional(), organizationId: param(z.string()).optional() }),
    async handler({ query, requireSession }) {
      return getActiveMemberRole(await requireSession(), query);
    },
  }),

  endpoint({
    method: "GET",
    path: `${P}/list-members`,
    query: z.preprocess(
      // Repeated keys arrive as arrays; only filterValue may be one.
      (raw) =>
        Object.fromEntries(
          Object.entries(raw as Record<string, unknown>).map(([key, value]) => [
            key,
            Array.isArray(value) && key !== "filterValue" ? value[0] : value,
          ]),
        ),
      listMembersInput,
    ),
    async handler({ query, requireSession }) {
      return listMembers(await requireSession(), query);
    },
  }),

  endpoint({
    method: "POST",
    path: `${P}/update-member-role`,
    body: z.object({ memberId: z.string().min(1), role: roleInput, organizationId: z.string().optional() }),
    async handler({ body, meta, requireSession }) {
      return updateMemberRole(await requireSession(), body, meta);
    },
  }),

  endpoint({
    method: "POST",
    path: `${P}/remove-member`,
    body: z.object({ memberIdOrEmail: z.string().min(1), organizationId: z.string().optional() }),
    async handler({ body, meta, requireSession }) {
      return removeMember(await requireSession(), body, meta);
    },
  }),

  endpoint({
    method: "POST",
    path: `${P}/leave`,
    body: z.object({ organizationId: z.string().min(1) }),
    async handler({ body, meta, cookies, requireSession }) {
      const auth = await requireSession();
      const member = await leaveOrganization(auth, body.organizationId, meta);
      if (auth.session.activeOrganizationId === body.organizationId) cookies.push(...(await clearedActive(auth)));
      return member;
    },
  }),
];

/** A cookie cache without the active organization (the row was cleared by the service). */
async function clearedActive(auth: Parameters<typeof setActiveOrganization>[0]) {
  return (await setActiveOrganization(auth, { organizationId: null })).setCookies;
}
