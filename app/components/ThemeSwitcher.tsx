import { useSyncExternalStore } from "react";
import { useTranslation } from "~/lib/translations";
import { Icon, type IconName } from "~/components/Icon";
import { readTheme, subscribeTheme, themes, type Theme } from "~/lib/theme";

const icons: Record<Theme, IconName> = { system: "monitor", light: "sun", dark: "moon" };

/**
 * Draws the choice; the inline theme script (lib/theme.ts) handles the clicks, also on pages
 * React does not take over. Needs JavaScript (the choice lives in local storage); without it
 * the system theme applies.
 */
export function ThemeSwitcher() {
  const { t } = useTranslation();
  // The server cannot know the choice: it draws "system", and the theme script marks the
  // stored one before React takes over, hence the tolerated attribute difference below.
  const theme = useSyncExternalStore(subscribeTheme, readTheme, () => "system");
  return (
    <div
      role="radiogroup"
      aria-label={t("theme.label")}
      className="script-only flex items-center rounded-md border border-slate-200 p-0.5 dark:border-slate-700"
    >
      {themes.map((value) => (
        <button
          key={value}
          type="button"
          role="radio"
          aria-checked={theme === value}
          aria-label={t(`theme.${value}`)}
          title={t(`theme.${value}`)}
          data-theme-option={value}
          suppressHydrationWarning
          className="rounded p-1 text-slate-500 hover:text-slate-900 aria-checked:bg-slate-100 aria-checked:text-primary-700 dark:text-slate-400 dark:hover:text-slate-100 dark:aria-checked:bg-slate-800 dark:aria-checked:text-primary-400"
        >
          <Icon name={icons[value]} className="size-3.5" />
        </button>
      ))}
    </div>
  );
}
