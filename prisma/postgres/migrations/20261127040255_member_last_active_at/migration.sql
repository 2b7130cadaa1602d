-- AlterTable
ALTER TABLE "member" ADD COLUMN     "lastActiveAt" TIMESTAMP(3);

