import { describe, expect, it } from "vitest";
import { csvField, csvRow } from "./csv.server";

describe("CSV fields", () => {
  it("quotes every value and doubles quotes, keeping commas and line breaks inside", () => {
    expect(csvField("plain")).toBe('"plain"');
    expect(csvField('say "hi", then\r\nleave')).toBe('"say ""hi"", then\r\nleave"');
    expect(csvField(null)).toBe("");
    expect(csvField(undefined)).toBe("");
    expect(csvField(new Date("2026-01-02T03:04:05.000Z"))).toBe('"2026-01-02T03:04:05.000Z"');
  });

  it("turns anything a spreadsheet would run as a formula into text", () => {
    for (const attack of ['=HYPERLINK("http://evil")', "+1+1", "-2+3", "@SUM(A1)", "\t=1", "\r=1"]) {
      expect(csvField(attack)).toBe(`"'${attack.replaceAll('"', '""')}"`);
    }
    expect(csvField("a=b")).toBe('"a=b"');
  });

  it("ends a record with CRLF", () => {
    expect(csvRow(["a", null, "b,c"])).toBe('"a",,"b,c"\r\n');
  });
});
