import { useActionData } from "react-router";
import type { Route } from "./+types/sso-remove";
import { ConfirmForm, DialogText } from "~/components/ui/ConfirmDialog";
import { localizePath } from "~/i18n/config";
import { seo } from "~/lib/seo";
import { removeProviderSchema } from "~/lib/sso-forms";
import { ssoPath } from "~/lib/organization-paths";
import { useTranslation, withTranslations } from "~/lib/translations";
import { useLocalize } from "~/lib/use-root-data";
import { requireAuthSession } from "~/server/auth/guards.server";
import { deleteProvider } from "~/server/sso/connections.server";
import { providerOfPage, ssoT } from "~/server/sso/pages.server";
import { pageAction } from "~/server/page-action.server";
import { redirectWithToast } from "~/server/toast.server";
import { usePageForm } from "~/components/ui/section-form";

export const handle = { i18n: ["auth", "organization", "sso"] };

export async function clientLoader({ request, serverLoader }: Route.ClientLoaderArgs) {
  return withTranslations(request, handle, serverLoader);
}

export async function loader({ url, params, context }: Route.LoaderArgs) {
  const auth = requireAuthSession(context);
  const { provider } = await providerOfPage(url, auth, params.slug, params.providerId);
  const t = ssoT(context);
  return {
    title: t("remove.dialogTitle", { provider: provider.providerId }),
    body: t("remove.dialogBody", { provider: provider.providerId }),
  };
}

export const meta: Route.MetaFunction = ({ data, location, matches }) => seo({ title: data?.title, location, matches });

/** Removes the connection (its domains, SCIM tokens and the sign-ins linked through it) and goes back to the list. */
export const action = pageAction({
  auth: "required",
  prepare: ({ args: { url, params }, auth }) => providerOfPage(url, auth, params.slug!, params.providerId!),
  intents: (intent) => ({
    "remove-provider": intent({
      schema: removeProviderSchema,
      rateLimit: "/sso/delete-provider",
      async run({ args: { context }, auth, meta, locale, page: { organization, provider } }) {
        await deleteProvider(auth, provider.providerId, meta);
        return redirectWithToast(localizePath(ssoPath(organization.slug), locale), {
          type: "success",
          title: ssoT(context)("remove.removed", { provider: provider.providerId }),
        });
      },
    }),
  }),
});

export default function RemoveConnection({ loaderData, params }: Route.ComponentProps) {
  const { t } = useTranslation("sso");
  const back = useLocalize()(ssoPath(params.slug, params.providerId));
  const actionData = useActionData<typeof action>();
  const [form] = usePageForm(null, { lastResult: actionData?.result });
  return (
    <ConfirmForm
      title={loaderData.title}
      closeTo={back}
      form={form}
      intent="remove-provider"
      body={<DialogText>{loaderData.body}</DialogText>}
      cancelLabel={t("remove.cancel")}
      submitLabel={t("remove.submit")}
      pendingLabel={t("remove.pending")}
    />
  );
}
