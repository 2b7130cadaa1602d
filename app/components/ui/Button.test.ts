import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { stackedCell, stackedRow } from "~/components/reports/StackedTable";
import { buttonClass, type ButtonVariant } from "./Button";
import { inputClass } from "./Input";

/** The class names app.css styles in its components layer, where a utility beside them wins. */
function componentClasses(): Set<string> {
  const css = readFileSync(new URL("../../app.css", import.meta.url), "utf8");
  const layer = css.slice(css.indexOf("@layer components {"));
  return new Set([...layer.matchAll(/^\s{2}\.([\w-]+) \{/gm)].map((match) => match[1]!));
}

describe("controls' classes", () => {
  it("name only classes the stylesheet's components layer defines, and keep the extra utilities", () => {
    const defined = componentClasses();
    const variants: ButtonVariant[] = ["primary", "secondary", "danger", "dangerOutline", "ghost"];
    for (const variant of variants) {
      const classes = buttonClass(variant).split(" ");
      expect(classes).toHaveLength(2);
      for (const name of classes) expect(defined, `${variant}: .${name}`).toContain(name);
    }
    expect(defined).toContain(inputClass);
    for (const name of ["row-menu", "nav-item", "menu-item", stackedRow, stackedCell, "stacked-label"]) {
      expect(defined).toContain(name);
    }
    expect(buttonClass("ghost", "px-3 py-1.5")).toBe("btn btn-ghost px-3 py-1.5");
  });
});
