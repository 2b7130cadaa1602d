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
} from "~/server/organization/teams.server";
import { endpoint, param, type Endpoint } from "./endpoint.server";

const P = "/organization";

export const endpoints: Endpoint[] = [
  endpoint({
    method: "POST",
    path: `${P}/create-team`,
    body: createTeamInput,
    async handler({ body, meta, requireSession }) {
      return createTeam(await requireSession(), body, meta);
    },
  }),

  endpoint({
    method: "POST",
    path: `${P}/update-team`,
    body: updateTeamInput,
    async handler({ body, meta, requireSession }) {
      return updateTeam(await requireSession(), body, meta);
    },
  }),

  endpoint({
    method: "POST",
    path: `${P}/remove-team`,
    body: teamInput,
    async handler({ body, meta, requireSession }) {
      return removeTeam(await requireSession(), body, meta);
    },
  }),

  endpoint({
    method: "GET",
    path: `${P}/list-teams`,
    query: z.object({ organizationId: param(z.string()).optional() }),
    async handler({ query, requireSession }) {
      return listTeams(await requireSession(), query.organizationId);
    },
  }),

  endpoint({
    method: "POST",
    path: `${P}/set-active-team`,
    body: z.object({ teamId: z.string().nullish() }),
    async handler({ body, cookies, requireSession }) {
      const { team, setCookies } = await setActiveTeam(await requireSession(), body.teamId);
      cookies.push(...setCookies);
      return team;
    },
  }),

  endpoint({
    method: "GET",
    path: `${P}/list-user-teams`,
    query: z.object({ userId: param(z.string()).optional(), organizationId: param(z.string()).optional() }),
    async handler({ query, requireSession }) {
      return listUserTeams(await requireSession(), query);
    },
  }),

  endpoint({
    method: "GET",
    path: `${P}/list-team-members`,
    query: z.object({ teamId: param(z.string()).optional() }),
    async handler({ query, requireSession }) {
      return listTeamMembers(await requireSession(), query.teamId);
    },
  }),

  endpoint({
    method: "POST",
    path: `${P}/add-team-member`,
    body: teamMemberInput,
    async handler({ body, meta, requireSession }) {
      return addTeamMember(await requireSession(), body, meta);
    },
  }),

  endpoint({
    method: "POST",
    path: `${P}/remove-team-member`,
    body: teamMemberInput,
    async handler({ body, meta, requireSession }) {
      return removeTeamMember(await requireSession(), body, meta);
    },
  }),
];
