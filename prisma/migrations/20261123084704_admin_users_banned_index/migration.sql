-- CreateIndex
CREATE INDEX "user_banned_createdAt_id_idx" ON "user"("banned", "createdAt", "id");

