import { describe, expect, it } from "vitest";
import { mailSender } from "./index.server";

describe("the sender of emails", () => {
  it("is the product's name at no-reply@ the public host when MAIL_FROM is unset", () => {
    expect(mailSender({ MAIL_FROM: undefined, BASE_URL: "https://app.example.com" })).toBe(
      '"Acme Cloud" <no-reply@app.example.com>',
    );
    expect(mailSender({ MAIL_FROM: undefined, BASE_URL: "http://localhost:3000" })).toBe(
      '"Acme Cloud" <no-reply@localhost>',
    );
    // An IP address is no mail domain.
    expect(mailSender({ MAIL_FROM: undefined, BASE_URL: "http://127.0.0.1:3000" })).toBe(
      '"Acme Cloud" <no-reply@localhost>',
    );
  });

  it("is MAIL_FROM when set", () => {
    expect(mailSender({ MAIL_FROM: "Billing <billing@example.com>", BASE_URL: "https://app.example.com" })).toBe(
      "Billing <billing@example.com>",
    );
  });
});
