import { useActionData } from "react-router";
import type { Route } from "./+types/role-delete";
import { ConfirmForm, DialogText } from "~/components/ui/ConfirmDialog";
import { localizePath } from "~/i18n/config";
import { deleteRoleSchema } from "~/lib/organization-forms";
import { organizationPath } from "~/lib/organization-paths";
import { seo } from "~/lib/seo";
import { useTranslation, withTranslations } from "~/lib/translations";
import { useLocalize } from "~/lib/use-root-data";
import { requireAuthSession } from "~/server/auth/guards.server";
import { organizationT, roleOfPage } from "~/server/organization/pages.server";
import { deleteRole } from "~/server/organization/roles.server";
import { pageAction } from "~/server/page-action.server";
import { redirectWithToast } from "~/server/toast.server";
import { usePageForm } from "~/components/ui/section-form";

export const handle = { i18n: ["auth", "organization"] };

export async function clientLoader({ request, serverLoader }: Route.ClientLoaderArgs) {
  return withTranslations(request, handle, serverLoader);
}

/** The confirmation, saying how many members still have the role (the deletion is then refused). */
export async function loader({ url, params, context }: Route.LoaderArgs) {
  const auth = requireAuthSession(context);
  const { role } = await roleOfPage(url, auth, params.slug, params.roleId);
  const t = organizationT(context);
  return {
    title: t("customRoles.deleteTitle", { name: role.role }),
    body: t("customRoles.deleteBody"),
    assigned: role.memberCount ? t("customRoles.deleteAssigned", { count: role.memberCount }) : null,
  };
}

export const meta: Route.MetaFunction = ({ data, location, matches }) => seo({ title: data?.title, location, matches });

/** Deletes the role and goes back to the list; a role still assigned is refused on this form. */
export const action = pageAction({
  auth: "required",
  prepare: ({ args: { url, params }, auth }) => roleOfPage(url, auth, params.slug!, params.roleId!),
  intents: (intent) => ({
    "delete-role": intent({
      schema: deleteRoleSchema,
      rateLimit: "/organization/delete-role",
      async run({ args: { context }, auth, meta, locale, page: { organization, role } }) {
        await deleteRole(auth, { roleId: role.id, organizationId: organization.id }, meta);
        return redirectWithToast(localizePath(organizationPath(organization.slug, "roles"), locale), {
          type: "success",
          title: organizationT(context)("customRoles.deleted", { name: role.role }),
        });
      },
    }),
  }),
});

export default function DeleteRole({ loaderData, params }: Route.ComponentProps) {
  const { t } = useTranslation("organization");
  const back = useLocalize()(organizationPath(params.slug, "roles"));
  const actionData = useActionData<typeof action>();
  const [form] = usePageForm(null, { lastResult: actionData?.result });
  return (
    <ConfirmForm
      title={loaderData.title}
      closeTo={back}
      form={form}
      intent="delete-role"
      body={
        <>
          <DialogText>{loaderData.body}</DialogText>
          {loaderData.assigned ? <p className="text-sm font-medium">{loaderData.assigned}</p> : null}
        </>
      }
      cancelLabel={t("customRoles.cancel")}
      submitLabel={t("customRoles.deleteSubmit")}
      pendingLabel={t("customRoles.deletePending")}
    />
  );
}
