-- AlterTable
ALTER TABLE "identity_providers" ADD COLUMN     "scim_token_created_at" TIMESTAMPTZ(3),
ADD COLUMN     "scim_token_digest" TEXT;

-- CreateTable
CREATE TABLE "scim_users" (
    "org_id" TEXT NOT NULL,
    "user_id" TEXT NOT NULL,
    "provider_id" TEXT NOT NULL,
    "user_name" TEXT NOT NULL,
    "idp_external_id" TEXT,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updated_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "scim_users_pkey" PRIMARY KEY ("org_id","user_id")
);

-- CreateIndex
CREATE UNIQUE INDEX "scim_users_org_id_provider_id_user_name_key" ON "scim_users"("org_id", "provider_id", "user_name");
