import { createHash } from 'node:crypto';
import { fromUUIDBytes } from 'typeid-js';
import { decimalsOf } from '../currencies.ts';
import type { PeriodId } from '../periods.ts';
import { type AssignmentWindow, assignmentWindows, coveredDays, describeWindows } from './assignments.ts';
import { leaverSentence, leaverWindows, type RepLeaving } from './leavers.ts';
import { lineKeyOf } from './lineKeys.ts';
import { traceSource } from './lineTrace.ts';
import { centsAsNumber, formatMoney, roundHalfAwayFromZero } from './money.ts';
import type { EnginePlanVersion, LineTarget, PlanProblem, Rep, TraceStep } from './types.ts';

// Draws (docs/plan-features.md). A plan's `draw` pays a rep, per period, the difference between the draw and what the
// plan's chips earned the rep in that period (after caps), when that is less. A recoverable draw is an advance:
// the unrecovered balance carries over, and each later period's earnings above its draw pay it back (a
// `draw_recovery` line, negative), so that a period never pays less than its draw, until the balance is 0.
//
// A draw line is a period-level line of the plan: one per rep and period for the advance, one for the recovery.
// Its target depends on the period's total (and, recoverable, on every earlier period's), so the service
// re-derives the lines of a period and of every period after it whenever the total of one of them changes.

/** The draw's two lines carry these chip keys, which no chip of a plan file can have (keys are slugs). */
export const DRAW_CHIP_KEY = '$draw';
export const DRAW_RECOVERY_CHIP_KEY = '$draw-recovery';

export interface DrawRules {
  amount: bigint;
  recoverable: boolean;
  /** `paid: in_advance` (advanceDraws.ts): the whole draw at the period's start, repaid from its earnings. */
  in_advance?: boolean;
}

/** The plan's draw, checked again since it comes back from a JSON column; null when the plan has none. */
export function readPlanDraw(plan: EnginePlanVersion): { draw: DrawRules | null; problems: PlanProblem[] } {
  const draw = plan.draw;
  if (draw === undefined || draw === null) return { draw: null, problems: [] };
  const problems: PlanProblem[] = [];
  if (!Number.isSafeInteger(draw.amount_cents) || draw.amount_cents < 0) {
    problems.push({ path: 'draw.amount_cents', message: 'must be an integer ≥ 0' });
  }
  if (typeof draw.recoverable !== 'boolean') problems.push({ path: 'draw.recoverable', message: 'must be a boolean' });
  const paid = (draw as { paid?: unknown }).paid;
  if (paid !== undefined && paid !== 'at_lock' && paid !== 'in_advance') {
    problems.push({ path: 'draw.paid', message: 'must be at_lock or in_advance' });
  }
  if (problems.length > 0) return { draw: null, problems };
  const rules: DrawRules = { amount: BigInt(draw.amount_cents), recoverable: draw.recoverable };
  return { draw: paid === 'in_advance' ? { ...rules, in_advance: true } : rules, problems };
}

/**
 * The id of one of the draw's chips of a plan: a TypeID made from a digest of the plan id and the key, so that the
 * engine can name it without reading anything, and every evaluation names the same chip.
 */
export function drawChipId(planId: string, key: typeof DRAW_CHIP_KEY | typeof DRAW_RECOVERY_CHIP_KEY): string {
  const bytes = createHash('sha256').update(`${planId}/${key}`).digest().subarray(0, 16);
  bytes[6] = ((bytes[6] ?? 0) & 0x0f) | 0x80; // version 8: custom
  bytes[8] = ((bytes[8] ?? 0) & 0x3f) | 0x80; // RFC 4122 variant
  return fromUUIDBytes('chip', new Uint8Array(bytes)).toString();
}

/** What a rep's period gives the draw: the plan's chips' earned total in it. */
export interface DrawPeriod {
  period_id: PeriodId;
  earned_cents: bigint;
}

/** One period of the draw's arithmetic, as the `draw` trace step shows it. */
export interface DrawOutcome {
  period_id: PeriodId;
  covered: boolean;
  /** The period's draw: the plan's, prorated by the days of the period the rep is assigned. */
  draw: bigint;
  covered_days: number;
  period_days: number;
  earned: bigint;
  opening: bigint;
  advance: bigint;
  recovery: bigint;
  closing: bigint;
}

/** A draw period with the days of it the rep is assigned to the plan (all of them, without dated assignments). */
export interface CoveredDrawPeriod extends DrawPeriod {
  covered_days: number;
  period_days: number;
}

