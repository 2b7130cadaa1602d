import AxeBuilder from "@axe-core/playwright";
import type { RouteConfigEntry } from "@react-router/dev/routes";
import { expect, type Locator, type Page } from "@playwright/test";
import { readFileSync } from "node:fs";
import routes from "../../../app/routes";

/** The bar every page must meet (docs/decisions/0019): WCAG 2.0 and 2.1, levels A and AA. */
export const WCAG_TAGS = ["wcag2a", "wcag2aa", "wcag21a", "wcag21aa"];
export const SCHEMES = ["light", "dark"] as const;
export type Scheme = (typeof SCHEMES)[number];

/**
 * Waits until the theme script has applied `scheme` and (unless the page is the root's error
 * page, which React does not mark, or a page of plain HTML, decision 0020) React has taken
 * over, so axe sees the page a person uses.
 */
export async function settled(page: Page, scheme: Scheme, { hydrates = true } = {}) {
  const html = page.locator("html");
  await expect(html).toHaveClass(new RegExp(`\\b${scheme}\\b`));
  if (hydrates && (await html.getAttribute("data-static")) === null)
    await expect(html).toHaveAttribute("data-hydrated", "true");
  else await page.waitForLoadState("networkidle");
}

/** Opens `url` in the light theme, once React has taken over. */
export async function openPage(page: Page, url: string) {
  await page.emulateMedia({ colorScheme: "light" });
  await page.goto(url);
  await settled(page, "light");
}

/**
 * Runs axe on the page as it is and returns one readable entry per serious or critical
 * violation (rule, impact, the elements' selectors, the help page), none when there is none.
 * Legacy mode runs axe in the page itself: the default mode opens a blank page per run to
 * merge the results of frames, which these pages do not have, and takes twice as long.
 */
export async function seriousViolations(page: Page, label: string): Promise<string[]> {
  // A page mid-transition (a toast fading in or out) shows blended colours for a moment, and
  // axe would measure their contrast: with reduced motion a toast is shown or hidden at once.
  await page.emulateMedia({ reducedMotion: "reduce" });
  const { violations } = await new AxeBuilder({ page }).withTags(WCAG_TAGS).setLegacyMode(true).analyze();
  return violations
    .filter((violation) => violation.impact === "serious" || violation.impact === "critical")
    .map((violation) => {
      const targets = violation.nodes
        .map((node) => {
          const contrast = node.any.find((check) => check.id === "color-contrast")?.data as
            { fgColor?: string; bgColor?: string; contrastRatio?: number; expectedContrastRatio?: string } | undefined;
          const detail = contrast?.fgColor
            ? ` (${contrast.fgColor} on ${contrast.bgColor}: ${contrast.contrastRatio}, needs ${contrast.expectedContrastRatio})`
            : "";
          return `      ${node.target.join(" ")}${detail}`;
        })
        .join("\n");
      return `${label}: [${violation.impact}] ${violation.id}: ${violation.help}\n    ${violation.helpUrl}\n${targets}`;
    });
}

/**
 * Runs axe on the page in the light and then the dark theme. With no theme stored the app
 * follows the system's preference (prefers-color-scheme), also when it changes while the page
 * is open (ThemeSwitcher, in every page's navbar): the theme is switched that way, in place,
 * so a state a form reached (a two-factor setup) is checked in both themes too.
 */
export async function auditThemes(page: Page, label: string): Promise<string[]> {
  const problems: string[] = [];
  for (const scheme of SCHEMES) {
    await page.emulateMedia({ colorScheme: scheme });
    await expect(page.locator("html")).toHaveClass(new RegExp(`\\b${scheme}\\b`));
    problems.push(...(await seriousViolations(page, `${label} (${scheme})`)));
  }
  return problems;
}

/**
 * Opens `url` and runs axe there in both themes. The page's own check (`ready`) runs first,
 * so a redirect or an error page cannot pass unnoticed. The root's error page has no navbar
 * and no app to follow the system's theme: it is loaded once per theme.
 */
