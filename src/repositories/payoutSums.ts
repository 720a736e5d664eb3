import type { KeysetPosition } from '../domain/lists/keysetCursor.ts';
import type { Transaction } from './transaction.ts';

// What payroll pays for a period, read in plain SQL and always scoped by org: per rep and currency, the sums of the
// rep's approved and paid earnings rows and of its manual adjustments (`GET /v1/payouts` and the CLI's export).

/** One rep's sums over a period's approved and paid rows and its manual adjustments. */
export interface PayoutRow {
  user_id: string;
  user_external_id: string;
  user_created_at: Date;
  currency: string;
  approved_cents: number;
  paid_cents: number;
  clawback_cents: number;
  /** The draws' rows (advances, their adjustments and recoveries): not clawbacks, paid under their own code. */
  draw_cents: number;
  /** The rep's manual adjustments paid in the period (table adjustments). */
  adjustment_cents: number;
  /** The rep's approved rows that wait for them to accept their plan: in none of the sums above. */
  held_pending_acceptance_cents: number;
}

/** A row of a plan's draw line: an advance (or its adjustment) or a recovery, told by its trace's chip kind. */
const IS_DRAW_ROW = "(e.trace -> 'chip' ->> 'kind') IN ('draw', 'draw_recovery')";

/**
 * An earning row `e` (of org $1) whose pay waits for its rep to accept its plan (docs/plan-acceptance.md): the org's
 * pay waits for acceptance and the rep's latest request for the plan is not accepted. Payouts leave such rows out
 * while they are approved, until the rep accepts.
 */
const HELD_FOR_ACCEPTANCE = `(
  EXISTS (SELECT 1 FROM orgs o WHERE o.id = $1 AND o.pay_waits_for_acceptance)
  AND EXISTS (
    SELECT 1 FROM plan_acceptances pa
    WHERE pa.org_id = $1 AND pa.user_id = e.user_id AND pa.plan_id = e.plan_id AND pa.state = 'requested'
      AND NOT EXISTS (
        SELECT 1 FROM plan_acceptances later
        WHERE later.org_id = $1 AND later.user_id = pa.user_id AND later.plan_id = pa.plan_id
          AND later.plan_version > pa.plan_version)))`;

/**
 * Per rep with approved or paid rows in the period, after `position` in the rep's (created_at, id) order, and
 * per currency the rep's rows are in: the sums of those rows by status, of the draws' rows, and of the other
 * negative ones (clawbacks), all without the rows held for acceptance (HELD_FOR_ACCEPTANCE), whose sum is apart.
 * A rep whose every row is held comes with that sum only, so payroll sees what waits.
 * `limit` counts reps: a rep's payouts in several currencies come together.
 */
export async function payoutsAfter(
  tx: Transaction,
  orgId: string,
  periodId: string,
  position: KeysetPosition,
  limit: number,
  visibleUserIds: readonly string[] | null = null,
): Promise<PayoutRow[]> {
  const values: unknown[] = [orgId, periodId];
  let keyset = '';
  if (position) {
    values.push(position.at, position.id);
    keyset = 'AND (u.created_at, u.id) > ($3::timestamptz, $4)';
  }
  if (visibleUserIds !== null) {
    values.push(visibleUserIds);
    keyset += ` AND u.id = ANY($${values.length}::text[])`;
  }
  values.push(limit);
  // The org's reps in (created_at, id) order, each asked whether it has something paid or held in the period (an
  // approved or paid row, or an adjustment once the period is locked: a period's manual adjustments are paid with
  // it, approved while it is locked, paid once it is paid), up to `limit` of them; then each of those reps' sums,
  // read from the rep's own rows of the period, the held rows summed apart. A page reads its reps' rows (and the reps before them with nothing paid), not
  // the whole period's. Each question is a scalar subquery with LIMIT 1, a probe per rep: written as EXISTS, the
  // planner may hash it instead, reading every approved and paid row of the period for each page.
  const rows = await tx.query<PayoutRow>({
    text: `WITH period AS (
             SELECT p.status FROM periods p WHERE p.org_id = $1 AND p.id = $2
           ), reps AS (
             SELECT u.id, u.external_id, u.created_at
             FROM users u
             WHERE u.org_id = $1 ${keyset}
               AND ((SELECT true FROM earnings e
                     WHERE e.org_id = $1 AND e.user_id = u.id AND e.period_id = $2 AND e.status IN ('approved', 'paid')
                     LIMIT 1)
                    OR ((SELECT true FROM adjustments a
                         WHERE a.org_id = $1 AND a.user_id = u.id AND a.period_id = $2 LIMIT 1)
                        AND (SELECT status FROM period) IN ('locked', 'paid')))
             ORDER BY u.created_at, u.id LIMIT $${values.length}
           )
           SELECT u.id AS user_id, u.external_id AS user_external_id, u.created_at AS user_created_at, e.currency,
             COALESCE(sum(e.amount_cents) FILTER (WHERE e.status = 'approved' AND NOT e.held), 0)::bigint AS approved_cents,
             COALESCE(sum(e.amount_cents) FILTER (WHERE e.status = 'paid'), 0)::bigint AS paid_cents,
             COALESCE(sum(e.amount_cents) FILTER (WHERE e.clawback AND NOT e.held), 0)::bigint AS clawback_cents,
             COALESCE(sum(e.amount_cents) FILTER (WHERE e.draw AND NOT e.held), 0)::bigint AS draw_cents,
             COALESCE(sum(e.amount_cents) FILTER (WHERE e.adjustment), 0)::bigint AS adjustment_cents,
             COALESCE(sum(e.amount_cents) FILTER (WHERE e.held), 0)::bigint AS held_pending_acceptance_cents
           FROM reps u CROSS JOIN LATERAL (
             SELECT e.currency, e.amount_cents, e.status,
                    (e.amount_cents < 0 AND NOT ${IS_DRAW_ROW}) AS clawback, ${IS_DRAW_ROW} AS draw, false AS adjustment,
                    (e.status = 'approved' AND ${HELD_FOR_ACCEPTANCE}) AS held
             FROM earnings e
             WHERE e.org_id = $1 AND e.user_id = u.id AND e.period_id = $2 AND e.status IN ('approved', 'paid')
             UNION ALL
             SELECT a.currency, a.amount_cents,
                    CASE (SELECT status FROM period) WHEN 'paid' THEN 'paid' ELSE 'approved' END, false, false, true,
                    false
             FROM adjustments a
             WHERE a.org_id = $1 AND a.user_id = u.id AND a.period_id = $2
               AND (SELECT status FROM period) IN ('locked', 'paid')
           ) e
           GROUP BY u.id, u.external_id, u.created_at, e.currency ORDER BY u.created_at, u.id, e.currency`,
    values,
  });
  return rows.map((row) => ({
    ...row,
    user_created_at: new Date(row.user_created_at),
    approved_cents: Number(row.approved_cents),
    paid_cents: Number(row.paid_cents),
    clawback_cents: Number(row.clawback_cents),
    draw_cents: Number(row.draw_cents),
    adjustment_cents: Number(row.adjustment_cents),
    held_pending_acceptance_cents: Number(row.held_pending_acceptance_cents),
  }));
}
