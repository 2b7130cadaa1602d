import { describe, expect, it } from "vitest";
import { pageNumbers } from "./Pagination";

describe("pageNumbers", () => {
  it("links the first, the last and the current page with its neighbours, with gaps between", () => {
    expect(pageNumbers(1, 1)).toEqual([1]);
    expect(pageNumbers(1, 3)).toEqual([1, 2, 3]);
    expect(pageNumbers(1, 20)).toEqual([1, 2, null, 20]);
    expect(pageNumbers(7, 20)).toEqual([1, null, 6, 7, 8, null, 20]);
    expect(pageNumbers(3, 20)).toEqual([1, 2, 3, 4, null, 20]);
    expect(pageNumbers(20, 20)).toEqual([1, null, 19, 20]);
  });
});
