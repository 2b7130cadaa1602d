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
} from "../invitations.server";
import { endpoint, param } from "~/server/endpoint.server";

const P = "/organization";
const invitationBody = z.object({ invitationId: z.string().min(1) });

export const endpoints = [
  endpoint({
    method: "POST",
    path: `${P}/invite-member`,
    session: "required",
    body: inviteMemberInput,
    async handler({ body, meta, auth }) {
      return inviteMember(auth, body, meta);
    },
  }),

  endpoint({
    method: "POST",
    path: `${P}/accept-invitation`,
    session: "required",
    body: invitationBody,
    async handler({ body, meta, cookies, auth }) {
      const { invitation, member, setCookies } = await acceptInvitation(auth, body.invitationId, meta);
      cookies.push(...setCookies);
      return { invitation, member };
    },
  }),

  endpoint({
    method: "POST",
    path: `${P}/reject-invitation`,
    session: "required",
    body: invitationBody,
    async handler({ body, meta, auth }) {
      return rejectInvitation(auth, body.invitationId, meta);
    },
  }),

  endpoint({
    method: "POST",
    path: `${P}/cancel-invitation`,
    session: "required",
    body: invitationBody,
    async handler({ body, meta, auth }) {
      return cancelInvitation(auth, body.invitationId, meta);
    },
  }),

  endpoint({
    method: "GET",
    path: `${P}/get-invitation`,
    session: "required",
    query: z.object({ id: param(z.string().min(1)) }),
    async handler({ query, auth }) {
      // The wire keeps better-auth's shape; the inviter's name is for the invitation page.
      const { inviterName: _, ...invitation } = await getInvitation(auth, query.id);
      return invitation;
    },
  }),

  endpoint({
    method: "GET",
    path: `${P}/list-invitations`,
    session: "required",
    query: z.object({ organizationId: param(z.string()).optional() }),
    async handler({ query, auth }) {
      return listInvitations(auth, query.organizationId);
    },
  }),

  endpoint({
    method: "GET",
    path: `${P}/list-user-invitations`,
    session: "required",
    async handler({ auth }) {
      return listUserInvitations(auth);
    },
  }),
];
