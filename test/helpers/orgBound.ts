import type pg from 'pg';

// What Citus would refuse in a statement, or run on more than one node, by its documented rules for router
// execution and refusals (docs/scaling.md#citus-rules-checked-without-citus; citusFindings below), checked on plain
// PostgreSQL. Decided from PostgreSQL's own plan, not by parsing SQL: `EXPLAIN (VERBOSE, FORMAT JSON)` of the
// statement prepared for any parameter values (see genericPlan), so every scan of every table, in joins, subqueries,
// CTEs and the row source of an UPDATE or DELETE, shows the conditions the planner applies to it at its own query
// level; these are the restrictions Citus prunes shards by. The planner's equivalence classes apply within a level
// (`a.org_id = $1 AND b.org_id = a.org_id` plans as `b.org_id = $1` on b's scan too), as they do for Citus; a
// correlated subquery's `p.org_id = o.id` does not give p an org, for either. An INSERT's target is bound when the
// table has the column: org_id is NOT NULL on every org-scoped table, so every row names its org, which Citus
// routes by. `orgs` itself is distributed by its id.

/** Tables that are not org-scoped (the GLOBAL_TABLES of test/integration/org-distribution.test.ts, less orgs). */
const LOCAL_TABLES = new Set(['_prisma_migrations', 'admin_sign_in_failures', 'credential_orgs']);

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

/**
 * What Citus would refuse or fan out in a statement, by its documented rules for router execution (one node) and
 * for what it does not support (docs/scaling.md#citus-rules-checked-without-citus), each as one finding:
 * - `unbound <table as alias>`: a distributed table not named with one org as a parameter (or a constant) at its own
 *   scan. Citus prunes shards from each table's own restrictions, which include what the planner derives at the same
 *   query level (`a.org_id = $1 AND b.org_id = a.org_id` gives b `org_id = $1`), but not a correlation to an outer
 *   row (`p.org_id = o.id` in a subquery), not `IS TRUE`, not `= ANY` and not a value from a subquery.
 * - `volatile <function>`: a volatile function (pg_proc's provolatile 'v': clock_timestamp(), random(),
 *   gen_random_uuid(), nextval(), …) in an UPDATE or DELETE of a distributed table ("functions used in UPDATE queries
 *   on distributed tables must not be VOLATILE") or in an INSERT … SELECT into one from a distributed table
 *   ("volatile functions are not allowed in distributed INSERT ... SELECT queries"). Not in INSERT … VALUES (or a
 *   SELECT of no distributed table), whose values Citus evaluates on the coordinator; not stable functions (now(), statement_timestamp()), which Citus evaluates once, on the coordinator,
 *   before it sends a modification to the shard.
 * - `insert select not by org_id <table>`: a statement that is an INSERT … SELECT into a distributed table reading a
 *   distributed table whose inserted distribution column is not the source's own (`SELECT $1, …` instead of
 *   `SELECT s.org_id, …`), or whose rows come through a CTE reading one: Citus pushes an INSERT … SELECT down to the
 *   shards only between colocated tables, with the target's distribution column taken from the source's; otherwise
 *   it repartitions the rows or pulls them to the coordinator (the batch pipeline's "missing data for column org_id",
 *   issue 42). An INSERT … SELECT from no distributed table (VALUES, unnest, a parameter's JSON) is evaluated on the
 *   coordinator and routed by each row's org_id, which Citus runs; one inside a CTE of a statement bound to one org
 *   goes to that org's shard with the whole statement.
 * - `for update across orgs`: a row lock (FOR UPDATE/SHARE) in a statement that is not on one org ("could not run
 *   distributed query with FOR UPDATE/SHARE commands").
 * - `join not on org_id <table as alias>`: in a statement across orgs, a distributed table not joined to the others
 *   on the distribution column (Citus's "complex joins are only supported when all distributed tables are
 *   co-located and joined on their distribution columns").
 * - `reference table joined to unbound <table as alias>`: credential_orgs read with a distributed table that is not
 *   named with its org: the join runs on every shard of that table.
 * A statement with only `unbound` findings is a multi-shard statement Citus runs (allowed for cross-org
 * maintenance); any other finding is a refusal.
 */
