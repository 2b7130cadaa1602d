import { getFormProps } from "@conform-to/react";
import { navigation } from "~/config/navigation";
import { useTranslation } from "~/lib/translations";
import { data, Form, redirect, useActionData, useLocation } from "react-router";
import type { Route } from "./+types/signin";
import { withTranslations } from "~/lib/translations";
import { AppLink } from "~/components/AppLink";
import { Icon } from "~/components/Icon";
import { PasskeySignIn } from "~/components/PasskeySignIn";
import { SocialErrorNotice, SocialSignIn } from "~/components/SocialButtons";
import { AuthCard, linkClass, Notice } from "~/components/ui/AuthCard";
import { buttonClass, SubmitButton } from "~/components/ui/Button";
import { Checkbox } from "~/components/ui/Checkbox";
import { Field } from "~/components/ui/Field";
import { FormErrors } from "~/components/ui/FormErrors";
import { usePendingIntent } from "~/components/ui/pending";
import { usePageForm } from "~/components/ui/section-form";
import { localizePath } from "~/i18n/config";
import { sendVerificationSchema, signInSchema } from "~/lib/auth-forms";
import { withRedirect } from "~/lib/safe-redirect";
import { seo } from "~/lib/seo";
import { useLocalize } from "~/lib/use-root-data";
import { sendVerificationEmail, signInEmail } from "~/server/auth/accounts.server";
import { redirectParam } from "~/server/auth/guards.server";
import { SecondFactorRequired, SsoRequired } from "~/server/auth/sign-in.server";
import { isAppError } from "~/server/errors.server";
import { authT, cookieHeaders, SECRET_FIELDS } from "~/server/forms.server";
import { pageAction, socialIntent } from "~/server/page-action.server";
import { callbackError, enabledProviders } from "~/server/auth/social/social.server";
import { getLocale } from "~/server/i18n.server";
import { pageMeta } from "~/server/page-meta.server";
import { redirectWithToast } from "~/server/toast.server";

// What it shows a visitor follows from the request: the page cache may answer it (page-cache.server.ts).
export const handle = { i18n: ["auth"], pageCache: true };

export async function clientLoader({ request, serverLoader }: Route.ClientLoaderArgs) {
  return withTranslations(request, handle, serverLoader);
}

export function loader({ request, url, context }: Route.LoaderArgs) {
  // A social sign-in that failed comes back here with `?error=` (one of CALLBACK_ERROR_CODES
  // or the provider's own), which the page explains.
  const socialError = callbackError(request);
  // Except one: the address's organization requires single sign-on, whose page says so.
  if (socialError?.code === "sso_required") {
    const query = new URLSearchParams({ error: socialError.code, email: socialError.email ?? "" });
    const next = redirectParam(url);
    if (next) query.set("redirect", next);
    throw redirect(`${localizePath("/signin/sso", getLocale(context))}?${query}`);
  }
  return { meta: pageMeta(context, "signin"), providers: enabledProviders(), socialError };
}

/** A refused action's own headers (X-Retry-After on TOO_MANY_REQUESTS) reach the browser. */
export const headers: Route.HeadersFunction = ({ actionHeaders }) => actionHeaders;

export const meta: Route.MetaFunction = ({ data, location, matches }) =>
  seo({ title: data?.meta.title, description: data?.meta.description, location, matches });

export const action = pageAction({
  auth: "optional",
  intents: (intent) => ({
    "send-verification": intent({
      schema: sendVerificationSchema,
      rateLimit: "/send-verification-email",
      extra: (formData) => ({
        intent: "send-verification" as const,
        unverifiedEmail: String(formData.get("email") ?? ""),
      }),
      async run({ args, value: { email }, meta, locale }) {
        await sendVerificationEmail({ email, callbackURL: localizePath("/verify-email", locale) }, meta, null);
        const t = authT(args.context);
        const { pathname, search } = args.url;
        return redirectWithToast(pathname + search, {
          type: "success",
          title: t("signIn.resent"),
          description: t("signIn.resentBody"),
        });
      },
    }),
    "sign-in": intent({
      schema: signInSchema,
      rateLimit: "/sign-in/email",
      extra: () => ({ intent: "sign-in" as const, unverifiedEmail: "" }),
      async run({ args, value: { email, password, rememberMe }, meta, locale, submission }) {
        const target = redirectParam(args.url) ?? localizePath(navigation.signedInRedirect, locale);
        try {
          const { user, setCookies } = await signInEmail(
            { email, password, rememberMe, callbackURL: localizePath("/verify-email", locale) },
            meta,
          );
          return redirectWithToast(
            target,
            { type: "success", title: authT(args.context)("signIn.signedIn", { name: user.name }) },
            { headers: cookieHeaders(setCookies) },
          );
        } catch (error) {
          if (error instanceof SecondFactorRequired) {
            return redirect(withRedirect(localizePath("/signin/two-factor", locale), target), {
              headers: cookieHeaders(error.setCookies),
            });
          }
          // The organization of this address signs it in itself: on to its single sign-on, filled in.
          if (error instanceof SsoRequired) {
            const query = new URLSearchParams({ error: "sso_required", email: error.email });
            const next = redirectParam(args.url);
            if (next) query.set("redirect", next);
            return redirect(`${localizePath("/signin/sso", locale)}?${query}`);
          }
          if (isAppError(error) && error.code === "EMAIL_NOT_VERIFIED") {
            // The service has just sent a new verification email: say so, and offer another.
            const result = submission.reply({ hideFields: SECRET_FIELDS });
            return data({ intent: "sign-in" as const, result, unverifiedEmail: email }, { status: error.status });
          }
          throw error;
        }
      },
    }),
    social: socialIntent({
      paths: ({ locale }) => ({
        callbackPath: localizePath(navigation.signedInRedirect, locale),
        errorPath: localizePath("/signin", locale),
      }),
    }),
  }),
});

