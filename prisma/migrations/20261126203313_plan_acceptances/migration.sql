-- AlterTable
ALTER TABLE "orgs" ADD COLUMN     "pay_waits_for_acceptance" BOOLEAN NOT NULL DEFAULT false;

-- CreateTable
CREATE TABLE "plan_acceptances" (
    "id" TEXT NOT NULL,
    "org_id" TEXT NOT NULL,
    "user_id" TEXT NOT NULL,
    "plan_id" TEXT NOT NULL,
    "plan_version_id" TEXT NOT NULL,
    "plan_version" INTEGER NOT NULL,
    "state" TEXT NOT NULL,
    "requested_at" TIMESTAMPTZ(3) NOT NULL,
    "reminded_at" TIMESTAMPTZ(3),
    "accepted_at" TIMESTAMPTZ(3),
    "typed_name" TEXT,
    "ip_address" TEXT,
    "user_agent" TEXT,
    "rep_token_id" TEXT,
    "document" TEXT NOT NULL,
    "document_sha256" TEXT NOT NULL,

    CONSTRAINT "plan_acceptances_pkey" PRIMARY KEY ("org_id","id")
);

-- CreateIndex
CREATE INDEX "plan_acceptances_org_id_requested_at_id_idx" ON "plan_acceptances"("org_id", "requested_at", "id");

-- CreateIndex
CREATE INDEX "plan_acceptances_org_id_plan_version_id_idx" ON "plan_acceptances"("org_id", "plan_version_id");

-- CreateIndex
CREATE INDEX "plan_acceptances_org_id_user_id_plan_id_state_idx" ON "plan_acceptances"("org_id", "user_id", "plan_id", "state");

-- CreateIndex
CREATE UNIQUE INDEX "plan_acceptances_org_id_user_id_plan_version_id_key" ON "plan_acceptances"("org_id", "user_id", "plan_version_id");
