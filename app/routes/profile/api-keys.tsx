import type { Route } from "./+types/api-keys";
import { ApiKeys } from "~/components/ApiKeys";
import { SettingsPage } from "~/components/settings/SettingsPage";
import { localizePath } from "~/i18n/config";
import { settingsPath } from "~/lib/settings";
import { seo } from "~/lib/seo";
import { withTranslations } from "~/lib/translations";
import { requireAuthSession } from "~/server/auth/guards.server";
import { keyIntents, keysPage } from "~/server/organization/api-key-pages.server";
import { pageAction } from "~/server/page-action.server";
import { settingsMeta } from "~/server/page-meta.server";

export const handle = { i18n: ["auth", "sso", "apiKeys"] };

export async function clientLoader({ request, serverLoader }: Route.ClientLoaderArgs) {
  return withTranslations(request, handle, serverLoader);
}

/** The user's own keys (never a key itself), and the permissions they may give one. */
export async function loader({ context }: Route.LoaderArgs) {
  const auth = requireAuthSession(context);
  return { meta: settingsMeta(context, "apiKeys"), ...(await keysPage(auth, null)) };
}

/** A refused action's own headers (X-Retry-After on TOO_MANY_REQUESTS) reach the browser. */
export const headers: Route.HeadersFunction = ({ actionHeaders }) => actionHeaders;

export const meta: Route.MetaFunction = ({ data, location, matches }) =>
  seo({ title: data?.meta.title, description: data?.meta.description, location, matches });

export const action = pageAction({
  auth: "required",
  intents: (intent) =>
    keyIntents(intent, (_page, locale) => ({
      organizationId: null,
      here: localizePath(settingsPath("apiKeys"), locale),
    })),
});

export default function ApiKeysSettings({ loaderData }: Route.ComponentProps) {
  return (
    <SettingsPage wide>
      <ApiKeys keys={loaderData.keys} grantable={loaderData.grantable} scope="user" />
    </SettingsPage>
  );
}