export async function auditPage(
  page: Page,
  url: string,
  ready: (page: Page) => Promise<void>,
  { errorPage = false } = {},
): Promise<string[]> {
  if (!errorPage) {
    await page.emulateMedia({ colorScheme: "light" });
    await page.goto(url);
    await settled(page, "light");
    await ready(page);
    return auditThemes(page, url);
  }
  const problems: string[] = [];
  for (const scheme of SCHEMES) {
    await page.emulateMedia({ colorScheme: scheme });
    await page.goto(url);
    await settled(page, scheme, { hydrates: false });
    await ready(page);
    problems.push(...(await seriousViolations(page, `${url} (${scheme})`)));
  }
  return problems;
}

/** Fails with every problem found, so that one run names all of them. */
export function expectNoProblems(problems: string[]) {
  expect(problems, `serious or critical accessibility violations:\n\n${problems.join("\n\n")}\n`).toEqual([]);
}

/**
 * The pages of app/routes.ts: every route with a path and a component, as a pattern without
 * the optional locale prefix (`organizations/:slug/teams/:teamId`; "" is the home page). A
 * route module without a default export is a resource route (React Router's own rule): it
 * draws no page and is left out.
 */
export function pagePatterns(): string[] {
  const patterns: string[] = [];
  const walk = (entries: RouteConfigEntry[], parent: string) => {
    for (const entry of entries) {
      const path = entry.path === undefined ? parent : [parent, entry.path].filter(Boolean).join("/");
      const source = readFileSync(new URL(`../../../app/${entry.file}`, import.meta.url), "utf8");
      if (entry.path !== undefined && /^export default /m.test(source)) {
        patterns.push(path.replace(/^:lang\?\/?/, ""));
      }
      if (entry.children) walk(entry.children, path);
    }
  };
  walk(routes, "");
  return patterns;
}

/** The focused element, described for a message, and whether it shows that it has focus. */
export async function focusState(page: Page) {
  return page.evaluate(() => {
    const element = document.activeElement;
    if (!element || element === document.body) return null;
    const shows = (shown: Element) => {
      const style = getComputedStyle(shown);
      const outline = style.outlineStyle !== "none" && parseFloat(style.outlineWidth) > 0;
      return outline || style.boxShadow !== "none";
    };
    // A visually hidden control (sr-only: a 1px clipped box) is seen through its label, which
    // must show the focus instead.
    const box = element.getBoundingClientRect();
    const hidden = box.width <= 1 || box.height <= 1;
    const labels = [...((element as HTMLInputElement).labels ?? [])];
    // On a date field's calendar button (a part of the browser's own, inside the field) the
    // field does not match :focus; the browser draws that button's focus ring itself.
    const browserPart = element instanceof HTMLInputElement && !element.matches(":focus");
    const name =
      element.getAttribute("aria-label") ??
      (element as HTMLInputElement).labels?.[0]?.textContent ??
      element.textContent;
    return {
      description: `<${element.tagName.toLowerCase()}> "${(name ?? "").trim().slice(0, 40)}"`,
      visible: hidden ? labels.some(shows) : shows(element) || browserPart,
      inDialog: element.closest("dialog[open]") !== null,
    };
  });
}

/**
 * Presses Tab (or Shift+Tab) until `target` has focus, as a keyboard user would, checking at
 * every stop that the focused element shows it (an outline or a ring), and returns the stops.
 */
export async function tabTo(page: Page, target: Locator, { back = false, max = 40 } = {}) {
  const stops: string[] = [];
  for (let i = 0; i < max; i++) {
    await page.keyboard.press(back ? "Shift+Tab" : "Tab");
    const focused = await focusState(page);
    if (focused) {
      stops.push(focused.description);
      expect(focused.visible, `focus is visible on ${focused.description}`).toBe(true);
    }
    if (await target.evaluate((element) => element === document.activeElement)) return stops;
  }
  throw new Error(`Tab never reached ${target} in ${max} steps; it went through:\n${stops.join("\n")}`);
}