/**
 * The draw over consecutive draw periods of one rep, in period order, from the balance left before the first.
 * A period's draw is the plan's prorated by the days the rep is assigned (amount × covered days / days of the
 * period, rounded half away from zero); advance = max(0, draw − earned); recoverable, recovery = min(opening,
 * max(0, earned − draw)) and the balance closes at opening + advance − recovery. A period the rep is not
 * assigned to at all pays and recovers nothing.
 */
export function settleDraws(
  rules: DrawRules,
  periods: readonly CoveredDrawPeriod[],
  openingBalance: bigint,
): DrawOutcome[] {
  let balance = rules.recoverable ? openingBalance : 0n;
  return periods.map(({ period_id, earned_cents: earned, covered_days, period_days }) => {
    const covered = covered_days > 0;
    const draw =
      covered_days >= period_days
        ? rules.amount
        : roundHalfAwayFromZero(rules.amount * BigInt(covered_days), BigInt(period_days));
    const opening = balance;
    const advance = covered && earned < draw ? draw - earned : 0n;
    const above = earned > draw ? earned - draw : 0n;
    const recovery = covered && rules.recoverable ? (above < opening ? above : opening) : 0n;
    balance = rules.recoverable ? opening + advance - recovery : 0n;
    return {
      period_id,
      covered,
      draw,
      covered_days,
      period_days,
      earned,
      opening,
      advance,
      recovery,
      closing: balance,
    };
  });
}

/** One of the draw's two chips: the line of a period's advance, or of its recovery. */
export interface DrawChip {
  id: string;
  key: typeof DRAW_CHIP_KEY | typeof DRAW_RECOVERY_CHIP_KEY;
  name: string;
  kind: 'draw' | 'draw_recovery';
  /** The plan version's number: the draw changes only with the plan file. */
  version: string;
}

export function drawChip(plan: EnginePlanVersion, recovery: boolean): DrawChip {
  const key = recovery ? DRAW_RECOVERY_CHIP_KEY : DRAW_CHIP_KEY;
  return {
    id: drawChipId(plan.plan_id, key),
    key,
    name: recovery ? 'Draw recovery' : 'Draw',
    kind: recovery ? 'draw_recovery' : 'draw',
    version: String(plan.version_number),
  };
}

function drawStep(rules: DrawRules, outcome: DrawOutcome): TraceStep {
  return {
    type: 'draw',
    draw_cents: centsAsNumber(rules.amount),
    covered_days: outcome.covered_days,
    period_days: outcome.period_days,
    period_draw_cents: centsAsNumber(outcome.draw),
    recoverable: rules.recoverable,
    earned_cents: centsAsNumber(outcome.earned),
    opening_balance_cents: centsAsNumber(outcome.opening),
    advance_cents: centsAsNumber(outcome.advance),
    recovery_cents: centsAsNumber(outcome.recovery),
    closing_balance_cents: centsAsNumber(outcome.closing),
  };
}

function drawSentences(
  plan: EnginePlanVersion,
  rep: Rep,
  rules: DrawRules,
  outcome: DrawOutcome,
  decimals: number,
): string[] {
  const money = (cents: bigint) => formatMoney(cents, decimals);
  const draw = money(outcome.draw);
  const earned = `${rep.external_id} earned ${money(outcome.earned)} under plan ${plan.plan_key} in ${outcome.period_id}`;
  const prorated =
    outcome.covered_days < outcome.period_days
      ? [
          `${rep.external_id} is assigned to plan ${plan.plan_key} for ${outcome.covered_days} of the ${outcome.period_days} days of ${outcome.period_id}, so the draw is prorated: ${money(rules.amount)} × ${outcome.covered_days} / ${outcome.period_days}, rounded half away from zero, is ${draw}.`,
        ]
      : [];
  const sentences = [
    ...prorated,
    outcome.advance > 0n
      ? `${earned}, below the draw of ${draw}, so the draw pays the difference: ${money(outcome.advance)}.`
      : `${earned}, not below the draw of ${draw}, so the draw pays nothing.`,
  ];
  if (!rules.recoverable) {
    sentences.push('The draw is not recoverable: it is never paid back.');
    return sentences;
  }
  const opening = `${money(outcome.opening)} of earlier advances was still to recover before ${outcome.period_id}`;
  sentences.push(
    outcome.recovery > 0n
      ? `The draw is recoverable: ${opening}; earnings above the draw recover ${money(outcome.recovery)}, so ${money(outcome.closing)} is carried to the next period.`
      : `The draw is recoverable: ${opening}; nothing is recovered, so ${money(outcome.closing)} is carried to the next period.`,
  );
  return sentences;
}

