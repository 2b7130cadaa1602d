import { useActionData, useLocation } from "react-router";
import type { Route } from "./+types/delete-user";
import { ConfirmForm, DialogText } from "~/components/ui/ConfirmDialog";
import { deleteUserSchema } from "~/lib/admin-forms";
import { seo } from "~/lib/seo";
import { useTranslation, withTranslations } from "~/lib/translations";
import { useLocalize } from "~/lib/use-root-data";
import { adminOf, adminT, userOfDialog, userOfPage } from "~/server/admin/pages.server";
import { removeUser } from "~/server/admin/users.server";
import { pageAction } from "~/server/page-action.server";
import { redirectWithToast } from "~/server/toast.server";
import { usePageForm } from "~/components/ui/section-form";

export const handle = { i18n: ["admin", "auth"] };

export async function clientLoader({ request, serverLoader }: Route.ClientLoaderArgs) {
  return withTranslations(request, handle, serverLoader);
}

export async function loader({ url, params, context }: Route.LoaderArgs) {
  const user = await userOfPage(adminOf(context), url, params.userId);
  const t = adminT(context);
  return { title: t("delete.title", { name: user.name }), body: t("delete.body", { email: user.email }) };
}

export const meta: Route.MetaFunction = ({ data, location, matches }) => seo({ title: data?.title, location, matches });

/** Deletes the user (their subscriptions end at period end first); never the admin themself. */
export const action = pageAction({
  auth: "required",
  prepare: userOfDialog,
  intents: (intent) => ({
    "delete-user": intent({
      schema: deleteUserSchema,
      rateLimit: "/admin/remove-user",
      async run({ args, auth, meta, page: user }) {
        await removeUser(auth, user.id, meta);
        const { pathname, search } = args.url;
        return redirectWithToast(pathname.replace(/\/[^/]+\/delete$/, "") + search, {
          type: "success",
          title: adminT(args.context)("delete.done", { email: user.email }),
        });
      },
    }),
  }),
});

export default function DeleteUser({ loaderData }: Route.ComponentProps) {
  const { t } = useTranslation("admin");
  const back = useLocalize()(`/admin/users${useLocation().search}`);
  const actionData = useActionData<typeof action>();
  const [form] = usePageForm(null, { lastResult: actionData?.result });
  return (
    <ConfirmForm
      title={loaderData.title}
      closeTo={back}
      form={form}
      intent="delete-user"
      body={<DialogText>{loaderData.body}</DialogText>}
      cancelLabel={t("cancel")}
      submitLabel={t("delete.submit")}
    />
  );
}
