-- AlterTable
ALTER TABLE "user" ADD COLUMN "polarCustomerId" TEXT;
ALTER TABLE "user" ADD COLUMN "stripeCustomerId" TEXT;

-- AlterTable
ALTER TABLE "organization" ADD COLUMN "stripeCustomerId" TEXT;

-- AlterTable
ALTER TABLE "subscription" ADD COLUMN "cancelAt" DATETIME;
ALTER TABLE "subscription" ADD COLUMN "syncedAt" DATETIME;

-- CreateTable
CREATE TABLE "webhook_event" (
    "id" TEXT NOT NULL PRIMARY KEY,
    "type" TEXT NOT NULL,
    "createdAt" DATETIME NOT NULL DEFAULT CURRENT_TIMESTAMP
);

-- CreateIndex
CREATE UNIQUE INDEX "user_stripeCustomerId_key" ON "user"("stripeCustomerId");

-- CreateIndex
CREATE UNIQUE INDEX "user_polarCustomerId_key" ON "user"("polarCustomerId");

-- CreateIndex
CREATE UNIQUE INDEX "organization_stripeCustomerId_key" ON "organization"("stripeCustomerId");

