-- CreateTable
CREATE TABLE "spent_identifier" (
    "id" TEXT NOT NULL PRIMARY KEY,
    "expiresAt" DATETIME NOT NULL
);

-- CreateIndex
CREATE INDEX "spent_identifier_expiresAt_idx" ON "spent_identifier"("expiresAt");

