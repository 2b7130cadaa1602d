import { expect, type Page } from "@playwright/test";
import { mkdirSync, readdirSync, readFileSync } from "node:fs";
import { seriousViolations, settled } from "./a11y";

/** The product's languages, by URL prefix. */
export const LOCALES = [
  { locale: "en", prefix: "" },
  { locale: "zh-CN", prefix: "/zh-CN" },
  { locale: "ja", prefix: "/ja" },
  { locale: "fr", prefix: "/fr" },
] as const;

/** A phone and a laptop. */
export const VIEWPORTS = [
  { width: 390, height: 844 },
  { width: 1280, height: 800 },
] as const;

/** Where the screenshots go: kept with the run's other artifacts. */
const SHOTS = "test-results/pages";

const LOCALE_PREFIX = /^\/(zh-CN|ja|fr)(?=\/|$)/;

/** `url` (in any language) in the language of `prefix`. */
export const inLocale = (url: string, prefix: string) => {
  const bare = url.replace(LOCALE_PREFIX, "");
  return prefix + (bare === "/" && prefix ? "" : bare) || "/";
};

type Strings = { [key: string]: string | Strings };

function catalogue(locale: string): Map<string, string> {
  const strings = new Map<string, string>();
  const dir = new URL(`../../../locales/${locale}/`, import.meta.url);
  for (const file of readdirSync(dir).filter((name) => name.endsWith(".json") && name !== "email.json")) {
    const walk = (node: Strings, path: string) => {
      for (const [key, value] of Object.entries(node)) {
        if (typeof value === "string") strings.set(`${path}${key}`, value);
        else walk(value, `${path}${key}.`);
      }
    };
    walk(JSON.parse(readFileSync(new URL(file, dir), "utf8")) as Strings, `${file}:`);
  }
  return strings;
}

/**
 * The English sentences that must not show on a page in another language: each English
 * string of the catalogue (its parts between placeholders) of two words or more and ten
 * characters or more, unless the other language's catalogue says the same at that key (a
 * brand or product name, kept on purpose).
 */
export function englishLeaks(locale: string): string[] {
  const english = catalogue("en");
  const other = catalogue(locale);
  const fragments = new Set<string>();
  for (const [key, text] of english) {
    if (other.get(key) === text) continue;
    for (const part of text.split(/{{[^}]*}}|<[^>]*>/)) {
      const fragment = part.trim().replace(/[.:…]+$/, "");
      if (fragment.length >= 10 && /\s/.test(fragment)) fragments.add(fragment);
    }
  }
  // Strings the other languages also carry word for word (e.g. a brand line) are not leaks.
  const shared = [...other.values()].join("\n");
  return [...fragments].filter((fragment) => !shared.includes(fragment));
}

/**
 * What a person would see as broken on the page as it is now: a page wider than the screen,
 * a control whose text is cut off (its content wider than its box, with the overflow hidden)
 * or broken one character per line, and English text on a page in another language.
 */
export async function layoutProblems(page: Page, label: string, leaks: string[]): Promise<string[]> {
  const found = await page.evaluate(
    ({ leaks }) => {
      const problems: string[] = [];
      const root = document.documentElement;
      if (root.scrollWidth > root.clientWidth + 1) {
        // The widest element past the right edge, to say where the overflow comes from.
        let culprit = "";
        let right = root.clientWidth;
        for (const element of document.body.querySelectorAll("*")) {
          const box = element.getBoundingClientRect();
          if (box.right > right + 1 && box.width > 0) {
            right = box.right;
            culprit = `<${element.tagName.toLowerCase()} class="${element.getAttribute("class") ?? ""}">`;
          }
        }
        problems.push(`page is ${root.scrollWidth}px wide on a ${root.clientWidth}px screen; widest: ${culprit}`);
      }
      const controls = document.querySelectorAll<HTMLElement>(
        "button, a[class*='rounded'], select, summary, label, input[type=submit], [role=button], [role=tab]",
      );
      for (const control of controls) {
        const box = control.getBoundingClientRect();
        if (box.width === 0 || box.height === 0 || control.closest("[hidden], .sr-only")) continue;
        const style = getComputedStyle(control);
        const text = (control.innerText || (control as HTMLInputElement).value || "").trim();
        if (!text) continue;
        const hides = style.overflowX !== "visible" || style.textOverflow === "ellipsis";
        if (hides && control.scrollWidth > control.clientWidth + 1 && !control.closest("[data-truncates]")) {
          problems.push(
            `clipped control "${text.slice(0, 40)}" (${control.scrollWidth}px in ${control.clientWidth}px)`,
          );
        }
        // One character per line: a label that broke into more lines than it has words.
        const lineHeight = parseFloat(style.lineHeight) || parseFloat(style.fontSize) * 1.5;
        const lines = Math.round(control.scrollHeight / lineHeight);
        if (control.tagName !== "LABEL" && lines >= 3 && text.length <= lines * 3) {
          problems.push(`control "${text.slice(0, 40)}" breaks into ${lines} lines`);
        }
      }
      const visible = document.body.innerText;
      for (const leak of leaks) if (visible.includes(leak)) problems.push(`English text: "${leak}"`);
      return problems;
    },
    { leaks },
  );
  return found.map((problem) => `${label}: ${problem}`);
}

/**
 * Opens `url` in every language at a phone's and a laptop's width and collects what looks
 * broken there (layoutProblems), and, on the phone in English, axe's serious violations; each state is
 * kept as a screenshot under test-results/pages/.
 */
export async function auditLayouts(
  page: Page,
  url: string,
  ready: (page: Page) => Promise<void>,
  { name, hydrates = true }: { name: string; hydrates?: boolean },
): Promise<string[]> {
  mkdirSync(SHOTS, { recursive: true });
  const problems: string[] = [];
  const original = page.viewportSize();
  await page.emulateMedia({ colorScheme: "light" });
  for (const { locale, prefix } of LOCALES) {
    const leaks = locale === "en" ? [] : englishLeaks(locale);
    const localized = inLocale(url, prefix);
    // Loaded once at the phone's width, then widened: the layout follows the width in CSS alone.
    await page.setViewportSize(VIEWPORTS[0]);
    await page.goto(localized);
    await settled(page, "light", { hydrates });
    await ready(page);
    await expect(page.locator("html")).toHaveAttribute("lang", locale);
    for (const viewport of VIEWPORTS) {
      await page.setViewportSize(viewport);
      const label = `${localized} at ${viewport.width}px`;
      problems.push(...(await layoutProblems(page, label, leaks)));
      // The laptop width in both themes is the accessibility spec's own pass; the phone's
      // layout differs (menus fold, tables stack), its words do not, so English is enough.
      if (viewport.width < 500 && locale === "en") problems.push(...(await seriousViolations(page, label)));
      await page.screenshot({ path: `${SHOTS}/${name}.${locale}.${viewport.width}.png`, fullPage: true });
    }
  }
  if (original) await page.setViewportSize(original);
  return problems;
}

/** Fails with every problem found, so that one run names all of them. */
export function expectNoLayoutProblems(problems: string[]) {
  expect(problems, `pages that do not hold:\n\n${problems.join("\n")}\n`).toEqual([]);
}
