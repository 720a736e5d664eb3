import { randomBytes } from 'node:crypto';
import pg from 'pg';
import { applyMigrations } from '../../src/db/migrate.ts';

// A new, empty database on the test server (DATABASE_URL) for tests that must start from nothing (migrations, the
// planner's statistics), so they neither see nor disturb the shared test database.

export function serverUrl(): string {
  const url = process.env.DATABASE_URL;
  if (!url) throw new Error('DATABASE_URL is not set: run the tests with `npm test`');
  return url;
}

/** One statement on a connection of its own. */
export async function query<R extends pg.QueryResultRow>(
  url: string,
  sql: string,
  values: unknown[] = [],
): Promise<R[]> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    return (await client.query<R>(sql, values)).rows;
  } finally {
    await client.end();
  }
}

/** Runs `use` with the URL of a new, empty database on the test server, dropped afterwards. */
export async function withScratchDatabase(prefix: string, use: (url: string) => Promise<void>): Promise<void> {
  const name = `${prefix}_${randomBytes(6).toString('hex')}`;
  await query(serverUrl(), `CREATE DATABASE ${name}`);
  const url = new URL(serverUrl());
  url.pathname = `/${name}`;
  try {
    await use(url.href);
  } finally {
    await query(serverUrl(), `DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
  }
}

/**
 * The name of the run's migrated template database (test/setup/database.ts makes it once, before the workers start):
 * an empty database with every migration applied, which no session ever connects to, so that it can be copied.
 */
export const MIGRATED_TEMPLATE_VARIABLE = 'QUOTIENT_TEST_MIGRATED_TEMPLATE';

/**
 * Runs `use` with the URL of a new database on the test server with every migration applied, dropped afterwards. It
 * is a copy of the run's migrated template (`CREATE DATABASE … TEMPLATE`: a file copy, about 0.1 s, where applying the
 * migrations to an empty database takes about 1 s of CPU): the same catalog, tables and rows as migrating it here.
 * Without the template (a file run outside `npm test`'s set-up) it migrates the new database itself.
 */
export async function withMigratedScratchDatabase(prefix: string, use: (url: string) => Promise<void>): Promise<void> {
  const template = process.env[MIGRATED_TEMPLATE_VARIABLE];
  if (!template) {
    await withScratchDatabase(prefix, async (url) => {
      await applyMigrations(url);
      await use(url);
    });
    return;
  }
  const name = `${prefix}_${randomBytes(6).toString('hex')}`;
  await query(serverUrl(), `CREATE DATABASE ${name} TEMPLATE ${pg.escapeIdentifier(template)}`);
  const url = new URL(serverUrl());
  url.pathname = `/${name}`;
  try {
    await use(url.href);
  } finally {
    await query(serverUrl(), `DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
  }
}
