import { useActionData, type RouterContextProvider } from "react-router";
import type { Route } from "./+types/remove-member";
import { ConfirmForm, DialogText } from "~/components/ui/ConfirmDialog";
import { localizePath } from "~/i18n/config";
import { membersViewSchema, removeMemberSchema } from "~/lib/organization-forms";
import { membersPath, organizationPath } from "~/lib/organization-paths";
import { searchParamsOf } from "~/lib/reports";
import { seo } from "~/lib/seo";
import { useTranslation, withTranslations } from "~/lib/translations";
import { requireAuthSession } from "~/server/auth/guards.server";
import { getLocale, notFound } from "~/server/i18n.server";
import { removeMember } from "~/server/organization/organizations.server";
import { memberOfPage, organizationOfPage, organizationT } from "~/server/organization/pages.server";
import { pageAction } from "~/server/page-action.server";
import { redirectWithToast } from "~/server/toast.server";
import { usePageForm } from "~/components/ui/section-form";

export const handle = { i18n: ["auth", "organization"] };

export async function clientLoader({ request, serverLoader }: Route.ClientLoaderArgs) {
  return withTranslations(request, handle, serverLoader);
}

/**
 * The member to remove, by the URL's id, and the page of members the dialog was opened
 * from (where it goes back to); whether the caller may remove them is for the service to say.
 */
async function memberToRemove({
  url,
  params,
  context,
}: {
  url: URL;
  params: { slug: string; memberId: string };
  context: Readonly<RouterContextProvider>;
}) {
  const auth = requireAuthSession(context);
  const { organization } = await organizationOfPage(url, auth, params.slug);
  const member = await memberOfPage(organization.id, { id: params.memberId });
  if (!member) notFound(url.pathname);
  const { page } = membersViewSchema.parse(searchParamsOf(url));
  const back = membersPath(localizePath(organizationPath(organization.slug, "members"), getLocale(context)), page);
  return { auth, organization, member, back };
}

export async function loader(args: Route.LoaderArgs) {
  const { organization, member, back } = await memberToRemove(args);
  const t = organizationT(args.context);
  return {
    back,
    title: t("members.removeTitle", { name: member.user.name }),
    body: t("members.removeBody", {
      name: member.user.name,
      email: member.user.email,
      organization: organization.name,
    }),
  };
}

export const meta: Route.MetaFunction = ({ data, location, matches }) => seo({ title: data?.title, location, matches });

/** What the verb gets: the signed-in caller, the organization and the member of the URL. */

export const action = pageAction({
  auth: "required",
  prepare: ({ args: { url, params, context } }) =>
    memberToRemove({ url, context, params: { slug: params.slug!, memberId: params.memberId! } }),
  intents: (intent) => ({
    "remove-member": intent({
      schema: removeMemberSchema,
      rateLimit: "/organization/remove-member",
      async run({ args: { context }, auth, meta, page: { organization, member, back } }) {
        await removeMember(auth, { memberIdOrEmail: member.id, organizationId: organization.id }, meta);
        return redirectWithToast(back, {
          type: "success",
          title: organizationT(context)("members.removed", { name: member.user.name }),
        });
      },
    }),
  }),
});

export default function RemoveMember({ loaderData }: Route.ComponentProps) {
  const { t } = useTranslation("organization");
  const { back } = loaderData;
  const actionData = useActionData<typeof action>();
  const [form] = usePageForm(null, { lastResult: actionData?.result });
  return (
    <ConfirmForm
      title={loaderData.title}
      closeTo={back}
      form={form}
      intent="remove-member"
      body={<DialogText>{loaderData.body}</DialogText>}
      cancelLabel={t("cancel")}
      submitLabel={t("members.removeSubmit")}
      pendingLabel={t("members.removePending")}
    />
  );
}
