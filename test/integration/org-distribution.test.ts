import assert from 'node:assert/strict';
import { afterAll, test } from 'vitest';
import { COORDINATOR_TABLES, distribute, distributionSteps, REFERENCE_TABLES } from '../../src/db/citus.ts';
import { Refusal } from '../../src/domain/refusal.ts';
import { closeTestDatabase, testDatabase, testPool } from '../helpers/database.ts';

// What distributing the tables by org_id (Citus, docs/scaling.md) needs of the schema, read from the migrated
// test database's catalog: every table is either org-scoped (an org_id column, NOT NULL) or one of the global
// tables below; an org-scoped table's primary key and unique keys lead with org_id, and its foreign keys to other
// org-scoped tables carry org_id on both sides, so that every row a key or a reference ties together lives on
// one node. KNOWN_GAPS lists, exactly, where the schema does not (empty since the org_keys_* and credential_orgs_*
// migrations; docs/scaling.md), so that no new gap appears and a closed one is struck off the list.

/** Tables that are not distributed by org_id, and why. */
const GLOBAL_TABLES: Record<string, string> = {
  orgs: 'the tenant table itself: distributed by its own id, which every org_id references (colocated)',
  _prisma_migrations: 'the migration history: metadata of the coordinator, never read by requests',
  admin_sign_in_failures:
    'sign-in throttling by email and address, before any org is known: a table of the coordinator',
  credential_orgs:
    'the org of a secret presented before any org is known (an API key, a rep token, a session, a sign-in link or ' +
    'an SSO state by its digest; an admin by email, unique across orgs by its key): a reference table, a copy ' +
    'on every node, written only when the secret is created, so authentication is one single-node statement',
};

/** Where the schema does not meet the rules yet; each entry is one rule broken by one table or constraint. */
const KNOWN_GAPS: string[] = [];

afterAll(closeTestDatabase);

interface TableRow {
  table: string;
  org_id_not_null: boolean | null;
}

interface KeyRow {
  table: string;
  name: string;
  kind: 'primary key' | 'unique' | 'foreign key';
  columns: string[];
  referenced_table: string | null;
  referenced_columns: string[] | null;
}

/** The ordinary tables of the schema, and whether each has a NOT NULL org_id (null: no such column). */
const TABLES = `
  SELECT c.relname AS table, a.attnotnull AS org_id_not_null
  FROM pg_class c
  JOIN pg_namespace n ON n.oid = c.relnamespace AND n.nspname = current_schema()
  LEFT JOIN pg_attribute a ON a.attrelid = c.oid AND a.attname = 'org_id' AND NOT a.attisdropped
  WHERE c.relkind IN ('r', 'p') AND NOT c.relispartition`;

/**
 * Every primary key, unique key (constraint or unique index, partial ones too) and foreign key, with its columns in
 * key order; expression columns show as NULL and so never count as org_id.
 */
const KEYS = `
  SELECT c.relname AS table, con.conname AS name,
         CASE con.contype WHEN 'p' THEN 'primary key' WHEN 'u' THEN 'unique' ELSE 'foreign key' END AS kind,
         ARRAY(SELECT a.attname::text FROM unnest(con.conkey) WITH ORDINALITY AS k(attnum, position)
               JOIN pg_attribute a ON a.attrelid = con.conrelid AND a.attnum = k.attnum ORDER BY k.position) AS columns,
         r.relname AS referenced_table,
         CASE WHEN con.contype = 'f' THEN
           ARRAY(SELECT a.attname::text FROM unnest(con.confkey) WITH ORDINALITY AS k(attnum, position)
                 JOIN pg_attribute a ON a.attrelid = con.confrelid AND a.attnum = k.attnum ORDER BY k.position)
         END AS referenced_columns
  FROM pg_constraint con
  JOIN pg_class c ON c.oid = con.conrelid
  JOIN pg_namespace n ON n.oid = c.relnamespace AND n.nspname = current_schema()
  LEFT JOIN pg_class r ON r.oid = con.confrelid
  WHERE con.contype IN ('p', 'u', 'f')
  UNION ALL
  SELECT c.relname, i.relname, 'unique',
         ARRAY(SELECT a.attname::text FROM unnest(ix.indkey::int2[]) WITH ORDINALITY AS k(attnum, position)
               LEFT JOIN pg_attribute a ON a.attrelid = ix.indrelid AND a.attnum = k.attnum
               WHERE k.position <= ix.indnkeyatts ORDER BY k.position),
         NULL, NULL
  FROM pg_index ix
  JOIN pg_class c ON c.oid = ix.indrelid
  JOIN pg_class i ON i.oid = ix.indexrelid
  JOIN pg_namespace n ON n.oid = c.relnamespace AND n.nspname = current_schema()
  WHERE ix.indisunique AND NOT EXISTS (SELECT 1 FROM pg_constraint con WHERE con.conindid = ix.indexrelid)`;

