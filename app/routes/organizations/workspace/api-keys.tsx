import type { Route } from "./+types/api-keys";
import { ApiKeys } from "~/components/ApiKeys";
import { localizePath } from "~/i18n/config";
import { organizationPath } from "~/lib/organization-forms";
import { seo } from "~/lib/seo";
import { withTranslations } from "~/lib/translations";
import { requireAuthSession } from "~/server/auth/guards.server";
import { apiKeysT, keyIntents, keysOfOrganizationPage, keysPage } from "~/server/organization/api-key-pages.server";
import { pageAction } from "~/server/page-action.server";

export const handle = { i18n: ["auth", "organization", "sso", "apiKeys"] };

export async function clientLoader({ request, serverLoader }: Route.ClientLoaderArgs) {
  return withTranslations(request, handle, serverLoader);
}

/** The organization's keys, for the members who manage them (owners and admins); a 404 to the others. */
export async function loader({ url, params, context }: Route.LoaderArgs) {
  const auth = requireAuthSession(context);
  const { organization } = await keysOfOrganizationPage(url, auth, params.slug);
  const t = apiKeysT(context);
  return {
    meta: {
      title: t("meta.organization.title", { name: organization.name }),
      description: t("meta.organization.description", { name: organization.name }),
    },
    ...(await keysPage(auth, organization.id)),
  };
}

/** A refused action's own headers (X-Retry-After on TOO_MANY_REQUESTS) reach the browser. */
export const headers: Route.HeadersFunction = ({ actionHeaders }) => actionHeaders;

export const meta: Route.MetaFunction = ({ data, location, matches }) =>
  seo({ title: data?.meta.title, description: data?.meta.description, location, matches });

export const action = pageAction({
  auth: "required",
  prepare: ({ args: { url, params }, auth }) => keysOfOrganizationPage(url, auth, params.slug!),
  intents: (intent) =>
    keyIntents(intent, (page, locale) => ({
      organizationId: page.organization.id,
      here: localizePath(organizationPath(page.organization.slug, "api-keys"), locale),
    })),
});

export default function OrganizationApiKeys({ loaderData }: Route.ComponentProps) {
  return <ApiKeys keys={loaderData.keys} grantable={loaderData.grantable} scope="org" />;
}
