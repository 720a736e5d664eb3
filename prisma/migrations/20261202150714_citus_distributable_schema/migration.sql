-- The schema as Citus distributes it (issue 42 item 3, docs/scaling.md): no triggers (create_distributed_table
-- refuses a table with triggers) and no foreign key that updates in cascade (refused when the distribution column is
-- in the key; ids never change, so NO ACTION changes nothing). The writes the triggers did are the code's own now:
-- the org's configuration version is bumped in the transaction of every change to its plans, webhook endpoints,
-- exchange rates and default currency (orgs.bumpConfigVersion), and an org's feed writer slots are created with it
-- (orgs.create). Re-creating the 43 foreign keys checks every row they cover: on a large database, run this in a
-- maintenance window.
DROP TRIGGER plans_bump_org_config_version ON plans;
DROP TRIGGER webhook_endpoints_bump_org_config_version ON webhook_endpoints;
DROP TRIGGER exchange_rates_bump_org_config_version ON exchange_rates;
DROP TRIGGER orgs_bump_config_version ON orgs;
DROP TRIGGER orgs_feed_writer_slots ON orgs;
DROP FUNCTION quotient_bump_org_config_version();
DROP FUNCTION quotient_bump_own_config_version();
DROP FUNCTION quotient_create_feed_writer_slots();

-- DropForeignKey
ALTER TABLE "adjustments" DROP CONSTRAINT "adjustments_org_id_deal_id_fkey";

-- DropForeignKey
ALTER TABLE "adjustments" DROP CONSTRAINT "adjustments_org_id_fkey";

-- DropForeignKey
ALTER TABLE "adjustments" DROP CONSTRAINT "adjustments_org_id_user_id_fkey";

-- DropForeignKey
ALTER TABLE "adjustments" DROP CONSTRAINT "adjustments_org_id_voids_id_fkey";

-- DropForeignKey
ALTER TABLE "admin_sessions" DROP CONSTRAINT "admin_sessions_org_id_admin_id_fkey";

-- DropForeignKey
ALTER TABLE "admins" DROP CONSTRAINT "admins_org_id_fkey";

-- DropForeignKey
ALTER TABLE "api_keys" DROP CONSTRAINT "api_keys_org_id_fkey";

-- DropForeignKey
ALTER TABLE "chips" DROP CONSTRAINT "chips_org_id_plan_id_fkey";

-- DropForeignKey
ALTER TABLE "crm_connections" DROP CONSTRAINT "crm_connections_org_id_fkey";

-- DropForeignKey
ALTER TABLE "deals" DROP CONSTRAINT "deals_org_id_fkey";

-- DropForeignKey
ALTER TABLE "deals" DROP CONSTRAINT "deals_org_id_user_id_fkey";

-- DropForeignKey
ALTER TABLE "domain_events" DROP CONSTRAINT "domain_events_org_id_deal_id_fkey";

-- DropForeignKey
ALTER TABLE "domain_events" DROP CONSTRAINT "domain_events_org_id_source_event_id_fkey";

-- DropForeignKey
ALTER TABLE "earnings" DROP CONSTRAINT "earnings_org_id_deal_id_fkey";

-- DropForeignKey
ALTER TABLE "earnings" DROP CONSTRAINT "earnings_org_id_supersedes_id_fkey";

-- DropForeignKey
ALTER TABLE "earnings" DROP CONSTRAINT "earnings_org_id_triggering_domain_event_id_fkey";

-- DropForeignKey
ALTER TABLE "earnings" DROP CONSTRAINT "earnings_org_id_user_id_fkey";

-- DropForeignKey
ALTER TABLE "exchange_rates" DROP CONSTRAINT "exchange_rates_org_id_fkey";

-- DropForeignKey
ALTER TABLE "feed_writer_slots" DROP CONSTRAINT "feed_writer_slots_org_id_fkey";

-- DropForeignKey
ALTER TABLE "identity_providers" DROP CONSTRAINT "identity_providers_org_id_fkey";