export async function citusFindings(
  client: pg.ClientBase,
  columns: Map<string, string | null>,
  sql: string,
): Promise<string[]> {
  const { plan: root, parameters } = await genericPlan(client, sql);
  const subqueryResults = new Set<string>();
  const scans: Array<{ table: string; alias: string; column: string | null; label: string }> = [];
  const conditions: string[] = [];
  const credentialScans: string[] = [];
  let modifies = false;
  let locks = false;
  let insertsSelected = false;
  const walk = (node: PlanNode) => {
    const table = node['Relation Name'];
    if (table === 'credential_orgs') credentialScans.push(node.Alias ?? table);
    if (node['Node Type'] === 'LockRows') locks = true;
    if (table !== undefined && columns.has(table)) {
      const column = columns.get(table) ?? null;
      const alias = node.Alias ?? table;
      // An UPDATE's or DELETE's target is also the scan below it, which carries the conditions; an INSERT's rows
      // each carry their org_id (NOT NULL), so only a table without the column is unbound there.
      if (node['Node Type'] === 'ModifyTable') {
        if (node.Operation === 'Update' || node.Operation === 'Delete') modifies = true;
        if (node.Operation === 'Insert' && insertsFromDistributed(node, columns)) insertsSelected = true;
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
      for (const name of /returns (.*)\)/.exec(subplan)?.[1]?.match(/\$\d+/g) ?? []) {
        if (Number(name.slice(1)) > parameters || name === '$0') subqueryResults.add(name);
      }
    }
    for (const child of node.Plans ?? []) walk(child);
  };
  walk(root);
  // A value from a subquery is not one org (Citus cannot prune on it): such a parameter binds nothing.
  const anchors = conditions.map((condition) =>
    condition.replace(/\$\d+\b/g, (name) => (subqueryResults.has(name) ? '(subquery)' : name)),
  );
  const column = (alias: string, name: string) => `\\(*${escapeRegExp(alias)}\\.${name}\\)*(?:::\\w+)?`;
  const oneValue = `(?:\\(*\\$\\d+\\)*(?:::\\w+)?|'(?:[^']|'')*'(?:::\\w+)?)`;
  const bound = new Set<string>();
  for (const scan of scans) {
    if (scan.column === null) continue;
    const own = column(scan.alias, scan.column);
    const anchored = new RegExp(`(?:${own}\\s*=\\s*${oneValue}|${oneValue}\\s*=\\s*${own})(?![\\w.(])(?!\\)* IS TRUE)`);
    if (anchors.some((condition) => anchored.test(condition))) bound.add(scan.alias);
  }
  const unbound = scans.filter((scan) => scan.column === null || !bound.has(scan.alias));
  const findings = unbound.map((scan) => `unbound ${scan.label}`);
  if (root['Node Type'] === 'ModifyTable' && root.Operation === 'Insert') {
    findings.push(...(await insertSelectFindings(client, columns, root)));
  }
  if (modifies || insertsSelected) {
    for (const name of await volatileFunctions(client)) {
      if (new RegExp(`\\b${escapeRegExp(name)}\\s*\\(`, 'i').test(sql)) findings.push(`volatile ${name}`);
    }
  }
  if (writes(root)) findings.push(...mutableInWriteFindings(sql, await mutableFunctions(client)));
  if (locksOverCoordinatorInsert(root)) findings.push('row lock over an insert select through the coordinator');
  if (unbound.length === 0) return [...new Set(findings)].sort();
  if (locks) findings.push('for update across orgs');
  for (const alias of credentialScans) {
    for (const scan of unbound) findings.push(`reference table ${alias} joined to unbound ${scan.label}`);
  }
  // Across orgs, the distributed tables must be joined on the distribution column: each tied to another by
  // `a.org_id = b.org_id` (a join condition, or a correlated subquery's reference to the outer row).
  const distributed = scans.filter((scan) => scan.column !== null);
  if (distributed.length > 1) {
    for (const scan of distributed) {
      const own = column(scan.alias, scan.column as string);
      const tied = distributed.some((other) => {
        if (other.alias === scan.alias) return false;
        const theirs = column(other.alias, other.column as string);
        const joined = new RegExp(`${own}\\s*=\\s*${theirs}(?![\\w.])|${theirs}\\s*=\\s*${own}(?![\\w.])`);
        return conditions.some((condition) => joined.test(condition));
      });
      if (!tied) findings.push(`join not on org_id ${scan.label}`);
    }
  }
  return [...new Set(findings)].sort();
}

