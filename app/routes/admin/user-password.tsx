import { useActionData, useLocation } from "react-router";
import type { Route } from "./+types/user-password";
import { ConfirmForm } from "~/components/ui/ConfirmDialog";
import { Field } from "~/components/ui/Field";
import { usePageForm } from "~/components/ui/section-form";
import { setPasswordSchema } from "~/lib/admin-forms";
import { seo } from "~/lib/seo";
import { useTranslation, withTranslations } from "~/lib/translations";
import { useLocalize } from "~/lib/use-root-data";
import { adminOf, adminT, userOfDialog, userOfPage } from "~/server/admin/pages.server";
import { setUserPassword } from "~/server/admin/users.server";
import { pageAction } from "~/server/page-action.server";
import { redirectWithToast } from "~/server/toast.server";

export const handle = { i18n: ["admin", "auth"] };

export async function clientLoader({ request, serverLoader }: Route.ClientLoaderArgs) {
  return withTranslations(request, handle, serverLoader);
}

export async function loader({ url, params, context }: Route.LoaderArgs) {
  const user = await userOfPage(adminOf(context), url, params.userId);
  return { title: adminT(context)("password.title", { name: user.name }) };
}

export const meta: Route.MetaFunction = ({ data, location, matches }) => seo({ title: data?.title, location, matches });

export const action = pageAction({
  auth: "required",
  prepare: userOfDialog,
  intents: (intent) => ({
    "set-password": intent({
      schema: setPasswordSchema,
      rateLimit: "/admin/set-user-password",
      fields: { PASSWORD_TOO_SHORT: "password", PASSWORD_TOO_LONG: "password" },
      async run({ args, auth, meta, page: user, value }) {
        await setUserPassword(auth, { userId: user.id, newPassword: value.password }, meta);
        const { pathname, search } = args.url;
        return redirectWithToast(pathname.replace(/\/[^/]+\/password$/, "") + search, {
          type: "success",
          title: adminT(args.context)("password.done", { name: user.name }),
        });
      },
    }),
  }),
});

export default function UserPassword({ loaderData }: Route.ComponentProps) {
  const { t } = useTranslation("admin");
  const { t: ta } = useTranslation("auth");
  const back = useLocalize()(`/admin/users${useLocation().search}`);
  const actionData = useActionData<typeof action>();
  const [form, fields] = usePageForm(() => import("~/lib/admin-forms").then((m) => m.setPasswordSchema), {
    lastResult: actionData?.result,
    shouldValidate: "onBlur",
  });
  return (
    <ConfirmForm
      title={loaderData.title}
      closeTo={back}
      form={form}
      intent="set-password"
      cancelLabel={t("cancel")}
      submitLabel={t("password.submit")}
      variant="primary"
    >
      <Field
        field={fields.password}
        type="password"
        label={ta("form.newPassword")}
        hint={ta("form.passwordHint")}
        inputProps={{ autoComplete: "new-password", autoFocus: true }}
      />
    </ConfirmForm>
  );
}
