-- Reps, deals, their events, earnings and adjustments keyed by org first, with references by (org_id, id) (issue 31 item 5,
-- docs/scaling.md). Rebuilds these primary keys: on a large database, run it in a maintenance window.
-- DropForeignKey
ALTER TABLE "adjustments" DROP CONSTRAINT "adjustments_deal_id_fkey";

-- DropForeignKey
ALTER TABLE "adjustments" DROP CONSTRAINT "adjustments_user_id_fkey";

-- DropForeignKey
ALTER TABLE "adjustments" DROP CONSTRAINT "adjustments_voids_id_fkey";

-- DropForeignKey
ALTER TABLE "deals" DROP CONSTRAINT "deals_user_id_fkey";

-- DropForeignKey
ALTER TABLE "domain_events" DROP CONSTRAINT "domain_events_deal_id_fkey";

-- DropForeignKey
ALTER TABLE "domain_events" DROP CONSTRAINT "domain_events_source_event_id_fkey";

-- DropForeignKey
ALTER TABLE "earnings" DROP CONSTRAINT "earnings_deal_id_fkey";

-- DropForeignKey
ALTER TABLE "earnings" DROP CONSTRAINT "earnings_supersedes_id_fkey";

-- DropForeignKey
ALTER TABLE "earnings" DROP CONSTRAINT "earnings_triggering_domain_event_id_fkey";

-- DropForeignKey
ALTER TABLE "earnings" DROP CONSTRAINT "earnings_user_id_fkey";

-- DropForeignKey
ALTER TABLE "rep_invitations" DROP CONSTRAINT "rep_invitations_user_id_fkey";

-- DropForeignKey
ALTER TABLE "rep_managers" DROP CONSTRAINT "rep_managers_manager_user_id_fkey";

-- DropForeignKey
ALTER TABLE "rep_managers" DROP CONSTRAINT "rep_managers_rep_user_id_fkey";

-- DropForeignKey
ALTER TABLE "rep_sessions" DROP CONSTRAINT "rep_sessions_user_id_fkey";

-- DropForeignKey
ALTER TABLE "rep_sign_in_links" DROP CONSTRAINT "rep_sign_in_links_user_id_fkey";

-- DropForeignKey
ALTER TABLE "rep_tokens" DROP CONSTRAINT "rep_tokens_user_id_fkey";

-- DropIndex
DROP INDEX "adjustments_voids_id_key";

-- DropIndex
DROP INDEX "domain_events_source_event_id_key";

-- DropIndex
DROP INDEX "earnings_supersedes_id_key";

-- AlterTable
ALTER TABLE "adjustments" DROP CONSTRAINT "adjustments_pkey",
ADD CONSTRAINT "adjustments_pkey" PRIMARY KEY ("org_id", "id");

-- AlterTable
ALTER TABLE "deals" DROP CONSTRAINT "deals_pkey",
ADD CONSTRAINT "deals_pkey" PRIMARY KEY ("org_id", "id");

-- AlterTable
ALTER TABLE "domain_events" DROP CONSTRAINT "domain_events_pkey",
ADD CONSTRAINT "domain_events_pkey" PRIMARY KEY ("org_id", "id");

-- AlterTable
ALTER TABLE "earnings" DROP CONSTRAINT "earnings_pkey",
ADD CONSTRAINT "earnings_pkey" PRIMARY KEY ("org_id", "id");

-- AlterTable
ALTER TABLE "rep_invitations" DROP CONSTRAINT "rep_invitations_pkey",
ADD CONSTRAINT "rep_invitations_pkey" PRIMARY KEY ("org_id", "id");

-- AlterTable
ALTER TABLE "rep_managers" DROP CONSTRAINT "rep_managers_pkey",
ADD CONSTRAINT "rep_managers_pkey" PRIMARY KEY ("org_id", "id");

-- AlterTable
ALTER TABLE "source_events" DROP CONSTRAINT "source_events_pkey",
ADD CONSTRAINT "source_events_pkey" PRIMARY KEY ("org_id", "id");

-- AlterTable
ALTER TABLE "users" DROP CONSTRAINT "users_pkey",
ADD CONSTRAINT "users_pkey" PRIMARY KEY ("org_id", "id");

