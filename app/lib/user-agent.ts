/**
 * A short, human name for the device behind a user agent string ("Chrome", "macOS"), for the
 * session list. Not a full parser: the common browsers and systems, in the order that tells
 * them apart (Edge and Opera also say Chrome, Chrome also says Safari, Android also says Linux).
 */
export interface DeviceInfo {
  browser: string | null;
  os: string | null;
  mobile: boolean;
}

const BROWSERS: [RegExp, string][] = [
  [/\bEdg(?:e|A|iOS)?\//, "Edge"],
  [/\bOPR\/|\bOpera\b/, "Opera"],
  [/\bSamsungBrowser\//, "Samsung Internet"],
  [/\bYaBrowser\//, "Yandex Browser"],
  [/\bVivaldi\//, "Vivaldi"],
  [/\bFirefox\/|\bFxiOS\//, "Firefox"],
  [/\bCriOS\//, "Chrome"],
  [/\bHeadlessChrome\//, "Headless Chrome"],
  [/\bChrom(?:e|ium)\//, "Chrome"],
  [/\bVersion\/[\d.]+.*\bSafari\//, "Safari"],
  [/\bnode\b|\bundici\b/i, "Node.js"],
  [/\bcurl\//, "curl"],
];

const SYSTEMS: [RegExp, string][] = [
  [/\b(?:iPhone|iPad|iPod)\b/, "iOS"],
  [/\bAndroid\b/, "Android"],
  [/\bCrOS\b/, "ChromeOS"],
  [/\bWindows\b/, "Windows"],
  [/\bMac OS X\b|\bMacintosh\b/, "macOS"],
  [/\bLinux\b|\bX11\b/, "Linux"],
];

export function parseUserAgent(userAgent: string | null | undefined): DeviceInfo {
  const ua = userAgent ?? "";
  const browser = BROWSERS.find(([pattern]) => pattern.test(ua))?.[1] ?? null;
  const os = SYSTEMS.find(([pattern]) => pattern.test(ua))?.[1] ?? null;
  return { browser, os, mobile: /\bMobile\b|\biPhone\b|\bAndroid\b/.test(ua) };
}

/** "Chrome on Linux", "Chrome", or "Unknown device", in the page's language (common.json's `device`). */
export function deviceName(userAgent: string | null, t: (key: string, options?: Record<string, string>) => string) {
  const { browser, os } = parseUserAgent(userAgent);
  if (browser && os) return t("device.browserOnOs", { browser, os });
  return browser ?? os ?? t("device.unknown");
}
