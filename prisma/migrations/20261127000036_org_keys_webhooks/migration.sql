-- Webhook tables keyed by org first (issue 31 item 5, docs/scaling.md).
-- DropForeignKey
ALTER TABLE "webhook_attempts" DROP CONSTRAINT "webhook_attempts_delivery_id_fkey";

-- DropForeignKey
ALTER TABLE "webhook_deliveries" DROP CONSTRAINT "webhook_deliveries_endpoint_id_fkey";

-- DropForeignKey
ALTER TABLE "webhook_deliveries" DROP CONSTRAINT "webhook_deliveries_message_id_fkey";

-- DropIndex
DROP INDEX "webhook_attempts_delivery_id_attempted_at_idx";

-- DropIndex
DROP INDEX "webhook_deliveries_endpoint_id_created_at_idx";

-- DropIndex
DROP INDEX "webhook_deliveries_message_id_endpoint_id_key";

-- AlterTable: an attempt's org is its delivery's (copied down, docs/scaling.md).
ALTER TABLE "webhook_attempts" ADD COLUMN "org_id" TEXT;
UPDATE "webhook_attempts" a SET "org_id" = d."org_id" FROM "webhook_deliveries" d WHERE d."id" = a."delivery_id";
ALTER TABLE "webhook_attempts" ALTER COLUMN "org_id" SET NOT NULL,
DROP CONSTRAINT "webhook_attempts_pkey",
ADD CONSTRAINT "webhook_attempts_pkey" PRIMARY KEY ("org_id", "id");

-- AlterTable
ALTER TABLE "webhook_deliveries" DROP CONSTRAINT "webhook_deliveries_pkey",
ADD CONSTRAINT "webhook_deliveries_pkey" PRIMARY KEY ("org_id", "id");

-- AlterTable
ALTER TABLE "webhook_endpoints" DROP CONSTRAINT "webhook_endpoints_pkey",
ADD CONSTRAINT "webhook_endpoints_pkey" PRIMARY KEY ("org_id", "id");

-- AlterTable
ALTER TABLE "webhook_messages" DROP CONSTRAINT "webhook_messages_pkey",
ADD CONSTRAINT "webhook_messages_pkey" PRIMARY KEY ("org_id", "id");

-- CreateIndex
CREATE INDEX "webhook_attempts_org_id_delivery_id_attempted_at_idx" ON "webhook_attempts"("org_id", "delivery_id", "attempted_at");

-- CreateIndex
CREATE INDEX "webhook_deliveries_org_id_endpoint_id_created_at_idx" ON "webhook_deliveries"("org_id", "endpoint_id", "created_at");

-- CreateIndex
CREATE UNIQUE INDEX "webhook_deliveries_org_id_message_id_endpoint_id_key" ON "webhook_deliveries"("org_id", "message_id", "endpoint_id");

-- AddForeignKey
ALTER TABLE "webhook_deliveries" ADD CONSTRAINT "webhook_deliveries_org_id_message_id_fkey" FOREIGN KEY ("org_id", "message_id") REFERENCES "webhook_messages"("org_id", "id") ON DELETE RESTRICT ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "webhook_deliveries" ADD CONSTRAINT "webhook_deliveries_org_id_endpoint_id_fkey" FOREIGN KEY ("org_id", "endpoint_id") REFERENCES "webhook_endpoints"("org_id", "id") ON DELETE RESTRICT ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "webhook_attempts" ADD CONSTRAINT "webhook_attempts_org_id_delivery_id_fkey" FOREIGN KEY ("org_id", "delivery_id") REFERENCES "webhook_deliveries"("org_id", "id") ON DELETE RESTRICT ON UPDATE CASCADE;
