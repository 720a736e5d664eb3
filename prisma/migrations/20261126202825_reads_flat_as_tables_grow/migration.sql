-- Reads flat as the tables grow (issue 31 item 3; docs/query-plans.md, test/integration/read-plans.test.ts).
-- Each filter of GET /v1/earnings gets an index that returns its rows in the list's (created_at, id) order, so a
-- page reads about as many rows as it returns instead of every row matching the filter, then sorting them.

-- A rep's rows of a period, in creation order: statements, payouts' per-rep sums, the list by rep and period.
DROP INDEX "earnings_org_id_user_id_period_id_idx";
CREATE INDEX "earnings_org_id_user_id_period_id_created_at_id_idx" ON "earnings"("org_id", "user_id", "period_id", "created_at", "id");

-- The list by rep.
CREATE INDEX "earnings_org_id_user_id_created_at_id_idx" ON "earnings"("org_id", "user_id", "created_at", "id");

-- A rep's draw rows (a statement's opening draw balance sums the earlier periods' advances and recoveries): only
-- those rows, so the read does not grow with the rep's history of other rows. Prisma models the columns, not the
-- predicate.
CREATE INDEX "earnings_draw_rows_idx" ON "earnings"("org_id", "user_id", "period_id")
  WHERE (trace -> 'chip' ->> 'kind') IN ('draw', 'draw_recovery');

-- The list by deal.
DROP INDEX "earnings_org_id_deal_id_idx";
CREATE INDEX "earnings_org_id_deal_id_created_at_id_idx" ON "earnings"("org_id", "deal_id", "created_at", "id");

-- A period's rows by status (lock, payment, the list by period and status), in creation order.
DROP INDEX "earnings_org_id_period_id_status_idx";
CREATE INDEX "earnings_org_id_period_id_status_created_at_id_idx" ON "earnings"("org_id", "period_id", "status", "created_at", "id");

-- The list by period.
CREATE INDEX "earnings_org_id_period_id_created_at_id_idx" ON "earnings"("org_id", "period_id", "created_at", "id");

-- The list by status.
CREATE INDEX "earnings_org_id_status_created_at_id_idx" ON "earnings"("org_id", "status", "created_at", "id");

-- Payouts page through an org's reps in (created_at, id) order, each rep's sums read on its own.
CREATE INDEX "users_org_id_created_at_id_idx" ON "users"("org_id", "created_at", "id");
