-- AlterTable
ALTER TABLE "orgs" ADD COLUMN     "four_eyes_payment" BOOLEAN NOT NULL DEFAULT false,
ADD COLUMN     "statement_approval_policy" TEXT NOT NULL DEFAULT 'none';

-- CreateTable
CREATE TABLE "statement_approvals" (
    "id" TEXT NOT NULL,
    "org_id" TEXT NOT NULL,
    "user_id" TEXT NOT NULL,
    "period_id" TEXT NOT NULL,
    "step" TEXT NOT NULL,
    "approver_type" TEXT NOT NULL,
    "approver_id" TEXT NOT NULL,
    "snapshot" JSONB NOT NULL,
    "payable_cents" BIGINT NOT NULL,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "statement_approvals_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "payment_requests" (
    "org_id" TEXT NOT NULL,
    "period_id" TEXT NOT NULL,
    "requested_by" TEXT NOT NULL,
    "requested_by_id" TEXT,
    "requested_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "payment_requests_pkey" PRIMARY KEY ("org_id","period_id")
);

-- CreateIndex
CREATE INDEX "statement_approvals_org_id_period_id_user_id_created_at_idx" ON "statement_approvals"("org_id", "period_id", "user_id", "created_at");

-- AddForeignKey
ALTER TABLE "statement_approvals" ADD CONSTRAINT "statement_approvals_org_id_fkey" FOREIGN KEY ("org_id") REFERENCES "orgs"("id") ON DELETE RESTRICT ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "payment_requests" ADD CONSTRAINT "payment_requests_org_id_fkey" FOREIGN KEY ("org_id") REFERENCES "orgs"("id") ON DELETE RESTRICT ON UPDATE CASCADE;
