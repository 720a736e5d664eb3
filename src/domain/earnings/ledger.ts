import { decimalsOf } from '../currencies.ts';
import { nextPeriodId, type PeriodId, periodBounds, periodKindOf } from '../periods.ts';
import { formatMoney } from './money.ts';
import type {
  EarningStatus,
  EarningTrace,
  LinePricing,
  LineTarget,
  PeriodStatus,
  TracePeriod,
  TraceReplacement,
  TraceStep,
} from './types.ts';

// The earnings ledger (docs/plans-and-earnings.md, The ledger rule) as pure decisions: given a line's rows and its new target,
// which rows to retire and which to write. Rows never change amount; approved and paid rows are never
// touched. With L the line's approved + paid total, the line's one live `pending` row carries E − L
// (none when that is 0), booked in the target period if it is open, else in the earliest open period
// after it, so a change to a locked period becomes a clawback (or top-up) in the next open one. The
// line's one live `projected` row carries F (none when 0), in the target period.
//
// An unpriced line (a deal in another currency than the plan, with no exchange rate to convert it; docs/currencies.md)
// has no known target. It is not clawed back for that: its live row of the deal's status becomes a row of 0
// marked `missing_exchange_rate` (E is taken to be L, so a pending row carries E − L = 0), the one kind of row
// that carries 0, so that statements and the earnings list show the line instead of nothing. When a rate is set
// the line is evaluated again and that row is superseded by the priced one. Only the amount of the deal's status
// is unknown: an open deal has earned nothing whatever its price, so the clawback of what it earned when won
// stands while its forecast is unpriced.

/** An existing earning row of one line. */
export interface LedgerRow {
  id: string;
  status: EarningStatus;
  amount_cents: number;
  period_id: PeriodId;
  /** `missing_exchange_rate` for an unpriced line's row of 0; absent or `priced` otherwise. */
  pricing?: LinePricing;
}

/** The status of each period the org has; a period not listed does not exist yet and counts as open. */
export type PeriodStatuses = ReadonlyMap<PeriodId, PeriodStatus>;

export interface RowRetirement {
  id: string;
  status: 'superseded' | 'reversed';
  /** Why the row stops applying (the row's `status_reason`). */
  reason: TraceReplacement;
}

/** A live row left behind by an interrupted write: the line's newer live row of the same status replaces it. */
const STALE_ROW: TraceReplacement = {
  code: 'amount_changed',
  explanation: 'A newer row of the line replaced it.',
};

export interface NewEarningRow {
  status: 'pending' | 'projected';
  amount_cents: number;
  period_id: PeriodId;
  /** The row this one replaces, which `retire` marks `superseded`. */
  supersedes_id: string | null;
  pricing: LinePricing;
  trace: EarningTrace;
}

export interface LineChanges {
  retire: RowRetirement[];
  write: NewEarningRow[];
}

type LiveStatus = NewEarningRow['status'];

function statusOf(periods: PeriodStatuses, periodId: PeriodId): PeriodStatus {
  return periods.get(periodId) ?? 'open';
}

/** The period itself when it is open, else the earliest open period after it. */
export function earliestOpenPeriodFrom(periodId: PeriodId, periods: PeriodStatuses): PeriodId {
  let candidate = periodId;
  // Terminates: only the finitely many listed periods can be closed.
  while (statusOf(periods, candidate) !== 'open') candidate = nextPeriodId(candidate);
  return candidate;
}

function tracePeriod(periodId: PeriodId, periods: PeriodStatuses): TracePeriod {
  return periodOfTrace(periodId, statusOf(periods, periodId));
}

/** A trace's period: the period and the status it had when the row was written (its kind and dates follow its id). */
export function periodOfTrace(periodId: PeriodId, status: TracePeriod['status']): TracePeriod {
  return { id: periodId, kind: periodKindOf(periodId), ...periodBounds(periodId), status };
}

interface Track {
  status: LiveStatus;
  /** What the live row must carry; 0 means there must be none. */
  amount: number;
  period_id: PeriodId;
  locked: number;
  /** The track's row is an unpriced line's row of 0. */
  unpriced: boolean;
}

