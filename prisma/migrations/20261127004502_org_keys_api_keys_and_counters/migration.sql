-- API keys keyed by (org_id, id); the rate-limit counters carry their key's or rep's org (issue 31 item 5,
-- docs/scaling.md).
-- DropForeignKey
ALTER TABLE "rate_limit_counters" DROP CONSTRAINT "rate_limit_counters_key_id_fkey";

-- AlterTable: a counter's org is its key's (copied down, backfilled while api_keys is still keyed by id).
ALTER TABLE "rate_limit_counters" ADD COLUMN "org_id" TEXT;
UPDATE "rate_limit_counters" c SET "org_id" = k."org_id" FROM "api_keys" k WHERE k."id" = c."key_id";
ALTER TABLE "rate_limit_counters" ALTER COLUMN "org_id" SET NOT NULL,
DROP CONSTRAINT "rate_limit_counters_pkey",
ADD CONSTRAINT "rate_limit_counters_pkey" PRIMARY KEY ("org_id", "key_id", "window_start");

-- AlterTable: a rep's counter belongs to the rep's org.
ALTER TABLE "rep_rate_limit_counters" ADD COLUMN "org_id" TEXT;
UPDATE "rep_rate_limit_counters" c SET "org_id" = u."org_id" FROM "users" u WHERE u."id" = c."user_id";
DELETE FROM "rep_rate_limit_counters" WHERE "org_id" IS NULL;
ALTER TABLE "rep_rate_limit_counters" ALTER COLUMN "org_id" SET NOT NULL,
DROP CONSTRAINT "rep_rate_limit_counters_pkey",
ADD CONSTRAINT "rep_rate_limit_counters_pkey" PRIMARY KEY ("org_id", "user_id", "window_start");

-- AlterTable
ALTER TABLE "api_keys" DROP CONSTRAINT "api_keys_pkey",
ADD CONSTRAINT "api_keys_pkey" PRIMARY KEY ("org_id", "id");

-- AddForeignKey
ALTER TABLE "rate_limit_counters" ADD CONSTRAINT "rate_limit_counters_org_id_key_id_fkey" FOREIGN KEY ("org_id", "key_id") REFERENCES "api_keys"("org_id", "id") ON DELETE CASCADE ON UPDATE CASCADE;
