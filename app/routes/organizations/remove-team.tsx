import { useActionData } from "react-router";
import type { Route } from "./+types/remove-team";
import { ConfirmForm, DialogText } from "~/components/ui/ConfirmDialog";
import { localizePath } from "~/i18n/config";
import { removeTeamSchema } from "~/lib/organization-forms";
import { organizationPath } from "~/lib/organization-paths";
import { seo } from "~/lib/seo";
import { useTranslation, withTranslations } from "~/lib/translations";
import { useLocalize } from "~/lib/use-root-data";
import { organizationT, teamOfRequest } from "~/server/organization/pages.server";
import { removeTeam } from "~/server/organization/teams.server";
import { pageAction } from "~/server/page-action.server";
import { redirectWithToast } from "~/server/toast.server";
import { usePageForm } from "~/components/ui/section-form";

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

/** What the verb gets: the signed-in caller, the organization and the team of the URL. */

export const action = pageAction({
  auth: "required",
  prepare: ({ args: { url, params, context } }) =>
    teamOfRequest({ url, context, params: { slug: params.slug!, teamId: params.teamId! } }),
  intents: (intent) => ({
    "remove-team": intent({
      schema: removeTeamSchema,
      rateLimit: "/organization/remove-team",
      async run({ args: { context }, auth, meta, locale, page: { organization, team } }) {
        await removeTeam(auth, { teamId: team.id, organizationId: organization.id }, meta);
        return redirectWithToast(localizePath(organizationPath(organization.slug, "teams"), locale), {
          type: "success",
          title: organizationT(context)("teams.removed", { name: team.name }),
        });
      },
    }),
  }),
});

export default function RemoveTeam({ loaderData, params }: Route.ComponentProps) {
  const { t } = useTranslation("organization");
  const back = useLocalize()(organizationPath(params.slug, "teams"));
  const actionData = useActionData<typeof action>();
  const [form] = usePageForm(null, { lastResult: actionData?.result });
  return (
    <ConfirmForm
      title={loaderData.title}
      closeTo={back}
      form={form}
      intent="remove-team"
      body={<DialogText>{loaderData.body}</DialogText>}
      cancelLabel={t("cancel")}
      submitLabel={t("teams.removeSubmit")}
      pendingLabel={t("teams.removePending")}
    />
  );
}