-- DropForeignKey
ALTER TABLE "payment_requests" DROP CONSTRAINT "payment_requests_org_id_fkey";

-- DropForeignKey
ALTER TABLE "period_reopen_requests" DROP CONSTRAINT "period_reopen_requests_org_id_fkey";

-- DropForeignKey
ALTER TABLE "periods" DROP CONSTRAINT "periods_org_id_fkey";

-- DropForeignKey
ALTER TABLE "plan_version_chips" DROP CONSTRAINT "plan_version_chips_org_id_chip_id_fkey";

-- DropForeignKey
ALTER TABLE "plan_version_chips" DROP CONSTRAINT "plan_version_chips_org_id_plan_version_id_fkey";

-- DropForeignKey
ALTER TABLE "plan_versions" DROP CONSTRAINT "plan_versions_org_id_plan_id_fkey";

-- DropForeignKey
ALTER TABLE "plans" DROP CONSTRAINT "plans_org_id_fkey";

-- DropForeignKey
ALTER TABLE "rate_limit_counters" DROP CONSTRAINT "rate_limit_counters_org_id_key_id_fkey";

-- DropForeignKey
ALTER TABLE "rep_invitations" DROP CONSTRAINT "rep_invitations_org_id_user_id_fkey";

-- DropForeignKey
ALTER TABLE "rep_managers" DROP CONSTRAINT "rep_managers_org_id_fkey";

-- DropForeignKey
ALTER TABLE "rep_managers" DROP CONSTRAINT "rep_managers_org_id_manager_user_id_fkey";

-- DropForeignKey
ALTER TABLE "rep_managers" DROP CONSTRAINT "rep_managers_org_id_rep_user_id_fkey";

-- DropForeignKey
ALTER TABLE "rep_quotas" DROP CONSTRAINT "rep_quotas_org_id_fkey";

-- DropForeignKey
ALTER TABLE "rep_sessions" DROP CONSTRAINT "rep_sessions_org_id_user_id_fkey";

-- DropForeignKey
ALTER TABLE "rep_sign_in_links" DROP CONSTRAINT "rep_sign_in_links_org_id_user_id_fkey";

-- DropForeignKey
ALTER TABLE "rep_tokens" DROP CONSTRAINT "rep_tokens_org_id_user_id_fkey";

-- DropForeignKey
ALTER TABLE "statement_approvals" DROP CONSTRAINT "statement_approvals_org_id_fkey";

-- DropForeignKey
ALTER TABLE "users" DROP CONSTRAINT "users_org_id_fkey";

-- DropForeignKey
ALTER TABLE "webhook_attempts" DROP CONSTRAINT "webhook_attempts_org_id_delivery_id_fkey";

-- DropForeignKey
ALTER TABLE "webhook_deliveries" DROP CONSTRAINT "webhook_deliveries_org_id_endpoint_id_fkey";

-- DropForeignKey
ALTER TABLE "webhook_deliveries" DROP CONSTRAINT "webhook_deliveries_org_id_message_id_fkey";

-- DropForeignKey
ALTER TABLE "webhook_endpoints" DROP CONSTRAINT "webhook_endpoints_org_id_fkey";

-- DropForeignKey
ALTER TABLE "webhook_messages" DROP CONSTRAINT "webhook_messages_org_id_fkey";

-- AddForeignKey
ALTER TABLE "users" ADD CONSTRAINT "users_org_id_fkey" FOREIGN KEY ("org_id") REFERENCES "orgs"("id") ON DELETE RESTRICT ON UPDATE NO ACTION;

-- AddForeignKey
ALTER TABLE "rep_quotas" ADD CONSTRAINT "rep_quotas_org_id_fkey" FOREIGN KEY ("org_id") REFERENCES "orgs"("id") ON DELETE RESTRICT ON UPDATE NO ACTION;

-- AddForeignKey
ALTER TABLE "rep_managers" ADD CONSTRAINT "rep_managers_org_id_fkey" FOREIGN KEY ("org_id") REFERENCES "orgs"("id") ON DELETE RESTRICT ON UPDATE NO ACTION;

