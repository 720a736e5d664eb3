import type pg from 'pg';

// Whether a statement is bound to one org, the way Citus would need it to route the statement to one node
// (docs/scaling.md): every org-scoped table it reads or writes is constrained to one org. Decided from
// PostgreSQL's own plan, not by parsing SQL: `EXPLAIN (VERBOSE, GENERIC_PLAN, FORMAT JSON)` of the statement as
// pg_stat_statements recorded it (see genericPlan), so every scan of every table, in joins, subqueries, CTEs and
// the row source of an UPDATE or DELETE, shows the conditions the planner applies to it. The planner's
// equivalence classes help: `a.org_id = $1 AND b.org_id = a.org_id` plans as `b.org_id = $1` on b's scan too.
//
// A scan of an org-scoped table is bound when its conditions (index condition, recheck, filter) hold
// `<alias>.org_id = <one value>` (a parameter or a constant), or when a join condition anywhere in the plan ties
// its org_id to that of a bound scan (`a.org_id = b.org_id`, a hash, merge or nested-loop condition, or a
// correlated subquery's reference to the outer row). `org_id = ANY (...)`, `org_id IN (...)` and a value taken
// from a subquery are not one org. An INSERT's target is bound when the table has the column: org_id is
// NOT NULL on every org-scoped table, so every row names its org. `orgs` itself is distributed by its id.

/** Tables that are not org-scoped (the GLOBAL_TABLES of test/integration/org-distribution.test.ts, less orgs). */
const LOCAL_TABLES = new Set(['_prisma_migrations', 'admin_sign_in_failures', 'credential_orgs']);

/**
 * A read of credential_orgs by its whole primary key, (kind, lookup) = one value each: it gives at most one org,
 * the org of a credential before its org is known (docs/scaling.md). Its org_id anchors what it is joined to, and
 * a subquery made of it (`org_id = (SELECT org_id FROM credential_orgs WHERE kind = … AND lookup = $1)`) is one
 * value, unlike other subqueries.
 */
function isCredentialLookup(node: PlanNode): boolean {
  if (node['Relation Name'] !== 'credential_orgs') {
    const children = node.Plans ?? [];
    return node['Node Type'] === 'Limit' && children.length === 1 && isCredentialLookup(children[0] as PlanNode);
  }
  const conditions = CONDITIONS.map((key) => node[key]).filter((value) => typeof value === 'string');
  const alias = escapeRegExp(node.Alias ?? 'credential_orgs');
  const keyed = (name: string) => new RegExp(`${alias}\\.${name}\\)*\\s*=\\s*\\(*(?:\\$\\d+|'(?:[^']|'')*')`);
  return conditions.some((condition) => keyed('kind').test(condition) && keyed('lookup').test(condition));
}

/** The column each distributed table is distributed by: org_id, or orgs' own id. */
export async function distributionColumns(client: pg.ClientBase): Promise<Map<string, string | null>> {
  const { rows } = await client.query<{ table: string; has_org_id: boolean }>(
    `SELECT c.relname AS table,
            EXISTS (SELECT 1 FROM pg_attribute a WHERE a.attrelid = c.oid AND a.attname = 'org_id'
                    AND NOT a.attisdropped) AS has_org_id
     FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
     WHERE n.nspname = 'public' AND c.relkind IN ('r', 'p')`,
  );
  const columns = new Map<string, string | null>();
  for (const row of rows) {
    if (LOCAL_TABLES.has(row.table)) continue;
    // A table without the column is org-scoped all the same (a known gap of the schema): it cannot be bound.
    columns.set(row.table, row.table === 'orgs' ? 'id' : row.has_org_id ? 'org_id' : null);
  }
  return columns;
}

interface PlanNode {
  'Node Type': string;
  Operation?: string;
  'Relation Name'?: string;
  Alias?: string;
  Plans?: PlanNode[];
  [key: string]: unknown;
}

/** The plan's properties that hold conditions (each a string of PostgreSQL's deparsed expression). */
const CONDITIONS = ['Index Cond', 'Recheck Cond', 'Filter', 'Hash Cond', 'Merge Cond', 'Join Filter', 'TID Cond'];

