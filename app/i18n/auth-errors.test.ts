import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { CALLBACK_ERROR_CODES } from "~/server/auth/social/callback-error.server";
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

describe("social sign-in error explanations", () => {
  for (const lng of locales) {
    it(`${lng}/auth.json explains every callback error code`, () => {
      const social = (
        JSON.parse(readFileSync(new URL(`../../locales/${lng}/auth.json`, import.meta.url), "utf8")) as {
          social: { errors: Record<string, string> };
        }
      ).social.errors;
      const missing = [...CALLBACK_ERROR_CODES, "provider"].filter((code) => !social[code]?.trim());
      expect(missing).toEqual([]);
    });
  }
});
