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
  /** The lease of the process that will run it (heartbeat now). */
  leaseId: string;
}

export async function create(tx: Transaction, scenario: NewScenario): Promise<ScenarioRecord> {
  const [row] = await tx.query<ScenarioRecord>({
    text: `INSERT INTO scenarios
             (id, org_id, name, plan_file, plan_key, compare_plan_key, from_period, to_period, created_by, lease_id, heartbeat_at)
           VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, now()) RETURNING ${COLUMNS}`,
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
      scenario.leaseId,
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

/**
 * The scenario (queued, or running when resumed) runs over this many reps under the lease, the reps whose results
 * are stored already counted done; false when it is no longer queued or running (cancelled) or the lease is lost.
 */
export async function markRunning(
  tx: Transaction,
  orgId: string,
  id: string,
  repsTotal: number,
  leaseId: string,
): Promise<boolean> {
  const rows = await tx.query<{ id: string }>({
    text: `UPDATE scenarios SET status = 'running', reps_total = $3, heartbeat_at = now(),
             reps_done = (SELECT count(*)::int FROM scenario_results r WHERE r.org_id = $1 AND r.scenario_id = $2)
           WHERE org_id = $1 AND id = $2 AND status IN ('queued', 'running') AND lease_id = $4 RETURNING id`,
    values: [orgId, id, repsTotal, leaseId],
  });
  return rows.length === 1;
}

/** The user ids whose results a scenario has stored already (a resumed run skips them). */
export async function doneUserIds(tx: Transaction, orgId: string, id: string): Promise<Set<string>> {
  const rows = await tx.query<{ user_id: string }>({
    text: `SELECT user_id FROM scenario_results WHERE org_id = $1 AND scenario_id = $2`,
    values: [orgId, id],
  });
  return new Set(rows.map((row) => row.user_id));
}

/**
 * Queued or running scenarios of every org whose heartbeat is older than `leaseMs` (or that never had one): their
 * process stopped (or was killed) during the run. At most `limit`, oldest first.
 */
export async function abandoned(
  tx: Transaction,
  leaseMs: number,
  limit: number,
): Promise<Array<{ org_id: string; id: string }>> {
  return tx.query<{ org_id: string; id: string }>({
    text: `SELECT org_id, id FROM scenarios
           WHERE status IN ('queued', 'running')
             AND (heartbeat_at IS NULL OR heartbeat_at < now() - $1 * interval '1 millisecond')
           ORDER BY created_at LIMIT $2`,
    values: [leaseMs, limit],
  });
}

/**
 * Takes an abandoned scenario over under a new lease (one statement: of two processes, one wins); null when it is
 * held by a live process again, or has ended.
 */
export async function claim(
  tx: Transaction,
  orgId: string,
  id: string,
  leaseId: string,
  leaseMs: number,
): Promise<ScenarioRecord | null> {
  const [row] = await tx.query<ScenarioRecord>({
    text: `UPDATE scenarios SET lease_id = $3, heartbeat_at = now()
           WHERE org_id = $1 AND id = $2 AND status IN ('queued', 'running')
             AND (heartbeat_at IS NULL OR heartbeat_at < now() - $4 * interval '1 millisecond')
           RETURNING ${COLUMNS}`,
    values: [orgId, id, leaseId, leaseMs],
  });
  return row ?? null;
}

/** A process stopping gracefully lets its run go: the next process takes it over at once. */
export async function release(tx: Transaction, orgId: string, id: string, leaseId: string): Promise<void> {
  await tx.query({
    text: `UPDATE scenarios SET heartbeat_at = NULL WHERE org_id = $1 AND id = $2 AND lease_id = $3`,
    values: [orgId, id, leaseId],
  });
}

/** Scenarios of every org that ended before `before` and are not kept: the sweep's, at most `limit`. */
export async function unkeptEndedBefore(
  tx: Transaction,
  before: Date,
  limit: number,
): Promise<Array<{ org_id: string; id: string }>> {
  return tx.query<{ org_id: string; id: string }>({
    text: `SELECT org_id, id FROM scenarios
           WHERE NOT kept AND status IN ('done', 'failed', 'cancelled') AND finished_at < $1
           ORDER BY finished_at LIMIT $2`,
    values: [before, limit],
  });
}

/** Deletes scenarios of one org and their results, unless kept meanwhile; the number deleted. */
export async function deleteUnkept(tx: Transaction, orgId: string, ids: readonly string[]): Promise<number> {
  const gone = await tx.query<{ id: string }>({
    text: `DELETE FROM scenarios WHERE org_id = $1 AND id = ANY($2::text[]) AND NOT kept RETURNING id`,
    values: [orgId, ids],
  });
  return gone.length;
}

/**
 * Stores a batch of reps' results, counts them done and renews the heartbeat, in one transaction the caller holds;
 * false when the scenario is no longer running (cancelled) or another process took it over: the caller rolls back
 * and stops.
 */
export async function recordBatch(
  tx: Transaction,
  orgId: string,
  id: string,
  results: readonly ScenarioRep[],
  leaseId: string,
): Promise<boolean> {
  const running = await tx.query<{ id: string }>({
    text: `UPDATE scenarios SET reps_done = reps_done + $3, heartbeat_at = now()
           WHERE org_id = $1 AND id = $2 AND status = 'running' AND lease_id = $4 RETURNING id`,
    values: [orgId, id, results.length, leaseId],
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

/**
 * The run under the lease ended: done with its summary, or failed with a message. Leaves a cancelled scenario
 * cancelled, and one another process took over to it.
 */
export async function finish(
  tx: Transaction,
  orgId: string,
  id: string,
  leaseId: string,
  outcome: { status: 'done'; summary: ScenarioSummary } | { status: 'failed'; failure: string },
): Promise<void> {
  await tx.query({
    text: `UPDATE scenarios SET status = $3, summary = $4, failure = $5, finished_at = now()
           WHERE org_id = $1 AND id = $2 AND status IN ('queued', 'running') AND lease_id = $6`,
    values: [
      orgId,
      id,
      outcome.status,
      outcome.status === 'done' ? JSON.stringify(outcome.summary) : null,
      outcome.status === 'failed' ? outcome.failure : null,
      leaseId,
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

/**
 * A recoverable draw's balance still to recover of each rep under a plan before the span: the sum of its standing
 * draw and draw-recovery rows of the settled periods before it (0 for a rep with none), as a recompute reads it.
 */
export async function drawBalancesOfReps(
  tx: Transaction,
  orgId: string,
  planId: string,
  chipIds: { advance: string; recovery: string },
  userIds: readonly string[],
  settledBefore: readonly string[],
): Promise<Map<string, number>> {
  const balances = new Map<string, number>();
  if (settledBefore.length === 0 || userIds.length === 0) return balances;
  const rows = await tx.query<{ user_id: string; balance: string }>(
    named('scenarios_draw_balances_of_reps', {
      text: `SELECT user_id, COALESCE(sum(amount_cents), 0)::text AS balance FROM earnings
             WHERE org_id = $1 AND plan_id = $2 AND user_id = ANY($3::text[])
               AND status IN ('projected', 'pending', 'approved', 'paid')
               AND trace -> 'period' ->> 'id' = ANY($4::text[])
               AND rule_chip_id IN ($5, $6) AND trace -> 'chip' -> 'definition' ->> 'recoverable' = 'true'
             GROUP BY user_id`,
      values: [orgId, planId, userIds, settledBefore, chipIds.advance, chipIds.recovery],
    }),
  );
  for (const row of rows) balances.set(row.user_id, Number(row.balance));
  return balances;
}
