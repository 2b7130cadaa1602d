/**
 * Single sign-on endpoints of /api/auth (better-auth's SSO plugin): POST /sign-in/sso, the
 * OIDC callback GET /sso/callback/:providerId, the SAML Assertion Consumer Service POST
 * /sso/saml2/sp/acs/:providerId and the GET it sends the browser on to,
 * /sso/saml2/sp/finish/:providerId. The verbs are in ../sign-in.server.ts.
 */
import { redirect } from "react-router";
import { z } from "zod";
import { assertLoginOrigin } from "~/server/auth/origin.server";
import { endpoint, param } from "~/server/endpoint.server";
import { fail } from "~/server/errors.server";
import {
  answerSamlResponse,
  clearSsoStateCookie,
  finishOidcSignIn,
  finishSamlSignIn,
  samlResponseInput,
  signInSsoInput,
  startSsoSignIn,
  type SsoOutcome,
} from "../sign-in.server";

/** A callback field, bounded far above what providers send. */
const field = (max: number) => param(z.string().max(max)).optional();

const callbackFields = z.object({
  code: field(2048),
  state: field(128),
  error: field(128),
  error_description: field(1024),
});

function redirectTo(outcome: SsoOutcome, clearState: boolean): Response {
  const headers = new Headers();
  if (clearState) headers.append("Set-Cookie", clearSsoStateCookie());
  for (const cookie of outcome.setCookies) headers.append("Set-Cookie", cookie);
  return redirect(outcome.redirectTo, { headers });
}

export const endpoints = [
  endpoint({
    method: "POST",
    path: "/sign-in/sso",
    body: signInSsoInput,
    async handler({ request, body, cookies }) {
      assertLoginOrigin(request);
      const { url, redirect, setCookies } = await startSsoSignIn(body);
      cookies.push(...setCookies);
      return { url, redirect };
    },
  }),

  endpoint({
    method: "GET",
    path: "/sso/callback/:providerId",
    query: callbackFields,
    // Each answer spends a one-use state; a flood of them finds nothing to spend.
    rateLimit: false,
    async handler({ request, params, query, meta }) {
      return redirectTo(await finishOidcSignIn(params.providerId!, request, query, meta), true);
    },
  }),

  // The IdP's form post arrives cross-site by design (origin.server.ts lets it through): the
  // signed response and the AuthnRequest it answers, each used once, authenticate it. The body
  // is read here, not by the dispatcher, because IdPs wrap the base64 of SAMLResponse in lines
  // and a large assertion may exceed the size any other field is allowed.
  endpoint({
    method: "POST",
    path: "/sso/saml2/sp/acs/:providerId",
    rawBody: true,
    body: z.string(),
    rateLimit: false,
    async handler({ request, params, body, meta }) {
      const type = request.headers.get("Content-Type") ?? "";
      if (!/^application\/x-www-form-urlencoded\b/i.test(type)) fail("UNSUPPORTED_MEDIA_TYPE");
      const form = Object.fromEntries(new URLSearchParams(body));
      const parsed = samlResponseInput.safeParse(form);
      if (!parsed.success) fail("VALIDATION_ERROR", "Invalid body parameters: SAMLResponse is required");
      return redirectTo(await answerSamlResponse(params.providerId!, parsed.data, meta), false);
    },
  }),

  endpoint({
    method: "GET",
    path: "/sso/saml2/sp/finish/:providerId",
    query: z.object({ handoff: field(128) }),
    // Each one spends a one-use handoff; a flood of them finds nothing to spend.
    rateLimit: false,
    async handler({ request, params, query, meta }) {
      return redirectTo(await finishSamlSignIn(params.providerId!, request, query.handoff, meta), true);
    },
  }),
];
