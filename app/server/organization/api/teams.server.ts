/**
 * Team endpoints of /api/auth/organization (better-auth's organization plugin with teams
 * enabled). The verbs are in app/server/organization/teams.server.ts.
 */
import { z } from "zod";
import {
  addTeamMember,
  createTeam,
  createTeamInput,
  listTeamMembers,
  listTeams,
  listUserTeams,
  removeTeam,
  removeTeamMember,
  setActiveTeam,
  teamInput,
  teamMemberInput,
  updateTeam,
  updateTeamInput,
} from "../teams.server";
import { endpoint, param } from "~/server/endpoint.server";

const P = "/organization";

export const endpoints = [
  endpoint({
    method: "POST",
    path: `${P}/create-team`,
    session: "required",
    body: createTeamInput,
    async handler({ body, meta, auth }) {
      return createTeam(auth, body, meta);
    },
  }),

  endpoint({
    method: "POST",
    path: `${P}/update-team`,
    session: "required",
    body: updateTeamInput,
    async handler({ body, meta, auth }) {
      return updateTeam(auth, body, meta);
    },
  }),

  endpoint({
    method: "POST",
    path: `${P}/remove-team`,
    session: "required",
    body: teamInput,
    async handler({ body, meta, auth }) {
      return removeTeam(auth, body, meta);
    },
  }),

  endpoint({
    method: "GET",
    path: `${P}/list-teams`,
    session: "required",
    query: z.object({ organizationId: param(z.string()).optional() }),
    async handler({ query, auth }) {
      return listTeams(auth, query.organizationId);
    },
  }),

  endpoint({
    method: "POST",
    path: `${P}/set-active-team`,
    session: "required",
    body: z.object({ teamId: z.string().nullish() }),
    async handler({ body, cookies, auth }) {
      const { team, setCookies } = await setActiveTeam(auth, body.teamId);
      cookies.push(...setCookies);
      return team;
    },
  }),

  endpoint({
    method: "GET",
    path: `${P}/list-user-teams`,
    session: "required",
    query: z.object({ userId: param(z.string()).optional(), organizationId: param(z.string()).optional() }),
    async handler({ query, auth }) {
      return listUserTeams(auth, query);
    },
  }),

  endpoint({
    method: "GET",
    path: `${P}/list-team-members`,
    session: "required",
    query: z.object({ teamId: param(z.string()).optional() }),
    async handler({ query, auth }) {
      return listTeamMembers(auth, query.teamId);
    },
  }),

  endpoint({
    method: "POST",
    path: `${P}/add-team-member`,
    session: "required",
    body: teamMemberInput,
    async handler({ body, meta, auth }) {
      return addTeamMember(auth, body, meta);
    },
  }),

  endpoint({
    method: "POST",
    path: `${P}/remove-team-member`,
    session: "required",
    body: teamMemberInput,
    async handler({ body, meta, auth }) {
      return removeTeamMember(auth, body, meta);
    },
  }),
];
