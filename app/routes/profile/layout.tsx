import { Outlet } from "react-router";
import { SectionNav } from "~/components/SectionNav";
import { SETTINGS_SECTIONS } from "~/lib/settings";
import { useTranslation } from "~/lib/translations";
import { useLocalize } from "~/lib/use-root-data";

/**
 * Account settings: the area's heading and its sections as tabs, each a page of its own
 * (its own address, loader and action) drawn below. The layout loads nothing: every section
 * reads only what it shows.
 */
export default function SettingsLayout() {
  const { t } = useTranslation();
  const localize = useLocalize();
  const sections = SETTINGS_SECTIONS.map(({ id, path }) => ({
    to: localize(path),
    label: t(`settings.${id}`),
    // The profile is the index: its tab is current only at /profile itself.
    end: id === "profile",
  }));
  return (
    <div className="flex flex-col">
      <div className="mb-6">
        <h1 className="text-2xl font-bold tracking-tight">{t("meta.settings.title")}</h1>
        <p className="mt-2 text-sm text-slate-600 dark:text-slate-400">{t("meta.settings.description")}</p>
      </div>
      <SectionNav label={t("settings.label")} sections={sections} />
      <Outlet />
    </div>
  );
}