/**
 * The rep's windows a draw reads: their assignment to the plan, cut by the plan's leaver rule when they have left
 * (docs/reps-and-payroll.md, "Pay after the leaving date"), so a leaver's draw follows the rule as their deals do.
 */
export function drawWindows(plan: EnginePlanVersion, rep: Rep, leaving?: RepLeaving | null): AssignmentWindow[] {
  return leaverWindows(assignmentWindows(plan, rep.external_id), plan, leaving);
}

/**
 * A period the draw's windows leave out: `leaver` (the rep's assignment covered it, the leaver rule's cut does not),
 * else `not_assigned`, with the sentence its lines' explanation gives.
 */
export function uncoveredDraw(
  plan: EnginePlanVersion,
  rep: Rep,
  periodId: PeriodId,
  leaving?: RepLeaving | null,
): { step: TraceStep; sentence: string } {
  const windows = assignmentWindows(plan, rep.external_id);
  if (leaving && coveredDays(windows, periodId).covered > 0) {
    return {
      step: { type: 'zero_target', reason: 'leaver', earned_cents: 0 },
      sentence: `${leaverSentence(plan, rep.external_id, leaving)} The rule does not reach ${periodId}, so the draw pays and recovers nothing.`,
    };
  }
  return {
    step: { type: 'zero_target', reason: 'not_assigned', earned_cents: 0 },
    sentence: `${rep.external_id} is assigned to plan ${plan.plan_key} ${describeWindows(windows)}, not during ${periodId}, so the draw pays and recovers nothing.`,
  };
}

/**
 * The draw lines of one rep under a plan with a draw, for the given draw periods (ascending, consecutive in the
 * sense that no draw period is left out between them), from the balance left before the first: an advance line
 * per period, and for a recoverable draw a recovery line. `currency`: the one the plan pays in (its own, else the
 * org's default), which the lines carry and their sentences are printed in.
 */
export function drawTargets(
  plan: EnginePlanVersion,
  rep: Rep,
  rules: DrawRules,
  periods: readonly DrawPeriod[],
  openingBalance: bigint,
  currency?: string,
  leaving?: RepLeaving | null,
): LineTarget[] {
  const windows = drawWindows(plan, rep, leaving);
  const outcomes = settleDraws(
    rules,
    periods.map((period) => {
      const { covered, days } = coveredDays(windows, period.period_id);
      return { ...period, covered_days: covered, period_days: days };
    }),
    openingBalance,
  );
  const chips = rules.recoverable ? [drawChip(plan, false), drawChip(plan, true)] : [drawChip(plan, false)];
  const definition = { amount_cents: centsAsNumber(rules.amount), recoverable: rules.recoverable };
  return outcomes.flatMap((outcome) =>
    chips.map((chip): LineTarget => {
      const recovery = chip.kind === 'draw_recovery';
      const amount = recovery ? -outcome.recovery : outcome.advance;
      const uncovered = outcome.covered ? null : uncoveredDraw(plan, rep, outcome.period_id, leaving);
      const steps: TraceStep[] = uncovered === null ? [drawStep(rules, outcome)] : [uncovered.step];
      const explanation =
        uncovered === null
          ? [
              ...(leaving ? [leaverSentence(plan, rep.external_id, leaving)] : []),
              ...drawSentences(plan, rep, rules, outcome, decimalsOf(currency ?? plan.currency)),
            ]
          : [uncovered.sentence];
      const line = {
        user_id: rep.user_id,
        plan_id: plan.plan_id,
        chip_id: chip.id,
        deal_id: null,
        period_id: outcome.period_id,
      };
      return {
        line: { line_key: lineKeyOf(line), ...line },
        plan_version_id: plan.version_id,
        rule_version: chip.version,
        earned_cents: centsAsNumber(amount),
        projected_cents: 0,
        period_id: outcome.period_id,
        trace: {
          ...traceSource(plan, chip, definition),
          deal: null,
          steps,
          explanation,
        },
        ...(currency ? { currency } : {}),
      };
    }),
  );
}

/** The plan chips' earned total of each period: what the draw compares with. */
export function earnedByPeriod(targets: readonly LineTarget[], periods: readonly PeriodId[]): DrawPeriod[] {
  return periods.map((period_id) => ({
    period_id,
    earned_cents: targets
      .filter((target) => target.period_id === period_id)
      .reduce((sum, target) => sum + BigInt(target.earned_cents), 0n),
  }));
}
