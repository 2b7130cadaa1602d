import { describe, expect, it, vi } from "vitest";
import { createLogger, currentRequest, noteRequest, requestIdFor, runInRequest } from "./log.server";

/** A logger writing to an array, with the app's configuration. */
function capture() {
  const lines: string[] = [];
  const log = createLogger({ write: (line: string) => void lines.push(line) });
  return { log, lines, parsed: () => lines.map((line) => JSON.parse(line) as Record<string, unknown>) };
}

describe("redaction", () => {
  it("keeps cookies, credentials, passwords, tokens and secrets out of every line", () => {
    const { log, lines } = capture();
    const secrets = {
      cookie: "app.session_token=cookie-value-1",
      authorization: "Bearer authorization-value-2",
      apiKey: "x-api-key-value-3",
      setCookie: "app.session_token=set-cookie-value-4; Path=/",
      password: "password-value-5",
      token: "token-value-6",
      secret: "secret-value-7",
      newPassword: "new-password-value-8",
    };
    log.info(
      {
        req: { headers: { cookie: secrets.cookie, authorization: secrets.authorization, "x-api-key": secrets.apiKey } },
        res: { headers: { "set-cookie": secrets.setCookie } },
        headers: { cookie: secrets.cookie },
        password: secrets.password,
        body: { token: secrets.token, secret: secrets.secret, newPassword: secrets.newPassword },
      },
      "a request",
    );
    expect(lines).toHaveLength(1);
    for (const [name, value] of Object.entries(secrets)) expect(lines[0], name).not.toContain(value);
    expect(lines[0]).toContain("[redacted]");
  });
});

describe("the development server's output", () => {
  it("is one readable line per entry, redacted alike", () => {
    const written: string[] = [];
    const spy = vi.spyOn(process.stdout, "write").mockImplementation((chunk) => {
      written.push(String(chunk));
      return true;
    });
    try {
      // Vitest runs with import.meta.env.DEV set, as the development server does.
      createLogger().info({ template: "verify-email", password: "hunter2-password" }, "Email sent");
    } finally {
      spy.mockRestore();
    }
    expect(written).toHaveLength(1);
    expect(written[0]).toMatch(/^\d\d:\d\d:\d\d\.\d{3} INFO Email sent template=verify-email password=\[redacted\]\n$/);
  });
});

describe("request ids", () => {
  it("takes a well-formed X-Request-Id only behind a trusted proxy", () => {
    expect(requestIdFor("lb-1234", 1)).toBe("lb-1234");
    expect(requestIdFor("lb-1234", 0)).not.toBe("lb-1234");
    expect(requestIdFor(["first-id", "second-id"], 2)).toBe("first-id");
    for (const bad of ["", "with space", "x".repeat(129), "new\nline", '{"json":1}']) {
      expect(requestIdFor(bad, 1)).toMatch(/^[0-9a-f-]{36}$/);
    }
  });

  it("puts the request's id on every line written while it runs, and not on others", async () => {
    const { log, parsed } = capture();
    await runInRequest({ requestId: "req-1" }, async () => {
      await new Promise((resolve) => setTimeout(resolve, 1));
      noteRequest({ route: "/api/auth/get-session", userId: "user-1" });
      log.info("inside");
      expect(currentRequest()).toEqual({ requestId: "req-1", route: "/api/auth/get-session", userId: "user-1" });
    });
    log.info("outside");
    expect(parsed().map(({ msg, requestId }) => ({ msg, requestId }))).toEqual([
      { msg: "inside", requestId: "req-1" },
      { msg: "outside", requestId: undefined },
    ]);
  });
});
