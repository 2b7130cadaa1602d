import { readdirSync, readFileSync } from "node:fs";
import bcrypt from "bcryptjs";
import { describe, expect, it } from "vitest";
import { hashPassword, passwordSchema, spendPasswordCheck, verifyPassword, WORKER_NICENESS } from "./password.server";

/** The nice value of this process's thread `tid` (Linux: field 19 of /proc/self/task/<tid>/stat). */
function niceness(tid: string | number): number {
  const stat = readFileSync(`/proc/self/task/${tid}/stat`, "utf8");
  return Number(stat.slice(stat.lastIndexOf(")") + 2).split(" ")[16]);
}

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

  it.runIf(process.platform === "linux")("hashes at a lower priority than the thread that serves pages", async () => {
    await hashPassword("warm the pool");
    expect(niceness(process.pid)).toBe(0); // the main thread's id is the process id
    expect(readdirSync("/proc/self/task").map(niceness)).toContain(WORKER_NICENESS);
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
