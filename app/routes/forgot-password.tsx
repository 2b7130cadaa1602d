import { getFormProps } from "@conform-to/react";
import { useTranslation } from "~/lib/translations";
import { Form, useActionData } from "react-router";
import type { Route } from "./+types/forgot-password";
import { withTranslations } from "~/lib/translations";
import { AppLink } from "~/components/AppLink";
import { AuthCard, linkClass, Notice } from "~/components/ui/AuthCard";
import { buttonClass, SubmitButton } from "~/components/ui/Button";
import { Field } from "~/components/ui/Field";
import { FormErrors } from "~/components/ui/FormErrors";
import { usePendingIntent } from "~/components/ui/pending";
import { usePageForm } from "~/components/ui/section-form";
import { localizePath } from "~/i18n/config";
import { forgotPasswordSchema } from "~/lib/auth-forms";
import { seo } from "~/lib/seo";
import { useLocalize } from "~/lib/use-root-data";
import { requestPasswordReset } from "~/server/auth/account-management.server";
import { authT } from "~/server/forms.server";
import { pageAction } from "~/server/page-action.server";
import { pageMeta } from "~/server/page-meta.server";
import { redirectWithToast } from "~/server/toast.server";

export const handle = { i18n: ["auth"] };

export async function clientLoader({ request, serverLoader }: Route.ClientLoaderArgs) {
  return withTranslations(request, handle, serverLoader);
}

export function loader({ url, context }: Route.LoaderArgs) {
  const sent = url.searchParams.get("sent") === "1";
  return { meta: pageMeta(context, "forgotPassword"), sent };
}

/** A refused action's own headers (X-Retry-After on TOO_MANY_REQUESTS) reach the browser. */
export const headers: Route.HeadersFunction = ({ actionHeaders }) => actionHeaders;

export const meta: Route.MetaFunction = ({ data, location, matches }) =>
  seo({ title: data?.meta.title, description: data?.meta.description, location, matches });

export const action = pageAction({
  auth: "optional",
  intents: (intent) => ({
    "forgot-password": intent({
      schema: forgotPasswordSchema,
      rateLimit: "/request-password-reset",
      fields: { INVALID_EMAIL: "email" },
      async run({ args, meta, locale, value: { email } }) {
        // Unknown addresses get the same answer: the page never tells who has an account.
        await requestPasswordReset({ email, redirectTo: localizePath("/reset-password", locale) }, meta);
        return redirectWithToast(localizePath("/forgot-password", locale) + "?sent=1", {
          type: "success",
          title: authT(args.context)("forgotPassword.sentToast"),
        });
      },
    }),
  }),
});

export default function ForgotPassword({ loaderData }: Route.ComponentProps) {
  const { t } = useTranslation("auth");
  const localize = useLocalize();
  return (
    <AuthCard
      title={loaderData.meta.title}
      description={loaderData.meta.description}
      footer={
        <>
          {t("forgotPassword.remembered")}{" "}
          <AppLink to={localize("/signin")} className={linkClass}>
            {t("forgotPassword.signIn")}
          </AppLink>
        </>
      }
    >
      {loaderData.sent ? (
        <div className="flex flex-col gap-4">
          <Notice title={t("forgotPassword.sentTitle")} testId="reset-sent">
            {t("forgotPassword.sentBody")}
          </Notice>
          <AppLink to={localize("/signin")} className={buttonClass("secondary", "w-full")}>
            {t("forgotPassword.backToSignIn")}
          </AppLink>
        </div>
      ) : (
        <ForgotPasswordForm />
      )}
    </AuthCard>
  );
}

function ForgotPasswordForm() {
  const { t } = useTranslation("auth");
  const actionData = useActionData<typeof action>();
  const pending = usePendingIntent("forgot-password");
  const [form, fields] = usePageForm(() => import("~/lib/auth-forms").then((m) => m.forgotPasswordSchema), {
    lastResult: actionData?.result,
  });
  return (
    <Form method="post" {...getFormProps(form)} className="flex flex-col gap-4">
      <input type="hidden" name="intent" value="forgot-password" />
      <FormErrors id={form.errorId} errors={form.errors} />
      <Field
        field={fields.email}
        type="email"
        label={t("form.email")}
        inputProps={{ autoComplete: "email", autoFocus: true }}
      />
      <SubmitButton pending={pending} pendingLabel={t("forgotPassword.pending")} className="w-full">
        {t("forgotPassword.submit")}
      </SubmitButton>
    </Form>
  );
}
