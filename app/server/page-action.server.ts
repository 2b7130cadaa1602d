/**
 * The one pipeline every page action goes through, as the /api/auth dispatcher is for the
 * JSON API: who is asking (a session where the page needs one), what the page is about
 * (`prepare`, e.g. the organization of the URL), which form was sent (`intent`), its fields
 * (conform + zod, with errors in the page's language), the rate limit of the endpoint it
 * stands for, the service verb, and the answer: the redirect or data the intent returns, or
 * the service's refusal next to its field, for the whole form, or as a toast.
 *
 * A page declares its intents with `intent()` and exports `pageAction({...})` as its action;
 * the action carries the rate-limit keys it counts under, so a test can check that every
 * page action names registered rules.
 */
import type { Submission, SubmissionResult } from "@conform-to/react";
import { parseWithZod } from "@conform-to/zod/v4";
import { data, type RouterContextProvider } from "react-router";
import { z } from "zod";
import type { Locale } from "~/i18n/config";
import { zodErrorMap } from "~/lib/validation";
import type { EndpointPath } from "~/server/api.server";
import { getAuthSession, redirectParam, requireAuthSession } from "~/server/auth/guards.server";
import { enforceRateLimit } from "~/server/auth/rate-limit.server";
import {
  refuseWhileImpersonating,
  requestMeta,
  type AuthSession,
  type RequestMeta,
} from "~/server/auth/session.server";
import { socialRedirect } from "~/server/auth/social/social.server";
import { authT, errorTitle, failed, invalid, type FieldErrors } from "~/server/forms.server";
import { getLocale } from "~/server/i18n.server";
import { redirectWithToast } from "~/server/toast.server";

/**
 * Page actions with no /api/auth twin. Each counts under its own name with the default rule
 * (100 requests per 10 s per client), as an endpoint without a special rule does.
 */
export const PAGE_ONLY_ACTIONS = [
  "/admin/reset-two-factor",
  "/admin/maintenance/database",
  "/admin/maintenance/migrations",
  "/organization/resend-invitation", // the API resends through /organization/invite-member; the page counts it apart
  "/scim/revoke-token", // the SCIM page revokes a token; the API, as better-auth's, has no route for it
  "/set-locale",
  "/set-password", // a server-only verb: /api/auth deliberately has no route for it
  "/stop-impersonating",
  // The webhook pages' verbs: webhooks have no /api/auth routes.
  "/webhooks/create",
  "/webhooks/update",
  "/webhooks/delete",
  "/webhooks/send-test",
  "/webhooks/replay",
] as const;

/** What a page action counts under: the endpoint it stands for, or a page-only action. */
export type RateLimitKey = EndpointPath | (typeof PAGE_ONLY_ACTIONS)[number];

/** A loader's rate limit (a resource the page calls, e.g. a live check), by the same keys as the actions. */
export function limitRate(
  { request, context }: { request: Request; context: Readonly<RouterContextProvider> },
  key: RateLimitKey,
): Promise<void> {
  return enforceRateLimit(requestMeta(request, context).ipAddress, key);
}

export interface PageActionArgs {
  request: Request;
  url: URL;
  params: Record<string, string | undefined>;
  context: Readonly<RouterContextProvider>;
}

type AuthNeed = "required" | "optional";
type AuthOf<A extends AuthNeed> = A extends "required" ? AuthSession : AuthSession | null;

/** What `prepare` and every intent get. */
export interface PageContext<A extends AuthNeed> {
  args: PageActionArgs;
  auth: AuthOf<A>;
  meta: RequestMeta;
  locale: Locale;
}

/** What an intent's `run` gets: the page context, what `prepare` found, and the valid form. */
export interface IntentContext<A extends AuthNeed, P, V> extends PageContext<A> {
  page: P;
  value: V;
  formData: FormData;
  submission: Submission<V>;
}

interface IntentSpec<A extends AuthNeed, P, S extends z.ZodType, R, E extends object> {
  /** The form's schema, or one made for the page (e.g. a confirmation that must equal its slug). */
  schema: S | ((ctx: PageContext<A> & { page: P }) => S);
  /** The rule this form counts under. */
  rateLimit: RateLimitKey;
  fields?: FieldErrors;
  /** What a refusal answers besides the form's result, e.g. which of the page's forms it was. */
  extra?: (formData: FormData) => E;
  /** A refusal shown as a toast on the page (a form that leaves the page, e.g. to a provider). */
  refusal?: "form" | "toast";
  /** Where a toast refusal lands, when not on the page itself (e.g. the page a menu posted from). */
  toastTo?: (ctx: IntentContext<A, P, z.output<S>>) => string;
  run(ctx: IntentContext<A, P, z.output<S>>): Promise<R>;
}

/** An intent as the page's table keeps it: its answer and extra stay typed for useActionData. */
export interface Intent<A extends AuthNeed, P, R, E extends object> {
  schema: z.ZodType | ((ctx: PageContext<A> & { page: P }) => z.ZodType);
  rateLimit: RateLimitKey;
  fields?: FieldErrors;
  extra?: (formData: FormData) => E;
  refusal?: "form" | "toast";
  toastTo?: (ctx: IntentContext<A, P, never>) => string;
  run(ctx: IntentContext<A, P, never>): Promise<R>;
}

