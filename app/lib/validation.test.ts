import { describe, expect, it } from "vitest";
import { z } from "zod";
import { zodErrorMap } from "./validation";

const schema = z.object({ email: z.email(), name: z.string().min(2) });
const messages = (locale: string) =>
  schema.safeParse({ email: "nope", name: "" }, { error: zodErrorMap(locale) }).error!.issues.map((i) => i.message);

describe("validation messages follow the UI language", () => {
  it("speaks each supported locale", () => {
    const [en, fr, ja, zh] = ["en", "fr", "ja", "zh-CN"].map(messages);
    expect(en![0]).toMatch(/Invalid email/i);
    expect(fr![0]).toMatch(/e-mail invalide/i);
    expect(ja![0]).not.toEqual(en![0]);
    expect(zh![0]).not.toEqual(en![0]);
    expect(new Set([en![1], fr![1], ja![1], zh![1]]).size).toBe(4);
  });

  it("falls back to English for a language zod does not have", () => {
    expect(messages("xx-YY")).toEqual(messages("en"));
  });
});
