import { decimalsOf } from '../currencies.ts';
import type { PeriodId } from '../periods.ts';
import { coveredDays } from './assignments.ts';
import {
  type DrawChip,
  type DrawPeriod,
  type DrawRules,
  drawChip,
  drawTargets,
  drawWindows,
  uncoveredDraw,
} from './draws.ts';
import { leaverSentence, type RepLeaving } from './leavers.ts';
import { lineKeyOf } from './lineKeys.ts';
import { traceSource } from './lineTrace.ts';
import { centsAsNumber, formatMoney, roundHalfAwayFromZero } from './money.ts';
import type { EnginePlanVersion, LineTarget, Rep, TraceStep } from './types.ts';

// A draw paid in advance (docs/plan-features.md, "A draw paid in advance"). The whole draw of a period is paid at
// its start, before anything is earned; when the period is settled, its earnings first repay that advance, then
// (recoverable) the balance earlier periods left; what is left over is paid. Per period the rep is paid, in all,
// what a draw settled at the lock pays (max(draw, earned) less the recovery of earlier shortfalls), only earlier:
// `settleAdvanceDraws` and `settleDraws` give the same net per period and the same closing balance.

/** One period as the advance draw sees it: the chips' earned total and the days the rep is assigned. */
export interface AdvancePeriod {
  period_id: string;
  earned: bigint;
  covered_days: number;
  period_days: number;
}

/** One period of an advance draw: the advance paid at its start and what its settlement nets against it. */
export interface AdvanceOutcome {
  period_id: string;
  /** The period's draw, prorated by the days of it the rep is assigned: paid in full at the period's start. */
  advance: bigint;
  earned: bigint;
  /** What the period's earnings repay of this period's own advance: min(earned, advance). */
  offset: bigint;
  /** The unrepaid balance of earlier periods before this one (0 for a draw that is not recoverable). */
  opening: bigint;
  /** What the earnings above the advance repay of that balance (recoverable only). */
  recovery: bigint;
  /** The balance carried on: opening + (advance − offset) − recovery; 0 when not recoverable. */
  closing: bigint;
  /** What the period pays in all: advance + earned − offset − recovery. */
  net: bigint;
}

/**
 * The advance draw over consecutive periods of one rep, in order, from the balance left before the first. A period
 * the rep is not assigned to at all pays no advance and recovers nothing (its earnings, if any, are paid as earned).
 */
export function settleAdvanceDraws(
  rules: DrawRules,
  periods: readonly AdvancePeriod[],
  openingBalance: bigint,
): AdvanceOutcome[] {
  let balance = rules.recoverable ? openingBalance : 0n;
  return periods.map(({ period_id, earned, covered_days, period_days }) => {
    const covered = covered_days > 0;
    const advance = !covered
      ? 0n
      : covered_days >= period_days
        ? rules.amount
        : roundHalfAwayFromZero(rules.amount * BigInt(covered_days), BigInt(period_days));
    // Negative earnings (a clawback larger than the period's deals) repay nothing and add to the balance, as a draw
    // settled at the lock advances draw − earned.
    const offset = !covered ? 0n : earned < advance ? earned : advance;
    const above = earned - offset;
    const opening = balance;
    const recovery = covered && rules.recoverable ? (above < opening ? above : opening) : 0n;
    balance = rules.recoverable ? opening + (advance - offset) - recovery : 0n;
    const net = advance + earned - offset - recovery;
    return { period_id, advance, earned, offset, opening, recovery, closing: balance, net };
  });
}

/** The sentences of one settled period, for the trace of its lines. */
export function advanceSentences(
  outcome: AdvanceOutcome,
  rules: DrawRules,
  money: (cents: bigint) => string,
): string[] {
  const lines = [
    `The draw of ${money(outcome.advance)} is paid in advance at the start of ${outcome.period_id}.`,
    `${outcome.period_id} earned ${money(outcome.earned)}; the first ${money(outcome.offset)} of it repays the advance.`,
  ];
  if (rules.recoverable) {
    lines.push(
      `${money(outcome.opening)} of earlier advances was still to recover; earnings above the advance recover ${money(outcome.recovery)}, so ${money(outcome.closing)} is carried to the next period.`,
    );
  } else {
    lines.push('The draw is not recoverable: what the earnings leave unrepaid is never paid back.');
  }
  lines.push(`In all ${outcome.period_id} pays ${money(outcome.net)}.`);
  return lines;
}

/**
 * The draw lines of one rep for settled periods, whichever way the plan pays its draw: at the lock (draws.ts) or in
 * advance. In advance, each period has a `draw` line earning the whole advance and a `draw_recovery` line earning
 * −(offset + recovery), so the period nets what `settleAdvanceDraws` pays.
 */
