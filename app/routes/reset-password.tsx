import { useTranslation } from "react-i18next";
import type { Route } from "./+types/reset-password";
import { seo } from "~/lib/seo";
import { pageMeta } from "~/server/page-meta.server";

export function loader({ context }: Route.LoaderArgs) {
  return { meta: pageMeta(context, "resetPassword") };
}

export const meta: Route.MetaFunction = ({ data, location, matches }) =>
  seo({ title: data?.meta.title, description: data?.meta.description, location, matches });

export default function Page() {
  const { t } = useTranslation();
  return (
    <div className="mx-auto max-w-sm">
      <h1 className="text-2xl font-bold tracking-tight">{t("meta.resetPassword.title")}</h1>
      <p className="mt-2 text-sm text-slate-600 dark:text-slate-400">{t("meta.resetPassword.description")}</p>
    </div>
  );
}
