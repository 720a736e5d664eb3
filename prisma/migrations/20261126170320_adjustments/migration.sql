-- CreateTable
CREATE TABLE "adjustments" (
    "id" TEXT NOT NULL,
    "org_id" TEXT NOT NULL,
    "user_id" TEXT NOT NULL,
    "period_id" TEXT NOT NULL,
    "amount_cents" BIGINT NOT NULL,
    "currency" TEXT NOT NULL,
    "category" TEXT NOT NULL,
    "reason" TEXT NOT NULL,
    "deal_id" TEXT,
    "voids_id" TEXT,
    "idempotency_key" TEXT,
    "created_by_type" TEXT NOT NULL,
    "created_by" TEXT NOT NULL,
    "created_by_id" TEXT,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "adjustments_pkey" PRIMARY KEY ("id")
);

-- CreateIndex
CREATE UNIQUE INDEX "adjustments_voids_id_key" ON "adjustments"("voids_id");

-- CreateIndex
CREATE INDEX "adjustments_org_id_created_at_id_idx" ON "adjustments"("org_id", "created_at", "id");

-- CreateIndex
CREATE INDEX "adjustments_org_id_user_id_period_id_idx" ON "adjustments"("org_id", "user_id", "period_id");

-- CreateIndex
CREATE INDEX "adjustments_org_id_period_id_idx" ON "adjustments"("org_id", "period_id");

-- CreateIndex
CREATE UNIQUE INDEX "adjustments_org_id_idempotency_key_key" ON "adjustments"("org_id", "idempotency_key");

-- AddForeignKey
ALTER TABLE "adjustments" ADD CONSTRAINT "adjustments_org_id_fkey" FOREIGN KEY ("org_id") REFERENCES "orgs"("id") ON DELETE RESTRICT ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "adjustments" ADD CONSTRAINT "adjustments_user_id_fkey" FOREIGN KEY ("user_id") REFERENCES "users"("id") ON DELETE RESTRICT ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "adjustments" ADD CONSTRAINT "adjustments_deal_id_fkey" FOREIGN KEY ("deal_id") REFERENCES "deals"("id") ON DELETE SET NULL ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "adjustments" ADD CONSTRAINT "adjustments_voids_id_fkey" FOREIGN KEY ("voids_id") REFERENCES "adjustments"("id") ON DELETE SET NULL ON UPDATE CASCADE;
