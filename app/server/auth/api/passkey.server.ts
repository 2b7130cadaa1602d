/**
 * Passkey endpoints of /api/auth (better-auth's passkey plugin's seven `/passkey/*` routes,
 * docs/decisions/0016): registration and authentication ceremonies, and the user's list,
 * rename and delete. The verbs are in passkeys.server.ts; registering needs a fresh session,
 * listing and changing any session, signing in nothing but the challenge cookie.
 */
import { z } from "zod";
import { isAppError } from "~/server/errors.server";
import {
  AUTHENTICATOR_ATTACHMENTS,
  authenticationOptions,
  deletePasskey,
  deletePasskeyInput,
  listPasskeys,
  registrationOptions,
  updatePasskey,
  updatePasskeyInput,
  verifyAuthentication,
  verifyAuthenticationInput,
  verifyRegistration,
  verifyRegistrationInput,
} from "../passkeys.server";
import { endpoint, param } from "~/server/endpoint.server";

export const endpoints = [
  endpoint({
    method: "GET",
    path: "/passkey/generate-register-options",
    session: "fresh",
    query: z.object({
      name: param(z.string()).optional(),
      authenticatorAttachment: param(z.enum(AUTHENTICATOR_ATTACHMENTS)).optional(),
    }),
    async handler({ query, cookies, auth }) {
      const { options, cookie } = await registrationOptions(auth, query);
      cookies.push(cookie);
      return options;
    },
  }),

  endpoint({
    method: "POST",
    path: "/passkey/verify-registration",
    session: "fresh",
    // createSession is accepted because better-auth's client may send it; the caller is
    // signed in already.
    body: verifyRegistrationInput.extend({ createSession: z.boolean().optional() }),
    async handler({ request, body, meta, auth }) {
      return verifyRegistration(auth, request, body, meta);
    },
  }),

  endpoint({
    method: "GET",
    path: "/passkey/generate-authenticate-options",
    async handler({ cookies, session }) {
      const { options, cookie } = await authenticationOptions(await session());
      cookies.push(cookie);
      return options;
    },
  }),

  endpoint({
    method: "POST",
    path: "/passkey/verify-authentication",
    body: verifyAuthenticationInput,
    async handler({ request, body, meta, cookies }) {
      const { session, user, setCookies } = await verifyAuthentication(request, body, meta);
      cookies.push(...setCookies);
      return { session, user };
    },
  }),

  endpoint({
    method: "GET",
    path: "/passkey/list-user-passkeys",
    session: "required",
    async handler({ auth }) {
      return listPasskeys(auth.user.id);
    },
  }),

  endpoint({
    method: "POST",
    path: "/passkey/update-passkey",
    session: "required",
    body: updatePasskeyInput,
    async handler({ body, meta, auth }) {
      return { passkey: await updatePasskey(auth, body, meta) };
    },
  }),

  endpoint({
    method: "POST",
    path: "/passkey/delete-passkey",
    session: "required",
    body: deletePasskeyInput,
    async handler({ body, meta, auth }) {
      try {
        await deletePasskey(auth, body, meta);
      } catch (error) {
        // better-auth answers another user's passkey with a bare 401 here (rename names the code).
        if (isAppError(error) && error.code === "YOU_ARE_NOT_ALLOWED_TO_REGISTER_THIS_PASSKEY") {
          return new Response(null, { status: 401, headers: { "Content-Type": "application/json" } });
        }
        throw error;
      }
      return { status: true };
    },
  }),
];
