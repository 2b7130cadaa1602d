import { describe, expect, it } from "vitest";
import { preferredLocale } from "./i18n.server";

const prefers = (headers: Record<string, string>) =>
  preferredLocale(new Request("http://app.test/api/auth/sign-up/email", { headers }));

describe("the preferred language where the URL names none", () => {
  it("is the remembered choice, then Accept-Language's first choice, else English", async () => {
    expect(await prefers({ Cookie: "lng=ja", "Accept-Language": "fr" })).toBe("ja");
    expect(await prefers({ Cookie: "lng=de", "Accept-Language": "fr-FR,fr;q=0.9" })).toBe("fr");
    expect(await prefers({ "Accept-Language": "zh-TW" })).toBe("zh-CN");
    expect(await prefers({ "Accept-Language": "fr-CA,en;q=0.1" })).toBe("fr");
    expect(await prefers({ "Accept-Language": "ja;q=0, en" })).toBe("en");
    // Only the first choice counts: a German reader gets English, not their second language.
    expect(await prefers({ "Accept-Language": "de-DE,de;q=0.9,fr;q=0.8" })).toBe("en");
    expect(await prefers({})).toBe("en");
  });
});
