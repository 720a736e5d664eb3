// The reads that must stay flat as the tables grow (issue 31; docs/query-plans.md): each one run through
// Quotient's own readers on a seeded org, every SQL statement it sends recorded, and each recorded statement
// explained as the pool's connections run it (PostgreSQL's default plan cache: see explainAsPlanned) with EXPLAIN
// (ANALYZE, BUFFERS). Used by test/integration/read-plans.test.ts (which fails when a read loses its
// index or reads more rows than its budget) and by scripts/query-plans.ts (which writes docs/query-plans.md).
//
// One module per job, under readPlans/: world.ts seeds the worlds (a large org at a size, many small tenants),
// reads.ts lists the reads and their budgets, explain.ts records and explains their statements.

export {
  budgetBreaches,
  type ExplainedStatement,
  explainAsPlanned,
  recordingPool,
  type ScanSummary,
} from './readPlans/explain.ts';
export {
  EXPORT_PAGE_REPS,
  LISTED_READS,
  type ListedRead,
  PAYROLL_EXPORT,
  PAYROLL_EXPORT_PAGE,
} from './readPlans/reads.ts';
export {
  GROWING_TABLES,
  type GrowingTable,
  type ReadWorld,
  type SeedOptions,
  type SeedSize,
  type SmallTenants,
  seedReadWorld,
  seedSmallTenants,
} from './readPlans/world.ts';