-- AddForeignKey
ALTER TABLE "rep_managers" ADD CONSTRAINT "rep_managers_org_id_rep_user_id_fkey" FOREIGN KEY ("org_id", "rep_user_id") REFERENCES "users"("org_id", "id") ON DELETE RESTRICT ON UPDATE NO ACTION;

-- AddForeignKey
ALTER TABLE "rep_managers" ADD CONSTRAINT "rep_managers_org_id_manager_user_id_fkey" FOREIGN KEY ("org_id", "manager_user_id") REFERENCES "users"("org_id", "id") ON DELETE RESTRICT ON UPDATE NO ACTION;

-- AddForeignKey
ALTER TABLE "api_keys" ADD CONSTRAINT "api_keys_org_id_fkey" FOREIGN KEY ("org_id") REFERENCES "orgs"("id") ON DELETE RESTRICT ON UPDATE NO ACTION;

-- AddForeignKey
ALTER TABLE "rate_limit_counters" ADD CONSTRAINT "rate_limit_counters_org_id_key_id_fkey" FOREIGN KEY ("org_id", "key_id") REFERENCES "api_keys"("org_id", "id") ON DELETE CASCADE ON UPDATE NO ACTION;

-- AddForeignKey
ALTER TABLE "admins" ADD CONSTRAINT "admins_org_id_fkey" FOREIGN KEY ("org_id") REFERENCES "orgs"("id") ON DELETE RESTRICT ON UPDATE NO ACTION;

-- AddForeignKey
ALTER TABLE "admin_sessions" ADD CONSTRAINT "admin_sessions_org_id_admin_id_fkey" FOREIGN KEY ("org_id", "admin_id") REFERENCES "admins"("org_id", "id") ON DELETE RESTRICT ON UPDATE NO ACTION;

-- AddForeignKey
ALTER TABLE "domain_events" ADD CONSTRAINT "domain_events_org_id_source_event_id_fkey" FOREIGN KEY ("org_id", "source_event_id") REFERENCES "source_events"("org_id", "id") ON DELETE RESTRICT ON UPDATE NO ACTION;

-- AddForeignKey
ALTER TABLE "domain_events" ADD CONSTRAINT "domain_events_org_id_deal_id_fkey" FOREIGN KEY ("org_id", "deal_id") REFERENCES "deals"("org_id", "id") ON DELETE RESTRICT ON UPDATE NO ACTION;

-- AddForeignKey
ALTER TABLE "deals" ADD CONSTRAINT "deals_org_id_fkey" FOREIGN KEY ("org_id") REFERENCES "orgs"("id") ON DELETE RESTRICT ON UPDATE NO ACTION;

-- AddForeignKey
ALTER TABLE "deals" ADD CONSTRAINT "deals_org_id_user_id_fkey" FOREIGN KEY ("org_id", "user_id") REFERENCES "users"("org_id", "id") ON DELETE RESTRICT ON UPDATE NO ACTION;

-- AddForeignKey
ALTER TABLE "plans" ADD CONSTRAINT "plans_org_id_fkey" FOREIGN KEY ("org_id") REFERENCES "orgs"("id") ON DELETE RESTRICT ON UPDATE NO ACTION;

-- AddForeignKey
ALTER TABLE "plan_versions" ADD CONSTRAINT "plan_versions_org_id_plan_id_fkey" FOREIGN KEY ("org_id", "plan_id") REFERENCES "plans"("org_id", "id") ON DELETE RESTRICT ON UPDATE NO ACTION;

-- AddForeignKey
ALTER TABLE "chips" ADD CONSTRAINT "chips_org_id_plan_id_fkey" FOREIGN KEY ("org_id", "plan_id") REFERENCES "plans"("org_id", "id") ON DELETE RESTRICT ON UPDATE NO ACTION;

