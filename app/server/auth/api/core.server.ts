/**
 * Core /api/auth endpoints: sign-up, sign-in, sign-out, get-session, verification email,
 * verify-email, ok and error. Each parses nothing itself (the framework validates against
 * the schemas) and calls one service verb.
 */
import { redirect } from "react-router";
import { z } from "zod";
import {
  sendVerificationEmail,
  sendVerificationEmailInput,
  signInEmail,
  signInEmailInput,
  signUpEmail,
  signUpEmailInput,
  verificationErrorParam,
  verifyEmail,
} from "../accounts.server";
import { assertLoginOrigin } from "../origin.server";
import { booleanish } from "../schemas.server";
import { clearSessionCookies, endSession, hasSessionCookies, type AuthSession } from "../session.server";
import { AppError, isAppError } from "~/server/errors.server";
import { escapeHtml } from "~/lib/html";
import { withParams } from "~/lib/safe-redirect";
import type { Locale } from "~/i18n/config";
import { loadEnv } from "~/server/env.server";
import { i18nFor } from "~/server/i18n.server";
import { endpoint, param } from "~/server/endpoint.server";
import { secondStepOr } from "./second-step.server";

/**
 * The plain page /api/auth/error shows, titled "Authentication Error" like better-auth's:
 * the code, what it means in the visitor's language when it is one of ours, a provider's own
 * description, and a "Return to Application" link to the root.
 */
function errorPage(code: string, description: string | undefined, locale: Locale): string {
  const t = i18nFor(locale).getFixedT(locale, "auth");
  // A social or a single sign-on callback's code (both end here when they name no page).
  const key = [`social.errors.${code}`, `sso.errors.${code}`].find((k) => i18nFor(locale).exists(k, { ns: "auth" }));
  const explanation = key ? t(key) : null;
  return `<!doctype html>
<html lang="${locale}">
<head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1"><title>Authentication Error</title>
<style>body{font-family:system-ui,sans-serif;max-width:32rem;margin:4rem auto;padding:0 1rem;color:#0f172a}code{background:#f1f5f9;padding:.1rem .3rem;border-radius:4px}a{color:#16a34a}</style>
</head>
<body>
<h1>Authentication Error</h1>
<p data-testid="auth-error-explanation">${escapeHtml(explanation ?? t("social.errorTitle"))}</p>
${description ? `<p><em>${escapeHtml(description)}</em></p>\n` : ""}<p>Error code: <code data-testid="auth-error-code">${escapeHtml(code)}</code></p>
<p><a href="/">Return to Application</a></p>
</body>
</html>`;
}

export const endpoints = [
  endpoint({
    method: "POST",
    path: "/sign-up/email",
    body: signUpEmailInput,
    formBody: true,
    async handler({ request, body, meta }) {
      assertLoginOrigin(request);
      const { user } = await signUpEmail(body, meta);
      // Verification is required, so there is never a session (nor a token) at sign-up.
      return { token: null, user };
    },
  }),

  endpoint({
    method: "POST",
    path: "/sign-in/email",
    body: signInEmailInput,
    formBody: true,
    async handler({ request, body, meta, cookies, headers }) {
      assertLoginOrigin(request);
      const signedIn = await secondStepOr(() => signInEmail(body, meta), cookies);
      if (!("session" in signedIn)) return signedIn;
      const { session, user, setCookies } = signedIn;
      cookies.push(...setCookies);
      if (body.callbackURL) headers.set("Location", body.callbackURL);
      // `token` is the stored hash: an opaque id of the session, never a credential.
      return {
        redirect: Boolean(body.callbackURL),
        token: session.token,
        ...(body.callbackURL && { url: body.callbackURL }),
        user,
      };
    },
  }),

  endpoint({
    method: "POST",
    path: "/sign-out",
    body: z.object({
      callbackURL: z.string().optional(),
      disableRedirect: booleanish.optional(),
      state: z.string().optional(),
    }),
    async handler({ request, cookies }) {
      cookies.push(...(await endSession(request)));
      return { success: true };
    },
  }),

  endpoint({
    method: "POST",
    path: "/get-session",
    async handler() {
      throw new AppError("METHOD_NOT_ALLOWED_DEFER_SESSION_REQUIRED");
    },
  }),

  endpoint({
    method: "POST",
    path: "/send-verification-email",
    body: sendVerificationEmailInput,
    async handler({ body, meta, session }) {
      await sendVerificationEmail(body, meta, await session());
      return { status: true };
    },
  }),

  endpoint({
    method: "GET",
    path: "/verify-email",
    query: z.object({ token: param(z.string()), callbackURL: param(z.string()).optional() }),
    async handler({ query, meta, session, cookies }) {
      const { token, callbackURL } = query;
      try {
        const { user, setCookies, emailChanged } = await verifyEmail(token, meta, await session(), callbackURL);
        cookies.push(...setCookies);
        if (!callbackURL) return { status: true, user };
        // The landing page says "your email was changed" rather than "verified" for a confirmation.
        const target = emailChanged ? withParams(callbackURL, { changed: "1" }, loadEnv().trustedOrigins) : callbackURL;
        return redirect(target ?? callbackURL);
      } catch (error) {
        if (!isAppError(error)) throw error;
        // Browsers following the emailed link land on the page with the reason.
        if (callbackURL) {
          const target = withParams(callbackURL, { error: verificationErrorParam(error) }, loadEnv().trustedOrigins);
          if (target) return redirect(target);
        }
        // A link that cannot be used answers 401; a banned user keeps the ban's own 403.
        if (error.code === "BANNED_USER") throw error;
        throw new AppError(error.code, error.message, 401);
      }
    },
  }),

  endpoint({
    method: "GET",
    path: "/ok",
    async handler() {
      return { ok: true };
    },
  }),

  endpoint({
    method: "GET",
    path: "/error",
    query: z.object({ error: param(z.string()).optional(), error_description: param(z.string()).optional() }),
    async handler({ query, meta }) {
      return new Response(errorPage(query.error || "unknown", query.error_description, meta.locale), {
        headers: { "Content-Type": "text/html; charset=utf-8" },
      });
    },
  }),
];

/**
 * GET /get-session: the client's session state, the session and user plus what `extend`
 * adds from the domains above auth (the dispatcher passes the active subscriptions of the
 * user and of its active organization).
 */
export function getSessionEndpoint(extend: (auth: AuthSession) => Promise<object>) {
  return endpoint({
    method: "GET",
    path: "/get-session",
    query: z.object({
      disableCookieCache: param(booleanish).optional(),
      disableRefresh: param(booleanish).optional(),
    }),
    async handler({ request, query, session, cookies, headers }) {
      headers.set("Cache-Control", "no-store");
      const auth = await session(query);
      if (!auth && hasSessionCookies(request)) cookies.push(...clearSessionCookies());
      return auth && { ...auth, ...(await extend(auth)) };
    },
  });
}
