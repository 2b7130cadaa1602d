import { getFormProps } from "@conform-to/react";
import { useTranslation } from "~/lib/translations";
import { Form, useActionData } from "react-router";
import type { Route } from "./+types/reset-password";
import { withTranslations } from "~/lib/translations";
import { AppLink } from "~/components/AppLink";
import { AuthCard, Notice } from "~/components/ui/AuthCard";
import { buttonClass, SubmitButton } from "~/components/ui/Button";
import { Field } from "~/components/ui/Field";
import { FormErrors } from "~/components/ui/FormErrors";
import { usePendingIntent } from "~/components/ui/pending";
import { usePageForm } from "~/components/ui/section-form";
import { localizePath } from "~/i18n/config";
import { resetPasswordSchema } from "~/lib/auth-forms";
import { PASSWORD_MAX, PASSWORD_MIN } from "~/lib/form-limits";
import { seo } from "~/lib/seo";
import { useLocalize } from "~/lib/use-root-data";
import { isResetTokenValid, resetPassword } from "~/server/auth/account-management.server";
import { authT } from "~/server/forms.server";
import { pageAction } from "~/server/page-action.server";
import { pageMeta } from "~/server/page-meta.server";
import { redirectWithToast } from "~/server/toast.server";

/**
 * The emailed link goes through /api/auth/reset-password/{token}, which sends the browser
 * here with `?token=…`, or with `?error=INVALID_TOKEN` when the token is unknown or expired.
 */
export const handle = { i18n: ["auth"] };

export async function clientLoader({ request, serverLoader }: Route.ClientLoaderArgs) {
  return withTranslations(request, handle, serverLoader);
}

export async function loader({ url, context }: Route.LoaderArgs) {
  const params = url.searchParams;
  const given = params.get("error") ? null : params.get("token");
  // A token that is unknown, expired or used shows the "request a new link" panel at once.
  const token = given && (await isResetTokenValid(given)) ? given : null;
  return { meta: pageMeta(context, "resetPassword"), token };
}

/** A refused action's own headers (X-Retry-After on TOO_MANY_REQUESTS) reach the browser. */
export const headers: Route.HeadersFunction = ({ actionHeaders }) => actionHeaders;

export const meta: Route.MetaFunction = ({ data, location, matches }) =>
  seo({ title: data?.meta.title, description: data?.meta.description, location, matches });

export const action = pageAction({
  auth: "optional",
  intents: (intent) => ({
    "reset-password": intent({
      schema: resetPasswordSchema,
      rateLimit: "/reset-password",
      fields: { PASSWORD_TOO_SHORT: "newPassword", PASSWORD_TOO_LONG: "newPassword" },
      async run({ args, meta, locale, value: { token, newPassword } }) {
        await resetPassword({ token, newPassword }, meta);
        const t = authT(args.context);
        return redirectWithToast(localizePath("/signin", locale), {
          type: "success",
          title: t("resetPassword.done"),
          description: t("resetPassword.doneBody"),
        });
      },
    }),
  }),
});

export default function ResetPassword({ loaderData }: Route.ComponentProps) {
  const { t } = useTranslation("auth");
  const localize = useLocalize();
  return (
    <AuthCard title={loaderData.meta.title} description={loaderData.meta.description}>
      {loaderData.token ? (
        <ResetPasswordForm token={loaderData.token} />
      ) : (
        <div className="flex flex-col gap-4">
          <Notice tone="error" title={t("resetPassword.invalidTitle")} testId="reset-invalid">
            {t("resetPassword.invalidBody")}
          </Notice>
          <AppLink to={localize("/forgot-password")} className={buttonClass("primary", "w-full")}>
            {t("resetPassword.requestNew")}
          </AppLink>
        </div>
      )}
    </AuthCard>
  );
}

function ResetPasswordForm({ token }: { token: string }) {
  const { t } = useTranslation("auth");
  const localize = useLocalize();
  const actionData = useActionData<typeof action>();
  const pending = usePendingIntent("reset-password");
  const [form, fields] = usePageForm(() => import("~/lib/auth-forms").then((m) => m.resetPasswordSchema), {
    lastResult: actionData?.result,
  });
  const tokenRejected = form.errors?.some((code) => code === "INVALID_TOKEN" || code === "TOKEN_EXPIRED");
  return (
    <Form method="post" {...getFormProps(form)} className="flex flex-col gap-4">
      <input type="hidden" name="intent" value="reset-password" />
      <input type="hidden" name="token" value={token} />
      <FormErrors id={form.errorId} errors={form.errors} />
      {tokenRejected ? (
        <AppLink to={localize("/forgot-password")} className={buttonClass("secondary", "w-full")}>
          {t("resetPassword.requestNew")}
        </AppLink>
      ) : null}
      <Field
        field={fields.newPassword}
        type="password"
        label={t("form.newPassword")}
        hint={t("form.passwordHint", { min: PASSWORD_MIN, max: PASSWORD_MAX })}
        inputProps={{ autoComplete: "new-password", minLength: PASSWORD_MIN, maxLength: PASSWORD_MAX, autoFocus: true }}
      />
      <Field
        field={fields.confirmPassword}
        type="password"
        label={t("form.confirmPassword")}
        inputProps={{ autoComplete: "new-password" }}
      />
      <SubmitButton pending={pending} pendingLabel={t("resetPassword.pending")} className="w-full">
        {t("resetPassword.submit")}
      </SubmitButton>
    </Form>
  );
}
