-- A rep's adjustments, a page at a time in (created_at, id) order: the rep portal's own list, a manager's reports and
-- the list by rep (`?user_external_id=`), read through the rep's rows instead of the org's (docs/scaling.md, "A row's
-- rep, by its key"; test/integration/read-plans.test.ts).
-- CreateIndex
CREATE INDEX "adjustments_org_id_user_id_created_at_id_idx" ON "adjustments"("org_id", "user_id", "created_at", "id");

-- Planned generically among many small orgs, `org_id = $1` and `user_id = $2` are each estimated below one row and
-- every index leading with org_id costs the same: the page of one rep was read from the org's (created_at, id) range
-- on PostgreSQL 18, every rep's rows filtered. As for the earnings (20261127073000): a rep belongs to one org, and
-- every org and rep is sized as a large one (an org per thousand rows, a rep per hundred), so the rep's index is the
-- narrowest whatever the tenants' sizes. ANALYZE keeps these numbers instead of its own.
CREATE STATISTICS "adjustments_org_id_user_id_dependencies" (dependencies) ON "org_id", "user_id" FROM "adjustments";
ALTER TABLE "adjustments" ALTER COLUMN "org_id" SET (n_distinct = -0.001), ALTER COLUMN "user_id" SET (n_distinct = -0.01);

-- Built now rather than at the table's next analysis, so that plans made from here on use them.
ANALYZE "adjustments";
