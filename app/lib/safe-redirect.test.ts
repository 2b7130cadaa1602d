import { describe, expect, it } from "vitest";
import { isExternalUrl, safeRedirect, withParams } from "./safe-redirect";

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

  it("refuses paths that only normalize into another host", () => {
    for (const bad of ["/.//evil.example/x", "/..//evil.example", "/x/..//evil.example", "/%2e//evil.example"]) {
      expect(safeRedirect(bad, trusted)).toBeNull();
    }
  });

  it("refuses credentials and normalizes to ASCII that can go into a header", () => {
    expect(safeRedirect("https://user:pw@app.example.com/", trusted)).toBeNull();
    expect(safeRedirect("/\u3002evil.com", trusted)).toBe("/%E3%80%82evil.com");
    expect(safeRedirect("/a/../b?q=é#h", trusted)).toBe("/b?q=%C3%A9#h");
    expect(safeRedirect("http://localhost:3000//evil.example", trusted)).toBe("http://localhost:3000//evil.example");
  });

  it("checks the URL again after parameters are added", () => {
    expect(withParams("/verify-email?x=1", { error: "invalid_token" }, trusted)).toBe(
      "/verify-email?x=1&error=invalid_token",
    );
    expect(withParams("https://app.example.com/done", { error: "e" }, trusted)).toBe(
      "https://app.example.com/done?error=e",
    );
    // "/." + "//evil" would collapse into a protocol-relative URL once rebuilt: refused.
    expect(withParams("/.//evil.example/x", { error: "e" }, trusted)).toBeNull();
  });

  it("tells absolute URLs from paths", () => {
    expect(isExternalUrl("https://x.dev")).toBe(true);
    expect(isExternalUrl("mailto:a@b.c")).toBe(true);
    expect(isExternalUrl("//x.dev")).toBe(true);
    expect(isExternalUrl("/pricing")).toBe(false);
  });
});
