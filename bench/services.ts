import { type CompositionInput, composeServices, type Services } from '../src/composition.ts';
import { loadConfig } from '../src/config.ts';
import { LEFT_TO_AUTOVACUUM } from '../src/db/plannerStatistics.ts';
import type { Database } from '../src/db/prisma.ts';
import type { SqlPool } from '../src/repositories/transaction.ts';

// The bench's services, composed by the production composition root (src/composition.ts), so what it sets up and
// what it measures in process run the wiring the server runs.

/** The services on `db` and `pool`; `listeners` take the ledger out of what a scenario measures. */
export function benchServices(db: Database, pool: SqlPool, listeners?: CompositionInput['listeners']): Services {
  return composeServices({
    db,
    pool,
    config: loadConfig(),
    recompute: { concurrency: 1 },
    statistics: LEFT_TO_AUTOVACUUM,
    ...(listeners ? { listeners } : {}),
  });
}
