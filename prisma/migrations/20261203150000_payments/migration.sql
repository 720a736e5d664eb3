-- AlterTable
ALTER TABLE "deals" ADD COLUMN     "payments" JSONB;

-- CreateTable
CREATE TABLE "payments" (
    "id" TEXT NOT NULL,
    "org_id" TEXT NOT NULL,
    "external_id" TEXT NOT NULL,
    "deal_id" TEXT NOT NULL,
    "amount_cents" BIGINT NOT NULL,
    "currency" TEXT NOT NULL,
    "received_on" DATE NOT NULL,
    "body_digest" TEXT NOT NULL,
    "domain_event_id" TEXT NOT NULL,
    "void_domain_event_id" TEXT,
    "voided_at" TIMESTAMPTZ(3),
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "payments_pkey" PRIMARY KEY ("org_id","id")
);

-- CreateIndex
CREATE INDEX "payments_org_id_deal_id_received_on_idx" ON "payments"("org_id", "deal_id", "received_on");

-- CreateIndex
CREATE UNIQUE INDEX "payments_org_id_external_id_key" ON "payments"("org_id", "external_id");

-- AddForeignKey
ALTER TABLE "payments" ADD CONSTRAINT "payments_org_id_fkey" FOREIGN KEY ("org_id") REFERENCES "orgs"("id") ON DELETE RESTRICT ON UPDATE NO ACTION;

-- AddForeignKey
ALTER TABLE "payments" ADD CONSTRAINT "payments_org_id_deal_id_fkey" FOREIGN KEY ("org_id", "deal_id") REFERENCES "deals"("org_id", "id") ON DELETE RESTRICT ON UPDATE NO ACTION;
