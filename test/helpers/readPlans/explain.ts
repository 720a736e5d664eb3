import pg, { escapeLiteral } from 'pg';
import type { SqlPool, Statement } from '../../../src/repositories/transaction.ts';
import type { ListedRead } from './reads.ts';
import { GROWING_TABLES, type GrowingTable, type ReadWorld } from './world.ts';

// Recording a read's statements and explaining each as the pool's connections plan it, and the budget's breaches.

/** A pool whose statements are recorded, then run on `pool`. */
export function recordingPool(pool: SqlPool, recorded: Statement[]): SqlPool {
  return {
    query: (statement: string | Statement, values?: unknown[]) => {
      const recordedStatement = typeof statement === 'string' ? { text: statement, values: values ?? [] } : statement;
      recorded.push({ text: recordedStatement.text, values: recordedStatement.values ?? [] });
      return typeof statement === 'string' ? pool.query(statement, values) : pool.query(statement);
    },
  } as unknown as SqlPool;
}

/** A parameter value as an SQL literal, as node-postgres would send it. */
function literal(value: unknown): string {
  if (value === null || value === undefined) return 'NULL';
  if (value instanceof Date) return escapeLiteral(value.toISOString());
  if (Array.isArray(value)) {
    const items = value.map((item) =>
      item === null ? 'NULL' : `"${String(item).replace(/\\/g, '\\\\').replace(/"/g, '\\"')}"`,
    );
    return escapeLiteral(`{${items.join(',')}}`);
  }
  if (typeof value === 'number' || typeof value === 'bigint') return String(value);
  if (typeof value === 'boolean') return value ? 'true' : 'false';
  if (typeof value === 'object') return escapeLiteral(JSON.stringify(value));
  return escapeLiteral(String(value));
}

export interface ScanSummary {
  table: string;
  node: string;
  index: string | null;
  rowsRead: number;
  /** The scan's index condition, filter and recheck, as EXPLAIN prints them. */
  conditions: string;
}

export interface ExplainedStatement {
  text: string;
  plan: PlanNode;
  textPlan: string;
  scans: ScanSummary[];
  rowsRead: Partial<Record<GrowingTable, number>>;
  executionMs: number;
}

interface PlanNode {
  'Node Type': string;
  'Relation Name'?: string;
  'Index Name'?: string;
  'Actual Rows'?: number;
  'Actual Loops'?: number;
  'Rows Removed by Filter'?: number;
  'Rows Removed by Index Recheck'?: number;
  'Index Cond'?: string;
  'Recheck Cond'?: string;
  Filter?: string;
  Plans?: PlanNode[];
}

function scansOf(node: PlanNode, into: ScanSummary[] = []): ScanSummary[] {
  const table = node['Relation Name'];
  if (table !== undefined) {
    const loops = node['Actual Loops'] ?? 1;
    const perLoop =
      (node['Actual Rows'] ?? 0) + (node['Rows Removed by Filter'] ?? 0) + (node['Rows Removed by Index Recheck'] ?? 0);
    const conditions = [node['Index Cond'], node['Recheck Cond'], node.Filter].filter(Boolean).join(' AND ');
    into.push({
      table,
      node: node['Node Type'],
      index: node['Index Name'] ?? null,
      rowsRead: perLoop * loops,
      conditions,
    });
  }
  if (node['Node Type'] === 'Bitmap Heap Scan') {
    // The index of a bitmap scan is named on its child.
    const child = node.Plans?.find((plan) => plan['Index Name']);
    const last = into.at(-1);
    if (last && child) last.index = child['Index Name'] ?? null;
  }
  for (const child of node.Plans ?? []) scansOf(child, into);
  return into;
}

/**
 * Each statement explained as the pool's connections plan it, executed (ANALYZE, BUFFERS), under PostgreSQL's default
 * plan cache (and `settings`, each `name=value`): a named statement is prepared and executed with its recorded values
 * as often as the plan cache takes custom plans before it may settle on a generic one, and explained on the next
 * execution, which runs the plan the pool's connections keep; an unnamed one is explained as it is sent, planned for
 * its values.
 */
/** PostgreSQL's plan cache makes this many custom plans of a prepared statement before it weighs a generic one. */
const CUSTOM_PLANS_BEFORE_GENERIC = 5;

