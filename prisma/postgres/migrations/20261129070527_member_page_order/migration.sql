-- CreateIndex
CREATE INDEX "member_organizationId_createdAt_id_idx" ON "member"("organizationId", "createdAt", "id");

