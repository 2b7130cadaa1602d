import { describe, expect, it } from "vitest";
import { prefetchAllowed } from "./AppLink";

describe("prefetchAllowed", () => {
  it("prefetches on normal connections and when the browser does not say", () => {
    expect(prefetchAllowed(undefined)).toBe(true);
    expect(prefetchAllowed({ effectiveType: "4g" })).toBe(true);
    expect(prefetchAllowed({ effectiveType: "2g" })).toBe(true);
  });
  it("does not prefetch on slow-2g or with save-data", () => {
    expect(prefetchAllowed({ effectiveType: "slow-2g" })).toBe(false);
    expect(prefetchAllowed({ effectiveType: "4g", saveData: true })).toBe(false);
  });
});