/** Whether the plan writes a distributed table (an INSERT, UPDATE or DELETE, at its top or in a CTE). */
function writes(node: PlanNode): boolean {
  return node['Node Type'] === 'ModifyTable' || (node.Plans ?? []).some(writes);
}

/**
 * Where a write to a distributed table holds a function that is not immutable and Citus refuses it (its router
 * planner, multi_router_planner.c, measured on a Citus 13.2 cluster): in a CASE or COALESCE of an UPDATE ("non-IMMUTABLE
 * functions are not allowed in CASE or COALESCE statements"), in an INSERT's DO UPDATE SET ("functions used in the DO
 * UPDATE SET clause of INSERTs on distributed tables must be marked IMMUTABLE") and in a write's RETURNING
 * ("non-IMMUTABLE functions are not allowed in the RETURNING clause"). Read from the statement's text, each clause up
 * to the end of the statement or CTE it belongs to; by function name, so an operator that is stable (timestamptz +
 * interval) is not seen.
 */
function mutableInWriteFindings(sql: string, mutable: readonly string[]): string[] {
  const findings: string[] = [];
  const named = (text: string) =>
    mutable.filter((name) =>
      new RegExp(VALUE_FUNCTIONS.includes(name) ? `\\b${name}\\b` : `\\b${escapeRegExp(name)}\\s*\\(`, 'i').test(text),
    );
  for (const update of clauses(sql, /\bUPDATE\s+(?!SET\b)[\w".]+(?:\s+(?:AS\s+)?\w+)?\s+SET\b/gi)) {
    const body = update.replace(/\bRETURNING\b[\s\S]*$/i, '');
    for (const branch of caseAndCoalesce(body)) {
      for (const name of named(branch)) findings.push(`stable ${name} in case or coalesce of an update`);
    }
  }
  for (const set of clauses(sql, /\bDO\s+UPDATE\s+SET\b/gi)) {
    const body = set.replace(/\bRETURNING\b[\s\S]*$/i, '');
    for (const name of named(body)) findings.push(`stable ${name} in do update set`);
  }
  for (const returning of clauses(sql, /\bRETURNING\b/gi)) {
    for (const name of named(returning)) findings.push(`stable ${name} in returning`);
  }
  return findings;
}

/** Where the parenthesis level open at `from` closes in the text (its end when it does not). */
function closing(text: string, from: number): number {
  let depth = 0;
  for (let i = from; i < text.length; i++) {
    if (text[i] === '(') depth++;
    if (text[i] === ')' && --depth < 0) return i;
  }
  return text.length;
}

/** Each match of `start` in the SQL, with the text after it up to where its parenthesis level closes or the end. */
function clauses(sql: string, start: RegExp): string[] {
  return [...sql.matchAll(start)].map((match) => {
    const from = (match.index ?? 0) + match[0].length;
    return sql.slice(from, closing(sql, from));
  });
}

/** The CASE … END and COALESCE(…) expressions of a clause's text (a CASE nested in a CASE is in its outer one). */
function caseAndCoalesce(text: string): string[] {
  const found = clauses(text, /\bCOALESCE\s*\(/gi);
  let depth = 0;
  let from = 0;
  for (const match of text.matchAll(/\b(CASE|END)\b/gi)) {
    if ((match[1] ?? '').toUpperCase() === 'CASE') {
      if (depth++ === 0) from = match.index ?? 0;
    } else if (depth > 0 && --depth === 0) {
      found.push(text.slice(from, (match.index ?? 0) + 3));
    }
  }
  return found;
}

/**
 * A CTE whose rows are row-locked (FOR UPDATE/NO KEY UPDATE at its top) while it reads another CTE, in a statement
 * that inserts rows selected from a function (unnest, jsonb_to_recordset) in a CTE of its own: Citus plans such an
 * INSERT … SELECT on the coordinator, runs each CTE apart through intermediate results, and the locking CTE's result
 * comes back unreadable ("missing data for column org_id", measured on a Citus 13.2 cluster). Locking in a subquery
 * of the CTE instead (SELECT * FROM (SELECT … FOR UPDATE) l) works, and locks the same rows.
 */
function locksOverCoordinatorInsert(root: PlanNode): boolean {
  const ctes = new Map<string, PlanNode>();
  const collect = (node: PlanNode) => {
    const name = /^CTE (.+)$/.exec(String(node['Subplan Name'] ?? ''))?.[1];
    if (name !== undefined) ctes.set(name, node);
    for (const child of node.Plans ?? []) collect(child);
  };
  collect(root);
  const reads = (node: PlanNode, type: string, seen = new Set<string>()): boolean => {
    if (node['Node Type'] === type) return true;
    if (node['Node Type'] === 'CTE Scan') {
      const name = String(node['CTE Name']);
      const cte = ctes.get(name);
      if (cte && !seen.has(name) && reads(cte, type, seen.add(name))) return true;
    }
    return (node.Plans ?? []).some((child) => reads(child, type, seen));
  };
  const insertsFromFunction = [...ctes.values()].some(
    (cte) =>
      cte['Node Type'] === 'ModifyTable' &&
      cte.Operation === 'Insert' &&
      (cte.Plans ?? []).some((child) => reads(child, 'Function Scan')),
  );
  const locksOverCte = [...ctes.values()].some(
    (cte) => cte['Node Type'] === 'LockRows' && (cte.Plans ?? []).some((child) => reads(child, 'CTE Scan')),
  );
  return insertsFromFunction && locksOverCte;
}

/** An INSERT … SELECT from a distributed table (its row source reads one, or a CTE): Citus tries to push it down. */
function insertsFromDistributed(insert: PlanNode, columns: Map<string, string | null>): boolean {
  const source = (insert.Plans ?? []).find((child) => child['Parent Relationship'] !== 'InitPlan');
  const reads = (node: PlanNode): boolean =>
    (node['Relation Name'] !== undefined && columns.has(node['Relation Name'])) ||
    node['Node Type'] === 'CTE Scan' ||
    (node.Plans ?? []).some(reads);
  return source !== undefined && reads(source);
}

/**
 * A top-level INSERT … SELECT into a distributed table (see citusFindings): its row source must take the inserted
 * distribution column from a distributed table it reads, or read none. A CTE's rows that read a distributed table
 * come to the INSERT as an intermediate result, through the coordinator.
 */
async function insertSelectFindings(
  client: pg.ClientBase,
  columns: Map<string, string | null>,
  insert: PlanNode,
): Promise<string[]> {
  const target = insert['Relation Name'];
  if (target === undefined || !columns.has(target)) return [];
  const column = columns.get(target) ?? null;
  const initPlans = (insert.Plans ?? []).filter((child) => child['Parent Relationship'] === 'InitPlan');
  const source = (insert.Plans ?? []).find((child) => child['Parent Relationship'] !== 'InitPlan');
  if (!source || column === null) return [];
  const cteReadsDistributed = new Map<string, boolean>();
  for (const plan of initPlans) {
    const name = /^CTE (.+)$/.exec(String(plan['Subplan Name'] ?? ''))?.[1];
    if (name !== undefined) cteReadsDistributed.set(name, readsDistributed(plan, columns));
  }
  const sources: Array<{ alias: string; column: string }> = [];
  let throughCte = false;
  const walk = (node: PlanNode) => {
    const table = node['Relation Name'];
    if (table !== undefined && columns.has(table) && node['Node Type'] !== 'ModifyTable') {
      const own = columns.get(table);
      if (own) sources.push({ alias: node.Alias ?? table, column: own });
    }
    if (node['Node Type'] === 'CTE Scan' && cteReadsDistributed.get(String(node['CTE Name'])) === true) {
      throughCte = true;
    }
    for (const child of node.Plans ?? []) walk(child);
  };
  walk(source);
  if (sources.length === 0 && !throughCte) return [];
  const position = (await attributeNumbers(client)).get(`${target}.${column}`);
  const outputs = source.Output;
  const inserted = Array.isArray(outputs) && position !== undefined ? String(outputs[position - 1] ?? '') : '';
  const ofSource = (expression: string) =>
    sources.some(({ alias, column: theirs }) =>
      new RegExp(`^\\(*${escapeRegExp(alias)}\\.${theirs}\\)*(?:::\\w+)?$`).test(expression),
    );
  // A SELECT with expressions the planner keeps apart is a Subquery Scan ("*SELECT*"): its column of that name is
  // the one its own row source outputs from a source table's column.
  let fromSource = ofSource(inserted);
  if (!fromSource && source['Node Type'] === 'Subquery Scan') {
    const name = /\.("?)(\w+)\1\)*(?:::\w+)?$/.exec(inserted)?.[2];
    const inner = source.Plans?.[0]?.Output;
    fromSource =
      name !== undefined &&
      Array.isArray(inner) &&
      inner.some((expression) => ofSource(String(expression)) && String(expression).endsWith(`.${name}`));
  }
  return fromSource && !throughCte ? [] : [`insert select not by org_id ${target}`];
}

/** Whether a plan reads a distributed table anywhere. */
function readsDistributed(node: PlanNode, columns: Map<string, string | null>): boolean {
  const table = node['Relation Name'];
  if (table !== undefined && columns.has(table)) return true;
  return (node.Plans ?? []).some((child) => readsDistributed(child, columns));
}

let attributes: Promise<Map<string, number>> | undefined;

/**
 * Each column's number among its table's attributes, dropped ones included: an INSERT's row source lists a value for
 * every attribute in that order (a dropped one as NULL).
 */
function attributeNumbers(client: pg.ClientBase): Promise<Map<string, number>> {
  attributes ??= client
    .query<{ key: string; number: number }>(
      `SELECT c.relname || '.' || a.attname AS key, a.attnum AS number
       FROM pg_attribute a JOIN pg_class c ON c.oid = a.attrelid JOIN pg_namespace n ON n.oid = c.relnamespace
       WHERE n.nspname = 'public' AND c.relkind IN ('r', 'p') AND a.attnum > 0 AND NOT a.attisdropped`,
    )
    .then((result) => new Map(result.rows.map((row) => [row.key, row.number])));
  return attributes;
}

let mutableNames: Promise<string[]> | undefined;

/**
 * The functions that are never immutable (every overload of the name stable or volatile: now(), statement_timestamp(),
 * to_char(), …), by name, with the SQL value functions that are stable (CURRENT_TIMESTAMP, CURRENT_DATE, …).
 */
function mutableFunctions(client: pg.ClientBase): Promise<string[]> {
  mutableNames ??= client
    .query<{ name: string }>(
      `SELECT p.proname AS name FROM pg_proc p JOIN pg_namespace n ON n.oid = p.pronamespace
       WHERE p.prokind = 'f' AND n.nspname IN ('pg_catalog', 'public') AND p.prorettype <> 'trigger'::regtype
       GROUP BY p.proname HAVING bool_and(p.provolatile <> 'i')`,
    )
    .then((result) => [...result.rows.map((row) => row.name), ...VALUE_FUNCTIONS]);
  return mutableNames;
}

/** SQL's value functions that are stable, written without parentheses. */
const VALUE_FUNCTIONS = ['current_timestamp', 'current_date', 'current_time', 'localtimestamp', 'localtime'];

let volatileNames: Promise<string[]> | undefined;

/** The volatile functions of the database (pg_catalog's and Quotient's), by name. */
function volatileFunctions(client: pg.ClientBase): Promise<string[]> {
  volatileNames ??= client
    .query<{ name: string }>(
      `SELECT DISTINCT p.proname AS name FROM pg_proc p JOIN pg_namespace n ON n.oid = p.pronamespace
       WHERE p.provolatile = 'v' AND p.prokind = 'f' AND n.nspname IN ('pg_catalog', 'public')
         AND p.prorettype <> 'trigger'::regtype AND p.proname !~ '^(pg_stat|pg_ls|pg_read|pg_current|ts_|row_|int|float)'`,
    )
    .then((result) => result.rows.map((row) => row.name));
  return volatileNames;
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