// eslint-disable-next-line @typescript-eslint/no-empty-object-type -- an intent without extra adds nothing
function intent<A extends AuthNeed, P, S extends z.ZodType, R, E extends object = {}>(
  spec: IntentSpec<A, P, S, R, E>,
): Intent<A, P, R, E> {
  return spec as unknown as Intent<A, P, R, E>;
}

/** What an intent answers: its own result, or the form's refusal (with its extra). */
type Answer<I> =
  I extends Intent<AuthNeed, never, infer R, infer E>
    ? R | ReturnType<typeof data<E & { result: SubmissionResult }>>
    : never;

/** `intent`, bound to a page's session need and what its `prepare` finds, so both are typed in `run`. */
// eslint-disable-next-line @typescript-eslint/no-empty-object-type -- an intent without extra adds nothing
export type IntentOf<A extends AuthNeed, P> = <S extends z.ZodType, R, E extends object = {}>(
  spec: IntentSpec<A, P, S, R, E>,
) => Intent<A, P, R, E>;

interface PageActionSpec<A extends AuthNeed, P, I> {
  auth: A;
  /** Reads what the page is about before any form is looked at (its 404 or 403 comes first). */
  prepare?: (ctx: PageContext<A>) => Promise<P>;
  /**
   * The page's forms by their `intent` field, made with the `intent` it is handed. A page with
   * one form answers every post with it, whatever `intent` says; with several, a post without
   * `intent` is the first (the page's main form) and an unknown intent is a 400.
   */
  intents: (intent: IntentOf<A, P>) => I;
}

export function pageAction<A extends AuthNeed, I extends Record<string, Intent<A, P, unknown, object>>, P = undefined>(
  spec: PageActionSpec<A, P, I>,
) {
  const table = spec.intents(intent);
  const intents: [string, Intent<A, P, unknown, object>][] = Object.entries(table);
  const action = async (args: PageActionArgs) => {
    const { request, context } = args;
    const auth = (spec.auth === "required" ? requireAuthSession(context) : getAuthSession(context)) as AuthOf<A>;
    const meta = requestMeta(request, context);
    const locale = getLocale(context) as Locale;
    const base: PageContext<A> = { args, auth, meta, locale };
    const page = (spec.prepare ? await spec.prepare(base) : undefined) as P;
    const formData = await request.formData();
    const posted = formData.get("intent");
    const chosen = intents.length === 1 || posted === null ? intents[0]![1] : table[String(posted)];
    if (!chosen) throw data("Unknown intent", { status: 400 });

    const extra = chosen.extra?.(formData);
    const schema = typeof chosen.schema === "function" ? chosen.schema({ ...base, page }) : chosen.schema;
    const submission = parseWithZod(formData, { schema, error: zodErrorMap(locale) });
    if (submission.status !== "success") return invalid(submission, extra);
    const ctx = { ...base, page, value: submission.value as never, formData, submission: submission as never };
    try {
      await refuseWhileImpersonating(chosen.rateLimit, () => auth);
      await enforceRateLimit(meta.ipAddress, chosen.rateLimit);
      return await chosen.run(ctx);
    } catch (error) {
      if (chosen.refusal === "toast") {
        const to = chosen.toastTo?.(ctx) ?? args.url.pathname + args.url.search;
        return redirectWithToast(to, { type: "error", title: errorTitle(authT(context), error) });
      }
      return failed(submission, error, chosen.fields, extra);
    }
  };
  return Object.assign(action as (args: PageActionArgs) => Promise<Answer<I[keyof I]>>, {
    rateLimits: intents.map(([, declared]) => declared.rateLimit),
    /** The page's intents, for the hidden `intent` fields of its forms. */
    intents: Object.keys(table) as (keyof I & string)[],
  });
}

const socialSchema = () => z.object({ provider: z.string().default("") });

/**
 * A social button's post (SocialButtons): off to the provider, coming back to `callbackPath`,
 * or to `errorPath` with the callback's error code. With `link`, the signed-in user links the
 * provider to their account instead. A refusal before leaving (an unknown provider, the rate
 * limit) is a toast on the page.
 */
export function socialIntent<A extends AuthNeed>(options: {
  paths: (ctx: PageContext<A>) => { callbackPath: string; errorPath: string };
  requestSignUp?: boolean;
  link?: boolean;
}) {
  return intent<A, unknown, ReturnType<typeof socialSchema>, Response, never>({
    schema: socialSchema(),
    rateLimit: options.link ? "/link-social" : "/sign-in/social",
    refusal: "toast",
    async run(ctx) {
      const { callbackPath, errorPath } = options.paths(ctx);
      const next = redirectParam(ctx.args.url);
      const link = options.link && ctx.auth ? { email: ctx.auth.user.email, userId: ctx.auth.user.id } : null;
      const input = {
        provider: ctx.value.provider,
        callbackURL: next ?? callbackPath,
        errorCallbackURL: errorPath,
        requestSignUp: options.requestSignUp,
      };
      return socialRedirect(input, link);
    },
  });
}
