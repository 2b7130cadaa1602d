import { getFormProps } from "@conform-to/react";
import { navigation } from "~/config/navigation";
import { useTranslation } from "~/lib/translations";
import { Form, useActionData } from "react-router";
import type { Route } from "./+types/verify-email";
import { withTranslations } from "~/lib/translations";
import { AppLink } from "~/components/AppLink";
import { AuthCard, Notice } from "~/components/ui/AuthCard";
import { buttonClass, SubmitButton } from "~/components/ui/Button";
import { Field } from "~/components/ui/Field";
import { FormErrors } from "~/components/ui/FormErrors";
import { usePendingIntent } from "~/components/ui/pending";
import { usePageForm } from "~/components/ui/section-form";
import { localizePath } from "~/i18n/config";
import { sendVerificationSchema } from "~/lib/auth-forms";
import { seo } from "~/lib/seo";
import { useLocalize } from "~/lib/use-root-data";
import { sendVerificationEmail } from "~/server/auth/accounts.server";
import { getUser, redirectParam } from "~/server/auth/guards.server";
import { getLocale } from "~/server/i18n.server";
import { authT } from "~/server/forms.server";
import { pageAction } from "~/server/page-action.server";
import { pageMeta } from "~/server/page-meta.server";
import { redirectWithToast } from "~/server/toast.server";

/** The verify-email link's landing page: /api/auth/verify-email redirects here, with `?error=` on failure. */
const ERRORS = ["token_expired", "invalid_token", "user_not_found", "unauthorized", "banned_user"] as const;
type VerifyError = (typeof ERRORS)[number];

export const handle = { i18n: ["auth"] };

export async function clientLoader({ request, serverLoader }: Route.ClientLoaderArgs) {
  return withTranslations(request, handle, serverLoader);
}

export async function loader({ url, context }: Route.LoaderArgs) {
  const params = url.searchParams;
  const error = params.get("error");
  const user = getUser(context);
  // Verified and signed in by the link: on to the page the sign-up started from, else home.
  if (user?.emailVerified && !error && params.get("changed") !== "1") {
    const target = redirectParam(url) ?? localizePath(navigation.signedInRedirect, getLocale(context));
    const t = authT(context);
    throw await redirectWithToast(target, {
      type: "success",
      title: t("verifyEmail.successTitle"),
      description: t("verifyEmail.successBody"),
    });
  }
  return {
    meta: pageMeta(context, "verifyEmail"),
    // Set after a change-email confirmation: the new address still has to be verified.
    changed: params.get("changed") === "1",
    // Any other error code reads as an unusable link.
    error:
      error === null
        ? null
        : (((ERRORS as readonly string[]).includes(error) ? error : "invalid_token") as VerifyError),
    signedIn: !!user,
    email: user?.email ?? "",
  };
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
      fields: { INVALID_EMAIL: "email" },
      async run({ args, auth, meta, locale, value: { email } }) {
        await sendVerificationEmail({ email, callbackURL: localizePath("/verify-email", locale) }, meta, auth);
        const t = authT(args.context);
        const { pathname, search } = args.url;
        return redirectWithToast(pathname + search, {
          type: "success",
          title: t("verifyEmail.resent"),
          description: t("verifyEmail.resentBody"),
        });
      },
    }),
  }),
});

export default function VerifyEmail({ loaderData }: Route.ComponentProps) {
  const { t } = useTranslation("auth");
  const localize = useLocalize();
  const { error, signedIn, changed } = loaderData;

  if (!error && changed) {
    return (
      <AuthCard title={t("verifyEmail.changedTitle")}>
        <Notice title={t("verifyEmail.changedTitle")} testId="email-changed">
          {t("verifyEmail.changedBody")}
        </Notice>
      </AuthCard>
    );
  }

  // Signed in with an address still to verify (a verified one has gone on to the dashboard).
  if (!error && signedIn) {
    return (
      <AuthCard title={t("verifyEmail.pendingTitle")}>
        <div className="flex flex-col gap-5">
          <Notice title={t("verifyEmail.pendingTitle")} testId="verify-pending">
            {t("verifyEmail.pendingBody", { email: loaderData.email })}
          </Notice>
          <ResendForm email={loaderData.email} />
        </div>
      </AuthCard>
    );
  }

  if (!error) {
    return (
      <AuthCard title={t("verifyEmail.successTitle")}>
        <div className="flex flex-col gap-4">
          <Notice title={t("verifyEmail.successTitle")} testId="verify-success">
            {t("verifyEmail.successSignedOut")}
          </Notice>
          <AppLink to={localize("/signin")} className={buttonClass("primary", "w-full")}>
            {t("verifyEmail.signIn")}
          </AppLink>
        </div>
      </AuthCard>
    );
  }

  return (
    <AuthCard title={t(`verifyEmail.errors.${error}.title`)}>
      <div className="flex flex-col gap-5" data-error={error}>
        <Notice tone="error" title={t(`verifyEmail.errors.${error}.title`)} testId="verify-error">
          {t(`verifyEmail.errors.${error}.body`)}
        </Notice>
        {error === "token_expired" || error === "invalid_token" ? (
          <ResendForm email={loaderData.email} />
        ) : error === "user_not_found" ? (
          <AppLink to={localize("/signup")} className={buttonClass("primary", "w-full")}>
            {t("signIn.signUp")}
          </AppLink>
        ) : (
          <AppLink to={localize("/signin")} className={buttonClass("primary", "w-full")}>
            {t("verifyEmail.signIn")}
          </AppLink>
        )}
      </div>
    </AuthCard>
  );
}

function ResendForm({ email }: { email: string }) {
  const { t } = useTranslation("auth");
  const actionData = useActionData<typeof action>();
  const pending = usePendingIntent("send-verification");
  const [form, fields] = usePageForm(() => import("~/lib/auth-forms").then((m) => m.sendVerificationSchema), {
    lastResult: actionData?.result,
    defaultValue: { email },
  });
  return (
    <Form method="post" {...getFormProps(form)} className="flex flex-col gap-4">
      <h2 className="text-sm font-semibold">{t("verifyEmail.resendTitle")}</h2>
      <input type="hidden" name="intent" value="send-verification" />
      <FormErrors id={form.errorId} errors={form.errors} />
      <Field field={fields.email} type="email" label={t("form.email")} inputProps={{ autoComplete: "email" }} />
      <SubmitButton pending={pending} pendingLabel={t("verifyEmail.resendPending")} className="w-full">
        {t("verifyEmail.resendSubmit")}
      </SubmitButton>
    </Form>
  );
}
