import { randomBytes } from 'node:crypto';
import pg from 'pg';

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
