-- AlterTable
ALTER TABLE "organization" ADD COLUMN     "ssoRequired" BOOLEAN NOT NULL DEFAULT false;

-- CreateTable
CREATE TABLE "sso_provider" (
    "id" TEXT NOT NULL,
    "providerId" TEXT NOT NULL,
    "issuer" TEXT NOT NULL,
    "domain" TEXT NOT NULL,
    "organizationId" TEXT NOT NULL,
    "userId" TEXT,
    "oidcConfig" TEXT,
    "samlConfig" TEXT,
    "createdAt" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updatedAt" TIMESTAMP(3) NOT NULL,

    CONSTRAINT "sso_provider_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "sso_domain" (
    "id" TEXT NOT NULL,
    "providerId" TEXT NOT NULL,
    "domain" TEXT NOT NULL,
    "token" TEXT NOT NULL,
    "verifiedAt" TIMESTAMP(3),
    "createdAt" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "sso_domain_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "scim_token" (
    "id" TEXT NOT NULL,
    "providerId" TEXT NOT NULL,
    "organizationId" TEXT NOT NULL,
    "tokenHash" TEXT NOT NULL,
    "start" TEXT NOT NULL,
    "createdBy" TEXT,
    "lastUsedAt" TIMESTAMP(3),
    "createdAt" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "scim_token_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "scim_user" (
    "id" TEXT NOT NULL,
    "organizationId" TEXT NOT NULL,
    "userId" TEXT NOT NULL,
    "userName" TEXT NOT NULL,
    "externalId" TEXT,
    "active" BOOLEAN NOT NULL DEFAULT true,
    "attributes" TEXT,
    "createdAt" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updatedAt" TIMESTAMP(3) NOT NULL,

    CONSTRAINT "scim_user_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "scim_group" (
    "id" TEXT NOT NULL,
    "organizationId" TEXT NOT NULL,
    "displayName" TEXT NOT NULL,
    "externalId" TEXT,
    "createdAt" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updatedAt" TIMESTAMP(3) NOT NULL,

    CONSTRAINT "scim_group_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "scim_group_member" (
    "groupId" TEXT NOT NULL,
    "scimUserId" TEXT NOT NULL,

    CONSTRAINT "scim_group_member_pkey" PRIMARY KEY ("groupId","scimUserId")
);

-- CreateIndex
CREATE UNIQUE INDEX "sso_provider_providerId_key" ON "sso_provider"("providerId");

-- CreateIndex
CREATE INDEX "sso_provider_organizationId_idx" ON "sso_provider"("organizationId");

-- CreateIndex
CREATE INDEX "sso_domain_domain_idx" ON "sso_domain"("domain");

-- CreateIndex
CREATE UNIQUE INDEX "sso_domain_providerId_domain_key" ON "sso_domain"("providerId", "domain");

-- CreateIndex
CREATE UNIQUE INDEX "scim_token_tokenHash_key" ON "scim_token"("tokenHash");

-- CreateIndex
CREATE INDEX "scim_token_providerId_idx" ON "scim_token"("providerId");

-- CreateIndex
CREATE INDEX "scim_token_organizationId_idx" ON "scim_token"("organizationId");

-- CreateIndex
CREATE INDEX "scim_user_userId_idx" ON "scim_user"("userId");

-- CreateIndex
CREATE UNIQUE INDEX "scim_user_organizationId_userName_key" ON "scim_user"("organizationId", "userName");

-- CreateIndex
CREATE UNIQUE INDEX "scim_user_organizationId_userId_key" ON "scim_user"("organizationId", "userId");

-- CreateIndex
CREATE UNIQUE INDEX "scim_group_organizationId_displayName_key" ON "scim_group"("organizationId", "displayName");

-- CreateIndex
CREATE INDEX "scim_group_member_scimUserId_idx" ON "scim_group_member"("scimUserId");

-- AddForeignKey
ALTER TABLE "sso_provider" ADD CONSTRAINT "sso_provider_organizationId_fkey" FOREIGN KEY ("organizationId") REFERENCES "organization"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "sso_domain" ADD CONSTRAINT "sso_domain_providerId_fkey" FOREIGN KEY ("providerId") REFERENCES "sso_provider"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "scim_token" ADD CONSTRAINT "scim_token_providerId_fkey" FOREIGN KEY ("providerId") REFERENCES "sso_provider"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "scim_user" ADD CONSTRAINT "scim_user_organizationId_fkey" FOREIGN KEY ("organizationId") REFERENCES "organization"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "scim_user" ADD CONSTRAINT "scim_user_userId_fkey" FOREIGN KEY ("userId") REFERENCES "user"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "scim_group" ADD CONSTRAINT "scim_group_organizationId_fkey" FOREIGN KEY ("organizationId") REFERENCES "organization"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "scim_group_member" ADD CONSTRAINT "scim_group_member_groupId_fkey" FOREIGN KEY ("groupId") REFERENCES "scim_group"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "scim_group_member" ADD CONSTRAINT "scim_group_member_scimUserId_fkey" FOREIGN KEY ("scimUserId") REFERENCES "scim_user"("id") ON DELETE CASCADE ON UPDATE CASCADE;

