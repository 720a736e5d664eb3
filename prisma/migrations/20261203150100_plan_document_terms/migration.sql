-- AlterTable
ALTER TABLE "orgs" ADD COLUMN     "plan_terms_clawback" TEXT NOT NULL DEFAULT '',
ADD COLUMN     "plan_terms_governing" TEXT NOT NULL DEFAULT '',
ADD COLUMN     "plan_terms_leaver" TEXT NOT NULL DEFAULT '';