test('every table is org-scoped or a listed global table; org-scoped keys and references lead with org_id, but for the listed gaps', async () => {
  const db = testDatabase();
  const tables = await db.$queryRawUnsafe<TableRow[]>(TABLES);
  const keys = await db.$queryRawUnsafe<KeyRow[]>(KEYS);
  const names = new Set(tables.map((table) => table.table));
  for (const listed of Object.keys(GLOBAL_TABLES)) assert.ok(names.has(listed), `global table ${listed} exists`);

  const gaps: string[] = [];
  const orgScoped = new Set<string>();
  for (const { table, org_id_not_null } of tables) {
    if (table in GLOBAL_TABLES) continue;
    if (org_id_not_null === null) gaps.push(`${table}: no org_id column`);
    else if (!org_id_not_null) gaps.push(`${table}: org_id may be NULL`);
    else orgScoped.add(table);
  }
  for (const key of keys) {
    if (!orgScoped.has(key.table)) continue;
    const columns = `(${key.columns.map((column) => column ?? '<expression>').join(', ')})`;
    if (key.kind !== 'foreign key') {
      if (key.columns[0] !== 'org_id')
        gaps.push(`${key.table}: ${key.kind} ${key.name} ${columns} does not lead with org_id`);
      continue;
    }
    const referenced = key.referenced_table as string;
    // A reference to a global table is a reference to the tenant (orgs) or to a table every node holds.
    if (referenced in GLOBAL_TABLES) continue;
    const position = key.columns.indexOf('org_id');
    if (position === -1 || key.referenced_columns?.[position] !== 'org_id') {
      gaps.push(`${key.table}: foreign key ${key.name} ${columns} without org_id`);
    }
  }
  gaps.sort();

  assert.deepEqual(
    gaps,
    [...KNOWN_GAPS].sort(),
    'a table, key or reference that breaks the distribution rules (docs/scaling.md) must not be added; a gap that ' +
      'is closed must be struck off KNOWN_GAPS and docs/scaling.md',
  );
});

// Citus refuses a foreign key whose ON UPDATE is CASCADE, SET NULL or SET DEFAULT when the distribution column is in
// it ("SET NULL, SET DEFAULT or CASCADE is not supported in ON UPDATE operation when distribution key included in
// the foreign constraint"), which is every org-scoped key here: Prisma's default ON UPDATE CASCADE was refused on 40
// keys (issue 42). No key of the schema updates in cascade: ids never change.
test('no foreign key updates in cascade, sets NULL or a default on update (Citus refuses them on distributed tables)', async () => {
  const db = testDatabase();
  const keys = await db.$queryRawUnsafe<Array<{ table: string; name: string; update_rule: string }>>(
    `SELECT tc.table_name AS table, rc.constraint_name AS name, rc.update_rule
     FROM information_schema.referential_constraints rc
     JOIN information_schema.table_constraints tc
       ON tc.constraint_schema = rc.constraint_schema AND tc.constraint_name = rc.constraint_name
     WHERE rc.constraint_schema = current_schema()`,
  );
  assert.ok(keys.length > 40, `the schema's foreign keys are read (${keys.length})`);
  assert.deepEqual(
    keys
      .filter((key) => ['CASCADE', 'SET NULL', 'SET DEFAULT'].includes(key.update_rule))
      .map((key) => `${key.table}.${key.name}: ON UPDATE ${key.update_rule}`)
      .sort(),
    [],
    'a relation in prisma/schema.prisma must say onUpdate: NoAction (docs/scaling.md)',
  );
});

