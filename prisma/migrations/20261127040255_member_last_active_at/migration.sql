-- AlterTable
ALTER TABLE "member" ADD COLUMN "lastActiveAt" DATETIME;

