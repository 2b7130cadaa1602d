import { createInstance, type i18n as I18n, type TFunction } from "i18next";
import { renderToStaticMarkup } from "react-dom/server";
import { I18nextProvider } from "react-i18next";
import { describe, expect, it, vi } from "vitest";
import { locales, namespaces } from "~/i18n/config";
import { i18nFor } from "~/server/i18n.server";
import { useTranslation } from "./translations";

/** The `t` the hook gives a component rendered with `i18n`, for namespace `ns`. */
function tOf(i18n: I18n, ns?: string): TFunction {
  let t: TFunction | undefined;
  function Probe() {
    t = useTranslation(ns).t;
    return null;
  }
  renderToStaticMarkup(
    <I18nextProvider i18n={i18n}>
      <Probe />
    </I18nextProvider>,
  );
  return t!;
}

/** Every text of a namespace in a language, by its dotted key. */
function textsOf(i18n: I18n, lng: string, ns: string): [string, string][] {
  const walk = (value: unknown, prefix: string): [string, string][] =>
    Object.entries(value as Record<string, unknown>).flatMap(([key, child]) => {
      const path = prefix ? `${prefix}.${key}` : key;
      return typeof child === "string" ? [[path, child] as [string, string]] : walk(child, path);
    });
  return walk(i18n.getResourceBundle(lng, ns), "");
}

describe("useTranslation's t with values", () => {
  it("reads every text of every language exactly as i18next does, with strings and with numbers", () => {
    let compared = 0;
    for (const lng of locales) {
      const i18n = i18nFor(lng);
      for (const ns of namespaces) {
        const t = tOf(i18n, ns);
        for (const [key, text] of textsOf(i18n, lng, ns)) {
          const names = [...text.matchAll(/{{\s*(\w+)\s*}}/g)].map((match) => match[1]!);
          if (names.length === 0) continue;
          const strings = Object.fromEntries(names.map((name) => [name, `«${name} $t(x) {{y}}»`]));
          const numbers = Object.fromEntries(names.map((name, i) => [name, 1000 + i]));
          for (const values of [strings, numbers]) {
            expect(t(key, values), `${lng}:${ns}:${key}`).toBe(i18n.t(key, { ...values, lng, ns }));
            compared++;
          }
        }
      }
    }
    expect(compared).toBeGreaterThan(1000);
  });

  it("fills a text's placeholders without asking i18next, once the text is known", () => {
    const i18n = i18nFor("fr");
    const t = tOf(i18n, "organization");
    const expected = i18n.t("members.roleLabel", { name: "Ada", lng: "fr", ns: "organization" });
    const asked = vi.spyOn(i18n, "t");
    try {
      expect(t("members.roleLabel", { name: "Ada" })).toBe(expected);
      expect(t("members.roleLabel", { name: "Grace" })).toBe(expected.replace("Ada", "Grace"));
      expect(asked).not.toHaveBeenCalled();
    } finally {
      asked.mockRestore();
    }
  });

  it("leaves plurals, missing or extra values, other namespaces and fallbacks to i18next", () => {
    const i18n = createInstance({
      lng: "fr",
      fallbackLng: "en",
      defaultNS: "common",
      interpolation: { escapeValue: false },
      initAsync: false,
      showSupportNotice: false,
      resources: {
        en: { common: { onlyEnglish: "Hello {{name}}" }, other: { greeting: "Hi {{name}}" } },
        fr: {
          common: {
            members_one: "{{count}} membre",
            members_other: "{{count}} membres",
            welcome: "Bienvenue {{name}}",
            welcome_formal: "Bienvenue, {{name}}",
            dated: "Le {{date, datetime}}",
            nested: "Voir $t(welcome)",
            counted: "{{count}} de {{name}}",
          },
          other: { greeting: "Salut {{name}}" },
        },
      },
    });
    void i18n.init();
    const t = tOf(i18n);
    const asked = vi.spyOn(i18n, "t");
    const cases: [string, Record<string, unknown>][] = [
      ["members", { count: 1 }],
      ["members", { count: 3 }],
      ["welcome", {}],
      ["welcome", { name: "Ada", context: "formal" }],
      ["welcome", { name: null }],
      ["welcome", { name: { first: "Ada" } }],
      ["dated", { date: new Date(0) }],
      ["nested", { name: "Ada" }],
      ["counted", { count: 2, name: "Ada" }],
      ["onlyEnglish", { name: "Ada" }],
      ["other:greeting", { name: "Ada" }],
    ];
    for (const [key, values] of cases) {
      asked.mockClear();
      const text = t(key, values);
      expect(asked, key).toHaveBeenCalledOnce();
      expect(text, key).toBe(i18n.t(key, { ...values, lng: "fr", ns: undefined }));
    }
    asked.mockRestore();
    expect(t("welcome", { name: "Ada", context: "formal" })).toBe("Bienvenue, Ada");
    expect(t("members", { count: 3 })).toBe("3 membres");
    expect(t("onlyEnglish", { name: "Ada" })).toBe("Hello Ada");
  });
});
