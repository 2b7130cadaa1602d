/**
 * @better-auth/api-key's routes under /api/auth/api-key (api-contract.md section 8). The
 * verbs are in app/server/organization/api-keys.server.ts; `/api-key/verify` stays
 * unrouted (server only), and a request sent with a key is verified by the session gate.
 */
import { z } from "zod";
import {
  createApiKey,
  createApiKeyInput,
  deleteApiKey,
  getApiKey,
  keyIdInput,
  listApiKeys,
  listApiKeysInput,
  updateApiKey,
  updateApiKeyInput,
} from "../api-keys.server";
import { endpoint, param } from "~/server/endpoint.server";

const P = "/api-key";

/** A query's fields each take the first of repeated keys. */
const listQuery = z.object(
  Object.fromEntries(Object.entries(listApiKeysInput.shape).map(([name, schema]) => [name, param(schema)])),
) as unknown as typeof listApiKeysInput;

export const endpoints = [
  endpoint({
    method: "POST",
    path: `${P}/create`,
    session: "required",
    body: createApiKeyInput,
    async handler({ body, meta, auth }) {
      return createApiKey(auth, body, meta);
    },
  }),

  endpoint({
    method: "GET",
    path: `${P}/list`,
    session: "required",
    query: listQuery,
    async handler({ query, auth }) {
      return listApiKeys(auth, query);
    },
  }),

  endpoint({
    method: "GET",
    path: `${P}/get`,
    session: "required",
    query: z.object({ id: param(z.string().min(1).max(200)), configId: param(keyIdInput.shape.configId) }),
    async handler({ query, auth }) {
      return getApiKey(auth, { keyId: query.id, configId: query.configId });
    },
  }),

  endpoint({
    method: "POST",
    path: `${P}/update`,
    session: "required",
    body: updateApiKeyInput,
    async handler({ body, meta, auth }) {
      return updateApiKey(auth, body, meta);
    },
  }),

  endpoint({
    method: "POST",
    path: `${P}/delete`,
    session: "required",
    body: keyIdInput,
    async handler({ body, meta, auth }) {
      return deleteApiKey(auth, body, meta);
    },
  }),
];
