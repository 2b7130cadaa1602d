import { getFormProps } from "@conform-to/react";
import { navigation } from "~/config/navigation";
import { useTranslation } from "~/lib/translations";
import { Form, useActionData, useLocation } from "react-router";
import type { Route } from "./+types/signup";
import { withTranslations } from "~/lib/translations";
import { AppLink } from "~/components/AppLink";
import { SocialErrorNotice, SocialSignIn } from "~/components/SocialButtons";
import { AuthCard, linkClass, Notice } from "~/components/ui/AuthCard";
import { buttonClass, SubmitButton } from "~/components/ui/Button";
import { Field } from "~/components/ui/Field";
import { FormErrors } from "~/components/ui/FormErrors";
import { usePendingIntent } from "~/components/ui/pending";
import { usePageForm } from "~/components/ui/section-form";
import { localizePath } from "~/i18n/config";
import { signUpSchema } from "~/lib/auth-forms";
import { PASSWORD_MAX, PASSWORD_MIN } from "~/lib/form-limits";
import { withRedirect } from "~/lib/safe-redirect";
import { seo } from "~/lib/seo";
import { useLocalize } from "~/lib/use-root-data";
import { signUpEmail } from "~/server/auth/accounts.server";
import { invitedAddress } from "~/server/organization/invitations.server";
import { redirectParam } from "~/server/auth/guards.server";
import { normalizeEmail } from "~/server/auth/schemas.server";
import { callbackError, enabledProviders } from "~/server/auth/social/social.server";
import { authT } from "~/server/forms.server";
import { pageAction, socialIntent } from "~/server/page-action.server";
import { pageMeta } from "~/server/page-meta.server";
import { redirectWithToast } from "~/server/toast.server";

// What it shows a visitor follows from the request: the page cache may answer it (page-cache.server.ts).
export const handle = { i18n: ["auth"], pageCache: true };

export async function clientLoader({ request, serverLoader }: Route.ClientLoaderArgs) {
  return withTranslations(request, handle, serverLoader);
}

/**
 * The address of the open invitation the URL names (`?invitation=`, the invitation page's
 * sign-up link), or null: the form's email is then fixed to it.
 */
async function invitedEmail(url: URL): Promise<string | null> {
  const id = url.searchParams.get("invitation");
  return id ? invitedAddress(id.slice(0, 200)) : null;
}

export async function loader({ request, url, context }: Route.LoaderArgs) {
  // After a sign-up the page says "check your email" (the address itself travels in the toast).
  const query = url.searchParams;
  return {
    meta: pageMeta(context, "signup"),
    sent: query.get("sent") === "1",
    invitedEmail: await invitedEmail(url),
    providers: enabledProviders(),
    socialError: callbackError(request),
  };
}

/** A refused action's own headers (X-Retry-After on TOO_MANY_REQUESTS) reach the browser. */
export const headers: Route.HeadersFunction = ({ actionHeaders }) => actionHeaders;

export const meta: Route.MetaFunction = ({ data, location, matches }) =>
  seo({ title: data?.meta.title, description: data?.meta.description, location, matches });

/**
 * Signing up from an invitation takes its address: another one is refused next to the email
 * field (the form shows it read-only, but a post may say anything).
 */
export const action = pageAction({
  auth: "optional",
  prepare: ({ args }) => invitedEmail(args.url),
  intents: (intent) => ({
    "sign-up": intent({
      schema: ({ page: invited, args }) =>
        invited
          ? signUpSchema.superRefine((value, ctx) => {
              if (normalizeEmail(value.email) !== normalizeEmail(invited)) {
                const message = authT(args.context)("signUp.invitedOnly", { email: invited });
                ctx.addIssue({ code: "custom", path: ["email"], message });
              }
            })
          : signUpSchema,
      rateLimit: "/sign-up/email",
      fields: {
        USER_ALREADY_EXISTS: "email",
        USER_ALREADY_EXISTS_USE_ANOTHER_EMAIL: "email",
        INVALID_EMAIL: "email",
        PASSWORD_TOO_SHORT: "newPassword",
        PASSWORD_TOO_LONG: "newPassword",
      },
      async run({ args, value: { name, email, newPassword }, meta, locale }) {
        // An address that already has an account gets the very same answer (no account probing).
        // The verification link brings the new user back to the page they came for (an invitation, say).
        const callbackURL = withRedirect(localizePath("/verify-email", locale), redirectParam(args.url));
        await signUpEmail({ name, email, password: newPassword, callbackURL }, meta);
        const t = authT(args.context);
        return redirectWithToast(localizePath("/signup", locale) + "?sent=1", {
          type: "success",
          title: t("signUp.sentToast"),
          description: t("signUp.sentToastBody", { email }),
        });
      },
    }),
    social: socialIntent({
      paths: ({ locale }) => ({
        callbackPath: localizePath(navigation.signedInRedirect, locale),
        errorPath: localizePath("/signup", locale),
      }),
      requestSignUp: true,
    }),
  }),
});