/** The scans of org-scoped tables in a statement that are not bound to one org ('<table> as <alias>'). */
export async function unboundScans(
  client: pg.ClientBase,
  columns: Map<string, string | null>,
  sql: string,
): Promise<string[]> {
  const { plan: root, parameters } = await genericPlan(client, sql);
  const subqueryResults = new Set<string>();
  const scans: Array<{ table: string; alias: string; column: string | null; label: string }> = [];
  const conditions: string[] = [];
  // Credential lookups: their aliases (each bound, anchoring joins) and their subquery results (one value each).
  const credentialAliases = new Set<string>();
  const credentialResults: string[] = [];
  const walk = (node: PlanNode) => {
    const table = node['Relation Name'];
    if (table === 'credential_orgs' && isCredentialLookup(node)) {
      const alias = node.Alias ?? table;
      credentialAliases.add(alias);
      scans.push({ table, alias, column: 'org_id', label: `${table} as ${alias}` });
    }
    if (table !== undefined && columns.has(table)) {
      const column = columns.get(table) ?? null;
      const alias = node.Alias ?? table;
      // An UPDATE's or DELETE's target is also the scan below it, which carries the conditions; an INSERT's rows
      // each carry their org_id (NOT NULL), so only a table without the column is unbound there.
      if (node['Node Type'] === 'ModifyTable') {
        if (node.Operation === 'Insert' && column === null) {
          scans.push({ table, alias, column, label: `${table} (insert)` });
        }
      } else {
        scans.push({ table, alias, column, label: alias === table ? table : `${table} as ${alias}` });
      }
    }
    for (const key of CONDITIONS) {
      const value = node[key];
      if (typeof value === 'string') conditions.push(value);
    }
    // Before PostgreSQL 16 a subquery's result is shown as a parameter too: "InitPlan 1 (returns $0)". Numbered
    // apart from the statement's own, it can share one's name: then it is taken for the statement's (the check
    // is exact from PostgreSQL 16 on, where it reads "(InitPlan 1).col1", as in CI's embedded run).
    const subplan = node['Subplan Name'];
    if (typeof subplan === 'string') {
      const results = /returns (.*)\)/.exec(subplan)?.[1]?.match(/\$\d+/g) ?? [];
      if (isCredentialLookup(node)) {
        credentialResults.push(...results, `(${/^InitPlan \d+/.exec(subplan)?.[0] ?? subplan}).col1`);
      } else {
        for (const name of results) {
          if (Number(name.slice(1)) > parameters || name === '$0') subqueryResults.add(name);
        }
      }
    }
    for (const child of node.Plans ?? []) walk(child);
  };
  walk(root);
  // A value from a subquery is not one org (Citus cannot route on it): such a parameter anchors nothing.
  // A credential lookup's result is one value: written as a constant here, so that it anchors.
  const anchors = conditions.map((condition) => {
    let anchor = condition;
    for (const result of credentialResults) {
      anchor = anchor.replace(new RegExp(`${escapeRegExp(result)}(?![\\w.])`, 'g'), "'credential_orgs'");
    }
    return anchor.replace(/\$\d+\b/g, (name) => (subqueryResults.has(name) ? '(subquery)' : name));
  });

  const column = (alias: string, name: string) => `\\(*${escapeRegExp(alias)}\\.${name}\\)*(?:::\\w+)?`;
  const oneValue = `(?:\\(*\\$\\d+\\)*(?:::\\w+)?|'(?:[^']|'')*'(?:::\\w+)?)`;
  const bound = new Set<string>(credentialAliases);
  for (const scan of scans) {
    if (scan.column === null) continue;
    const own = column(scan.alias, scan.column);
    const anchored = new RegExp(`(?:${own}\\s*=\\s*${oneValue}|${oneValue}\\s*=\\s*${own})(?![\\w.(])`);
    if (anchors.some((condition) => anchored.test(condition))) bound.add(scan.alias);
  }
  // Joins on the distribution column: a scan tied to a bound one is bound (until nothing changes).
  let changed = true;
  while (changed) {
    changed = false;
    for (const scan of scans) {
      if (scan.column === null || bound.has(scan.alias)) continue;
      const own = column(scan.alias, scan.column);
      for (const other of scans) {
        if (other.column === null || !bound.has(other.alias) || other.alias === scan.alias) continue;
        const theirs = column(other.alias, other.column);
        const joined = new RegExp(`${own}\\s*=\\s*${theirs}(?![\\w.])|${theirs}\\s*=\\s*${own}(?![\\w.])`);
        if (conditions.some((condition) => joined.test(condition))) {
          bound.add(scan.alias);
          changed = true;
          break;
        }
      }
    }
  }
  return scans.filter((scan) => scan.column === null || !bound.has(scan.alias)).map((scan) => scan.label);
}

