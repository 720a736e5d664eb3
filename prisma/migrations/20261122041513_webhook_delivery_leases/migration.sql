-- AlterTable
ALTER TABLE "webhook_attempts" ADD COLUMN     "manual" BOOLEAN NOT NULL DEFAULT false,
ALTER COLUMN "latency_ms" DROP NOT NULL;

-- AlterTable
ALTER TABLE "webhook_deliveries" ADD COLUMN     "lease_id" TEXT,
ADD COLUMN     "leased_at" TIMESTAMPTZ(3),
ADD COLUMN     "redelivery" BOOLEAN NOT NULL DEFAULT false;

-- AlterTable
ALTER TABLE "webhook_endpoints" ADD COLUMN     "failing_since" TIMESTAMPTZ(3);

-- AlterTable
ALTER TABLE "webhook_messages" ALTER COLUMN "payload" SET DATA TYPE JSON;

-- CreateIndex
CREATE INDEX "webhook_deliveries_endpoint_id_created_at_idx" ON "webhook_deliveries"("endpoint_id", "created_at");
