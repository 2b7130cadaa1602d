/**
 * @better-auth/sso's provider routes under /api/auth/sso, and its domain verification route.
 * The verbs are in app/server/sso/connections.server.ts and domains.server.ts.
 *
 * `POST /sso/verify-domain` keeps better-auth's path, body and answers (204 once verified,
 * 409 DOMAIN_VERIFIED, 502 DOMAIN_VERIFICATION_FAILED); the product's TXT record is one per
 * domain (`domains[].record` in every provider answer), and `domain` in the body verifies just
 * that one. better-auth's /sso/request-domain-verification is not routed: the records exist
 * from registration on.
 */
import { z } from "zod";
import { endpoint, param } from "~/server/endpoint.server";
import {
  deleteProvider,
  getProvider,
  listProviders,
  providerIdInput,
  registerProvider,
  registerProviderInput,
  updateProvider,
  updateProviderInput,
} from "../connections.server";
import { verifyDomain, verifyDomainInput } from "../domains.server";

const P = "/sso";

export const endpoints = [
  endpoint({
    method: "POST",
    path: `${P}/register`,
    session: "required",
    body: registerProviderInput,
    async handler({ body, meta, auth }) {
      return registerProvider(auth, body, meta);
    },
  }),

  endpoint({
    method: "GET",
    path: `${P}/providers`,
    session: "required",
    async handler({ auth }) {
      return listProviders(auth);
    },
  }),

  endpoint({
    method: "GET",
    path: `${P}/get-provider`,
    session: "required",
    query: z.object({ providerId: param(z.string().min(1).max(200)) }),
    async handler({ query, auth }) {
      return getProvider(auth, query.providerId);
    },
  }),

  endpoint({
    method: "POST",
    path: `${P}/update-provider`,
    session: "required",
    body: updateProviderInput,
    async handler({ body, meta, auth }) {
      return updateProvider(auth, body, meta);
    },
  }),

  endpoint({
    method: "POST",
    path: `${P}/delete-provider`,
    session: "required",
    body: providerIdInput,
    async handler({ body, meta, auth }) {
      return deleteProvider(auth, body.providerId, meta);
    },
  }),

  endpoint({
    method: "POST",
    path: `${P}/verify-domain`,
    session: "required",
    body: verifyDomainInput,
    async handler({ body, meta, auth }) {
      await verifyDomain(auth, body, meta);
      return new Response(null, { status: 204 });
    },
  }),
];
