/**
 * Social sign-in and linked-account endpoints of /api/auth: sign-in/social, the provider
 * callback, link-social, unlink-account, list-accounts, get-access-token, refresh-token and
 * account-info. The verbs are in social/social.server.ts.
 */
import { redirect } from "react-router";
import { z } from "zod";
import { loadEnv } from "~/server/env.server";
import { fail } from "~/server/errors.server";
import { assertLoginOrigin } from "../origin.server";
import { clearOAuthStateCookie } from "../social/oauth-state.server";
import {
  accountInfo,
  accountQueryInput,
  completeCallback,
  getAccessToken,
  linkSocialInput,
  type LinkSocialInput,
  linkWithIdToken,
  listAccounts,
  refreshAccessToken,
  signInSocialInput,
  signInWithIdToken,
  startSocialFlow,
  unlinkAccount,
  unlinkAccountInput,
} from "../social/social.server";
import { absoluteWith, endpoint, param } from "~/server/endpoint.server";
import { secondStepOr } from "./second-step.server";

/**
 * `target` (relative or trusted: the dispatcher or the state record checked it) on BASE_URL,
 * with `params`; the home page should adding them make it untrusted.
 */
const onBase = (target: string, params?: Record<string, string>) =>
  absoluteWith(target, params) ?? `${loadEnv().BASE_URL}/`;

/** A callback field, bounded: Apple's form POST is re-issued as a GET whose URL carries them all. */
const field = (max: number) => param(z.string().max(max)).optional();

// What a provider may send back (query of the GET, form of Apple's POST). The bounds are far
// above what providers send (a code of a few hundred characters, a 32-character state, Apple's
// `user` of a few hundred) and keep the re-issued Location well under the 16 KB that servers
// and browsers read in headers, whatever the percent-encoding.
const callbackFields = z.object({
  code: field(1024),
  state: field(128),
  error: field(128),
  error_description: field(1024),
  iss: field(256),
  user: field(1024),
  device_id: field(256),
});

/** The user's id for the token calls: the session's; a `userId` of someone else is refused. */
function ownerOf(sessionUserId: string, userId: string | undefined): string {
  if (userId && userId !== sessionUserId) fail("UNAUTHORIZED");
  return sessionUserId;
}

/** A flow that goes to the provider: `{url, redirect}`, and a Location header unless the client opts out. */
async function toProvider(
  body: LinkSocialInput,
  link: { email: string; userId: string } | null,
  cookies: string[],
  headers: Headers,
) {
  const { url, cookie } = await startSocialFlow(body, link);
  cookies.push(cookie);
  if (!body.disableRedirect) headers.set("Location", url);
  return { url, redirect: !body.disableRedirect };
}

export const endpoints = [
  endpoint({
    method: "POST",
    path: "/sign-in/social",
    body: signInSocialInput,
    async handler({ request, body, meta, cookies, headers }) {
      assertLoginOrigin(request);
      if (body.idToken) {
        const signedIn = await secondStepOr(
          () => signInWithIdToken({ ...body, idToken: body.idToken! }, meta),
          cookies,
        );
        if (!("session" in signedIn)) return signedIn;
        const { session, user, setCookies } = signedIn;
        cookies.push(...setCookies);
        return { redirect: false, token: session.token, url: undefined, user };
      }
      return toProvider(body, null, cookies, headers);
    },
  }),

  // Apple answers with a cross-site form POST: re-issued as the GET below, which the browser
  // sends with its (SameSite=Lax) state cookie.
  endpoint({
    method: "POST",
    path: "/callback/:id",
    body: callbackFields,
    query: callbackFields,
    formBody: true,
    rateLimit: false,
    async handler({ params, body, query }) {
      const merged = Object.entries({ ...body, ...query }).filter((entry): entry is [string, string] =>
        Boolean(entry[1]),
      );
      const target = `${loadEnv().BASE_URL}/api/auth/callback/${encodeURIComponent(params.id!)}`;
      return redirect(`${target}?${new URLSearchParams(merged)}`);
    },
  }),

  endpoint({
    method: "GET",
    path: "/callback/:id",
    query: callbackFields,
    rateLimit: false,
    async handler({ request, params, meta, session }) {
      const outcome = await completeCallback(params.id!, request, await session(), meta);
      const headers = new Headers({ "Set-Cookie": clearOAuthStateCookie() });
      if (outcome.ok) {
        for (const cookie of outcome.setCookies) headers.append("Set-Cookie", cookie);
        return redirect(onBase(outcome.redirectTo), { headers });
      }
      const errorPage = outcome.errorURL ?? "/api/auth/error";
      const errorParams: Record<string, string> = { error: outcome.error };
      if (outcome.description) errorParams.error_description = outcome.description;
      if (outcome.email) errorParams.email = outcome.email;
      return redirect(onBase(errorPage, errorParams), { headers });
    },
  }),

  endpoint({
    method: "POST",
    path: "/link-social",
    session: "required",
    body: linkSocialInput,
    async handler({ body, meta, cookies, headers, auth }) {
      if (body.idToken) {
        await linkWithIdToken(auth, { ...body, idToken: body.idToken }, meta);
        return { url: "", status: true, redirect: false };
      }
      return toProvider(body, { email: auth.user.email, userId: auth.user.id }, cookies, headers);
    },
  }),

  endpoint({
    method: "POST",
    path: "/unlink-account",
    session: "required",
    body: unlinkAccountInput,
    async handler({ body, meta, auth }) {
      await unlinkAccount(auth, body, meta);
      return { status: true };
    },
  }),

  endpoint({
    method: "GET",
    path: "/list-accounts",
    session: "required",
    async handler({ auth }) {
      return listAccounts(auth.user.id);
    },
  }),

  endpoint({
    method: "POST",
    path: "/get-access-token",
    session: "required",
    body: accountQueryInput,
    async handler({ body, auth }) {
      const { user } = auth;
      return getAccessToken(ownerOf(user.id, body.userId), body);
    },
  }),

  endpoint({
    method: "POST",
    path: "/refresh-token",
    session: "required",
    body: accountQueryInput,
    async handler({ body, auth }) {
      const { user } = auth;
      return refreshAccessToken(ownerOf(user.id, body.userId), body);
    },
  }),

  // better-auth 1.7 reads the account from a GET's query; clients that POST it are answered too.
  ...(["GET", "POST"] as const).map((method) =>
    endpoint({
      method,
      path: "/account-info",
      session: "required",
      ...(method === "GET"
        ? { query: z.object({ accountId: param(z.string().min(1)) }) }
        : { body: z.object({ accountId: z.string().min(1) }) }),
      async handler({ body, query, auth }) {
        const { user } = auth;
        const { accountId } = (method === "GET" ? query : body) as { accountId: string };
        return accountInfo(user.id, accountId);
      },
    }),
  ),
];
