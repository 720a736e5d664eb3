-- Earnings rows keep their org through the composite key to their period (org_id, period_id) -> periods, whose
-- org_id references orgs: this key of its own only added a FOR KEY SHARE check of the org's one row for every
-- row a deal event books (measured: ~11 per event with the four-chip plan), all on the same row.
-- DropForeignKey
ALTER TABLE "earnings" DROP CONSTRAINT "earnings_org_id_fkey";