-- CreateIndex
CREATE UNIQUE INDEX "adjustments_org_id_voids_id_key" ON "adjustments"("org_id", "voids_id");

-- CreateIndex
CREATE UNIQUE INDEX "domain_events_org_id_source_event_id_key" ON "domain_events"("org_id", "source_event_id");

-- CreateIndex
CREATE UNIQUE INDEX "earnings_org_id_supersedes_id_key" ON "earnings"("org_id", "supersedes_id");

-- AddForeignKey
ALTER TABLE "rep_managers" ADD CONSTRAINT "rep_managers_org_id_rep_user_id_fkey" FOREIGN KEY ("org_id", "rep_user_id") REFERENCES "users"("org_id", "id") ON DELETE RESTRICT ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "rep_managers" ADD CONSTRAINT "rep_managers_org_id_manager_user_id_fkey" FOREIGN KEY ("org_id", "manager_user_id") REFERENCES "users"("org_id", "id") ON DELETE RESTRICT ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "domain_events" ADD CONSTRAINT "domain_events_org_id_source_event_id_fkey" FOREIGN KEY ("org_id", "source_event_id") REFERENCES "source_events"("org_id", "id") ON DELETE RESTRICT ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "domain_events" ADD CONSTRAINT "domain_events_org_id_deal_id_fkey" FOREIGN KEY ("org_id", "deal_id") REFERENCES "deals"("org_id", "id") ON DELETE RESTRICT ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "deals" ADD CONSTRAINT "deals_org_id_user_id_fkey" FOREIGN KEY ("org_id", "user_id") REFERENCES "users"("org_id", "id") ON DELETE RESTRICT ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "earnings" ADD CONSTRAINT "earnings_org_id_user_id_fkey" FOREIGN KEY ("org_id", "user_id") REFERENCES "users"("org_id", "id") ON DELETE RESTRICT ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "earnings" ADD CONSTRAINT "earnings_org_id_deal_id_fkey" FOREIGN KEY ("org_id", "deal_id") REFERENCES "deals"("org_id", "id") ON DELETE RESTRICT ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "earnings" ADD CONSTRAINT "earnings_org_id_triggering_domain_event_id_fkey" FOREIGN KEY ("org_id", "triggering_domain_event_id") REFERENCES "domain_events"("org_id", "id") ON DELETE RESTRICT ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "earnings" ADD CONSTRAINT "earnings_org_id_supersedes_id_fkey" FOREIGN KEY ("org_id", "supersedes_id") REFERENCES "earnings"("org_id", "id") ON DELETE RESTRICT ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "rep_invitations" ADD CONSTRAINT "rep_invitations_org_id_user_id_fkey" FOREIGN KEY ("org_id", "user_id") REFERENCES "users"("org_id", "id") ON DELETE RESTRICT ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "rep_sign_in_links" ADD CONSTRAINT "rep_sign_in_links_org_id_user_id_fkey" FOREIGN KEY ("org_id", "user_id") REFERENCES "users"("org_id", "id") ON DELETE RESTRICT ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "rep_sessions" ADD CONSTRAINT "rep_sessions_org_id_user_id_fkey" FOREIGN KEY ("org_id", "user_id") REFERENCES "users"("org_id", "id") ON DELETE RESTRICT ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "adjustments" ADD CONSTRAINT "adjustments_org_id_user_id_fkey" FOREIGN KEY ("org_id", "user_id") REFERENCES "users"("org_id", "id") ON DELETE RESTRICT ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "adjustments" ADD CONSTRAINT "adjustments_org_id_deal_id_fkey" FOREIGN KEY ("org_id", "deal_id") REFERENCES "deals"("org_id", "id") ON DELETE RESTRICT ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "adjustments" ADD CONSTRAINT "adjustments_org_id_voids_id_fkey" FOREIGN KEY ("org_id", "voids_id") REFERENCES "adjustments"("org_id", "id") ON DELETE RESTRICT ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "rep_tokens" ADD CONSTRAINT "rep_tokens_org_id_user_id_fkey" FOREIGN KEY ("org_id", "user_id") REFERENCES "users"("org_id", "id") ON DELETE RESTRICT ON UPDATE CASCADE;
