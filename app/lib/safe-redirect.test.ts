import { describe, expect, it } from "vitest";
import { isExternalUrl, safeRedirect } from "./safe-redirect";

const trusted = ["http://localhost:3000", "https://app.example.com"];

describe("safeRedirect", () => {
  it("accepts relative paths with query and hash", () => {
    expect(safeRedirect("/profile?tab=1#x", trusted)).toBe("/profile?tab=1#x");
    expect(safeRedirect("/fr/admin/dashboard", trusted)).toBe("/fr/admin/dashboard");
  });

  it("accepts absolute URLs on trusted origins only", () => {
    expect(safeRedirect("https://app.example.com/x", trusted)).toBe("https://app.example.com/x");
    expect(safeRedirect("https://evil.example.com/x", trusted)).toBeNull();
    expect(safeRedirect("https://app.example.com.evil.com/", trusted)).toBeNull();
  });

  it("rejects protocol-relative, backslash, control-character and script targets", () => {
    for (const bad of ["//evil.com", "/\\evil.com", "/\tevil", "javascript:alert(1)", "evil.com", "", 42, null]) {
      expect(safeRedirect(bad, trusted)).toBeNull();
    }
  });

  it("tells absolute URLs from paths", () => {
    expect(isExternalUrl("https://x.dev")).toBe(true);
    expect(isExternalUrl("mailto:a@b.c")).toBe(true);
    expect(isExternalUrl("//x.dev")).toBe(true);
    expect(isExternalUrl("/pricing")).toBe(false);
  });
});
