-- AlterTable
ALTER TABLE "crm_connections" ADD COLUMN     "daily_remaining" INTEGER,
ADD COLUMN     "daily_remaining_at" TIMESTAMPTZ(3),
ADD COLUMN     "reconciled_at" TIMESTAMPTZ(3),
ADD COLUMN     "reconciled_from" TIMESTAMPTZ(3),
ADD COLUMN     "reconcile_next_from" TIMESTAMPTZ(3),
ADD COLUMN     "reconciled_read" INTEGER NOT NULL DEFAULT 0,
ADD COLUMN     "reconciled_repaired" INTEGER NOT NULL DEFAULT 0,
ADD COLUMN     "reconciled_ids" TEXT[] DEFAULT ARRAY[]::TEXT[];
