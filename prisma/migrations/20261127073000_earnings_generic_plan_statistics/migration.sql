-- Rep-and-period reads (a statement's rows, the list by rep and period, a payout's probe and sums) keep the
-- (org_id, user_id, period_id, created_at, id) index under generic plans, whatever orgs share the table
-- (docs/scaling.md, "Generic plans among many small tenants"; test/integration/read-plans.test.ts).
--
-- A generic plan does not see which org or rep it reads: it estimates `org_id = $1` as the table's rows over the
-- number of orgs, `user_id = $2` likewise, and multiplies the two as if they were independent. Among thousands of
-- small orgs every such estimate falls below one row, every index leading with org_id costs the same, and the one
-- taken for a rep's period may be the rep's (all of its periods) or the org's period (all of its reps).

-- A rep belongs to one org: with the dependency user_id -> org_id, the rows of (org_id, user_id) are those of
-- user_id alone, not a product of two fractions.
CREATE STATISTICS "earnings_org_id_user_id_dependencies" (dependencies) ON "org_id", "user_id" FROM "earnings";

-- Sized as a large org is, not as the average of many small ones: an org per thousand rows of the table and a rep
-- per hundred (negative n_distinct is a fraction of the rows, so the sizes hold as the table grows). A rep's period
-- is then estimated at a hundred rows over the number of periods, the org's period at ten times that and the rep's
-- whole history at a hundred rows, so the narrowest index is the cheapest whatever the tenants' sizes. The reads of
-- a small org are small through any index; it is the large org's that must be planned right. ANALYZE keeps these
-- numbers instead of its own.
ALTER TABLE "earnings" ALTER COLUMN "org_id" SET (n_distinct = -0.001), ALTER COLUMN "user_id" SET (n_distinct = -0.01);

-- Built now rather than at the table's next analysis, so that plans made from here on use them.
ANALYZE "earnings";