export function planDrawTargets(
  plan: EnginePlanVersion,
  rep: Rep,
  rules: DrawRules,
  periods: readonly DrawPeriod[],
  openingBalance: bigint,
  currency?: string,
  leaving?: RepLeaving | null,
): LineTarget[] {
  if (!rules.in_advance) return drawTargets(plan, rep, rules, periods, openingBalance, currency, leaving);
  const windows = drawWindows(plan, rep, leaving);
  const covered = periods.map((period) => {
    const { covered: days, days: periodDays } = coveredDays(windows, period.period_id);
    return { period_id: period.period_id, earned: period.earned_cents, covered_days: days, period_days: periodDays };
  });
  const outcomes = settleAdvanceDraws(rules, covered, openingBalance);
  const decimals = decimalsOf(currency ?? plan.currency);
  const money = (cents: bigint) => formatMoney(cents, decimals);
  return outcomes.flatMap((outcome, index) => {
    const days = covered[index] ?? { covered_days: 0, period_days: 1 };
    const advance = advanceLine(plan, rep, rules, outcome.period_id, days, currency, leaving);
    const recoveryChip = drawChip(plan, true);
    const uncovered = days.covered_days === 0 ? uncoveredDraw(plan, rep, outcome.period_id, leaving) : null;
    const steps: TraceStep[] = uncovered
      ? [uncovered.step]
      : [
          {
            type: 'draw_settlement',
            draw_cents: centsAsNumber(rules.amount),
            advance_cents: centsAsNumber(outcome.advance),
            recoverable: rules.recoverable,
            earned_cents: centsAsNumber(outcome.earned),
            offset_cents: centsAsNumber(outcome.offset),
            opening_balance_cents: centsAsNumber(outcome.opening),
            recovery_cents: centsAsNumber(outcome.recovery),
            closing_balance_cents: centsAsNumber(outcome.closing),
            net_cents: centsAsNumber(outcome.net),
          },
        ];
    const explanation = uncovered
      ? [uncovered.sentence]
      : [
          ...(leaving ? [leaverSentence(plan, rep.external_id, leaving)] : []),
          ...advanceSentences(outcome, rules, money),
        ];
    return [
      advance,
      drawLine(
        plan,
        rep,
        rules,
        recoveryChip,
        outcome.period_id,
        -(outcome.offset + outcome.recovery),
        steps,
        explanation,
        currency,
      ),
    ];
  });
}

/**
 * The `draw` line of a period of a draw paid in advance: the whole draw, prorated by the days of the period the rep
 * is assigned, whatever the period earns. It depends on the plan and the rep's assignment only, so it is booked when
 * the period before it is locked (at the period's start) and is unchanged when the period itself is settled.
 */
export function advanceDrawTarget(
  plan: EnginePlanVersion,
  rep: Rep,
  rules: DrawRules,
  periodId: PeriodId,
  currency?: string,
  leaving?: RepLeaving | null,
): LineTarget {
  const { covered, days } = coveredDays(drawWindows(plan, rep, leaving), periodId);
  return advanceLine(plan, rep, rules, periodId, { covered_days: covered, period_days: days }, currency, leaving);
}

function advanceLine(
  plan: EnginePlanVersion,
  rep: Rep,
  rules: DrawRules,
  periodId: PeriodId,
  days: { covered_days: number; period_days: number },
  currency?: string,
  leaving?: RepLeaving | null,
): LineTarget {
  const money = (cents: bigint) => formatMoney(cents, decimalsOf(currency ?? plan.currency));
  const { covered_days, period_days } = days;
  const advance =
    covered_days === 0
      ? 0n
      : covered_days >= period_days
        ? rules.amount
        : roundHalfAwayFromZero(rules.amount * BigInt(covered_days), BigInt(period_days));
  if (covered_days === 0) {
    const uncovered = uncoveredDraw(plan, rep, periodId, leaving);
    return drawLine(
      plan,
      rep,
      rules,
      drawChip(plan, false),
      periodId,
      0n,
      [uncovered.step],
      [uncovered.sentence],
      currency,
    );
  }
  const step: TraceStep = {
    type: 'draw_advance',
    draw_cents: centsAsNumber(rules.amount),
    covered_days,
    period_days,
    period_draw_cents: centsAsNumber(advance),
    recoverable: rules.recoverable,
  };
  const explanation = [
    ...(leaving ? [leaverSentence(plan, rep.external_id, leaving)] : []),
    ...(covered_days < period_days
      ? [
          `${rep.external_id} is assigned to plan ${plan.plan_key} for ${covered_days} of the ${period_days} days of ${periodId}, so the draw is prorated: ${money(rules.amount)} × ${covered_days} / ${period_days}, rounded half away from zero, is ${money(advance)}.`,
        ]
      : []),
    `The draw of ${money(advance)} is paid in advance at the start of ${periodId}; the period's earnings repay it when ${periodId} is locked.`,
  ];
  return drawLine(plan, rep, rules, drawChip(plan, false), periodId, advance, [step], explanation, currency);
}

function drawLine(
  plan: EnginePlanVersion,
  rep: Rep,
  rules: DrawRules,
  chip: DrawChip,
  periodId: PeriodId,
  amount: bigint,
  steps: TraceStep[],
  explanation: string[],
  currency?: string,
): LineTarget {
  const definition = { amount_cents: centsAsNumber(rules.amount), recoverable: rules.recoverable, paid: 'in_advance' };
  const line = { user_id: rep.user_id, plan_id: plan.plan_id, chip_id: chip.id, deal_id: null, period_id: periodId };
  return {
    line: { line_key: lineKeyOf(line), ...line },
    plan_version_id: plan.version_id,
    rule_version: chip.version,
    earned_cents: centsAsNumber(amount),
    projected_cents: 0,
    period_id: periodId,
    trace: { ...traceSource(plan, chip, definition), deal: null, steps, explanation },
    ...(currency ? { currency } : {}),
  };
}
