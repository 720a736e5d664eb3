-- AlterTable
ALTER TABLE "users" ADD COLUMN     "start_date" DATE;

-- CreateTable
CREATE TABLE "rep_quotas" (
    "org_id" TEXT NOT NULL,
    "user_id" TEXT NOT NULL,
    "plan_id" TEXT NOT NULL,
    "effective_from" DATE NOT NULL,
    "quota_cents" BIGINT,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updated_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "rep_quotas_pkey" PRIMARY KEY ("org_id","user_id","plan_id","effective_from")
);

-- CreateIndex
CREATE INDEX "rep_quotas_org_id_plan_id_idx" ON "rep_quotas"("org_id", "plan_id");

-- AddForeignKey
ALTER TABLE "rep_quotas" ADD CONSTRAINT "rep_quotas_org_id_fkey" FOREIGN KEY ("org_id") REFERENCES "orgs"("id") ON DELETE RESTRICT ON UPDATE CASCADE;
