-- AlterTable
ALTER TABLE "audit_log" ADD COLUMN     "impersonatedBy" TEXT;

-- CreateIndex
CREATE INDEX "audit_log_impersonatedBy_idx" ON "audit_log"("impersonatedBy");

