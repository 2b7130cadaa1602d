import { describe, expect, it } from "vitest";
import { lastDays, monthlyRevenue } from "./dashboard.server";

describe("monthly recurring revenue", () => {
  it("counts monthly prices, a twelfth of yearly ones, and each pack of seats", () => {
    expect(
      monthlyRevenue([
        { plan: "pro", billingInterval: "month", seats: 1, count: 2 },
        { plan: "pro", billingInterval: "year", seats: null, count: 1 },
        { plan: "team", billingInterval: "month", seats: 15, count: 1 },
        { plan: "team", billingInterval: "year", seats: 5, count: 3 },
      ]),
    ).toBeCloseTo(2 * 19 + 190 / 12 + 3 * 49 + 3 * (490 / 12), 10);
  });

  it("counts nothing for a plan no longer on sale, or for nothing", () => {
    expect(monthlyRevenue([{ plan: "enterprise", billingInterval: "month", seats: 1, count: 9 }])).toBe(0);
    expect(monthlyRevenue([])).toBe(0);
  });
});

describe("chart days", () => {
  it("are the UTC days ending today, oldest first", () => {
    expect(lastDays(3, new Date("2026-03-01T23:30:00-05:00"))).toEqual(["2026-02-28", "2026-03-01", "2026-03-02"]);
    expect(lastDays(7, new Date("2026-01-03T00:00:00Z"))).toHaveLength(7);
    expect(lastDays(7, new Date("2026-01-03T00:00:00Z"))[0]).toBe("2025-12-28");
  });
});
