import type { DrawRules } from './draws.ts';
import { roundHalfAwayFromZero } from './money.ts';

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
