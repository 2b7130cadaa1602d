import { describe, expect, it } from "vitest";
import { createOrganizationSchema, updateOrganizationSchema } from "./organization-forms";
import { isSlug } from "./organization-paths";
import { slugify } from "./organization-paths";

describe("slugify", () => {
  it("makes a slug of lowercase ASCII letters and digits from a name", () => {
    expect(slugify("Acme Labs")).toBe("acme-labs");
    expect(slugify("  Café & Crème, Ltd.  ")).toBe("cafe-creme-ltd");
    expect(slugify("株式会社サンプル")).toBe("");
    expect(slugify("a".repeat(60))).toHaveLength(48);
    expect(slugify(`${"a".repeat(47)} b`)).toBe("a".repeat(47));
  });
});

describe("slugs", () => {
  it("accepts lowercase words joined by single dashes, and not the paths beside the pages", () => {
    expect(isSlug("acme-labs-2")).toBe(true);
    for (const bad of ["Acme", "-acme", "acme-", "ac--me", "ac me", "", "new", "a".repeat(49)]) {
      expect(isSlug(bad), bad).toBe(false);
    }
    expect(createOrganizationSchema.safeParse({ name: "Acme" }).success).toBe(true);
  });
});

describe("metadata", () => {
  const parse = (metadata: string) =>
    updateOrganizationSchema.safeParse({ intent: "update-organization", name: "Acme", slug: "acme", metadata });

  it("reads a JSON object of keys and plain values", () => {
    expect(parse('{"plan": "pro", "seats": 5, "trial": false, "note": null}').data?.metadata).toEqual({
      plan: "pro",
      seats: 5,
      trial: false,
      note: null,
    });
  });

  it("refuses anything else with the form's own message", () => {
    for (const bad of ["not json", "[1, 2]", '"text"', '{"nested": {"a": 1}}', '{"list": [1]}']) {
      const result = parse(bad);
      expect(result.success, bad).toBe(false);
      expect(result.error?.issues[0]?.message, bad).toBe("organization:form.metadataInvalid");
    }
  });
});
