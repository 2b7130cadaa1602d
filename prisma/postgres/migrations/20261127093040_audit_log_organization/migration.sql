-- AlterTable
ALTER TABLE "audit_log" ADD COLUMN     "organizationId" TEXT;

-- CreateIndex
CREATE INDEX "audit_log_organizationId_createdAt_idx" ON "audit_log"("organizationId", "createdAt");

-- Back-fill (written by hand): the rows from before this column named their organization in
-- their details, were about it (targetType "organization"), paid for it (a payment's
-- referenceId) or came from one of its SSO connections (providerId). Details are JSON.stringify's
-- output (no spaces), read with a pattern rather than a cast, which would fail on a row that
-- is not JSON.
UPDATE "audit_log" SET "organizationId" = substring("details" from '"organizationId":"([^"\\]+)"')
WHERE "organizationId" IS NULL AND "category" IN ('organization', 'sso', 'scim', 'payment')
  AND "details" ~ '"organizationId":"[^"\\]+"';

UPDATE "audit_log" SET "organizationId" = "targetId"
WHERE "organizationId" IS NULL AND "category" IN ('organization', 'sso', 'scim', 'payment')
  AND "targetType" = 'organization' AND "targetId" IS NOT NULL;

UPDATE "audit_log" SET "organizationId" = substring("details" from '"referenceId":"([^"\\]+)"')
WHERE "organizationId" IS NULL AND "category" = 'payment'
  AND substring("details" from '"referenceId":"([^"\\]+)"') IN (SELECT "id" FROM "organization");

UPDATE "audit_log" SET "organizationId" = (
  SELECT "organizationId" FROM "sso_provider"
  WHERE "providerId" = substring("audit_log"."details" from '"providerId":"([^"\\]+)"')
)
WHERE "organizationId" IS NULL AND "category" IN ('sso', 'scim');
