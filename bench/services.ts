import { type CompositionInput, composeServices, type Services } from '../src/composition.ts';
import { type Config, loadConfig } from '../src/config.ts';
import type { Database } from '../src/db/prisma.ts';
import type { SqlPool } from '../src/repositories/transaction.ts';

// The bench's services, composed by the production composition root (src/composition.ts), so what it sets up and
// what it measures in process run the wiring the server runs.

/**
 * The services on `db` and `pool` with `config`, for a set-up beside what is measured or shown (the bench's, the
 * screenshot scripts'): one recompute at a time; `listeners` take the ledger out of what a scenario measures.
 */
export function setupServices(
  db: Database,
  pool: SqlPool,
  config: Config,
  listeners?: CompositionInput['listeners'],
): Services {
  return composeServices({
    db,
    pool,
    config,
    recompute: { concurrency: 1 },
    ...(listeners ? { listeners } : {}),
  });
}

/** The services on `db` and `pool` with the environment's configuration (see setupServices). */
export function benchServices(db: Database, pool: SqlPool, listeners?: CompositionInput['listeners']): Services {
  return setupServices(db, pool, loadConfig(), listeners);
}
