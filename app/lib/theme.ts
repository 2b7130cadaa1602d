export const themes = ["system", "light", "dark"] as const;
export type Theme = (typeof themes)[number];
const THEME_KEY = "theme";
/** Sent on `window` by the theme script whenever the choice changes. */
const THEME_EVENT = "themechange";

/**
 * Runs inline in <head> on every page, hydrated or not (decision 0020), and is the theme's
 * only behaviour: before first paint it marks <html> with "js" and "light" or "dark" (so the
 * page never flashes the wrong theme); it follows the system while the choice is "system";
 * and it handles the switcher's buttons (`data-theme-option`) by delegation, so they work on
 * pages that React never takes over. ThemeSwitcher only draws the state. Without JavaScript
 * neither class is set and the CSS follows prefers-color-scheme.
 */
export const themeScript = `(function(){var d=document,c=d.documentElement.classList,m=matchMedia("(prefers-color-scheme: dark)");c.add("js");
function read(){try{var t=localStorage.getItem("${THEME_KEY}");return t==="light"||t==="dark"?t:"system"}catch(e){return"system"}}
function apply(){var t=read(),k=t==="dark"||(t==="system"&&m.matches);c.toggle("dark",k);c.toggle("light",!k)}
function mark(){var t=read();d.querySelectorAll("[data-theme-option]").forEach(function(b){b.setAttribute("aria-checked",String(b.getAttribute("data-theme-option")===t))})}
apply();m.addEventListener("change",apply);d.addEventListener("DOMContentLoaded",mark);
function changed(){apply();mark();dispatchEvent(new Event("${THEME_EVENT}"))}addEventListener("storage",changed);
d.addEventListener("click",function(e){var b=e.target instanceof Element&&e.target.closest("[data-theme-option]");if(!b)return;
try{localStorage.setItem("${THEME_KEY}",b.getAttribute("data-theme-option"))}catch(x){}changed()})})()`;

/** The stored choice, as the theme script reads it. */
export function readTheme(): Theme {
  const stored = localStorage.getItem(THEME_KEY);
  return (themes as readonly string[]).includes(stored ?? "") ? (stored as Theme) : "system";
}

/** Calls `onChange` when the theme script saw the choice change, here or in another tab. */
export function subscribeTheme(onChange: () => void) {
  window.addEventListener(THEME_EVENT, onChange);
  return () => window.removeEventListener(THEME_EVENT, onChange);
}
