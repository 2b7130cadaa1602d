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
} from "../organizations.server";
import { endpoint, param } from "~/server/endpoint.server";

const P = "/organization";

export const endpoints = [
  endpoint({
    method: "POST",
    path: `${P}/create`,
    session: "required",
    body: createOrganizationInput,
    async handler({ body, meta, cookies, auth }) {
      const { organization, setCookies } = await createOrganization({ auth }, body, meta);
      cookies.push(...setCookies);
      return organization;
    },
  }),

  endpoint({
    method: "POST",
    path: `${P}/check-slug`,
    session: "required",
    body: z.object({ slug: z.string().min(1) }),
    async handler({ body }) {
      await checkSlug(body.slug);
      return { status: true };
    },
  }),

  endpoint({
    method: "POST",
    path: `${P}/update`,
    session: "required",
    body: updateOrganizationInput,
    async handler({ body, meta, auth }) {
      return updateOrganization(auth, body, meta);
    },
  }),

  endpoint({
    method: "POST",
    path: `${P}/delete`,
    session: "required",
    body: z.object({ organizationId: z.string().min(1) }),
    async handler({ body, meta, cookies, auth }) {
      const deleted = await deleteOrganization(auth, body.organizationId, meta);
      // The caller's own cookie cache still names it as active.
      if (auth.session.activeOrganizationId === body.organizationId) cookies.push(...(await clearedActive(auth)));
      return deleted;
    },
  }),

  endpoint({
    method: "GET",
    path: `${P}/list`,
    session: "required",
    async handler({ auth }) {
      return listOrganizations(auth.user.id);
    },
  }),

  endpoint({
    method: "POST",
    path: `${P}/set-active`,
    session: "required",
    body: z.object({ organizationId: z.string().nullish(), organizationSlug: z.string().optional() }),
    async handler({ body, cookies, auth }) {
      const { organization, setCookies } = await setActiveOrganization(auth, body);
      cookies.push(...setCookies);
      return organization;
    },
  }),

  endpoint({
    method: "GET",
    path: `${P}/get-full-organization`,
    session: "required",
    query: z.object({
      organizationId: param(z.string()).optional(),
      organizationSlug: param(z.string()).optional(),
      membersLimit: param(z.coerce.number().int().min(1)).optional(),
    }),
    async handler({ query, auth }) {
      return getFullOrganization(auth, query);
    },
  }),

  endpoint({
    method: "GET",
    path: `${P}/get-active-member`,
    session: "required",
    async handler({ auth }) {
      return getActiveMember(auth);
    },
  }),

  endpoint({
    method: "GET",
    path: `${P}/get-active-member-role`,
    session: "required",
    query: z.object({ userId: param(z.string()).optional(), organizationId: param(z.string()).optional() }),
    async handler({ query, auth }) {
      return getActiveMemberRole(auth, query);
    },
  }),

  endpoint({
    method: "GET",
    path: `${P}/list-members`,
    session: "required",
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
    async handler({ query, auth }) {
      return listMembers(auth, query);
    },
  }),

  endpoint({
    method: "POST",
    path: `${P}/update-member-role`,
    session: "required",
    body: z.object({ memberId: z.string().min(1), role: roleInput, organizationId: z.string().optional() }),
    async handler({ body, meta, auth }) {
      return updateMemberRole(auth, body, meta);
    },
  }),

  endpoint({
    method: "POST",
    path: `${P}/remove-member`,
    session: "required",
    body: z.object({ memberIdOrEmail: z.string().min(1), organizationId: z.string().optional() }),
    async handler({ body, meta, auth }) {
      return removeMember(auth, body, meta);
    },
  }),

  endpoint({
    method: "POST",
    path: `${P}/leave`,
    session: "required",
    body: z.object({ organizationId: z.string().min(1) }),
    async handler({ body, meta, cookies, auth }) {
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
