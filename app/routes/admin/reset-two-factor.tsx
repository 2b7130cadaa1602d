import { useActionData, useLocation } from "react-router";
import type { Route } from "./+types/reset-two-factor";
import { ConfirmForm, DialogText } from "~/components/ui/ConfirmDialog";
import { TextareaField } from "~/components/ui/Field";
import { usePageForm } from "~/components/ui/section-form";
import { resetTwoFactorSchema } from "~/lib/admin-forms";
import { seo } from "~/lib/seo";
import { useTranslation, withTranslations } from "~/lib/translations";
import { useLocalize } from "~/lib/use-root-data";
import { adminOf, adminT, userOfDialog, userOfPage } from "~/server/admin/pages.server";
import { resetTwoFactor } from "~/server/admin/users.server";
import { pageAction } from "~/server/page-action.server";
import { redirectWithToast } from "~/server/toast.server";

export const handle = { i18n: ["admin", "auth"] };

export async function clientLoader({ request, serverLoader }: Route.ClientLoaderArgs) {
  return withTranslations(request, handle, serverLoader);
}

export async function loader({ url, params, context }: Route.LoaderArgs) {
  const user = await userOfPage(adminOf(context), url, params.userId);
  return { title: adminT(context)("twoFactor.title", { name: user.name }), email: user.email };
}

export const meta: Route.MetaFunction = ({ data, location, matches }) => seo({ title: data?.title, location, matches });

/** Switches the user's two-factor off, with the admin's reason in the audit log. */
export const action = pageAction({
  auth: "required",
  prepare: userOfDialog,
  intents: (intent) => ({
    "reset-two-factor": intent({
      schema: resetTwoFactorSchema,
      rateLimit: "/admin/reset-two-factor",
      async run({ args, auth, meta, page: user, value }) {
        await resetTwoFactor(auth, { userId: user.id, reason: value.reason }, meta);
        const { pathname, search } = args.url;
        return redirectWithToast(pathname.replace(/\/[^/]+\/two-factor$/, "") + search, {
          type: "success",
          title: adminT(args.context)("twoFactor.done", { name: user.name }),
        });
      },
    }),
  }),
});

export default function ResetTwoFactor({ loaderData }: Route.ComponentProps) {
  const { t } = useTranslation("admin");
  const back = useLocalize()(`/admin/users${useLocation().search}`);
  const actionData = useActionData<typeof action>();
  const [form, fields] = usePageForm(() => import("~/lib/admin-forms").then((m) => m.resetTwoFactorSchema), {
    lastResult: actionData?.result,
    shouldValidate: "onBlur",
  });
  return (
    <ConfirmForm
      title={loaderData.title}
      closeTo={back}
      form={form}
      intent="reset-two-factor"
      body={<DialogText>{t("twoFactor.body", { email: loaderData.email })}</DialogText>}
      cancelLabel={t("cancel")}
      submitLabel={t("twoFactor.submit")}
    >
      {/* Its limits (required, 500 characters) come from the schema through conform. */}
      <TextareaField field={fields.reason} label={t("twoFactor.reason")} textareaProps={{ rows: 3, autoFocus: true }} />
    </ConfirmForm>
  );
}
