-- The org of an API key's digest, read before any org is known (issue 31 item 5, docs/scaling.md): a global table
-- (a Citus reference table), backfilled from every key; api_keys' digest is then unique per org.
-- CreateTable
CREATE TABLE "credential_orgs" (
    "kind" TEXT NOT NULL,
    "lookup" TEXT NOT NULL,
    "org_id" TEXT NOT NULL,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "credential_orgs_pkey" PRIMARY KEY ("kind","lookup")
);

INSERT INTO "credential_orgs" ("kind", "lookup", "org_id", "created_at")
SELECT 'api_key', "digest", "org_id", "created_at" FROM "api_keys";

-- CreateIndex
CREATE UNIQUE INDEX "api_keys_org_id_digest_key" ON "api_keys"("org_id", "digest");

-- DropIndex
DROP INDEX "api_keys_digest_key";