export async function explainAsPlanned(
  url: string,
  statements: readonly Statement[],
  settings: readonly string[] = [],
): Promise<ExplainedStatement[]> {
  const options = settings.map((setting) => `-c ${setting}`).join(' ');
  const client = new pg.Client({ connectionString: url, ...(options ? { options } : {}) });
  await client.connect();
  try {
    const explained: ExplainedStatement[] = [];
    for (const statement of statements) {
      // The feed horizon reads only its writer slots (32 rows per org), no growing table.
      if (!/\b(earnings|deals|users|adjustments|inquiries|periods)\b/.test(statement.text)) continue;
      await client.query(`PREPARE read_plan AS ${statement.text}`);
      try {
        const args = statement.values.length ? `(${statement.values.map(literal).join(', ')})` : '';
        if (statement.name !== undefined) {
          for (let run = 0; run < CUSTOM_PLANS_BEFORE_GENERIC; run++) await client.query(`EXECUTE read_plan${args}`);
        }
        const json = await client.query(`EXPLAIN (ANALYZE, BUFFERS, FORMAT JSON) EXECUTE read_plan${args}`);
        const text = await client.query(`EXPLAIN (ANALYZE, BUFFERS, COSTS OFF, TIMING OFF) EXECUTE read_plan${args}`);
        const [document] = json.rows[0]['QUERY PLAN'] as Array<{ Plan: PlanNode; 'Execution Time': number }>;
        if (!document) throw new Error('EXPLAIN returned no plan');
        const scans = scansOf(document.Plan);
        const rowsRead: Partial<Record<GrowingTable, number>> = {};
        for (const scan of scans) {
          if ((GROWING_TABLES as readonly string[]).includes(scan.table)) {
            const table = scan.table as GrowingTable;
            rowsRead[table] = (rowsRead[table] ?? 0) + scan.rowsRead;
          }
        }
        explained.push({
          text: statement.text.replace(/\s+/g, ' ').trim(),
          plan: document.Plan,
          textPlan: text.rows.map((row) => row['QUERY PLAN']).join('\n'),
          scans,
          rowsRead,
          executionMs: document['Execution Time'],
        });
      } finally {
        await client.query('DEALLOCATE read_plan');
      }
    }
    return explained;
  } finally {
    await client.end();
  }
}

/** Tables that are not one org's: the org itself. */
const GLOBAL_TABLES = new Set(['orgs']);

/**
 * Whether a scan is bound to one org: its conditions name `org_id`, or it is a lookup by primary key (`id`), which
 * the listed reads make only from a row already bound to the org (a row's rep, an adjustment's void). Such lookups
 * become `(org_id, id)` once the tables' keys lead with org_id (docs/scaling.md, known gaps).
 */
function boundToOneOrg(scan: ScanSummary): boolean {
  return /\borg_id = /.test(scan.conditions) || (scan.index?.endsWith('_pkey') ?? false);
}

/**
 * What is wrong with a read's statements: a growing table scanned whole, more rows read than the budget, or an
 * org-scoped table read without naming the org (what Citus would have to ask every node: docs/scaling.md).
 */
export function budgetBreaches(
  read: ListedRead,
  world: ReadWorld,
  statements: readonly ExplainedStatement[],
): string[] {
  const budget = read.budget(world);
  const breaches: string[] = [];
  for (const statement of statements) {
    for (const scan of statement.scans) {
      if (scan.node === 'Seq Scan' && (GROWING_TABLES as readonly string[]).includes(scan.table)) {
        breaches.push(`${read.name}: a sequential scan of ${scan.table} in: ${statement.text.slice(0, 160)}`);
      }
    }
    for (const scan of statement.scans) {
      if (!GLOBAL_TABLES.has(scan.table) && !boundToOneOrg(scan)) {
        breaches.push(
          `${read.name}: ${scan.table} read without its org (${scan.node}${scan.index ? ` using ${scan.index}` : ''}: ${scan.conditions || 'no condition'}) in: ${statement.text.slice(0, 160)}`,
        );
      }
    }
    for (const table of GROWING_TABLES) {
      const read_ = statement.rowsRead[table] ?? 0;
      const most = budget[table] ?? 0;
      if (read_ > most) {
        breaches.push(
          `${read.name}: ${read_} rows of ${table} read, budget ${most}, in: ${statement.text.slice(0, 160)}\n${statement.textPlan}`,
        );
      }
    }
  }
  return breaches;
}