export default function SignIn({ loaderData }: Route.ComponentProps) {
  const { t } = useTranslation("auth");
  const localize = useLocalize();
  const location = useLocation();
  const actionData = useActionData<typeof action>();
  const signInResult = actionData?.intent === "sign-in" ? actionData.result : undefined;
  const unverifiedEmail = actionData?.unverifiedEmail;
  const resendResult = actionData?.intent === "send-verification" ? actionData.result : undefined;
  const pending = usePendingIntent("sign-in");

  const [form, fields] = usePageForm(() => import("~/lib/auth-forms").then((m) => m.signInSchema), {
    lastResult: signInResult,
    defaultValue: { rememberMe: true },
  });

  // Links to the other guest pages keep the page to come back to.
  const redirect = new URLSearchParams(location.search).get("redirect");

  return (
    <AuthCard
      title={loaderData.meta.title}
      description={loaderData.meta.description}
      footer={
        <>
          {t("signIn.noAccount")}{" "}
          <AppLink to={withRedirect(localize("/signup"), redirect)} className={linkClass}>
            {t("signIn.signUp")}
          </AppLink>
        </>
      }
    >
      <div className="flex flex-col gap-5">
        {unverifiedEmail ? (
          <>
            <Notice tone="info" title={t("signIn.unverifiedTitle")} testId="unverified-notice">
              {t("signIn.unverifiedBody", { email: unverifiedEmail })}
            </Notice>
            <ResendForm email={unverifiedEmail} errors={resendResult?.error?.[""] ?? undefined} />
          </>
        ) : null}
        {loaderData.socialError ? <SocialErrorNotice {...loaderData.socialError} /> : null}
        <Form method="post" {...getFormProps(form)} className="flex flex-col gap-4">
          <input type="hidden" name="intent" value="sign-in" />
          <FormErrors id={form.errorId} errors={form.errors} />
          <Field
            field={fields.email}
            type="email"
            label={t("form.email")}
            // "webauthn": the browser may offer passkeys here too (PasskeySignIn).
            inputProps={{ autoComplete: "username webauthn", autoFocus: !unverifiedEmail }}
          />
          <Field
            field={fields.password}
            type="password"
            label={t("form.password")}
            labelAside={
              <AppLink to={localize("/forgot-password")} className={`text-sm ${linkClass}`}>
                {t("signIn.forgotPassword")}
              </AppLink>
            }
            inputProps={{ autoComplete: "current-password" }}
          />
          <Checkbox field={fields.rememberMe} label={t("signIn.rememberMe")} />
          <SubmitButton pending={pending} pendingLabel={t("signIn.pending")} className="w-full">
            {t("signIn.submit")}
          </SubmitButton>
        </Form>
        <PasskeySignIn />
        <SocialSignIn providers={loaderData.providers} />
        <AppLink
          to={withRedirect(localize("/signin/sso"), redirect)}
          className={buttonClass("secondary", "w-full")}
          data-testid="sso-link"
        >
          <Icon name="lock" />
          {t("sso.continue")}
        </AppLink>
      </div>
    </AuthCard>
  );
}

function ResendForm({ email, errors }: { email: string; errors: string[] | undefined }) {
  const { t } = useTranslation("auth");
  const pending = usePendingIntent("send-verification");
  return (
    <Form method="post" className="flex flex-col gap-3">
      <FormErrors errors={errors} />
      <input type="hidden" name="intent" value="send-verification" />
      <input type="hidden" name="email" value={email} />
      <SubmitButton variant="secondary" pending={pending} pendingLabel={t("signIn.resendPending")} className="w-full">
        {t("signIn.resend")}
      </SubmitButton>
    </Form>
  );
}
