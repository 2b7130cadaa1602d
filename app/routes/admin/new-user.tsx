import { useActionData, useLocation } from "react-router";
import type { Route } from "./+types/new-user";
import { ConfirmForm } from "~/components/ui/ConfirmDialog";
import { Field } from "~/components/ui/Field";
import { usePageForm } from "~/components/ui/section-form";
import { createUserSchema } from "~/lib/admin-forms";
import { seo } from "~/lib/seo";
import { useTranslation, withTranslations } from "~/lib/translations";
import { useLocalize } from "~/lib/use-root-data";
import { adminT, requireAdminAction } from "~/server/admin/pages.server";
import { createUser } from "~/server/admin/users.server";
import { pageAction } from "~/server/page-action.server";
import { redirectWithToast } from "~/server/toast.server";

export const handle = { i18n: ["admin", "auth"] };

export async function clientLoader({ request, serverLoader }: Route.ClientLoaderArgs) {
  return withTranslations(request, handle, serverLoader);
}

export const loader = ({ context }: Route.LoaderArgs) => ({ title: adminT(context)("users.create") });

export const meta: Route.MetaFunction = ({ data, location, matches }) => seo({ title: data?.title, location, matches });

/** Creates the user (verified: an admin vouches for the address) and goes back to the table. */
export const action = pageAction({
  auth: "required",
  prepare: requireAdminAction,
  intents: (intent) => ({
    "create-user": intent({
      schema: createUserSchema,
      rateLimit: "/admin/create-user",
      fields: { USER_ALREADY_EXISTS_USE_ANOTHER_EMAIL: "email" },
      async run({ args, auth, meta, value: { name, email, password, role } }) {
        await createUser(auth, { name, email, password, role, data: { emailVerified: true } }, meta);
        const { pathname, search } = args.url;
        return redirectWithToast(pathname.replace(/\/new$/, "") + search, {
          type: "success",
          title: adminT(args.context)("users.created", { email }),
        });
      },
    }),
  }),
});

export default function NewUser({ loaderData }: Route.ComponentProps) {
  const { t } = useTranslation("admin");
  const { t: ta } = useTranslation("auth");
  const back = useLocalize()(`/admin/users${useLocation().search}`);
  const actionData = useActionData<typeof action>();
  const [form, fields] = usePageForm(() => import("~/lib/admin-forms").then((m) => m.createUserSchema), {
    lastResult: actionData?.result,
    shouldValidate: "onBlur",
  });
  return (
    <ConfirmForm
      title={loaderData.title}
      closeTo={back}
      form={form}
      intent="create-user"
      cancelLabel={t("cancel")}
      submitLabel={t("users.createSubmit")}
      variant="primary"
    >
      <Field field={fields.name} type="text" label={ta("form.name")} inputProps={{ autoFocus: true }} />
      <Field field={fields.email} type="email" label={ta("form.email")} />
      <Field
        field={fields.password}
        type="password"
        label={ta("form.password")}
        inputProps={{ autoComplete: "new-password" }}
      />
      <label className="flex flex-col gap-1 text-sm font-medium">
        {t("users.columns.role")}
        <select
          name={fields.role.name}
          defaultValue="user"
          className="rounded-md border border-slate-300 bg-white px-3 py-2 dark:border-slate-700 dark:bg-slate-900"
        >
          <option value="user">{t("users.roles.user")}</option>
          <option value="admin">{t("users.roles.admin")}</option>
        </select>
      </label>
    </ConfirmForm>
  );
}
