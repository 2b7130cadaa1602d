import { useActionData } from "react-router";
import type { Route } from "./+types/leave-organization";
import { ConfirmForm, DialogText } from "~/components/ui/ConfirmDialog";
import { localizePath } from "~/i18n/config";
import { leaveOrganizationSchema } from "~/lib/organization-forms";
import { organizationPath } from "~/lib/organization-paths";
import { seo } from "~/lib/seo";
import { useTranslation, withTranslations } from "~/lib/translations";
import { useLocalize } from "~/lib/use-root-data";
import { requireAuthSession } from "~/server/auth/guards.server";
import { cookieHeaders } from "~/server/forms.server";
import { leaveOrganization } from "~/server/organization/organizations.server";
import { clearedActive, organizationOfPage, organizationT } from "~/server/organization/pages.server";
import { pageAction } from "~/server/page-action.server";
import { redirectWithToast } from "~/server/toast.server";
import { usePageForm } from "~/components/ui/section-form";

export const handle = { i18n: ["auth", "organization"] };

export async function clientLoader({ request, serverLoader }: Route.ClientLoaderArgs) {
  return withTranslations(request, handle, serverLoader);
}

export async function loader({ url, params, context }: Route.LoaderArgs) {
  const { organization } = await organizationOfPage(url, requireAuthSession(context), params.slug);
  return { title: organizationT(context)("leave.confirmTitle", { name: organization.name }) };
}

export const meta: Route.MetaFunction = ({ data, location, matches }) => seo({ title: data?.title, location, matches });

/** What the verb gets: the signed-in caller, the organization of the URL. */

/** Leaves (the only owner cannot: the service says so in the dialog) and goes to the list. */
export const action = pageAction({
  auth: "required",
  prepare: ({ args: { url, params }, auth }) => organizationOfPage(url, auth, params.slug!),
  intents: (intent) => ({
    "leave-organization": intent({
      schema: leaveOrganizationSchema,
      rateLimit: "/organization/leave",
      async run({ args: { context }, auth, meta, locale, page: { organization } }) {
        await leaveOrganization(auth, organization.id, meta);
        return redirectWithToast(
          localizePath("/organizations", locale),
          { type: "success", title: organizationT(context)("leave.left", { name: organization.name }) },
          { headers: cookieHeaders(await clearedActive(auth, organization.id)) },
        );
      },
    }),
  }),
});

export default function LeaveOrganization({ loaderData, params }: Route.ComponentProps) {
  const { t } = useTranslation("organization");
  const back = useLocalize()(organizationPath(params.slug, "settings"));
  const actionData = useActionData<typeof action>();
  const [form] = usePageForm(null, { lastResult: actionData?.result });
  return (
    <ConfirmForm
      title={loaderData.title}
      closeTo={back}
      form={form}
      intent="leave-organization"
      body={<DialogText>{t("leave.confirmBody")}</DialogText>}
      cancelLabel={t("cancel")}
      submitLabel={t("leave.submit")}
      pendingLabel={t("leave.pending")}
    />
  );
}
