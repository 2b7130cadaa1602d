import { useTranslation } from "react-i18next";
import type { Route } from "./+types/profile";
import { seo } from "~/lib/seo";
import { getUser } from "~/server/auth/guards.server";
import { pageMeta } from "~/server/page-meta.server";

export function loader({ context }: Route.LoaderArgs) {
  const user = getUser(context)!; // the menu layout's middleware guarantees a user
  return { meta: pageMeta(context, "profile"), user: { name: user.name, email: user.email } };
}

export const meta: Route.MetaFunction = ({ data, location, matches }) =>
  seo({ title: data?.meta.title, description: data?.meta.description, location, matches });

export default function Profile({ loaderData }: Route.ComponentProps) {
  const { t } = useTranslation();
  return (
    <div>
      <h1 className="text-2xl font-bold tracking-tight">{t("meta.profile.title")}</h1>
      <dl className="mt-6 grid max-w-md grid-cols-[auto_1fr] gap-x-6 gap-y-2 text-sm">
        <dt className="text-slate-500">{t("profile.name")}</dt>
        <dd data-testid="profile-name">{loaderData.user.name}</dd>
        <dt className="text-slate-500">{t("profile.email")}</dt>
        <dd data-testid="profile-email">{loaderData.user.email}</dd>
      </dl>
    </div>
  );
}