// Citus refuses to distribute a table that has triggers ("cannot distribute relation … because it has triggers"):
// the org's config version is bumped and its feed writer slots are created by the writes themselves.
test('no table of the schema has a trigger (Citus refuses to distribute one)', async () => {
  const db = testDatabase();
  const triggers = await db.$queryRawUnsafe<Array<{ table: string; name: string }>>(
    `SELECT DISTINCT event_object_table AS table, trigger_name AS name
     FROM information_schema.triggers WHERE trigger_schema = current_schema() ORDER BY 1, 2`,
  );
  assert.deepEqual(
    triggers.map((trigger) => `${trigger.table}: ${trigger.name}`),
    [],
    'a write the schema needs done belongs in the statement or transaction that changes the data (docs/scaling.md)',
  );
});

// `quotient db distribute` (src/db/citus.ts): its calls cover every table of the schema as the design places it, in an
// order Citus accepts (a table after every org-scoped table it references), and on plain PostgreSQL it is refused.
test('db distribute: the reference table, then orgs by id, then every org-scoped table after the tables it references', async () => {
  const db = testDatabase();
  const client = await testPool().connect();
  try {
    const steps = await distributionSteps(client);
    const tables = await db.$queryRawUnsafe<TableRow[]>(TABLES);
    const keys = await db.$queryRawUnsafe<KeyRow[]>(KEYS);
    const withOrgId = tables.filter((table) => table.org_id_not_null !== null).map((table) => table.table);
    assert.deepEqual(steps.slice(0, 2), [
      { table: 'credential_orgs', kind: 'reference' },
      { table: 'orgs', kind: 'distributed', column: 'id' },
    ]);
    const rest = steps.slice(2);
    assert.ok(
      rest.every((step) => step.kind === 'distributed' && step.column === 'org_id'),
      'the rest by org_id',
    );
    assert.deepEqual(
      rest.map((step) => step.table).sort(),
      withOrgId.filter((table) => !(REFERENCE_TABLES as readonly string[]).includes(table)).sort(),
      'every table with an org_id (but the reference table) is distributed by it, once',
    );
    assert.deepEqual(
      tables
        .map((table) => table.table)
        .filter((table) => !steps.some((step) => step.table === table))
        .sort(),
      [...COORDINATOR_TABLES].sort(),
      'only the coordinator tables stay plain',
    );
    const position = new Map(steps.map((step, index) => [step.table, index]));
    for (const key of keys) {
      if (key.kind !== 'foreign key' || key.referenced_table === key.table) continue;
      const from = position.get(key.table);
      const to = position.get(key.referenced_table as string);
      if (from === undefined || to === undefined) continue;
      assert.ok(to < from, `${key.referenced_table} is distributed before ${key.table} (${key.name})`);
    }
  } finally {
    client.release();
  }
});

test('db distribute is refused, changing nothing, on a database without the citus extension', async () => {
  const client = await testPool().connect();
  try {
    const refused = await distribute(client).then(
      () => null,
      (error: unknown) => error,
    );
    assert.ok(refused instanceof Refusal, `refused: ${String(refused)}`);
    assert.equal(refused.code, 'invalid_state');
    assert.match(refused.reason, /no citus extension/);
  } finally {
    client.release();
  }
});
