import { getFormProps, useForm } from "@conform-to/react";
import { parseWithZod } from "@conform-to/zod/v4";
import { Form, useActionData } from "react-router";
import type { Route } from "./+types/remove-team";
import { SubmitButton } from "~/components/ui/Button";
import { ConfirmDialog, DialogButtons } from "~/components/ui/ConfirmDialog";
import { FormErrors } from "~/components/ui/FormErrors";
import { usePendingIntent } from "~/components/ui/pending";
import { localizePath } from "~/i18n/config";
import { removeTeamSchema } from "~/lib/organization-forms";
import { seo } from "~/lib/seo";
import { useTranslation, withTranslations } from "~/lib/translations";
import { useLocalize } from "~/lib/use-root-data";
import { enforceRateLimit } from "~/server/auth/rate-limit.server";
import { requestMeta } from "~/server/auth/session.server";
import { failed, invalid } from "~/server/forms.server";
import { getLocale } from "~/server/i18n.server";
import { organizationT, teamOfRequest } from "~/server/organization/pages.server";
import { removeTeam } from "~/server/organization/teams.server";
import { redirectWithToast } from "~/server/toast.server";

export const handle = { i18n: ["auth", "organization"] };

export async function clientLoader({ request, serverLoader }: Route.ClientLoaderArgs) {
  return withTranslations(request, handle, serverLoader);
}

export async function loader(args: Route.LoaderArgs) {
  const { organization, team } = await teamOfRequest(args);
  const t = organizationT(args.context);
  return {
    title: t("teams.removeTitle", { name: team.name }),
    body: t("teams.removeBody", { name: team.name, organization: organization.name }),
  };
}

export const meta: Route.MetaFunction = ({ data, location, matches }) => seo({ title: data?.title, location, matches });

export async function action(args: Route.ActionArgs) {
  const { auth, organization, team } = await teamOfRequest(args);
  const { request, context } = args;
  const submission = parseWithZod(await request.formData(), { schema: removeTeamSchema });
  if (submission.status !== "success") return invalid(submission);
  const meta = requestMeta(request, context);
  try {
    await enforceRateLimit(meta.ipAddress, "/organization/remove-team");
    await removeTeam(auth, { teamId: team.id, organizationId: organization.id }, meta);
  } catch (error) {
    return failed(submission, error);
  }
  return redirectWithToast(localizePath(`/organizations/${organization.slug}`, getLocale(context)), {
    type: "success",
    title: organizationT(context)("teams.removed", { name: team.name }),
  });
}

export default function RemoveTeam({ loaderData, params }: Route.ComponentProps) {
  const { t } = useTranslation("organization");
  const back = useLocalize()(`/organizations/${params.slug}`);
  const actionData = useActionData<typeof action>();
  const pending = usePendingIntent("remove-team");
  const [form] = useForm({ lastResult: actionData?.result });
  return (
    <ConfirmDialog title={loaderData.title} closeTo={back}>
      <Form method="post" {...getFormProps(form)} className="flex flex-col gap-4">
        <input type="hidden" name="intent" value="remove-team" />
        <p className="text-sm text-slate-600 dark:text-slate-400">{loaderData.body}</p>
        <FormErrors id={form.errorId} errors={form.errors} />
        <DialogButtons closeTo={back} cancelLabel={t("cancel")}>
          <SubmitButton variant="danger" pending={pending} pendingLabel={t("teams.removePending")}>
            {t("teams.removeSubmit")}
          </SubmitButton>
        </DialogButtons>
      </Form>
    </ConfirmDialog>
  );
}