/**
 * What to do to one line so that its live rows equal its target. `rows` are all of the line's rows in
 * the order they were created; `periods` the org's period statuses. Returns nothing to do when the
 * live rows already match, so reconciling twice is harmless.
 */
export function reconcileLine(target: LineTarget, rows: readonly LedgerRow[], periods: PeriodStatuses): LineChanges {
  const locked = rows
    .filter((row) => row.status === 'approved' || row.status === 'paid')
    .reduce((sum, row) => sum + row.amount_cents, 0);
  const unpriced = target.pricing === 'missing_exchange_rate';
  const unpricedStatus: LiveStatus = target.trace.deal?.status === 'open' ? 'projected' : 'pending';
  const tracks: Track[] = [
    {
      status: 'pending',
      amount: unpriced && unpricedStatus === 'pending' ? 0 : target.earned_cents - locked,
      period_id: earliestOpenPeriodFrom(target.period_id, periods),
      locked,
      unpriced: unpriced && unpricedStatus === 'pending',
    },
    {
      status: 'projected',
      amount: unpriced && unpricedStatus === 'projected' ? 0 : target.projected_cents,
      period_id: target.period_id,
      locked: 0,
      unpriced: unpriced && unpricedStatus === 'projected',
    },
  ];
  const retire: RowRetirement[] = [];
  // An unpriced line whose row of 0 was frozen by a lock (and nothing live since) already shows as unpriced.
  const lastLocked = rows.filter((row) => row.status === 'approved' || row.status === 'paid').at(-1);
  const frozenUnpriced = lastLocked?.pricing === 'missing_exchange_rate';
  const decisions = tracks.map((track) => {
    const live = rows.filter((row) => row.status === track.status);
    // A line has one live row per status; older ones can only come from an interrupted write and go.
    for (const stale of live.slice(0, -1)) retire.push({ id: stale.id, status: 'reversed', reason: STALE_ROW });
    const newest = live.at(-1) ?? null;
    const keep =
      (newest === null && track.unpriced && frozenUnpriced) ||
      (newest !== null &&
        newest.amount_cents === track.amount &&
        newest.period_id === track.period_id &&
        (newest.pricing === 'missing_exchange_rate') === track.unpriced);
    const writes = !keep && (track.amount !== 0 || track.unpriced);
    return { track, newest, keep, writes, predecessor: keep ? null : newest };
  });

  // A forecast that becomes an earning (the deal was won), or an earning that goes back to being a
  // forecast (the deal reopened), is the line replacing its row: the new row supersedes the retired row
  // of the other status instead of leaving it reversed.
  for (const decision of decisions) {
    if (!decision.writes || decision.predecessor) continue;
    const other = decisions.find((candidate) => candidate !== decision && !candidate.writes && !candidate.keep);
    if (other?.predecessor) {
      decision.predecessor = other.predecessor;
      other.predecessor = null;
      retire.push({
        id: decision.predecessor.id,
        status: 'superseded',
        reason: replacementReason(target, decision.track.status, decision.predecessor),
      });
    }
  }

  const write: NewEarningRow[] = [];
  for (const { track, writes, predecessor } of decisions) {
    if (predecessor && !retire.some((retirement) => retirement.id === predecessor.id)) {
      retire.push({
        id: predecessor.id,
        status: writes ? 'superseded' : 'reversed',
        reason: writes
          ? replacementReason(target, track.status, predecessor)
          : reversalReason(target, track.status, predecessor),
      });
    }
    if (writes) write.push(newRow(target, track, predecessor, periods));
  }
  return { retire, write };
}

/**
 * Why a line's row is replaced, read off the new target: the deal's status, the step that zeroed the target, or
 * else the amount moved. (A recompute after a plan change knows more than the ledger: see the booking.)
 */
