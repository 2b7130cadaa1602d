export const themes = ["system", "light", "dark"] as const;
export type Theme = (typeof themes)[number];
export const THEME_KEY = "theme";

/**
 * Runs inline in <head> before first paint, so the page never flashes the wrong theme. It marks
 * <html> with "js" (so JS-only controls show) and "light" or "dark". Without JavaScript neither
 * class is set and the CSS follows prefers-color-scheme.
 */
export const themeScript = `(function(){var c=document.documentElement.classList;c.add("js");try{var t=localStorage.getItem("${THEME_KEY}");var d=t==="dark"||(t!=="light"&&matchMedia("(prefers-color-scheme: dark)").matches);c.add(d?"dark":"light")}catch(e){}})()`;

export function readTheme(): Theme {
  const stored = localStorage.getItem(THEME_KEY);
  return (themes as readonly string[]).includes(stored ?? "") ? (stored as Theme) : "system";
}

export function applyTheme(theme: Theme) {
  const dark = theme === "dark" || (theme === "system" && matchMedia("(prefers-color-scheme: dark)").matches);
  const root = document.documentElement.classList;
  root.toggle("dark", dark);
  root.toggle("light", !dark);
}

export function storeTheme(theme: Theme) {
  localStorage.setItem(THEME_KEY, theme);
  applyTheme(theme);
}
