import { chmod, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { openEmbeddedDatabase } from '../../src/db/embedded.ts';
import { applyMigrations } from '../../src/db/migrate.ts';
import { MIGRATED_TEMPLATE_VARIABLE, query } from '../helpers/scratchDatabase.ts';

// vitest's globalSetup: one database for the whole run. With DATABASE_URL set, that server; otherwise a
// throwaway embedded PostgreSQL started here. Migrated once up front, so that no test depends on being the
// first to start a server. The test workers are forked after this runs and inherit the environment.

function redacted(url: string): string {
  return url.replace(/:[^:@/]*@/, ':***@');
}

export default async function setup(): Promise<() => Promise<void>> {
  process.env.NODE_ENV = 'test';
  // No webhook worker in servers that tests start, unless a test asks for one: a stray worker, with the default
  // retry schedule, would take the deliveries of the tests that run their own.
  process.env.QUOTIENT_WEBHOOK_WORKER = 'false';

  let stopDatabase = async () => {};
  if (!process.env.DATABASE_URL) {
    const dataDir = await mkdtemp(join(tmpdir(), 'quotient-test-'));
    await chmod(dataDir, 0o755);
    const database = await openEmbeddedDatabase(dataDir, { fast: true });
    process.env.DATABASE_URL = database.url;
    stopDatabase = async () => {
      await database.stop();
      await rm(dataDir, { recursive: true, force: true });
    };
    process.stdout.write(`Testing against an embedded PostgreSQL (${redacted(database.url)})\n`);
  } else {
    process.stdout.write(`Testing against DATABASE_URL (${redacted(process.env.DATABASE_URL)})\n`);
  }
  // Through a transaction pooler (npm run test:pgbouncer), migrations take their lock on a direct session.
  const direct = process.env.QUOTIENT_DIRECT_DATABASE_URL ?? process.env.DATABASE_URL;
  await applyMigrations(direct);
  // A migrated database that tests needing a database of their own copy (withMigratedScratchDatabase), instead of
  // each migrating an empty one. Named after the run's database, so two runs on one server keep their own.
  const template = `${new URL(direct).pathname.slice(1) || 'postgres'}_migrated_template`;
  const templateUrl = new URL(direct);
  templateUrl.pathname = `/${template}`;
  await query(direct, `DROP DATABASE IF EXISTS ${pg.escapeIdentifier(template)} WITH (FORCE)`);
  await query(direct, `CREATE DATABASE ${pg.escapeIdentifier(template)}`);
  await applyMigrations(templateUrl.href);
  process.env[MIGRATED_TEMPLATE_VARIABLE] = template;
  return async () => {
    await query(direct, `DROP DATABASE IF EXISTS ${pg.escapeIdentifier(template)} WITH (FORCE)`).catch(() => {});
    await stopDatabase();
  };
}
