-- CreateTable
CREATE TABLE "data_operation_run" (
    "id" TEXT NOT NULL,
    "operation" TEXT NOT NULL,
    "status" TEXT NOT NULL DEFAULT 'running',
    "runningKey" TEXT,
    "userId" TEXT,
    "total" INTEGER NOT NULL DEFAULT 0,
    "created" INTEGER NOT NULL DEFAULT 0,
    "skipped" INTEGER NOT NULL DEFAULT 0,
    "failed" INTEGER NOT NULL DEFAULT 0,
    "error" TEXT,
    "startedAt" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updatedAt" TIMESTAMP(3) NOT NULL,
    "finishedAt" TIMESTAMP(3),

    CONSTRAINT "data_operation_run_pkey" PRIMARY KEY ("id")
);

-- CreateIndex
CREATE UNIQUE INDEX "data_operation_run_runningKey_key" ON "data_operation_run"("runningKey");

-- CreateIndex
CREATE INDEX "data_operation_run_operation_startedAt_idx" ON "data_operation_run"("operation", "startedAt");

-- CreateIndex
CREATE INDEX "user_createdAt_id_idx" ON "user"("createdAt", "id");

-- CreateIndex
CREATE INDEX "user_name_id_idx" ON "user"("name", "id");

-- CreateIndex
CREATE INDEX "user_role_id_idx" ON "user"("role", "id");

-- CreateIndex
CREATE INDEX "subscription_createdAt_idx" ON "subscription"("createdAt");

