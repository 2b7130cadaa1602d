import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { localizePath, locales, namespaces, splitLocale } from "./config";

function flatten(value: unknown, prefix = ""): Map<string, string> {
  const out = new Map<string, string>();
  for (const [key, child] of Object.entries(value as Record<string, unknown>)) {
    const path = prefix ? `${prefix}.${key}` : key;
    if (child && typeof child === "object") for (const [k, v] of flatten(child, path)) out.set(k, v);
    else out.set(path, String(child));
  }
  return out;
}

const load = (lng: string, ns: string) =>
  flatten(JSON.parse(readFileSync(new URL(`../../locales/${lng}/${ns}.json`, import.meta.url), "utf8")));

describe("translations", () => {
  for (const ns of namespaces) {
    const english = load("en", ns);
    for (const lng of locales.filter((l) => l !== "en")) {
      it(`${lng}/${ns}.json has exactly the English keys, each translated with its placeholders`, () => {
        const other = load(lng, ns);
        expect([...other.keys()].sort()).toEqual([...english.keys()].sort());
        for (const [key, text] of english) {
          const placeholders = text.match(/{{\s*\w+\s*}}/g) ?? [];
          for (const p of placeholders) expect(other.get(key), `${lng}:${ns}:${key}`).toContain(p);
          expect(other.get(key)?.trim(), `${lng}:${ns}:${key}`).not.toBe("");
        }
      });
    }
  }
});

describe("terms", () => {
  // One word per idea: Japanese mixed ログイン and サインイン for the same step.
  it("Japanese says ログイン and ログアウト, never サインイン or サインアウト", () => {
    for (const ns of [...namespaces, "email"]) {
      for (const [key, text] of load("ja", ns)) expect(text, `ja:${ns}:${key}`).not.toMatch(/サインイン|サインアウト/);
    }
  });
});

describe("locale paths", () => {
  it("splits a locale prefix off a path", () => {
    expect(splitLocale("/fr/pricing")).toEqual({ locale: "fr", path: "/pricing" });
    expect(splitLocale("/zh-CN")).toEqual({ locale: "zh-CN", path: "/" });
    expect(splitLocale("/pricing")).toEqual({ locale: "en", path: "/pricing" });
    expect(splitLocale("/en/pricing")).toEqual({ locale: "en", path: "/en/pricing" });
    expect(splitLocale("/de/pricing")).toEqual({ locale: "en", path: "/de/pricing" });
  });

  it("builds localized paths", () => {
    expect(localizePath("/", "en")).toBe("/");
    expect(localizePath("/", "ja")).toBe("/ja");
    expect(localizePath("/signin?redirect=%2Fx", "fr")).toBe("/fr/signin?redirect=%2Fx");
  });
});
