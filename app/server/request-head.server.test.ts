import { isbot } from "isbot";
import { beforeEach, describe, expect, it, vi } from "vitest";
import { isBot } from "./request-head.server";

vi.mock("isbot", async (original) => {
  const real = await original<typeof import("isbot")>();
  return { ...real, isbot: vi.fn(real.isbot) };
});

const CHROME = "Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/130.0 Safari/537.36";
const GOOGLEBOT = "Mozilla/5.0 (compatible; Googlebot/2.1; +http://www.google.com/bot.html)";

describe("isBot", () => {
  beforeEach(() => vi.mocked(isbot).mockClear());

  it("answers as isbot does", () => {
    for (const agent of [CHROME, GOOGLEBOT, "curl/8.5.0", "", null, undefined]) {
      expect(isBot(agent), String(agent)).toBe(vi.mocked(isbot).getMockImplementation()!(agent));
    }
  });

  it("tests a user agent once, then remembers its answer", () => {
    const agent = `${CHROME} remembered`;
    expect(isBot(agent)).toBe(false);
    expect(isBot(agent)).toBe(false);
    expect(isBot(`${GOOGLEBOT} remembered`)).toBe(true);
    expect(isBot(`${GOOGLEBOT} remembered`)).toBe(true);
    expect(vi.mocked(isbot)).toHaveBeenCalledTimes(2);
  });

  it("keeps neither very long user agents nor more than a bounded number", () => {
    const long = `${CHROME} ${"x".repeat(600)}`;
    isBot(long);
    isBot(long);
    expect(vi.mocked(isbot)).toHaveBeenCalledTimes(2);

    vi.mocked(isbot).mockClear();
    const first = `${CHROME} #0`;
    for (let i = 0; i <= 256; i++) isBot(`${CHROME} #${i}`);
    // The 257th distinct agent started the table afresh: the first is tested again.
    isBot(first);
    expect(vi.mocked(isbot)).toHaveBeenCalledTimes(258);
  });
});
