import bcrypt from "bcryptjs";
import { describe, expect, it } from "vitest";
import { hashPassword, passwordSchema, spendPasswordCheck, verifyPassword } from "./password.server";

describe("password hashing on the worker pool", () => {
  it("hashes with bcrypt cost 10 and verifies", async () => {
    const hash = await hashPassword("correct horse");
    expect(hash).toMatch(/^\$2[aby]\$10\$/);
    expect(bcrypt.compareSync("correct horse", hash)).toBe(true);
    expect(await verifyPassword("correct horse", hash)).toBe(true);
    expect(await verifyPassword("wrong horse", hash)).toBe(false);
  });

  it("answers false for a malformed hash instead of throwing", async () => {
    expect(await verifyPassword("x", "not a hash")).toBe(false);
  });

  it("runs many checks at once without mixing up answers", async () => {
    const hash = bcrypt.hashSync("secret-1", 4);
    const answers = await Promise.all(
      Array.from({ length: 12 }, (_, i) => verifyPassword(i % 2 ? "secret-1" : "secret-2", hash)),
    );
    expect(answers).toEqual(Array.from({ length: 12 }, (_, i) => i % 2 === 1));
  });

  it("spends a real check for unknown accounts", async () => {
    const started = performance.now();
    await spendPasswordCheck("anything");
    // bcrypt cost 10 takes tens of milliseconds; a shortcut would take well under one.
    expect(performance.now() - started).toBeGreaterThan(5);
  });

  it("answers the catalogue codes for length", () => {
    expect(passwordSchema.safeParse("1234567").error?.issues[0]?.message).toBe("PASSWORD_TOO_SHORT");
    expect(passwordSchema.safeParse("x".repeat(129)).error?.issues[0]?.message).toBe("PASSWORD_TOO_LONG");
    expect(passwordSchema.safeParse("x".repeat(128)).success).toBe(true);
  });
});
