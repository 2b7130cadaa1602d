// Makes sure the configured administrator (ADMIN_EMAIL / ADMIN_PASSWORD) exists at start-up.
import bcrypt from "bcryptjs";
import { isUniqueViolation, prisma, type Database } from "../db.server";

export interface AdminInput {
  email: string;
  password: string;
  name: string;
}

/**
 * Creates the admin (verified email, role admin, credential account with a bcrypt hash), or,
 * if a user with that email exists, makes sure it is a verified admin that can sign in with a
 * password: an existing password is never replaced, a missing credential account is added.
 * Idempotent, and safe when several instances start at once: whoever loses the race for
 * the unique email (or credential account) finds the winner's row and goes on from there.
 * `db` is for tests; the app uses the process's client.
 */
export async function ensureAdmin(input: AdminInput, db: Database = prisma): Promise<{ created: boolean }> {
  const email = input.email.trim().toLowerCase();

  const existing = await db.user.findUnique({ where: { email }, select: { id: true } });
  if (!existing) {
    const password = await bcrypt.hash(input.password, 10);
    try {
      await db.$transaction(async (tx) => {
        const user = await tx.user.create({
          data: { email, name: input.name, emailVerified: true, role: "admin" },
          select: { id: true },
        });
        // accountId = user id for credential accounts (the better-auth convention).
        await tx.account.create({
          data: { providerId: "credential", accountId: user.id, userId: user.id, password },
        });
      });
      return { created: true };
    } catch (error) {
      if (!isUniqueViolation(error)) throw error;
      // Another instance created it meanwhile: fall through and check it like any existing user.
    }
  }

  const user = await db.user.findUniqueOrThrow({
    where: { email },
    select: {
      id: true,
      role: true,
      emailVerified: true,
      accounts: { where: { providerId: "credential" }, select: { id: true } },
    },
  });
  // role may be a comma-separated list (admin plugin): keep other roles when admin is there.
  const isAdmin = user.role
    .split(",")
    .map((role) => role.trim())
    .includes("admin");
  if (!isAdmin || !user.emailVerified) {
    await db.user.update({
      where: { id: user.id },
      data: { role: isAdmin ? user.role : "admin", emailVerified: true },
    });
  }
  if (user.accounts.length === 0) {
    const password = await bcrypt.hash(input.password, 10);
    try {
      await db.account.create({ data: { providerId: "credential", accountId: user.id, userId: user.id, password } });
    } catch (error) {
      if (!isUniqueViolation(error)) throw error;
    }
  }
  return { created: false };
}