export default function SignUp({ loaderData }: Route.ComponentProps) {
  const { t } = useTranslation("auth");
  const localize = useLocalize();
  const location = useLocation();
  const redirect = new URLSearchParams(location.search).get("redirect");

  return (
    <AuthCard
      title={loaderData.meta.title}
      description={loaderData.meta.description}
      footer={
        <>
          {t("signUp.haveAccount")}{" "}
          <AppLink to={withRedirect(localize("/signin"), redirect)} className={linkClass}>
            {t("signUp.signIn")}
          </AppLink>
        </>
      }
    >
      {loaderData.sent ? (
        <div className="flex flex-col gap-4">
          <Notice title={t("signUp.sentTitle")} testId="signup-sent">
            {t("signUp.sentBody")}
          </Notice>
          <p className="text-sm text-slate-600 dark:text-slate-400">{t("signUp.sentHelp")}</p>
          <AppLink to={localize("/signin")} className={buttonClass("secondary", "w-full")}>
            {t("signUp.backToSignIn")}
          </AppLink>
        </div>
      ) : (
        <div className="flex flex-col gap-5">
          {loaderData.socialError ? <SocialErrorNotice {...loaderData.socialError} /> : null}
          <SignUpForm invitedEmail={loaderData.invitedEmail} />
          <SocialSignIn providers={loaderData.providers} />
        </div>
      )}
    </AuthCard>
  );
}

function SignUpForm({ invitedEmail }: { invitedEmail: string | null }) {
  const { t } = useTranslation("auth");
  const actionData = useActionData<typeof action>();
  const pending = usePendingIntent("sign-up");
  const [form, fields] = usePageForm(() => import("~/lib/auth-forms").then((m) => m.signUpSchema), {
    lastResult: actionData?.result,
    defaultValue: invitedEmail ? { email: invitedEmail } : undefined,
  });
  return (
    <Form method="post" {...getFormProps(form)} className="flex flex-col gap-4">
      <input type="hidden" name="intent" value="sign-up" />
      <FormErrors id={form.errorId} errors={form.errors} />
      <Field
        field={fields.name}
        type="text"
        label={t("form.name")}
        inputProps={{ autoComplete: "name", autoFocus: true }}
      />
      <Field
        field={fields.email}
        type="email"
        label={t("form.email")}
        hint={invitedEmail ? t("signUp.invitedHint") : undefined}
        inputProps={
          invitedEmail
            ? { autoComplete: "email", readOnly: true, value: invitedEmail, "aria-readonly": true }
            : { autoComplete: "email" }
        }
      />
      <Field
        field={fields.newPassword}
        type="password"
        label={t("form.password")}
        hint={t("form.passwordHint", { min: PASSWORD_MIN, max: PASSWORD_MAX })}
        inputProps={{ autoComplete: "new-password", minLength: PASSWORD_MIN, maxLength: PASSWORD_MAX }}
      />
      <Field
        field={fields.confirmPassword}
        type="password"
        label={t("form.confirmPassword")}
        inputProps={{ autoComplete: "new-password" }}
      />
      <SubmitButton pending={pending} pendingLabel={t("signUp.pending")} className="w-full">
        {t("signUp.submit")}
      </SubmitButton>
    </Form>
  );
}
