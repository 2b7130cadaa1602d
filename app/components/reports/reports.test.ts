import { describe, expect, it } from "vitest";
import { niceCeiling } from "./BarChart";

describe("chart axis", () => {
  it("tops out at the next 1, 2 or 5 times a power of ten", () => {
    expect([0, 1, 3, 7, 10, 11, 240, 5000].map(niceCeiling)).toEqual([1, 1, 5, 10, 10, 20, 500, 5000]);
  });
});
