-- AlterTable
ALTER TABLE "crm_connections" ADD COLUMN     "cdc_holder" TEXT,
ADD COLUMN     "cdc_lease_until" TIMESTAMPTZ(3),
ADD COLUMN     "cdc_replay_id" TEXT;
