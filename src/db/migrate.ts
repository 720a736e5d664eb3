import { createHash, randomUUID } from 'node:crypto';
import type { Dirent } from 'node:fs';
import { readdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import pg from 'pg';

// Applies prisma/migrations at server start and for `quotient migrate`, with no Prisma engine at run time
// (the native one cannot be downloaded on air-gapped servers, the WebAssembly one is a dev tool). It keeps
// Prisma's own bookkeeping, so `prisma migrate status|deploy|dev` and our scripts/prisma-engine.ts see the
// same history:
// - the `_prisma_migrations` table with exactly Prisma's PostgreSQL layout;
// - one row per applied migration, its checksum the sha256 hex of migration.sql, compared as Prisma does
//   (line-ending agnostic, and accepting the old non-zero-padded hex);
// - Prisma Migrate's advisory lock key, so two app instances, the CLI beside the server, or a
//   `prisma migrate deploy` never apply at the same time.
// Unlike Prisma, each migration runs inside one transaction together with its history row: it is applied
// and recorded entirely or not at all, so a failure never leaves a half-applied migration behind.

/** The same key as Prisma Migrate's `SELECT pg_advisory_lock(72707369)`. */
const LOCK_KEY = 72707369;
/** How long a starter waits for another one to finish migrating before giving up. */
const LOCK_WAIT = '10min';

const DEFAULT_DIR = fileURLToPath(new URL('../../prisma/migrations', import.meta.url));

// Copied from Prisma's schema engine (sql-schema-connector, PostgreSQL flavour), plus IF NOT EXISTS.
const CREATE_MIGRATIONS_TABLE = `
CREATE TABLE IF NOT EXISTS _prisma_migrations (
    id                      VARCHAR(36) PRIMARY KEY NOT NULL,
    checksum                VARCHAR(64) NOT NULL,
    finished_at             TIMESTAMPTZ,
    migration_name          VARCHAR(255) NOT NULL,
    logs                    TEXT,
    rolled_back_at          TIMESTAMPTZ,
    started_at              TIMESTAMPTZ NOT NULL DEFAULT now(),
    applied_steps_count     INTEGER NOT NULL DEFAULT 0
)`;

export interface ApplyOptions {
  /** Defaults to prisma/migrations of this checkout (not of the working directory). */
  migrationsDir?: string;
  log?: (message: string) => void;
}

interface Migration {
  name: string;
  script: string;
}

interface HistoryRow {
  migration_name: string;
  checksum: string;
  finished_at: Date | null;
  rolled_back_at: Date | null;
  started_at: Date;
  logs: string | null;
}

export async function applyMigrations(databaseUrl: string, options: ApplyOptions = {}): Promise<{ applied: string[] }> {
  const log = options.log ?? (() => {});
  const migrations = await readMigrations(options.migrationsDir ?? DEFAULT_DIR);
  const { connectionString, schema } = splitSchemaParam(databaseUrl);
  const client = new pg.Client({ connectionString, application_name: 'quotient-migrate' });
  // A session that ends between statements fails the next one (and so the migration); it must not end the process.
  client.on('error', () => {});
  await client.connect();
  try {
    if (schema) {
      // A Prisma URL's `?schema=` names the schema the tables (and the history) live in.
      await client.query(`CREATE SCHEMA IF NOT EXISTS ${pg.escapeIdentifier(schema)}`);
      await client.query(`SET search_path TO ${pg.escapeIdentifier(schema)}`);
    }
    await lock(client, log);
    try {
      await client.query(CREATE_MIGRATIONS_TABLE);
      const history = await client.query<HistoryRow>(
        'SELECT migration_name, checksum, finished_at, rolled_back_at, started_at, logs FROM _prisma_migrations ORDER BY started_at, migration_name',
      );
      const pending = pendingMigrations(migrations, history.rows, log);
      const applied: string[] = [];
      for (const migration of pending) {
        await applyOne(client, migration, log);
        applied.push(migration.name);
      }
      return { applied };
    } finally {
      await client.query('SELECT pg_advisory_unlock($1)', [LOCK_KEY]).catch(() => {});
    }
  } finally {
    await client.end();
  }
}

/** Takes the session-level advisory lock, waiting at most LOCK_WAIT for whoever holds it. */
async function lock(client: pg.Client, log: (message: string) => void): Promise<void> {
  const { rows } = await client.query<{ locked: boolean }>('SELECT pg_try_advisory_lock($1) AS locked', [LOCK_KEY]);
  if (rows[0]?.locked) return;
  log('another process is applying migrations; waiting for it to finish');
  // lock_timeout bounds the wait (a leaked lock would otherwise hang every start). SET LOCAL keeps it
  // from applying to the migrations themselves; the lock is session-level, so it outlives the COMMIT.
  await client.query('BEGIN');
  try {
    await client.query(`SET LOCAL lock_timeout = '${LOCK_WAIT}'`);
    await client.query('SELECT pg_advisory_lock($1)', [LOCK_KEY]);
    await client.query('COMMIT');
  } catch (error) {
    await client.query('ROLLBACK').catch(() => {});
    throw new Error(`could not take the migration lock (pg_advisory_lock(${LOCK_KEY})) within ${LOCK_WAIT}`, {
      cause: error,
    });
  }
}

/**
 * The migrations still to apply, in order, after checking the history the way `prisma migrate deploy`
 * does: a failed migration, or an applied one whose file changed since, stops everything.
 */
function pendingMigrations(
  migrations: Migration[],
  history: HistoryRow[],
  log: (message: string) => void,
): Migration[] {
  const live = history.filter((row) => row.rolled_back_at === null);
  const failed = live.filter((row) => row.finished_at === null);
  if (failed.length > 0) {
    const details = failed
      .map(
        (row) =>
          `- ${row.migration_name} (started ${row.started_at.toISOString()})${row.logs ? `:\n${indent(row.logs)}` : ''}`,
      )
      .join('\n');
    throw new Error(
      `refusing to migrate: a previous migration failed and may be partly applied:\n${details}\n` +
        'Repair the database by hand, then mark the migration rolled back ' +
        `(UPDATE _prisma_migrations SET rolled_back_at = now() WHERE migration_name = '...' AND finished_at IS NULL) ` +
        'to retry it, or use `prisma migrate resolve`.',
    );
  }
  const appliedByName = new Map(live.map((row) => [row.migration_name, row]));
  const edited = migrations.filter((migration) => {
    const row = appliedByName.get(migration.name);
    return row !== undefined && !scriptMatchesChecksum(migration.script, row.checksum);
  });
  if (edited.length > 0) {
    throw new Error(
      `refusing to migrate: already applied migration(s) were modified afterwards: ${edited.map((m) => m.name).join(', ')}.\n` +
        'An applied migration must not change: restore its migration.sql as it was, and put the change in a new migration.',
    );
  }
  const local = new Set(migrations.map((migration) => migration.name));
  const unknown = [...appliedByName.keys()].filter((name) => !local.has(name));
  // A newer release may have applied these (e.g. during a rollback); its schema is a superset of ours.
  if (unknown.length > 0) log(`the database has migrations this version does not know: ${unknown.join(', ')}`);
  return migrations.filter((migration) => !appliedByName.has(migration.name));
}

/** Applies one migration and records it, in one transaction; records a failed attempt as rolled back. */
async function applyOne(client: pg.Client, migration: Migration, log: (message: string) => void): Promise<void> {
  const id = randomUUID();
  const checksum = renderChecksum(migration.script);
  const started = Date.now();
  log(`applying migration ${migration.name}`);
  await client.query('BEGIN');
  try {
    // The script goes as one simple query (it has many statements), as Prisma sends it.
    await client.query(migration.script);
    await client.query(
      `INSERT INTO _prisma_migrations (id, checksum, migration_name, started_at, finished_at, applied_steps_count)
       VALUES ($1, $2, $3, now(), clock_timestamp(), 1)`,
      [id, checksum, migration.name],
    );
    await client.query('COMMIT');
  } catch (error) {
    await client.query('ROLLBACK').catch(() => {});
    const message = error instanceof Error ? error.message : String(error);
    // Keep a trace for `prisma migrate status` and operators. rolled_back_at is set because the
    // transaction really did roll everything back, so the next start retries the migration.
    await client
      .query(
        `INSERT INTO _prisma_migrations (id, checksum, migration_name, started_at, logs, rolled_back_at, applied_steps_count)
         VALUES ($1, $2, $3, now(), $4, now(), 0)`,
        [id, checksum, migration.name, message],
      )
      .catch(() => {});
    throw new Error(`migration ${migration.name} failed and was rolled back: ${message}`, { cause: error });
  }
  log(`applied migration ${migration.name} in ${Date.now() - started} ms`);
}

/** prisma/migrations/<name>/migration.sql for every sub-directory, sorted by name as Prisma sorts them. */
async function readMigrations(dir: string): Promise<Migration[]> {
  let entries: Dirent[];
  try {
    entries = await readdir(dir, { withFileTypes: true });
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return [];
    throw error;
  }
  const names = entries.filter((entry) => entry.isDirectory()).map((entry) => entry.name);
  names.sort((a, b) => a.localeCompare(b));
  return Promise.all(
    names.map(async (name) => {
      const file = join(dir, name, 'migration.sql');
      const script = await readFile(file, 'utf8').catch((error: Error) => {
        throw new Error(`cannot read migration ${name}: ${error.message}`, { cause: error });
      });
      return { name, script };
    }),
  );
}

/** Prisma's checksum of a migration script: sha256, lower-case hex. */
export function renderChecksum(script: string): string {
  return createHash('sha256').update(script).digest('hex');
}

/**
 * Prisma's comparison (schema engine, migration-connector checksum.rs): the script matches if it, or it
 * with CRLF turned into LF, or with LF turned into CRLF, hashes to the checksum, so a checkout with other
 * line endings is not "edited". Checksums written by old Prisma versions lack zero-padding of each byte.
 */
export function scriptMatchesChecksum(script: string, checksum: string): boolean {
  const variants = [script, script.replaceAll('\r\n', '\n'), script.replaceAll('\n', '\r\n')];
  return variants.some((variant) => {
    const digest = createHash('sha256').update(variant).digest();
    const rendered =
      checksum.length === 64 ? digest.toString('hex') : [...digest].map((byte) => byte.toString(16)).join('');
    return rendered === checksum;
  });
}

/** Strips a Prisma-style `?schema=` parameter, which pg does not understand. */
function splitSchemaParam(databaseUrl: string): { connectionString: string; schema: string | undefined } {
  let url: URL;
  try {
    url = new URL(databaseUrl);
  } catch {
    return { connectionString: databaseUrl, schema: undefined };
  }
  const schema = url.searchParams.get('schema') ?? undefined;
  url.searchParams.delete('schema');
  return { connectionString: schema ? url.href : databaseUrl, schema };
}

function indent(text: string): string {
  return text
    .split('\n')
    .map((line) => `    ${line}`)
    .join('\n');
}
