-- The split-deals index holds the deals that have splits, and takes them straight into its tree.
-- Before, every update of any deal added an entry (a NULL item for a deal without splits) to the index's pending
-- list (GIN's fastupdate), and every lookup of a rep's split deals read the whole list: 4 ms per deal event with
-- the four-chip plan in the benchmark, for no deal found. Only split deals match `splits @> ...`, so the partial
-- index answers the same queries; a deal without splits writes no entry at all.
DROP INDEX "deals_splits_idx";
CREATE INDEX "deals_splits_idx" ON "deals" USING GIN ("splits" jsonb_path_ops) WITH (fastupdate = off) WHERE "splits" IS NOT NULL;
