/**
 * SCIM 2.0 under /api/auth/scim/v2 (@better-auth/scim's routes) and the token route that
 * better-auth 1.6 had, `POST /scim/generate-token`. The discovery documents need no token;
 * Users and Groups take the connection's bearer token (no cookies), are rate-limited per token
 * rather than per address (a directory's servers provision many organizations from few
 * addresses), read their bodies themselves (application/scim+json or application/json) and
 * answer every refusal in the SCIM error shape. The verbs are in app/server/sso/scim/.
 */
import { endpoint, type EndpointContext } from "~/server/endpoint.server";
import { createGroup, deleteGroup, getGroup, listGroups, patchGroup, replaceGroup } from "../scim/groups.server";
import {
  listResponse,
  resourceTypeDocuments,
  schemaDocuments,
  scimBody,
  ScimError,
  scimErrorResponse,
  scimFail,
  scimResponse,
  serviceProviderConfig,
  type ScimQuery,
} from "../scim/protocol.server";
import { generateScimToken, generateScimTokenInput, scimCaller, type ScimCaller } from "../scim/tokens.server";
import { createUser, deleteUser, getUser, listUsers, patchUser, replaceUser } from "../scim/users.server";

const P = "/scim/v2";

type Context = EndpointContext<unknown, unknown>;

/** A SCIM answer, with the verbs' refusals (ScimError) in the SCIM error shape. */
async function answer(run: () => Promise<Response>): Promise<Response> {
  try {
    return await run();
  } catch (error) {
    if (error instanceof ScimError) return scimErrorResponse(error);
    throw error;
  }
}

/** A resource endpoint's handler: the token's caller first, then the verb with the body (if any) and query. */
function resource(
  run: (caller: ScimCaller, ctx: Context & { input: () => Record<string, unknown> }) => Promise<Response>,
) {
  return (ctx: Context) =>
    answer(async () => {
      const caller = await scimCaller(ctx.request);
      return run(caller, { ...ctx, input: () => scimBody(ctx.request, String(ctx.body)) });
    });
}

const query = (ctx: Context) => ctx.query as ScimQuery;

/** Created: the resource with its address in Location. */
const created = (document: { meta: { location: string } }) =>
  scimResponse(document, 201, { Location: document.meta.location });

const SCIM = { rawBody: true, rateLimit: false } as const;

export const endpoints = [
  endpoint({
    method: "POST",
    path: "/scim/generate-token",
    session: "required",
    body: generateScimTokenInput,
    async handler({ auth, body, meta }) {
      return Response.json(await generateScimToken(auth, body, meta), { status: 201 });
    },
  }),

  // ---- discovery (no token) ----

  endpoint({
    method: "GET",
    path: `${P}/ServiceProviderConfig`,
    async handler() {
      return scimResponse(serviceProviderConfig());
    },
  }),
  endpoint({
    method: "GET",
    path: `${P}/Schemas`,
    async handler() {
      return scimResponse(listResponse(schemaDocuments()));
    },
  }),
  endpoint({
    method: "GET",
    path: `${P}/Schemas/:schemaId`,
    async handler({ params }) {
      return answer(async () => {
        const schema = schemaDocuments().find((document) => document.id === params.schemaId);
        return scimResponse(schema ?? scimFail(404, "Schema not found"));
      });
    },
  }),
  endpoint({
    method: "GET",
    path: `${P}/ResourceTypes`,
    async handler() {
      return scimResponse(listResponse(resourceTypeDocuments()));
    },
  }),
  endpoint({
    method: "GET",
    path: `${P}/ResourceTypes/:resourceTypeId`,
    async handler({ params }) {
      return answer(async () => {
        const type = resourceTypeDocuments().find((document) => document.id === params.resourceTypeId);
        return scimResponse(type ?? scimFail(404, "Resource type not found"));
      });
    },
  }),

  // ---- Users ----

  endpoint({
    method: "GET",
    path: `${P}/Users`,
    ...SCIM,
    handler: resource(async (caller, ctx) => scimResponse(await listUsers(caller, query(ctx)))),
  }),
  endpoint({
    method: "POST",
    path: `${P}/Users`,
    ...SCIM,
    handler: resource(async (caller, ctx) => created(await createUser(caller, ctx.input(), ctx.meta))),
  }),
  endpoint({
    method: "GET",
    path: `${P}/Users/:id`,
    ...SCIM,
    handler: resource(async (caller, ctx) => scimResponse(await getUser(caller, ctx.params.id!, query(ctx)))),
  }),
  endpoint({
    method: "PUT",
    path: `${P}/Users/:id`,
    ...SCIM,
    handler: resource(async (caller, ctx) =>
      scimResponse(await replaceUser(caller, ctx.params.id!, ctx.input(), ctx.meta)),
    ),
  }),
  endpoint({
    method: "PATCH",
    path: `${P}/Users/:id`,
    ...SCIM,
    handler: resource(async (caller, ctx) =>
      scimResponse(await patchUser(caller, ctx.params.id!, ctx.input(), ctx.meta)),
    ),
  }),
  endpoint({
    method: "DELETE",
    path: `${P}/Users/:id`,
    ...SCIM,
    handler: resource(async (caller, ctx) => {
      await deleteUser(caller, ctx.params.id!, ctx.meta);
      return new Response(null, { status: 204 });
    }),
  }),

  // ---- Groups ----

  endpoint({
    method: "GET",
    path: `${P}/Groups`,
    ...SCIM,
    handler: resource(async (caller, ctx) => scimResponse(await listGroups(caller, query(ctx)))),
  }),
  endpoint({
    method: "POST",
    path: `${P}/Groups`,
    ...SCIM,
    handler: resource(async (caller, ctx) => created(await createGroup(caller, ctx.input(), ctx.meta))),
  }),
  endpoint({
    method: "GET",
    path: `${P}/Groups/:id`,
    ...SCIM,
    handler: resource(async (caller, ctx) => scimResponse(await getGroup(caller, ctx.params.id!, query(ctx)))),
  }),
  endpoint({
    method: "PUT",
    path: `${P}/Groups/:id`,
    ...SCIM,
    handler: resource(async (caller, ctx) =>
      scimResponse(await replaceGroup(caller, ctx.params.id!, ctx.input(), ctx.meta)),
    ),
  }),
  endpoint({
    method: "PATCH",
    path: `${P}/Groups/:id`,
    ...SCIM,
    handler: resource(async (caller, ctx) =>
      scimResponse(await patchGroup(caller, ctx.params.id!, ctx.input(), ctx.meta)),
    ),
  }),
  endpoint({
    method: "DELETE",
    path: `${P}/Groups/:id`,
    ...SCIM,
    handler: resource(async (caller, ctx) => {
      await deleteGroup(caller, ctx.params.id!, ctx.meta);
      return new Response(null, { status: 204 });
    }),
  }),
];
