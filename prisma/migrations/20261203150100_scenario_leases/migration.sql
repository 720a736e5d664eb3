-- AlterTable
ALTER TABLE "scenarios" ADD COLUMN     "heartbeat_at" TIMESTAMPTZ(3),
ADD COLUMN     "lease_id" TEXT;

-- CreateIndex
CREATE INDEX "scenarios_status_heartbeat_at_idx" ON "scenarios"("status", "heartbeat_at");

-- CreateIndex
CREATE INDEX "scenarios_kept_finished_at_idx" ON "scenarios"("kept", "finished_at");
