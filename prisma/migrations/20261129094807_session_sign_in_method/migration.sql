-- AlterTable
ALTER TABLE "session" ADD COLUMN "signInMethod" TEXT;

