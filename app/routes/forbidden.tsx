import { useTranslation } from "~/lib/translations";
import { data } from "react-router";
import type { Route } from "./+types/forbidden";
import { AppLink } from "~/components/AppLink";
import { seo } from "~/lib/seo";
import { useLocalize } from "~/lib/use-root-data";
import { pageMeta } from "~/server/page-meta.server";

export function loader({ context }: Route.LoaderArgs) {
  return data({ meta: pageMeta(context, "forbidden") }, { status: 403 });
}

export const meta: Route.MetaFunction = ({ data, location, matches }) =>
  seo({ title: data?.meta.title, description: data?.meta.description, location, matches });

export default function Forbidden() {
  const { t } = useTranslation();
  const localize = useLocalize();
  return (
    <div className="flex flex-col items-center py-16 text-center">
      <p className="text-6xl font-bold text-primary-600">403</p>
      <h1 className="mt-4 text-2xl font-semibold">{t("forbidden.title")}</h1>
      <p className="mt-3 max-w-md text-slate-600 dark:text-slate-400">{t("forbidden.body")}</p>
      <AppLink
        to={localize("/")}
        className="mt-8 rounded-md bg-primary-700 px-4 py-2 text-sm font-medium text-white hover:bg-primary-800"
      >
        {t("error.backHome")}
      </AppLink>
    </div>
  );
}
