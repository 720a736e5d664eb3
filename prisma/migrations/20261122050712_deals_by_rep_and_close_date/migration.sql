-- DropIndex
DROP INDEX "deals_org_id_user_id_idx";

-- CreateIndex
CREATE INDEX "deals_org_id_user_id_close_date_idx" ON "deals"("org_id", "user_id", "close_date");
