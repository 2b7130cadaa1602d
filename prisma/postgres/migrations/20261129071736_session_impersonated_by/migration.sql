-- CreateIndex
CREATE INDEX "session_impersonatedBy_idx" ON "session"("impersonatedBy");

