import { describe, expect, it } from "vitest";
import { niceCeiling } from "./BarChart";
import { pageWindow } from "./Pager";

describe("page links", () => {
  it("show the first, the last and the neighbours of the current page, with gaps between", () => {
    expect(pageWindow(1, 1)).toEqual([1]);
    expect(pageWindow(1, 3)).toEqual([1, 2, 3]);
    expect(pageWindow(5, 10)).toEqual([1, null, 4, 5, 6, null, 10]);
    expect(pageWindow(10, 10)).toEqual([1, null, 9, 10]);
    expect(pageWindow(3, 10)).toEqual([1, 2, 3, 4, null, 10]);
  });
});

describe("chart axis", () => {
  it("tops out at the next 1, 2 or 5 times a power of ten", () => {
    expect([0, 1, 3, 7, 10, 11, 240, 5000].map(niceCeiling)).toEqual([1, 1, 5, 10, 10, 20, 500, 5000]);
  });
});
