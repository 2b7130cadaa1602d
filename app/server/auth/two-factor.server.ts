/**
 * Two-factor authentication (better-auth's two-factor plugin contract, api-contract.md
 * section 7, with the stricter rules of docs/decisions/0015).
 */
import { prisma, type Prisma } from "~/server/db.server";
import { announceRevocation } from "./revocation.server";

type Tx = Prisma.TransactionClient;

/**
 * Switches two-factor off for `userId` and forgets everything that came with it: the secret,
 * the backup codes, the trusted browsers and any sign-in waiting for its second step. Every
 * instance stops trusting cached copies of the user (which carry `twoFactorEnabled`).
 */
export async function removeTwoFactor(userId: string, tx?: Tx): Promise<void> {
  const run = async (db: Tx) => {
    await db.twoFactor.deleteMany({ where: { userId } });
    await db.backupCode.deleteMany({ where: { userId } });
    await db.trustedDevice.deleteMany({ where: { userId } });
    await db.pendingSignIn.deleteMany({ where: { userId } });
    await db.user.update({ where: { id: userId }, data: { twoFactorEnabled: false } });
    await announceRevocation(db, userId);
  };
  await (tx ? run(tx) : prisma.$transaction(run));
}
