/**
 * SAML endpoints of /api/auth (better-auth's SSO plugin): the SP metadata document an
 * identity provider is configured with. The ACS, where the IdP posts its response, belongs
 * to the sign-in endpoints (it signs people in); it reads the response with readSamlResponse.
 */
import { z } from "zod";
import { endpoint, param } from "~/server/endpoint.server";
import { fail } from "~/server/errors.server";
import { loadProvider } from "../config.server";
import { spMetadataXml } from "../saml.server";

export const endpoints = [
  endpoint({
    method: "GET",
    path: "/sso/saml2/sp/metadata",
    query: z.object({ providerId: param(z.string().min(1)) }),
    async handler({ query }) {
      const provider = await loadProvider(query.providerId);
      if (provider?.kind !== "saml") fail("NOT_FOUND", "No provider found for the given providerId");
      return new Response(await spMetadataXml(provider), {
        headers: { "Content-Type": "application/xml; charset=utf-8" },
      });
    },
  }),
];
