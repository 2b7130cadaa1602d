-- AlterTable
ALTER TABLE "audit_log" ADD COLUMN "organizationId" TEXT;

-- CreateIndex
CREATE INDEX "audit_log_organizationId_createdAt_idx" ON "audit_log"("organizationId", "createdAt");

-- Back-fill (written by hand): the rows from before this column named their organization in
-- their details, were about it (targetType "organization"), paid for it (a payment's
-- referenceId) or came from one of its SSO connections (providerId). Details are read only
-- where they are valid JSON (CASE, because SQLite may evaluate WHERE terms in any order).
UPDATE "audit_log" SET "organizationId" = CASE WHEN json_valid("details") THEN json_extract("details", '$.organizationId') END
WHERE "organizationId" IS NULL AND "category" IN ('organization', 'sso', 'scim', 'payment')
  AND (CASE WHEN json_valid("details") THEN json_type("details", '$.organizationId') END) = 'text';

UPDATE "audit_log" SET "organizationId" = "targetId"
WHERE "organizationId" IS NULL AND "category" IN ('organization', 'sso', 'scim', 'payment')
  AND "targetType" = 'organization' AND "targetId" IS NOT NULL;

UPDATE "audit_log" SET "organizationId" = CASE WHEN json_valid("details") THEN json_extract("details", '$.referenceId') END
WHERE "organizationId" IS NULL AND "category" = 'payment'
  AND (CASE WHEN json_valid("details") THEN json_extract("details", '$.referenceId') END) IN (SELECT "id" FROM "organization");

UPDATE "audit_log" SET "organizationId" = (
  SELECT "organizationId" FROM "sso_provider"
  WHERE "providerId" = (CASE WHEN json_valid("audit_log"."details") THEN json_extract("audit_log"."details", '$.providerId') END)
)
WHERE "organizationId" IS NULL AND "category" IN ('sso', 'scim');
