import { getFormProps, useForm } from "@conform-to/react";
import { parseWithZod } from "@conform-to/zod/v4";
import { Form, useActionData, useLocation } from "react-router";
import type { Route } from "./+types/delete-user";
import { SubmitButton } from "~/components/ui/Button";
import { ConfirmDialog, DialogButtons } from "~/components/ui/ConfirmDialog";
import { FormErrors } from "~/components/ui/FormErrors";
import { usePendingIntent } from "~/components/ui/pending";
import { deleteUserSchema } from "~/lib/admin-forms";
import { seo } from "~/lib/seo";
import { useTranslation, withTranslations } from "~/lib/translations";
import { useLocalize } from "~/lib/use-root-data";
import { adminOf, adminT, userOfPage } from "~/server/admin/pages.server";
import { removeUser } from "~/server/admin/users.server";
import { requestMeta } from "~/server/auth/session.server";
import { failed, invalid } from "~/server/forms.server";
import { redirectWithToast } from "~/server/toast.server";

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
export async function action({ request, url, params, context }: Route.ActionArgs) {
  const user = await userOfPage(adminOf(context), url, params.userId);
  const submission = parseWithZod(await request.formData(), { schema: deleteUserSchema });
  if (submission.status !== "success") return invalid(submission);
  try {
    await removeUser(adminOf(context), user.id, requestMeta(request, context));
  } catch (error) {
    return failed(submission, error);
  }
  return redirectWithToast(url.pathname.replace(/\/[^/]+\/delete$/, "") + url.search, {
    type: "success",
    title: adminT(context)("delete.done", { email: user.email }),
  });
}

export default function DeleteUser({ loaderData }: Route.ComponentProps) {
  const { t } = useTranslation("admin");
  const back = useLocalize()(`/admin/users${useLocation().search}`);
  const actionData = useActionData<typeof action>();
  const pending = usePendingIntent("delete-user");
  const [form] = useForm({ lastResult: actionData?.result });
  return (
    <ConfirmDialog title={loaderData.title} closeTo={back}>
      <Form method="post" {...getFormProps(form)} className="flex flex-col gap-4">
        <input type="hidden" name="intent" value="delete-user" />
        <p className="text-sm text-slate-600 dark:text-slate-400">{loaderData.body}</p>
        <FormErrors id={form.errorId} errors={form.errors} />
        <DialogButtons closeTo={back} cancelLabel={t("cancel")}>
          <SubmitButton variant="danger" pending={pending}>
            {t("delete.submit")}
          </SubmitButton>
        </DialogButtons>
      </Form>
    </ConfirmDialog>
  );
}