export function replacementReason(
  target: LineTarget,
  status: LiveStatus,
  replaced: Pick<LedgerRow, 'status'>,
): TraceReplacement {
  const deal = target.trace.deal;
  const name = deal ? `Deal ${deal.external_id}` : 'The line';
  if (target.pricing === 'missing_exchange_rate') {
    return {
      code: 'exchange_rate_missing',
      explanation: `${name} is in another currency than the plan and no exchange rate converts it, so the line is unpriced.`,
    };
  }
  if (status === 'pending' && replaced.status === 'projected') {
    return { code: 'deal_won', explanation: `${name} was won, so its forecast became an earning.` };
  }
  const zero = target.trace.steps.find((step) => step.type === 'zero_target');
  // An earning that goes back to a forecast, or a clawback of what a deal open again no longer earns.
  const reopened =
    (status === 'projected' && replaced.status === 'pending') ||
    (status === 'pending' && deal?.status === 'open' && target.earned_cents === 0);
  if (zero?.type === 'zero_target' && zero.reason !== 'deal_open') {
    const byReason = {
      deal_lost: ['deal_lost', `${name} was lost.`],
      deal_deleted: ['deal_deleted', `${name} was deleted.`],
      not_owner: ['owner_changed', `${name} now belongs to another rep.`],
      not_a_report: ['no_longer_a_report', `${name} no longer credits any of the manager's reports.`],
      not_assigned: ['not_assigned', 'The rep is no longer assigned to the plan.'],
      leaver: ['rep_left', "The rep left, and the plan's leaver rule no longer pays this line."],
      not_matching: ['no_longer_matching', `${name} no longer meets the chip's condition.`],
    } as const;
    const [code, explanation] = byReason[zero.reason];
    return { code, explanation };
  }
  if (reopened) return { code: 'deal_reopened', explanation: `${name} is open again, so it has earned nothing now.` };
  return { code: 'amount_changed', explanation: "The line's amount changed." };
}

/** Why a line's live row goes with no successor: its target of that status is now 0. */
function reversalReason(target: LineTarget, status: LiveStatus, reversed: Pick<LedgerRow, 'status'>): TraceReplacement {
  const reason = replacementReason(target, status, reversed);
  if (status !== 'projected' || reason.code !== 'amount_changed') return reason;
  const deal = target.trace.deal;
  if (deal?.status === 'won') {
    return { code: 'deal_won', explanation: `Deal ${deal.external_id} was won, and this line earns nothing on it.` };
  }
  return { code: 'amount_changed', explanation: "The line's forecast is now 0." };
}

function newRow(
  target: LineTarget,
  track: Track,
  replaced: Pick<LedgerRow, 'id' | 'amount_cents' | 'status'> | null,
  periods: PeriodStatuses,
): NewEarningRow {
  const targetCents = track.unpriced
    ? track.locked
    : track.status === 'pending'
      ? target.earned_cents
      : target.projected_cents;
  const money = (cents: bigint) => formatMoney(cents, decimalsOf(target.currency));
  const explanation = [...target.trace.explanation];
  const steps: TraceStep[] = [...target.trace.steps];
  if (track.unpriced) {
    explanation.push(
      track.locked === 0
        ? `This row of ${money(0n)} holds the line's place until the amount can be converted.`
        : `Already approved or paid on this line, ${money(BigInt(track.locked))}, which stands until the amount can be converted; this row of ${money(0n)} holds the line's place.`,
    );
  } else if (track.status === 'pending' && targetCents === 0) {
    // A clawback: what the line has earned now is 0, and the trace says so before the subtraction.
    if (target.trace.deal?.status === 'open') {
      steps.push({ type: 'zero_target', reason: 'deal_open', earned_cents: 0 });
      explanation.push(`Deal ${target.trace.deal.external_id} is open, so it has earned nothing yet.`);
    }
    explanation.push(`Earned now: ${money(0n)}.`);
  }
  // An unpriced row neither claws back nor tops up: its sentence is above.
  if (track.unpriced) {
    if (track.period_id !== target.period_id) {
      explanation.push(
        `Period ${target.period_id} is ${statusOf(periods, target.period_id)}, so this row is booked in ${track.period_id}.`,
      );
    }
  } else if (track.status === 'pending') {
    if (track.period_id !== target.period_id) {
      explanation.push(
        `Period ${target.period_id} is ${statusOf(periods, target.period_id)}, so this row is booked in ${track.period_id}, the earliest open period after it.`,
      );
    }
    const clawback = track.amount < 0 ? ', a clawback' : '';
    explanation.push(
      `Already approved or paid on this line, ${money(BigInt(track.locked))}, so this row is ${money(BigInt(targetCents))} - ${money(BigInt(track.locked))} = ${money(BigInt(track.amount))}${clawback}`,
    );
  } else {
    explanation.push(`Projected while the deal is open, so this row is ${money(BigInt(track.amount))}`);
  }
  const reason = replaced ? replacementReason(target, track.status, replaced) : null;
  if (replaced && reason) {
    explanation.push(reason.explanation, `It replaces row ${replaced.id} of ${money(BigInt(replaced.amount_cents))}.`);
  }
  return {
    status: track.status,
    amount_cents: track.amount,
    period_id: track.period_id,
    supersedes_id: replaced?.id ?? null,
    pricing: track.unpriced ? 'missing_exchange_rate' : 'priced',
    trace: {
      ...target.trace,
      // The period the line was evaluated for, an input of the sum; the row's period_id is where it is booked.
      period: tracePeriod(target.period_id, periods),
      steps: [...steps, { type: 'locked_total', approved_and_paid_cents: track.locked }],
      result: {
        target_cents: targetCents,
        locked_cents: track.locked,
        amount_cents: track.amount,
        status: track.status,
      },
      superseded: replaced && reason ? { id: replaced.id, amount_cents: replaced.amount_cents, reason } : null,
      explanation,
    },
  };
}