/**
 * The statement's generic plan (the plan for any parameter values, which a prepared statement of the pool may settle
 * on after its first custom plans): prepared with plan_cache_mode = force_generic_plan for this check alone and
 * explained with NULL for every parameter, which a generic plan never looks at (PostgreSQL 15 has no EXPLAIN
 * (GENERIC_PLAN)). A custom plan only adds the values' own conditions, so a statement bound here is bound in all. In one transaction, so that it works through a
 * transaction pooler too, and deallocated before it ends.
 */
async function genericPlan(client: pg.ClientBase, sql: string): Promise<{ plan: PlanNode; parameters: number }> {
  await client.query('BEGIN');
  let prepared = false;
  try {
    await client.query('SET LOCAL plan_cache_mode = force_generic_plan');
    await client.query(`PREPARE org_bound_check AS ${sql}`);
    prepared = true;
    const { rows: types } = await client.query<{ count: number }>(
      `SELECT cardinality(parameter_types) AS count FROM pg_prepared_statements WHERE name = 'org_bound_check'`,
    );
    const count = types[0]?.count ?? 0;
    const args = count > 0 ? `(${Array.from({ length: count }, () => 'NULL').join(', ')})` : '';
    const { rows } = await client.query<{ 'QUERY PLAN': Array<{ Plan: PlanNode }> }>(
      `EXPLAIN (VERBOSE, COSTS OFF, FORMAT JSON) EXECUTE org_bound_check${args}`,
    );
    await client.query('DEALLOCATE org_bound_check');
    prepared = false;
    const plan = rows[0]?.['QUERY PLAN'][0]?.Plan;
    if (!plan) throw new Error('EXPLAIN returned no plan');
    return { plan, parameters: count };
  } finally {
    await client.query('ROLLBACK');
    // After a failed EXPLAIN the transaction had ended in error; a prepared statement outlives it.
    if (prepared) await client.query('DEALLOCATE org_bound_check');
  }
}

function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}

/** A statement's text on one line, whitespace collapsed: the key of an exception list. */
export function oneLine(sql: string): string {
  return sql.replace(/\s+/g, ' ').trim();
}

/** Statements EXPLAIN takes: the reads and writes (transaction control, SET, ANALYZE and the like are not). */
const EXPLAINABLE = /^[\s(]*(SELECT|INSERT|UPDATE|DELETE|WITH|MERGE|VALUES|TABLE)\b/i;

/**
 * Records the text of every statement node-postgres sends from this process (Prisma's adapter and Quotient's
 * pools both run on `pg.Client`), between start() and stop(); statements() gives the distinct ones EXPLAIN takes.
 */
export function recordStatements(Client: typeof pg.Client) {
  const prototype = Client.prototype as unknown as { query: (...args: unknown[]) => unknown };
  const texts = new Set<string>();
  let original: ((...args: unknown[]) => unknown) | undefined;
  return {
    start() {
      if (original) return;
      const query = prototype.query;
      original = query;
      prototype.query = function recorded(this: unknown, ...args: unknown[]) {
        const [config] = args;
        const text = typeof config === 'string' ? config : (config as { text?: unknown } | null)?.text;
        if (typeof text === 'string') texts.add(text);
        return query.apply(this, args);
      };
    },
    stop() {
      if (original) prototype.query = original;
      original = undefined;
    },
    statements(): string[] {
      return [...texts].filter((text) => EXPLAINABLE.test(text));
    },
  };
}
