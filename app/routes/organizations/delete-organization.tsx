import { useActionData, type RouterContextProvider } from "react-router";
import type { Route } from "./+types/delete-organization";
import { ConfirmForm, DialogText } from "~/components/ui/ConfirmDialog";
import { Field } from "~/components/ui/Field";
import { usePageForm } from "~/components/ui/section-form";
import { localizePath } from "~/i18n/config";
import { deleteOrganizationSchema } from "~/lib/organization-forms";
import { organizationPath } from "~/lib/organization-paths";
import { seo } from "~/lib/seo";
import { useTranslation, withTranslations } from "~/lib/translations";
import { useLocalize } from "~/lib/use-root-data";
import { requireAuthSession } from "~/server/auth/guards.server";
import { loadEnv } from "~/server/env.server";
import { cookieHeaders } from "~/server/forms.server";
import { notFound } from "~/server/i18n.server";
import { deleteOrganization } from "~/server/organization/organizations.server";
import { clearedActive, organizationOfPage, organizationT } from "~/server/organization/pages.server";
import { pageAction } from "~/server/page-action.server";
import { redirectWithToast } from "~/server/toast.server";

export const handle = { i18n: ["auth", "organization"] };

export async function clientLoader({ request, serverLoader }: Route.ClientLoaderArgs) {
  return withTranslations(request, handle, serverLoader);
}

/** The organization to delete; the page does not exist where deletion is turned off. */
async function organizationToDelete({
  url,
  params,
  context,
}: {
  url: URL;
  params: { slug: string };
  context: Readonly<RouterContextProvider>;
}) {
  if (!loadEnv().ORGANIZATION_DELETION) notFound(url.pathname);
  const auth = requireAuthSession(context);
  const { organization } = await organizationOfPage(url, auth, params.slug);
  return { auth, organization };
}

export async function loader(args: Route.LoaderArgs) {
  const { organization } = await organizationToDelete(args);
  return {
    title: organizationT(args.context)("delete.confirmTitle", { name: organization.name }),
    slug: organization.slug,
  };
}

export const meta: Route.MetaFunction = ({ data, location, matches }) => seo({ title: data?.title, location, matches });

/** What the verb gets: the signed-in caller, the organization of the URL, the confirmation. */

/** Deletes (owners only: the service refuses anyone else in the dialog) and goes to the list. */
export const action = pageAction({
  auth: "required",
  prepare: ({ args: { url, params, context } }) =>
    organizationToDelete({ url, context, params: { slug: params.slug! } }),
  intents: (intent) => ({
    "delete-organization": intent({
      schema: ({ page }) => deleteOrganizationSchema(page.organization.slug),
      rateLimit: "/organization/delete",
      async run({ args: { context }, auth, meta, locale, page: { organization } }) {
        await deleteOrganization(auth, organization.id, meta);
        return redirectWithToast(
          localizePath("/organizations", locale),
          { type: "success", title: organizationT(context)("delete.deleted", { name: organization.name }) },
          { headers: cookieHeaders(await clearedActive(auth, organization.id)) },
        );
      },
    }),
  }),
});

export default function DeleteOrganization({ loaderData, params }: Route.ComponentProps) {
  const { t } = useTranslation("organization");
  const back = useLocalize()(organizationPath(params.slug, "settings"));
  const actionData = useActionData<typeof action>();
  const [form, fields] = usePageForm(
    () => import("~/lib/organization-forms").then((m) => m.deleteOrganizationSchema(loaderData.slug)),
    { lastResult: actionData?.result },
  );
  return (
    <ConfirmForm
      title={loaderData.title}
      closeTo={back}
      form={form}
      intent="delete-organization"
      body={<DialogText>{t("delete.confirmBody")}</DialogText>}
      cancelLabel={t("cancel")}
      submitLabel={t("delete.submit")}
      pendingLabel={t("delete.pending")}
    >
      <Field
        field={fields.confirmSlug}
        type="text"
        label={t("delete.confirmLabel", { slug: loaderData.slug })}
        inputProps={{ autoComplete: "off", spellCheck: false, autoFocus: true }}
      />
    </ConfirmForm>
  );
}
