import { createHmac } from "node:crypto";
import { beforeAll, describe, expect, it } from "vitest";

const SECRET = "unit-test-secret-0123456789abcdefghijkl";
let tokens: typeof import("./tokens.server");

beforeAll(async () => {
  // Before the first loadEnv(): otherwise a development secret would be written to data/
  // (and vitest sets BASE_URL to Vite's "/").
  Object.assign(process.env, { AUTH_SECRET: SECRET, BASE_URL: "http://localhost:3000" });
  tokens = await import("./tokens.server");
});

const part = (value: object) => Buffer.from(JSON.stringify(value)).toString("base64url");

describe("email verification tokens (HS256 JWT)", () => {
  it("round-trips the payload with a lower-cased email and a one-hour lifetime", () => {
    const token = tokens.createEmailVerificationToken({ email: "Ada@Example.com", userId: "u1", updateTo: "b@x.io" });
    const [header, body] = token.split(".");
    expect(JSON.parse(Buffer.from(header!, "base64url").toString())).toEqual({ alg: "HS256", typ: "JWT" });
    const claims = JSON.parse(Buffer.from(body!, "base64url").toString()) as { iat: number; exp: number };
    expect(claims.exp - claims.iat).toBe(3600);
    expect(tokens.verifyEmailVerificationToken(token)).toEqual({
      email: "ada@example.com",
      userId: "u1",
      updateTo: "b@x.io",
      requestType: undefined,
    });
  });

  it("is a standard JWT: the signature is HMAC-SHA256 of header.body with the secret", () => {
    const token = tokens.createEmailVerificationToken({ email: "a@b.co" });
    const [header, body, signature] = token.split(".");
    expect(signature).toBe(createHmac("sha256", SECRET).update(`${header}.${body}`).digest("base64url"));
  });

  it("rejects expired, tampered, unsigned and malformed tokens", () => {
    const code = (token: string) => {
      try {
        tokens.verifyEmailVerificationToken(token);
        return "ok";
      } catch (error) {
        return (error as { code: string }).code;
      }
    };
    expect(code(tokens.createEmailVerificationToken({ email: "a@b.co" }, -1))).toBe("TOKEN_EXPIRED");
    const [header, , signature] = tokens.createEmailVerificationToken({ email: "a@b.co" }).split(".");
    expect(code(`${header}.${part({ email: "evil@b.co", exp: 9e9 })}.${signature}`)).toBe("INVALID_TOKEN");
    expect(code(`${part({ alg: "none" })}.${part({ email: "a@b.co", exp: 9e9 })}.`)).toBe("INVALID_TOKEN");
    expect(code("garbage")).toBe("INVALID_TOKEN");
  });
});

describe("stored token formats", () => {
  it("makes 24-character reset tokens and 32-character lowercase delete tokens", () => {
    expect(tokens.newResetPasswordToken()).toMatch(/^[A-Za-z0-9]{24}$/);
    expect(tokens.newDeleteAccountToken()).toMatch(/^[a-z0-9]{32}$/);
  });
});
