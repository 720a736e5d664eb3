import { type CompositionInput, composeServices, type Services } from '../../src/composition.ts';
import { loadConfig } from '../../src/config.ts';
import type { Database } from '../../src/db/prisma.ts';
import type { SqlPool } from '../../src/repositories/transaction.ts';
import { testDatabase, testPool } from './database.ts';

// The services of the tests, composed by the production composition root (src/composition.ts) on the test
// database, so a test runs the wiring the server and the CLI run: the same listeners, the same webhooks.

export interface TestServicesOptions {
  /** The database; the test database when absent (a factory is handed the one its test uses). */
  db?: Database;
  /** The pool deal events run on; the file's shared test pool when absent. */
  pool?: SqlPool;
  /** Listeners in place of the earnings engine (see CompositionInput.listeners). */
  listeners?: CompositionInput['listeners'];
  /** The composition's clock (see CompositionInput.now): a composition of its own. */
  now?: () => Date;
  /** Settings over the test environment's (the server's of the file, say): a composition of its own. */
  env?: Record<string, string>;
}

const shared = new WeakMap<Database, Services>();

/** Private webhook addresses are allowed, as in local development (the tests' receivers listen on localhost). */
function testConfig(env: Record<string, string> = {}) {
  return loadConfig({ ...process.env, QUOTIENT_WEBHOOKS_ALLOW_PRIVATE: 'true', ...env });
}

/** The composed services; one composition per database unless a test asks for its own pool or listeners. */
export function testServices(options: TestServicesOptions = {}): Services {
  const db = options.db ?? testDatabase();
  const own =
    options.pool !== undefined ||
    options.listeners !== undefined ||
    options.now !== undefined ||
    options.env !== undefined;
  const composed = own ? undefined : shared.get(db);
  if (composed) return composed;
  const services = composeServices({
    db,
    pool: options.pool ?? testPool(),
    config: testConfig(options.env),
    recompute: { concurrency: 2 },
    ...(options.listeners ? { listeners: options.listeners } : {}),
    ...(options.now ? { now: options.now } : {}),
  });
  if (!own) shared.set(db, services);
  return services;
}
