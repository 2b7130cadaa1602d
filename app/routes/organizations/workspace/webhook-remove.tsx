import { useActionData } from "react-router";
import type { Route } from "./+types/webhook-remove";
import { ConfirmForm, DialogText } from "~/components/ui/ConfirmDialog";
import { localizePath } from "~/i18n/config";
import { seo } from "~/lib/seo";
import { useTranslation, withTranslations } from "~/lib/translations";
import { useLocalize } from "~/lib/use-root-data";
import { webhooksPath } from "~/lib/webhooks";
import { deleteWebhookSchema } from "~/lib/webhook-forms";
import { requireAuthSession } from "~/server/auth/guards.server";
import { pageAction } from "~/server/page-action.server";
import { redirectWithToast } from "~/server/toast.server";
import { deleteEndpoint } from "~/server/webhooks/endpoints.server";
import { endpointOfPage, webhooksT } from "~/server/webhooks/pages.server";
import { usePageForm } from "~/components/ui/section-form";

export const handle = { i18n: ["auth", "organization", "webhooks"] };

export async function clientLoader({ request, serverLoader }: Route.ClientLoaderArgs) {
  return withTranslations(request, handle, serverLoader);
}

export async function loader({ url, params, context }: Route.LoaderArgs) {
  const auth = requireAuthSession(context);
  const { endpoint } = await endpointOfPage(url, auth, params.slug, params.endpointId);
  const t = webhooksT(context);
  return { title: t("remove.dialogTitle"), body: t("remove.dialogBody", { url: endpoint.url }) };
}

export const meta: Route.MetaFunction = ({ data, location, matches }) => seo({ title: data?.title, location, matches });

/** Removes the endpoint and its deliveries and goes back to the list. */
export const action = pageAction({
  auth: "required",
  prepare: ({ args: { url, params }, auth }) => endpointOfPage(url, auth, params.slug!, params.endpointId!),
  intents: (intent) => ({
    "delete-webhook": intent({
      schema: deleteWebhookSchema,
      rateLimit: "/webhooks/delete",
      async run({ args: { context }, auth, meta, locale, page: { organization, endpoint } }) {
        await deleteEndpoint(auth, endpoint.id, meta);
        return redirectWithToast(localizePath(webhooksPath(organization.slug), locale), {
          type: "success",
          title: webhooksT(context)("remove.removed"),
        });
      },
    }),
  }),
});

export default function RemoveWebhook({ loaderData, params }: Route.ComponentProps) {
  const { t } = useTranslation("webhooks");
  const back = useLocalize()(webhooksPath(params.slug, params.endpointId));
  const actionData = useActionData<typeof action>();
  const [form] = usePageForm(null, { lastResult: actionData?.result });
  return (
    <ConfirmForm
      title={loaderData.title}
      closeTo={back}
      form={form}
      intent="delete-webhook"
      body={<DialogText>{loaderData.body}</DialogText>}
      cancelLabel={t("remove.cancel")}
      submitLabel={t("remove.submit")}
      pendingLabel={t("remove.pending")}
    />
  );
}
