import { useEffect, useState } from "react";
import { useTranslation } from "~/lib/translations";
import { Icon, type IconName } from "~/components/Icon";
import { applyTheme, readTheme, storeTheme, themes, type Theme } from "~/lib/theme";

const icons: Record<Theme, IconName> = { system: "monitor", light: "sun", dark: "moon" };

/** Needs JavaScript (the choice lives in local storage); without it the system theme applies. */
export function ThemeSwitcher() {
  const { t } = useTranslation();
  const [theme, setTheme] = useState<Theme>("system");

  useEffect(() => {
    setTheme(readTheme());
  }, []);

  // While on "system", follow the operating system as it changes.
  useEffect(() => {
    if (theme !== "system") return;
    const media = matchMedia("(prefers-color-scheme: dark)");
    const follow = () => applyTheme("system");
    media.addEventListener("change", follow);
    return () => media.removeEventListener("change", follow);
  }, [theme]);

  return (
    <div
      role="radiogroup"
      aria-label={t("theme.label")}
      className="js-only flex items-center rounded-md border border-slate-200 p-0.5 dark:border-slate-700"
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
          onClick={() => {
            storeTheme(value);
            setTheme(value);
          }}
          className="rounded p-1 text-slate-500 hover:text-slate-900 aria-checked:bg-slate-100 aria-checked:text-primary-700 dark:text-slate-400 dark:hover:text-slate-100 dark:aria-checked:bg-slate-800 dark:aria-checked:text-primary-400"
        >
          <Icon name={icons[value]} className="size-3.5" />
        </button>
      ))}
    </div>
  );
}
