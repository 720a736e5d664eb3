import type { ActualRow, ScenarioRep, ScenarioSummary } from '../domain/earnings/scenario.ts';
import { named, type Transaction } from './transaction.ts';

// Plan scenarios (scenarios, scenario_results; docs/scenarios.md): a draft plan file's run over closed history and
// its per-rep results. These are the only tables a scenario writes; what it reads of the history is read here too
// (the reps it covers, the rows actually paid), so the run never touches the ledger's own statements.

export type ScenarioStatus = 'queued' | 'running' | 'done' | 'failed' | 'cancelled';

export interface ScenarioRecord {
  id: string;
  org_id: string;
  name: string | null;
  kept: boolean;
  plan_file: string;
  plan_key: string;
  compare_plan_key: string;
  from_period: string;
  to_period: string;
  status: ScenarioStatus;
  reps_total: number;
  reps_done: number;
  summary: ScenarioSummary | null;
  failure: string | null;
  promoted_version_id: string | null;
  created_by: string | null;
  created_at: Date;
  finished_at: Date | null;
}

const COLUMNS = `id, org_id, name, kept, plan_file, plan_key, compare_plan_key, from_period, to_period, status,
  reps_total, reps_done, summary, failure, promoted_version_id, created_by, created_at, finished_at`;

export interface NewScenario {
  id: string;
  orgId: string;
  name: string | null;
  planFile: string;
  planKey: string;
  comparePlanKey: string;
  from: string;
  to: string;
  createdBy: string | null;
}

export async function create(tx: Transaction, scenario: NewScenario): Promise<ScenarioRecord> {
  const [row] = await tx.query<ScenarioRecord>({
    text: `INSERT INTO scenarios (id, org_id, name, plan_file, plan_key, compare_plan_key, from_period, to_period, created_by)
           VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9) RETURNING ${COLUMNS}`,
    values: [
      scenario.id,
      scenario.orgId,
      scenario.name,
      scenario.planFile,
      scenario.planKey,
      scenario.comparePlanKey,
      scenario.from,
      scenario.to,
      scenario.createdBy,
    ],
  });
  return row as ScenarioRecord;
}

export async function find(tx: Transaction, orgId: string, id: string): Promise<ScenarioRecord | null> {
  const [row] = await tx.query<ScenarioRecord>(
    named('scenarios_find', {
      text: `SELECT ${COLUMNS} FROM scenarios WHERE org_id = $1 AND id = $2`,
      values: [orgId, id],
    }),
  );
  return row ?? null;
}

/** The org's scenarios, newest first. */
export async function listOfOrg(tx: Transaction, orgId: string, limit: number): Promise<ScenarioRecord[]> {
  return tx.query<ScenarioRecord>({
    text: `SELECT ${COLUMNS} FROM scenarios WHERE org_id = $1 ORDER BY created_at DESC, id DESC LIMIT $2`,
    values: [orgId, limit],
  });
}

/** The queued scenario starts running over this many reps; false when it is no longer queued (cancelled). */
export async function markRunning(tx: Transaction, orgId: string, id: string, repsTotal: number): Promise<boolean> {
  const rows = await tx.query<{ id: string }>({
    text: `UPDATE scenarios SET status = 'running', reps_total = $3
           WHERE org_id = $1 AND id = $2 AND status = 'queued' RETURNING id`,
    values: [orgId, id, repsTotal],
  });
  return rows.length === 1;
}

/**
 * Stores a batch of reps' results and counts them done, in one transaction the caller holds; false when the
 * scenario is no longer running (cancelled): the caller rolls back and stops.
 */
export async function recordBatch(
  tx: Transaction,
  orgId: string,
  id: string,
  results: readonly ScenarioRep[],
): Promise<boolean> {
  const running = await tx.query<{ id: string }>({
    text: `UPDATE scenarios SET reps_done = reps_done + $3
           WHERE org_id = $1 AND id = $2 AND status = 'running' RETURNING id`,
    values: [orgId, id, results.length],
  });
  if (running.length === 0) return false;
  if (results.length === 0) return true;
  await tx.query({
    text: `INSERT INTO scenario_results
             (org_id, scenario_id, user_id, user_external_id, actual_cents, scenario_cents, difference_cents, result)
           SELECT $1, $2, r.user_id, r.user_external_id, r.actual, r.scenario, r.difference, r.result
           FROM unnest($3::text[], $4::text[], $5::bigint[], $6::bigint[], $7::bigint[], $8::jsonb[])
             AS r(user_id, user_external_id, actual, scenario, difference, result)`,
    values: [
      orgId,
      id,
      results.map((rep) => rep.user_id),
      results.map((rep) => rep.user_external_id),
      results.map((rep) => rep.actual_cents),
      results.map((rep) => rep.scenario_cents),
      results.map((rep) => rep.difference_cents),
      results.map((rep) => JSON.stringify(rep)),
    ],
  });
  return true;
}

