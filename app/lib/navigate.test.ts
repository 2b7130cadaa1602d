import { describe, expect, it, vi } from "vitest";
import { navigateTo } from "./navigate";

describe("navigateTo", () => {
  it("navigates within the app", () => {
    const navigate = vi.fn();
    const assign = vi.fn();
    navigateTo(navigate, "/pricing", {}, { assign });
    expect(navigate).toHaveBeenCalledWith("/pricing");
    expect(assign).not.toHaveBeenCalled();
  });

  it("throws for an external URL without the external flag", () => {
    const navigate = vi.fn();
    const assign = vi.fn();
    expect(() => navigateTo(navigate, "https://example.com", {}, { assign })).toThrow(/external/);
    expect(() => navigateTo(navigate, "//example.com", {}, { assign })).toThrow(/external/);
    expect(navigate).not.toHaveBeenCalled();
    expect(assign).not.toHaveBeenCalled();
  });

  it("leaves the site when the external flag is set", () => {
    const navigate = vi.fn();
    const assign = vi.fn();
    navigateTo(navigate, "https://example.com/x", { external: true }, { assign });
    expect(assign).toHaveBeenCalledWith("https://example.com/x");
    expect(navigate).not.toHaveBeenCalled();
  });
});
