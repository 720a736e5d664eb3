import { createHash } from 'node:crypto';
import type pg from 'pg';

// The floors' tables (bench/bare-server.ts), shared by `npm run bench` and `npm run bench:instructions`.

/** The floors' tables, and the key the read floor looks up: the same key as Quotient's auth scenario. */
export async function createFloorTables(pool: pg.Pool, rawKey: string): Promise<void> {
  await pool.query(`
    CREATE TABLE bare_orgs (id text PRIMARY KEY, name text NOT NULL);
    CREATE TABLE bare_keys (id text PRIMARY KEY, org_id text NOT NULL REFERENCES bare_orgs, name text NOT NULL,
                            digest text NOT NULL UNIQUE);
    CREATE TABLE bare_source_events (id text PRIMARY KEY, body jsonb NOT NULL, received_at timestamptz DEFAULT now());
    CREATE TABLE bare_domain_events (id text PRIMARY KEY, source_event_id text NOT NULL);
    CREATE TABLE bare_deals (external_id text PRIMARY KEY, state jsonb NOT NULL, updated_at timestamptz NOT NULL);
    INSERT INTO bare_orgs VALUES ('org_bare', 'bare');`);
  await pool.query(`INSERT INTO bare_keys VALUES ('key_bare', 'org_bare', 'bare', $1)`, [
    createHash('sha256').update(rawKey).digest('hex'),
  ]);
}
