import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import Database from "better-sqlite3";
import { afterAll, beforeAll, expect, it, vi } from "vitest";
import { createDatabase } from "~/server/db.server";
import { migrate } from "./migrate.server";
import { MAX_STATEMENTS } from "./statements.server";

// The app's SQLite client on a file of its own, with the statements it compiles counted.
const dir = mkdtempSync(join(tmpdir(), "statements-"));
const url = `file:${join(dir, "app.db")}`;
const compiled = vi.spyOn(Database.prototype, "prepare");
let db: ReturnType<typeof createDatabase>;

beforeAll(async () => {
  await migrate(url);
  db = createDatabase(url);
  await db.$connect();
});

afterAll(async () => {
  await db.$disconnect();
  compiled.mockRestore();
  rmSync(dir, { recursive: true, force: true });
});

const compilesOf = (pattern: RegExp) => compiled.mock.calls.filter(([sql]) => pattern.test(sql)).length;

it("compiles a query's SQL once and runs it with each call's own arguments", async () => {
  const emails = ["ada@example.com", "grace@example.com", "alan@example.com"];
  for (const email of emails) await db.user.create({ data: { email, name: email.split("@")[0]! } });

  for (let round = 0; round < 3; round++) {
    for (const email of emails) {
      const user = await db.user.findUnique({ where: { email }, select: { email: true, name: true } });
      expect(user).toEqual({ email, name: email.split("@")[0] });
    }
  }
  expect(
    await db.user.findUnique({ where: { email: "nobody@example.com" }, select: { email: true, name: true } }),
  ).toBeNull();

  // Nine reads and a miss, one compilation; and one for the three inserts.
  expect(compilesOf(/^SELECT .* FROM `main`\.`user` WHERE \(`main`\.`user`\.`email` = \?/)).toBe(1);
  expect(compilesOf(/^INSERT INTO `main`\.`user`/)).toBe(1);
});

it("keeps writes, transactions and the database's refusals as they were", async () => {
  const owner = await db.user.create({ data: { email: "owner@example.com", name: "Owner" } });
  // A unique violation is still Prisma's P2002, through the same statement as the inserts.
  await expect(db.user.create({ data: { email: "owner@example.com", name: "Again" } })).rejects.toMatchObject({
    code: "P2002",
  });
  // A transaction that fails part-way leaves nothing behind; one that succeeds keeps all.
  await expect(
    db.$transaction(async (tx) => {
      await tx.user.update({ where: { id: owner.id }, data: { name: "Renamed" } });
      throw new Error("stop");
    }),
  ).rejects.toThrow("stop");
  expect((await db.user.findUniqueOrThrow({ where: { id: owner.id } })).name).toBe("Owner");
  await db.$transaction([
    db.user.update({ where: { id: owner.id }, data: { name: "Renamed" } }),
    db.session.create({ data: { token: "t1", userId: owner.id, expiresAt: new Date(Date.now() + 60_000) } }),
  ]);
  const session = await db.session.findUnique({ where: { token: "t1" }, include: { user: true } });
  expect(session?.user.name).toBe("Renamed");
  expect(await db.user.updateMany({ where: { name: "Renamed" }, data: { banned: true } })).toEqual({ count: 1 });
});

it("keeps at most MAX_STATEMENTS, dropping the least recently used", async () => {
  const hot = () => db.$queryRawUnsafe<{ n: number }[]>("SELECT 1 AS n");
  await hot();
  const before = compilesOf(/^SELECT 1 AS n$/);
  // The hot statement is used between the others, so it stays while they come and go.
  for (let i = 0; i < MAX_STATEMENTS + 50; i++) {
    await db.$queryRawUnsafe(`SELECT ${i} AS n`);
    if (i % 100 === 0) await hot();
  }
  expect(compilesOf(/^SELECT 1 AS n$/)).toBe(before);
  // The first of the others was dropped: it is compiled again.
  const first = compilesOf(/^SELECT 0 AS n$/);
  await db.$queryRawUnsafe("SELECT 0 AS n");
  expect(compilesOf(/^SELECT 0 AS n$/)).toBe(first + 1);
});
