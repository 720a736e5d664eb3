-- AlterTable
ALTER TABLE "periods" ADD COLUMN     "reopened_at" TIMESTAMPTZ(3);

-- CreateTable
CREATE TABLE "period_reopen_requests" (
    "org_id" TEXT NOT NULL,
    "period_id" TEXT NOT NULL,
    "reason" TEXT NOT NULL,
    "requested_by" TEXT NOT NULL,
    "requested_by_id" TEXT,
    "requested_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "period_reopen_requests_pkey" PRIMARY KEY ("org_id","period_id")
);

-- AddForeignKey
ALTER TABLE "period_reopen_requests" ADD CONSTRAINT "period_reopen_requests_org_id_fkey" FOREIGN KEY ("org_id") REFERENCES "orgs"("id") ON DELETE RESTRICT ON UPDATE CASCADE;