-- AddForeignKey
ALTER TABLE "plan_version_chips" ADD CONSTRAINT "plan_version_chips_org_id_plan_version_id_fkey" FOREIGN KEY ("org_id", "plan_version_id") REFERENCES "plan_versions"("org_id", "id") ON DELETE RESTRICT ON UPDATE NO ACTION;

-- AddForeignKey
ALTER TABLE "plan_version_chips" ADD CONSTRAINT "plan_version_chips_org_id_chip_id_fkey" FOREIGN KEY ("org_id", "chip_id") REFERENCES "chips"("org_id", "id") ON DELETE RESTRICT ON UPDATE NO ACTION;

-- AddForeignKey
ALTER TABLE "periods" ADD CONSTRAINT "periods_org_id_fkey" FOREIGN KEY ("org_id") REFERENCES "orgs"("id") ON DELETE RESTRICT ON UPDATE NO ACTION;

-- AddForeignKey
ALTER TABLE "earnings" ADD CONSTRAINT "earnings_org_id_user_id_fkey" FOREIGN KEY ("org_id", "user_id") REFERENCES "users"("org_id", "id") ON DELETE RESTRICT ON UPDATE NO ACTION;

-- AddForeignKey
ALTER TABLE "earnings" ADD CONSTRAINT "earnings_org_id_deal_id_fkey" FOREIGN KEY ("org_id", "deal_id") REFERENCES "deals"("org_id", "id") ON DELETE RESTRICT ON UPDATE NO ACTION;

-- AddForeignKey
ALTER TABLE "earnings" ADD CONSTRAINT "earnings_org_id_triggering_domain_event_id_fkey" FOREIGN KEY ("org_id", "triggering_domain_event_id") REFERENCES "domain_events"("org_id", "id") ON DELETE RESTRICT ON UPDATE NO ACTION;

-- AddForeignKey
ALTER TABLE "earnings" ADD CONSTRAINT "earnings_org_id_supersedes_id_fkey" FOREIGN KEY ("org_id", "supersedes_id") REFERENCES "earnings"("org_id", "id") ON DELETE RESTRICT ON UPDATE NO ACTION;

-- AddForeignKey
ALTER TABLE "webhook_endpoints" ADD CONSTRAINT "webhook_endpoints_org_id_fkey" FOREIGN KEY ("org_id") REFERENCES "orgs"("id") ON DELETE RESTRICT ON UPDATE NO ACTION;

-- AddForeignKey
ALTER TABLE "webhook_messages" ADD CONSTRAINT "webhook_messages_org_id_fkey" FOREIGN KEY ("org_id") REFERENCES "orgs"("id") ON DELETE RESTRICT ON UPDATE NO ACTION;

-- AddForeignKey
ALTER TABLE "webhook_deliveries" ADD CONSTRAINT "webhook_deliveries_org_id_message_id_fkey" FOREIGN KEY ("org_id", "message_id") REFERENCES "webhook_messages"("org_id", "id") ON DELETE RESTRICT ON UPDATE NO ACTION;

-- AddForeignKey
ALTER TABLE "webhook_deliveries" ADD CONSTRAINT "webhook_deliveries_org_id_endpoint_id_fkey" FOREIGN KEY ("org_id", "endpoint_id") REFERENCES "webhook_endpoints"("org_id", "id") ON DELETE RESTRICT ON UPDATE NO ACTION;

-- AddForeignKey
ALTER TABLE "webhook_attempts" ADD CONSTRAINT "webhook_attempts_org_id_delivery_id_fkey" FOREIGN KEY ("org_id", "delivery_id") REFERENCES "webhook_deliveries"("org_id", "id") ON DELETE RESTRICT ON UPDATE NO ACTION;

-- AddForeignKey
ALTER TABLE "exchange_rates" ADD CONSTRAINT "exchange_rates_org_id_fkey" FOREIGN KEY ("org_id") REFERENCES "orgs"("id") ON DELETE RESTRICT ON UPDATE NO ACTION;

