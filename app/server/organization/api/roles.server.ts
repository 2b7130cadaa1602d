/**
 * Custom-role endpoints of /api/auth/organization (better-auth's organization plugin with
 * dynamic access control) and has-permission. The verbs are in
 * app/server/organization/roles.server.ts.
 */
import { z } from "zod";
import {
  createRole,
  createRoleInput,
  deleteRole,
  deleteRoleInput,
  getRole,
  hasPermission,
  hasPermissionInput,
  listRoles,
  roleQueryInput,
  updateRole,
  updateRoleInput,
} from "../roles.server";
import { endpoint, param } from "~/server/endpoint.server";

const P = "/organization";

export const endpoints = [
  endpoint({
    method: "POST",
    path: `${P}/create-role`,
    session: "required",
    body: createRoleInput,
    async handler({ body, meta, auth }) {
      return createRole(auth, body, meta);
    },
  }),

  endpoint({
    method: "GET",
    path: `${P}/list-roles`,
    session: "required",
    query: z.object({ organizationId: param(z.string()).optional() }),
    async handler({ query, auth }) {
      return listRoles(auth, query.organizationId);
    },
  }),

  endpoint({
    method: "GET",
    path: `${P}/get-role`,
    session: "required",
    query: z.preprocess(
      // A repeated key arrives as an array: the first one counts.
      (raw) =>
        Object.fromEntries(
          Object.entries(raw as Record<string, unknown>).map(([key, value]) => [
            key,
            Array.isArray(value) ? value[0] : value,
          ]),
        ),
      roleQueryInput,
    ),
    async handler({ query, auth }) {
      return getRole(auth, query);
    },
  }),

  endpoint({
    method: "POST",
    path: `${P}/update-role`,
    session: "required",
    body: updateRoleInput,
    async handler({ body, meta, auth }) {
      return updateRole(auth, body, meta);
    },
  }),

  endpoint({
    method: "POST",
    path: `${P}/delete-role`,
    session: "required",
    body: deleteRoleInput,
    async handler({ body, meta, auth }) {
      return deleteRole(auth, body, meta);
    },
  }),

  endpoint({
    method: "POST",
    path: `${P}/has-permission`,
    session: "required",
    body: hasPermissionInput,
    async handler({ body, auth }) {
      return hasPermission(auth, body);
    },
  }),
];
