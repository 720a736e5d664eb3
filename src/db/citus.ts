import pg from 'pg';
import { Refusal } from '../domain/refusal.ts';

// `quotient db distribute`: makes a migrated database on a Citus coordinator the design of docs/scaling.md. `orgs`
// distributed by its id, every org-scoped table (a table with an org_id column) distributed by org_id in the same
// colocation group, `credential_orgs` a reference table; `_prisma_migrations` and `admin_sign_in_failures` stay plain
// tables of the coordinator. Idempotent: a table Citus distributes already is left as it is.

/** Tables that stay on the coordinator, as plain tables (docs/scaling.md, "The model"). */
export const COORDINATOR_TABLES = ['_prisma_migrations', 'admin_sign_in_failures'] as const;
/** The reference table: a copy on every node. */
export const REFERENCE_TABLES = ['credential_orgs'] as const;

export interface DistributionStep {
  table: string;
  /** create_reference_table, or create_distributed_table on `column`, colocated with orgs (but orgs itself). */
  kind: 'reference' | 'distributed';
  column?: string;
}

/**
 * The calls that distribute the schema, in an order Citus accepts: the reference table first, then `orgs`, then
 * each org-scoped table after every org-scoped table it references (a foreign key between distributed tables needs
 * both distributed and colocated when it is created on the shards). Read from the database's catalog, so a table
 * added by a later migration is included. Fails on an org-scoped table that is not named here and has no org_id.
 */
export async function distributionSteps(client: pg.ClientBase): Promise<DistributionStep[]> {
  const { rows: tables } = await client.query<{ table: string; has_org_id: boolean }>(
    `SELECT c.relname AS table,
            EXISTS (SELECT 1 FROM pg_attribute a WHERE a.attrelid = c.oid AND a.attname = 'org_id'
                    AND NOT a.attisdropped) AS has_org_id
     FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
     WHERE n.nspname = current_schema() AND c.relkind IN ('r', 'p') AND NOT c.relispartition
     ORDER BY c.relname`,
  );
  const { rows: references } = await client.query<{ table: string; referenced: string }>(
    `SELECT DISTINCT c.relname AS table, r.relname AS referenced
     FROM pg_constraint con
     JOIN pg_class c ON c.oid = con.conrelid
     JOIN pg_class r ON r.oid = con.confrelid
     JOIN pg_namespace n ON n.oid = c.relnamespace
     WHERE con.contype = 'f' AND n.nspname = current_schema() AND c.oid <> r.oid`,
  );
  const skipped = new Set<string>([...COORDINATOR_TABLES, ...REFERENCE_TABLES, 'orgs']);
  const scoped = new Set<string>();
  for (const { table, has_org_id } of tables) {
    if (skipped.has(table)) continue;
    if (!has_org_id) throw new Error(`table ${table} has no org_id column: it cannot be distributed by org`);
    scoped.add(table);
  }
  const dependsOn = new Map<string, Set<string>>([...scoped].map((table) => [table, new Set<string>()]));
  for (const { table, referenced } of references) {
    if (scoped.has(table) && scoped.has(referenced)) dependsOn.get(table)?.add(referenced);
  }
  const steps: DistributionStep[] = [
    ...REFERENCE_TABLES.map((table): DistributionStep => ({ table, kind: 'reference' })),
    { table: 'orgs', kind: 'distributed', column: 'id' },
  ];
  const placed = new Set<string>();
  while (placed.size < scoped.size) {
    // Alphabetical among the tables whose references are all placed: the same order on every run.
    const ready = [...scoped]
      .filter((table) => !placed.has(table) && [...(dependsOn.get(table) ?? [])].every((other) => placed.has(other)))
      .sort();
    if (ready.length === 0) throw new Error('the org-scoped tables reference one another in a cycle');
    for (const table of ready) {
      placed.add(table);
      steps.push({ table, kind: 'distributed', column: 'org_id' });
    }
  }
  return steps;
}

export interface DistributionResult {
  /** The tables this run distributed (or made reference tables), in order. */
  distributed: string[];
  /** The tables Citus had distributed already. */
  already: string[];
}

/**
 * Distributes the schema on the Citus coordinator `url` connects to (a session of its own: QUOTIENT_DIRECT_DATABASE_URL
 * when DATABASE_URL goes through PgBouncer). Refused, changing nothing, when the database has no citus extension.
 */
export async function distributeOnCitus(url: string): Promise<DistributionResult> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    return await distribute(client);
  } finally {
    await client.end();
  }
}

export async function distribute(client: pg.ClientBase): Promise<DistributionResult> {
  const { rows } = await client.query<{ installed: boolean }>(
    `SELECT EXISTS (SELECT 1 FROM pg_extension WHERE extname = 'citus') AS installed`,
  );
  if (!rows[0]?.installed) {
    throw new Refusal(
      'invalid_state',
      'this database has no citus extension: `quotient db distribute` runs on a Citus coordinator ' +
        '(CREATE EXTENSION citus there first; docs/scaling.md)',
    );
  }
  const steps = await distributionSteps(client);
  const { rows: present } = await client.query<{ table: string }>(
    `SELECT c.relname AS table FROM pg_dist_partition p JOIN pg_class c ON c.oid = p.logicalrelid
     JOIN pg_namespace n ON n.oid = c.relnamespace WHERE n.nspname = current_schema()`,
  );
  const done = new Set(present.map((row) => row.table));
  const result: DistributionResult = { distributed: [], already: [] };
  for (const step of steps) {
    if (done.has(step.table)) {
      result.already.push(step.table);
      continue;
    }
    if (step.kind === 'reference') {
      await client.query('SELECT create_reference_table($1::regclass)', [step.table]);
    } else if (step.table === 'orgs') {
      await client.query('SELECT create_distributed_table($1::regclass, $2)', [step.table, step.column]);
    } else {
      await client.query(`SELECT create_distributed_table($1::regclass, $2, colocate_with => 'orgs')`, [
        step.table,
        step.column,
      ]);
    }
    result.distributed.push(step.table);
  }
  return result;
}