-- AddForeignKey
ALTER TABLE "identity_providers" ADD CONSTRAINT "identity_providers_org_id_fkey" FOREIGN KEY ("org_id") REFERENCES "orgs"("id") ON DELETE RESTRICT ON UPDATE NO ACTION;

-- AddForeignKey
ALTER TABLE "rep_invitations" ADD CONSTRAINT "rep_invitations_org_id_user_id_fkey" FOREIGN KEY ("org_id", "user_id") REFERENCES "users"("org_id", "id") ON DELETE RESTRICT ON UPDATE NO ACTION;

-- AddForeignKey
ALTER TABLE "rep_sign_in_links" ADD CONSTRAINT "rep_sign_in_links_org_id_user_id_fkey" FOREIGN KEY ("org_id", "user_id") REFERENCES "users"("org_id", "id") ON DELETE RESTRICT ON UPDATE NO ACTION;

-- AddForeignKey
ALTER TABLE "rep_sessions" ADD CONSTRAINT "rep_sessions_org_id_user_id_fkey" FOREIGN KEY ("org_id", "user_id") REFERENCES "users"("org_id", "id") ON DELETE RESTRICT ON UPDATE NO ACTION;

-- AddForeignKey
ALTER TABLE "adjustments" ADD CONSTRAINT "adjustments_org_id_fkey" FOREIGN KEY ("org_id") REFERENCES "orgs"("id") ON DELETE RESTRICT ON UPDATE NO ACTION;

-- AddForeignKey
ALTER TABLE "adjustments" ADD CONSTRAINT "adjustments_org_id_user_id_fkey" FOREIGN KEY ("org_id", "user_id") REFERENCES "users"("org_id", "id") ON DELETE RESTRICT ON UPDATE NO ACTION;

-- AddForeignKey
ALTER TABLE "adjustments" ADD CONSTRAINT "adjustments_org_id_deal_id_fkey" FOREIGN KEY ("org_id", "deal_id") REFERENCES "deals"("org_id", "id") ON DELETE RESTRICT ON UPDATE NO ACTION;

-- AddForeignKey
ALTER TABLE "adjustments" ADD CONSTRAINT "adjustments_org_id_voids_id_fkey" FOREIGN KEY ("org_id", "voids_id") REFERENCES "adjustments"("org_id", "id") ON DELETE RESTRICT ON UPDATE NO ACTION;

-- AddForeignKey
ALTER TABLE "statement_approvals" ADD CONSTRAINT "statement_approvals_org_id_fkey" FOREIGN KEY ("org_id") REFERENCES "orgs"("id") ON DELETE RESTRICT ON UPDATE NO ACTION;

-- AddForeignKey
ALTER TABLE "payment_requests" ADD CONSTRAINT "payment_requests_org_id_fkey" FOREIGN KEY ("org_id") REFERENCES "orgs"("id") ON DELETE RESTRICT ON UPDATE NO ACTION;

-- AddForeignKey
ALTER TABLE "period_reopen_requests" ADD CONSTRAINT "period_reopen_requests_org_id_fkey" FOREIGN KEY ("org_id") REFERENCES "orgs"("id") ON DELETE RESTRICT ON UPDATE NO ACTION;

-- AddForeignKey
ALTER TABLE "rep_tokens" ADD CONSTRAINT "rep_tokens_org_id_user_id_fkey" FOREIGN KEY ("org_id", "user_id") REFERENCES "users"("org_id", "id") ON DELETE RESTRICT ON UPDATE NO ACTION;

-- AddForeignKey
ALTER TABLE "crm_connections" ADD CONSTRAINT "crm_connections_org_id_fkey" FOREIGN KEY ("org_id") REFERENCES "orgs"("id") ON DELETE RESTRICT ON UPDATE NO ACTION;

-- AddForeignKey
ALTER TABLE "feed_writer_slots" ADD CONSTRAINT "feed_writer_slots_org_id_fkey" FOREIGN KEY ("org_id") REFERENCES "orgs"("id") ON DELETE RESTRICT ON UPDATE NO ACTION;
