import { describe, expect, it } from "vitest";
import { parseUserAgent } from "./user-agent";

const cases: [string, string | null, string | null][] = [
  [
    "Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/124.0.0.0 Safari/537.36",
    "Chrome",
    "Windows",
  ],
  [
    "Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/124.0.0.0 Safari/537.36 Edg/124.0.2478.51",
    "Edge",
    "Windows",
  ],
  [
    "Mozilla/5.0 (Macintosh; Intel Mac OS X 14_4) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.4 Safari/605.1.15",
    "Safari",
    "macOS",
  ],
  ["Mozilla/5.0 (X11; Linux x86_64; rv:125.0) Gecko/20100101 Firefox/125.0", "Firefox", "Linux"],
  [
    "Mozilla/5.0 (iPhone; CPU iPhone OS 17_4 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) CriOS/124.0.6367.88 Mobile/15E148 Safari/604.1",
    "Chrome",
    "iOS",
  ],
  [
    "Mozilla/5.0 (Linux; Android 14; Pixel 8) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/124.0.0.0 Mobile Safari/537.36",
    "Chrome",
    "Android",
  ],
  ["curl/8.5.0", "curl", null],
  ["", null, null],
];

describe("parseUserAgent", () => {
  it.each(cases)("%s", (ua, browser, os) => {
    const info = parseUserAgent(ua);
    expect(info.browser).toBe(browser);
    expect(info.os).toBe(os);
  });

  it("tells phones from desktops and survives a missing header", () => {
    expect(parseUserAgent(cases[5]![0]).mobile).toBe(true);
    expect(parseUserAgent(cases[0]![0]).mobile).toBe(false);
    expect(parseUserAgent(null)).toEqual({ browser: null, os: null, mobile: false });
  });
});
