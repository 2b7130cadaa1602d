-- AlterTable
ALTER TABLE "organization" ADD COLUMN     "polarCustomerId" TEXT;

-- AlterTable
ALTER TABLE "subscription" ADD COLUMN     "productId" TEXT,
ADD COLUMN     "providerData" TEXT;

-- CreateIndex
CREATE UNIQUE INDEX "organization_polarCustomerId_key" ON "organization"("polarCustomerId");

