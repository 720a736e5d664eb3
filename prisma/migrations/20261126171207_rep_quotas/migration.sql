-- AlterTable
ALTER TABLE "users" ADD COLUMN     "start_date" DATE;

-- CreateTable
CREATE TABLE "rep_quotas" (
    "id" TEXT NOT NULL,
    "org_id" TEXT NOT NULL,
    "user_id" TEXT NOT NULL,
    "plan_id" TEXT NOT NULL,
    "effective_from" DATE NOT NULL,
    "quota_cents" BIGINT,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updated_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "rep_quotas_pkey" PRIMARY KEY ("id")
);

-- CreateIndex
CREATE INDEX "rep_quotas_org_id_plan_id_idx" ON "rep_quotas"("org_id", "plan_id");

-- CreateIndex
CREATE UNIQUE INDEX "rep_quotas_org_id_user_id_plan_id_effective_from_key" ON "rep_quotas"("org_id", "user_id", "plan_id", "effective_from");

-- AddForeignKey
ALTER TABLE "rep_quotas" ADD CONSTRAINT "rep_quotas_org_id_fkey" FOREIGN KEY ("org_id") REFERENCES "orgs"("id") ON DELETE RESTRICT ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "rep_quotas" ADD CONSTRAINT "rep_quotas_user_id_fkey" FOREIGN KEY ("user_id") REFERENCES "users"("id") ON DELETE RESTRICT ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "rep_quotas" ADD CONSTRAINT "rep_quotas_plan_id_fkey" FOREIGN KEY ("plan_id") REFERENCES "plans"("id") ON DELETE RESTRICT ON UPDATE CASCADE;
