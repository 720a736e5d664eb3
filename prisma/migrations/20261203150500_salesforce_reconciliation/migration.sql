-- AlterTable
ALTER TABLE "crm_connections" ADD COLUMN     "reconciled_at" TIMESTAMPTZ(3),
ADD COLUMN     "reconciled_to" TIMESTAMPTZ(3),
ADD COLUMN     "repaired_count" INTEGER NOT NULL DEFAULT 0;