/** The run ended: done with its summary, or failed with a message. Leaves a cancelled scenario cancelled. */
export async function finish(
  tx: Transaction,
  orgId: string,
  id: string,
  outcome: { status: 'done'; summary: ScenarioSummary } | { status: 'failed'; failure: string },
): Promise<void> {
  await tx.query({
    text: `UPDATE scenarios SET status = $3, summary = $4, failure = $5, finished_at = now()
           WHERE org_id = $1 AND id = $2 AND status IN ('queued', 'running')`,
    values: [
      orgId,
      id,
      outcome.status,
      outcome.status === 'done' ? JSON.stringify(outcome.summary) : null,
      outcome.status === 'failed' ? outcome.failure : null,
    ],
  });
}

/** Cancels a queued or running scenario; false when it had ended already. */
export async function cancel(tx: Transaction, orgId: string, id: string): Promise<boolean> {
  const rows = await tx.query<{ id: string }>({
    text: `UPDATE scenarios SET status = 'cancelled', finished_at = now()
           WHERE org_id = $1 AND id = $2 AND status IN ('queued', 'running') RETURNING id`,
    values: [orgId, id],
  });
  return rows.length === 1;
}

export async function keep(tx: Transaction, orgId: string, id: string, name: string | null, kept: boolean) {
  await tx.query({
    text: `UPDATE scenarios SET kept = $4, name = COALESCE($3, name) WHERE org_id = $1 AND id = $2`,
    values: [orgId, id, name, kept],
  });
}

export async function markPromoted(tx: Transaction, orgId: string, id: string, versionId: string): Promise<void> {
  await tx.query({
    text: `UPDATE scenarios SET promoted_version_id = $3 WHERE org_id = $1 AND id = $2`,
    values: [orgId, id, versionId],
  });
}

/** A page of the scenario's reps by external id, after `after` (exclusive). */
export async function resultsAfter(
  tx: Transaction,
  orgId: string,
  id: string,
  after: string | null,
  limit: number,
): Promise<ScenarioRep[]> {
  const rows = await tx.query<{ result: ScenarioRep }>({
    text: `SELECT result FROM scenario_results
           WHERE org_id = $1 AND scenario_id = $2 AND ($3::text IS NULL OR user_external_id > $3)
           ORDER BY user_external_id LIMIT $4`,
    values: [orgId, id, after, limit],
  });
  return rows.map((row) => row.result);
}

/** Every rep's result of the scenario, for its summary. */
export async function allResults(tx: Transaction, orgId: string, id: string): Promise<ScenarioRep[]> {
  return resultsAfter(tx, orgId, id, null, 1_000_000);
}

/** The reps a scenario covers: every rep of the org, by user id. */
export async function repsOfOrg(
  tx: Transaction,
  orgId: string,
): Promise<Array<{ user_id: string; external_id: string }>> {
  return tx.query<{ user_id: string; external_id: string }>({
    text: `SELECT id AS user_id, external_id FROM users WHERE org_id = $1 AND role = 'rep' ORDER BY id`,
    values: [orgId],
  });
}

/**
 * What the reps were actually paid under a plan in these periods: their standing earned rows (pending, approved or
 * paid), by the period each was booked in and its chip's key.
 */
export async function paidRowsOfReps(
  tx: Transaction,
  orgId: string,
  planId: string,
  userIds: readonly string[],
  periodIds: readonly string[],
): Promise<Map<string, ActualRow[]>> {
  const rows = await tx.query<{ user_id: string; period_id: string; chip_key: string; amount_cents: string }>(
    named('scenarios_paid_rows_of_reps', {
      text: `SELECT e.user_id, e.period_id, COALESCE(c.key, e.rule_chip_id) AS chip_key, e.amount_cents::text AS amount_cents
             FROM earnings e LEFT JOIN chips c ON c.org_id = e.org_id AND c.id = e.rule_chip_id
             WHERE e.org_id = $1 AND e.plan_id = $2 AND e.user_id = ANY($3::text[]) AND e.period_id = ANY($4::text[])
               AND e.status IN ('pending', 'approved', 'paid')`,
      values: [orgId, planId, userIds, periodIds],
    }),
  );
  const byRep = new Map<string, ActualRow[]>();
  for (const row of rows) {
    const list = byRep.get(row.user_id) ?? [];
    list.push({ period_id: row.period_id, chip_key: row.chip_key, amount_cents: Number(row.amount_cents) });
    byRep.set(row.user_id, list);
  }
  return byRep;
}
