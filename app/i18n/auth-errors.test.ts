import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { catalogue } from "~/server/errors.server";
import { locales } from "./config";

const errorsOf = (lng: string) =>
  (
    JSON.parse(readFileSync(new URL(`../../locales/${lng}/auth.json`, import.meta.url), "utf8")) as {
      errors: Record<string, string>;
    }
  ).errors;

describe("auth error messages", () => {
  for (const lng of locales) {
    it(`${lng}/auth.json words every code of the error catalogue`, () => {
      const errors = errorsOf(lng);
      const missing = Object.keys(catalogue).filter((code) => !errors[code]?.trim());
      expect(missing).toEqual([]);
      expect(errors.UNKNOWN?.trim()).toBeTruthy();
    });
  }
});
