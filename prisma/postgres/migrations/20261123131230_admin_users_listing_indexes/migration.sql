-- CreateIndex
CREATE INDEX "user_createdAt_desc_id_idx" ON "user"("createdAt" DESC, "id");

-- CreateIndex
CREATE INDEX "user_updatedAt_id_idx" ON "user"("updatedAt", "id");

-- CreateIndex
CREATE INDEX "user_updatedAt_desc_id_idx" ON "user"("updatedAt" DESC, "id");

-- CreateIndex
CREATE INDEX "user_name_desc_id_idx" ON "user"("name" DESC, "id");

-- CreateIndex
CREATE INDEX "user_role_desc_id_idx" ON "user"("role" DESC, "id");

-- CreateIndex
CREATE INDEX "user_banned_id_idx" ON "user"("banned", "id");

-- CreateIndex
CREATE INDEX "user_banned_desc_id_idx" ON "user"("banned" DESC, "id");

-- CreateIndex
CREATE INDEX "user_emailVerified_id_idx" ON "user"("emailVerified", "id");

-- CreateIndex
CREATE INDEX "user_emailVerified_desc_id_idx" ON "user"("emailVerified" DESC, "id");

-- CreateIndex
CREATE INDEX "user_email_id_idx" ON "user"("email", "id");

