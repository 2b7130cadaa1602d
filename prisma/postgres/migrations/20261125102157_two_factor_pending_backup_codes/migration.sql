-- AlterTable
ALTER TABLE "two_factor" ADD COLUMN     "pendingBackupCodes" TEXT;

