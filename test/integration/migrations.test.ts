import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { appendFile, cp, mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { test } from 'vitest';
import { NO_FILTER, openSchemaEngine, readMigrationList } from '../../scripts/schema-engine.ts';
import { applyMigrations } from '../../src/db/migrate.ts';
import { query, withScratchDatabase } from '../helpers/scratchDatabase.ts';

// Migrations end to end on the DATABASE_URL server. Every test works in its own scratch database (and
// temp copies of prisma/), so the tests neither see nor disturb the shared test database.

const root = fileURLToPath(new URL('../..', import.meta.url));
const prismaDir = join(root, 'prisma');
const migrationsDir = join(prismaDir, 'migrations');
const engineCli = join(root, 'scripts', 'prisma-engine.ts');

/** A temp copy of prisma/ (schema and migrations), removed afterwards. */
async function withPrismaCopy(use: (dir: string) => Promise<void>): Promise<void> {
  const dir = await mkdtemp(join(tmpdir(), 'quotient-prisma-'));
  try {
    await cp(prismaDir, dir, { recursive: true });
    await use(dir);
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

async function migrationNames(dir = migrationsDir): Promise<string[]> {
  const entries = await readdir(dir, { withFileTypes: true });
  return entries
    .filter((entry) => entry.isDirectory())
    .map((entry) => entry.name)
    .sort((a, b) => a.localeCompare(b));
}

async function appliedRows(url: string) {
  return query<{ migration_name: string; checksum: string; finished_at: Date | null; rolled_back_at: Date | null }>(
    url,
    'SELECT migration_name, checksum, finished_at, rolled_back_at FROM _prisma_migrations ORDER BY migration_name',
  );
}

function runEngineCli(args: string[], databaseUrl: string): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((done) => {
    execFile(
      process.execPath,
      [engineCli, ...args],
      { cwd: root, env: { ...process.env, DATABASE_URL: databaseUrl }, timeout: 120_000 },
      (error, stdout, stderr) => {
        const code = error ? (typeof error.code === 'number' ? error.code : 1) : 0;
        done({ code, stdout, stderr });
      },
    );
  });
}

test('applying migrations to an empty database creates the tables and records one _prisma_migrations row per migration; applying again applies nothing', async () => {
  const names = await migrationNames();
  assert.ok(names.length > 0, 'the repository has migrations');
  // The tables the migrations create, read from the migrations themselves so any schema works.
  const expectedTables = new Set<string>();
  for (const name of names) {
    const sql = await readFile(join(migrationsDir, name, 'migration.sql'), 'utf8');
    for (const match of sql.matchAll(/CREATE TABLE "([^"]+)"/g)) if (match[1]) expectedTables.add(match[1]);
  }
  await withScratchDatabase('quotient_migrations', async (url) => {
    assert.deepEqual(await applyMigrations(url), { applied: names });
    const tables = await query<{ table_name: string }>(
      url,
      "SELECT table_name FROM information_schema.tables WHERE table_schema = 'public' AND table_type = 'BASE TABLE'",
    );
    const present = new Set(tables.map((row) => row.table_name));
    for (const table of expectedTables) assert.ok(present.has(table), `table ${table} exists`);
    const rows = await appliedRows(url);
    assert.deepEqual(
      rows.map((row) => row.migration_name),
      names,
    );
    assert.ok(
      rows.every(
        (row) => row.finished_at !== null && row.rolled_back_at === null && /^[0-9a-f]{64}$/.test(row.checksum),
      ),
    );

    assert.deepEqual(await applyMigrations(url), { applied: [] });
    assert.equal((await appliedRows(url)).length, names.length);
  });
});

test('two concurrent applyMigrations calls on one empty database both succeed and apply each migration once', async () => {
  const names = await migrationNames();
  await withScratchDatabase('quotient_migrations', async (url) => {
    const results = await Promise.all([applyMigrations(url), applyMigrations(url)]);
    // Whoever got the lock first applied everything; the other found nothing left to do.
    assert.deepEqual(results.flatMap((result) => result.applied).sort(), names);
    const rows = await appliedRows(url);
    assert.deepEqual(
      rows.map((row) => row.migration_name),
      names,
    );
  });
});

test("Prisma's own schema engine accepts the history the applier records", async () => {
  await withScratchDatabase('quotient_migrations', async (url) => {
    await applyMigrations(url);
    const schemaPath = join(prismaDir, 'schema.prisma');
    const session = await openSchemaEngine({
      databaseUrl: url,
      schema: { path: schemaPath, content: await readFile(schemaPath, 'utf8') },
    });
    try {
      const migrationsList = await readMigrationList(migrationsDir);
      const diagnosis = await session.engine.diagnoseMigrationHistory({
        migrationsList,
        optInToShadowDatabase: true,
        filters: NO_FILTER,
      });
      assert.deepEqual(diagnosis, {
        editedMigrationNames: [],
        failedMigrationNames: [],
        hasMigrationsTable: true,
        history: null,
      });
      // `migrate dev` would not ask for a reset: no drift between the database and the migrations.
      assert.deepEqual(await session.engine.devDiagnostic({ migrationsList, filters: NO_FILTER }), {
        action: { tag: 'createMigration' },
      });
      assert.deepEqual(await session.engine.applyMigrations({ migrationsList, filters: NO_FILTER }), {
        appliedMigrationNames: [],
      });
    } finally {
      await session.close();
    }
  });
});

test("the drift check passes on the repository's schema and migrations", async () => {
  await withScratchDatabase('quotient_migrations', async (url) => {
    const result = await runEngineCli(['drift'], url);
    assert.equal(result.code, 0, result.stderr);
    assert.match(result.stdout, /^OK: /);
  });
});

test('the drift check fails when a copy of the schema gains a field that no migration has', async () => {
  await withScratchDatabase('quotient_migrations', async (url) => {
    await withPrismaCopy(async (dir) => {
      const schemaPath = join(dir, 'schema.prisma');
      const schema = await readFile(schemaPath, 'utf8');
      const edited = schema.replace(/^model \w+ \{\n/m, (header) => `${header}  drift_probe String?\n`);
      assert.notEqual(edited, schema, 'the schema has a model to add a field to');
      await writeFile(schemaPath, edited);
      const result = await runEngineCli(
        ['drift', '--schema', schemaPath, '--migrations', join(dir, 'migrations')],
        url,
      );
      assert.equal(result.code, 1, `drift must fail; stdout: ${result.stdout}`);
      assert.match(result.stderr, /DRIFT: .* do not produce/);
      assert.match(result.stderr, /ADD COLUMN\s+"drift_probe" TEXT/, 'the message shows the missing SQL');
    });
  });
});

test('an edited, already-applied migration is refused', async () => {
  await withScratchDatabase('quotient_migrations', async (url) => {
    await withPrismaCopy(async (dir) => {
      const copy = join(dir, 'migrations');
      await applyMigrations(url, { migrationsDir: copy });
      const [first] = await migrationNames(copy);
      assert.ok(first);
      await appendFile(join(copy, first, 'migration.sql'), '\n-- an edit after the fact\n');
      await assert.rejects(applyMigrations(url, { migrationsDir: copy }), (error: Error) => {
        assert.match(error.message, /modified/);
        assert.ok(error.message.includes(first), 'the error names the migration');
        return true;
      });
    });
  });
});

test('a migration recorded as failed blocks further migrations', async () => {
  await withScratchDatabase('quotient_migrations', async (url) => {
    await applyMigrations(url);
    // As `prisma migrate deploy` leaves a migration that failed half-way: started, never finished.
    await query(
      url,
      `INSERT INTO _prisma_migrations (id, checksum, migration_name, logs) VALUES ($1, $2, '99999999999999_broken', 'boom')`,
      [crypto.randomUUID(), '0'.repeat(64)],
    );
    await assert.rejects(applyMigrations(url), /failed.*\n- 99999999999999_broken/);
  });
});
