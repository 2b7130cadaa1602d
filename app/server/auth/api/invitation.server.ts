/**
 * Invitation endpoints of /api/auth/organization (better-auth's organization plugin
 * contract). The verbs are in app/server/organization/invitations.server.ts.
 */
import { z } from "zod";
import {
  acceptInvitation,
  cancelInvitation,
  getInvitation,
  inviteMember,
  inviteMemberInput,
  listInvitations,
  listUserInvitations,
  rejectInvitation,
} from "~/server/organization/invitations.server";
import { endpoint, param, type Endpoint } from "./endpoint.server";

const P = "/organization";
const invitationBody = z.object({ invitationId: z.string().min(1) });

export const endpoints: Endpoint[] = [
  endpoint({
    method: "POST",
    path: `${P}/invite-member`,
    body: inviteMemberInput,
    async handler({ body, meta, requireSession }) {
      return inviteMember(await requireSession(), body, meta);
    },
  }),

  endpoint({
    method: "POST",
    path: `${P}/accept-invitation`,
    body: invitationBody,
    async handler({ body, meta, cookies, requireSession }) {
      const { invitation, member, setCookies } = await acceptInvitation(
        await requireSession(),
        body.invitationId,
        meta,
      );
      cookies.push(...setCookies);
      return { invitation, member };
    },
  }),

  endpoint({
    method: "POST",
    path: `${P}/reject-invitation`,
    body: invitationBody,
    async handler({ body, meta, requireSession }) {
      return rejectInvitation(await requireSession(), body.invitationId, meta);
    },
  }),

  endpoint({
    method: "POST",
    path: `${P}/cancel-invitation`,
    body: invitationBody,
    async handler({ body, meta, requireSession }) {
      return cancelInvitation(await requireSession(), body.invitationId, meta);
    },
  }),

  endpoint({
    method: "GET",
    path: `${P}/get-invitation`,
    query: z.object({ id: param(z.string().min(1)) }),
    async handler({ query, requireSession }) {
      return getInvitation(await requireSession(), query.id);
    },
  }),

  endpoint({
    method: "GET",
    path: `${P}/list-invitations`,
    query: z.object({ organizationId: param(z.string()).optional() }),
    async handler({ query, requireSession }) {
      return listInvitations(await requireSession(), query.organizationId);
    },
  }),

  endpoint({
    method: "GET",
    path: `${P}/list-user-invitations`,
    async handler({ requireSession }) {
      return listUserInvitations(await requireSession());
    },
  }),
];
