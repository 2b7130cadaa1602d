import { describe, expect, it } from "vitest";
import { DEFAULT_RULE, rateLimitClient, rateLimitKey, ruleFor } from "./rate-limit.server";

describe("rateLimitClient", () => {
  it("counts an IPv4 client by its address", () => {
    expect(rateLimitClient("203.0.113.7")).toBe("203.0.113.7");
    expect(rateLimitClient(null)).toBe("unknown");
  });

  it("counts IPv6 clients by their /64 prefix", () => {
    expect(rateLimitClient("2001:db8:1:2::a")).toBe("2001:db8:1:2::/64");
    expect(rateLimitClient("2001:db8:1:2:ffff:ffff:ffff:ffff")).toBe("2001:db8:1:2::/64");
    expect(rateLimitClient("2001:0DB8:0001:0002:0:0:0:1")).toBe("2001:db8:1:2::/64");
    expect(rateLimitClient("2001:db8:1:3::a")).toBe("2001:db8:1:3::/64");
    expect(rateLimitClient("2001:db8::1")).toBe("2001:db8:0:0::/64");
    expect(rateLimitClient("::1")).toBe("0:0:0:0::/64");
    expect(rateLimitClient("fe80::1%eth0")).toBe("fe80:0:0:0::/64");
    expect(rateLimitClient("2001:db8:1:2::192.0.2.1")).toBe("2001:db8:1:2::/64");
  });

  it("counts an IPv4-mapped IPv6 address as the IPv4 client", () => {
    expect(rateLimitClient("::ffff:203.0.113.7")).toBe("203.0.113.7");
    expect(rateLimitClient("::ffff:cb00:7107")).toBe("203.0.113.7");
    expect(rateLimitClient("0:0:0:0:0:ffff:127.0.0.1")).toBe("127.0.0.1");
  });
});

describe("rateLimitKey", () => {
  it("keys by client and path, one bucket per path by default", () => {
    expect(rateLimitKey("203.0.113.7", "/sign-in/email")).toBe("203.0.113.7|/sign-in/email");
    expect(rateLimitKey("2001:db8:1:2::a", "/sign-in/email")).toBe(rateLimitKey("2001:db8:1:2::b", "/sign-in/email"));
    expect(rateLimitKey("203.0.113.7", "/get-session")).not.toBe(rateLimitKey("203.0.113.7", "/list-sessions"));
  });

  it("puts both password-reset request paths into one bucket with one rule", () => {
    expect(rateLimitKey("203.0.113.7", "/forget-password")).toBe(
      rateLimitKey("203.0.113.7", "/request-password-reset"),
    );
    expect(ruleFor("/forget-password")).toBe(ruleFor("/request-password-reset"));
    expect(ruleFor("/forget-password")).toMatchObject({ window: 60, max: 3 });
    expect(rateLimitKey("203.0.113.7", "/forget-password")).not.toBe(rateLimitKey("203.0.113.8", "/forget-password"));
  });

  it("applies the default rule to paths without a special one", () => {
    expect(ruleFor("/get-session")).toBe(DEFAULT_RULE);
    expect(ruleFor("/sign-in/email")).toMatchObject({ window: 10, max: 3 });
  });

  it("counts passkey verifications like sign-in, and leaves the options and list calls alone", () => {
    expect(ruleFor("/passkey/verify-authentication")).toMatchObject({ window: 10, max: 3 });
    expect(ruleFor("/passkey/verify-registration")).toMatchObject({ window: 10, max: 3 });
    expect(ruleFor("/passkey/generate-authenticate-options")).toBe(DEFAULT_RULE);
    expect(ruleFor("/passkey/list-user-passkeys")).toBe(DEFAULT_RULE);
  });
});