export interface StatusChange {
  id: string;
  from: EarningStatus;
  to: EarningStatus;
}

export type PeriodTransition =
  | { ok: true; period_status: PeriodStatus; changes: StatusChange[] }
  | { ok: false; reason: string };

function transition(
  periodId: PeriodId,
  current: PeriodStatus,
  [required, next]: [PeriodStatus, PeriodStatus],
  [from, to]: [EarningStatus, EarningStatus],
  rows: readonly LedgerRow[],
): PeriodTransition {
  if (current !== required) {
    return { ok: false, reason: `period ${periodId} is ${current}; it must be ${required} to become ${next}` };
  }
  const changes = rows
    .filter((row) => row.period_id === periodId && row.status === from)
    .map((row) => ({ id: row.id, from, to }));
  return { ok: true, period_status: next, changes };
}

/** An admin locks an open period: its pending rows become approved and their amounts are frozen. */
export function lockPeriod(periodId: PeriodId, current: PeriodStatus, rows: readonly LedgerRow[]): PeriodTransition {
  return transition(periodId, current, ['open', 'locked'], ['pending', 'approved'], rows);
}

/** An admin marks a locked period paid: its approved rows become paid. */
export function markPeriodPaid(
  periodId: PeriodId,
  current: PeriodStatus,
  rows: readonly LedgerRow[],
): PeriodTransition {
  return transition(periodId, current, ['locked', 'paid'], ['approved', 'paid'], rows);
}

/**
 * An admin reopens a locked period: its approved rows become pending again, so that the ledger books into it once
 * more and a later lock approves it anew.
 */
export function reopenPeriod(periodId: PeriodId, current: PeriodStatus, rows: readonly LedgerRow[]): PeriodTransition {
  return transition(periodId, current, ['locked', 'open'], ['approved', 'pending'], rows);
}

/** Why a reopened period's lines are booked again: what was carried into later periods comes back into it. */
export function periodReopened(periodId: PeriodId): TraceReplacement {
  return {
    code: 'amount_changed',
    explanation: `Period ${periodId} was reopened, so what was booked in a later open period while it was locked comes back into it.`,
  };
}

/**
 * Why an archived plan's projected rows are reversed (in SQL, by `earningsWrites.reverseProjectionsOfRep`): the
 * plan is no longer evaluated, so its forecasts no longer apply; earned rows stay.
 */
export const PLAN_ARCHIVED: TraceReplacement = {
  code: 'plan_archived',
  explanation: 'The plan was archived, so its forecasts no longer apply.',
};

export const CHIP_REMOVED: TraceReplacement = {
  code: 'chip_removed',
  explanation: "The plan's new version no longer has this chip.",
};
