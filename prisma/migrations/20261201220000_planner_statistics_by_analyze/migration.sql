-- The planner's statistics of earnings and adjustments are ANALYZE's own again: the overridden n_distinct and the
-- org/rep dependency statistics sized generic plans among many small tenants, and the pool plans its statements
-- from their values now (docs/architecture.md, "Planning").
DROP STATISTICS IF EXISTS "earnings_org_id_user_id_dependencies";
DROP STATISTICS IF EXISTS "adjustments_org_id_user_id_dependencies";
ALTER TABLE "earnings" ALTER COLUMN "org_id" RESET (n_distinct), ALTER COLUMN "user_id" RESET (n_distinct);
ALTER TABLE "adjustments" ALTER COLUMN "org_id" RESET (n_distinct), ALTER COLUMN "user_id" RESET (n_distinct);

ANALYZE "earnings";
ANALYZE "adjustments";
