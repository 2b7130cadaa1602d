-- CreateIndex
CREATE INDEX "user_createdAt_id_idx" ON "user"("createdAt", "id");

-- CreateIndex
CREATE INDEX "user_name_id_idx" ON "user"("name", "id");

-- CreateIndex
CREATE INDEX "user_role_id_idx" ON "user"("role", "id");

