-- CreateTable
CREATE TABLE "spent_identifier" (
    "id" TEXT NOT NULL,
    "expiresAt" TIMESTAMP(3) NOT NULL,

    CONSTRAINT "spent_identifier_pkey" PRIMARY KEY ("id")
);

-- CreateIndex
CREATE INDEX "spent_identifier_expiresAt_idx" ON "spent_identifier"("expiresAt");

