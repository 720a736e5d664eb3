import { calendarDateOfInstant, type PeriodId } from '../periods.ts';
import type { Computation } from './chips.ts';
import type { ConditionOutcome } from './conditions.ts';
import { creditsOf, isSplit } from './credit.ts';
import { centsAsNumber, exactCentsString, formatExactMoney, formatMoney, roundExactCents } from './money.ts';
import type {
  DealSnapshot,
  EngineChip,
  EnginePlanVersion,
  TargetTrace,
  TraceCountedAdjustment,
  TraceCountedDeal,
  TraceStep,
  ZeroTargetReason,
} from './types.ts';

// The trace of a line: what it was computed from, each step, and the sentences that explain it.

export const ENGINE_VERSION = '1.0.0';

export function dealSnapshot(deal: DealSnapshot): DealSnapshot {
  const { id, external_id, amount_cents, stage, close_date, owner_external_id, status, custom, won_at } = deal;
  const snapshot: DealSnapshot = {
    id,
    external_id,
    amount_cents,
    stage,
    close_date,
    owner_external_id,
    status,
    custom,
    won_at,
  };
  if (isSplit(deal)) snapshot.splits = creditsOf(deal);
  if (deal.currency !== undefined) snapshot.currency = deal.currency;
  if (deal.payments !== undefined && deal.payments.length > 0) snapshot.payments = deal.payments;
  return snapshot;
}

/**
 * What a trace names a line's result by: the engine, the plan version, and the chip with its definition as the plan
 * file gives it (`settings`: what the chip's kind reads, beside its key, name and kind).
 */
export function traceSource(
  plan: EnginePlanVersion,
  chip: Pick<TargetTrace['chip'], 'id' | 'key' | 'name' | 'kind' | 'version'>,
  settings: object,
): Pick<TargetTrace, 'engine_version' | 'plan' | 'chip'> {
  return {
    engine_version: ENGINE_VERSION,
    plan: { id: plan.plan_id, key: plan.plan_key, version_id: plan.version_id, version_number: plan.version_number },
    chip: {
      id: chip.id,
      key: chip.key,
      name: chip.name,
      kind: chip.kind,
      version: chip.version,
      definition: { key: chip.key, name: chip.name, kind: chip.kind, ...settings },
    },
  };
}

/** What a plan chip's trace definition has beside its key, name and kind: its parameters and its condition. */
export function chipSettings(chip: EngineChip): object {
  return { ...chip.params, ...(chip.when === null ? {} : { when: chip.when }) };
}

export function traceOf(
  plan: EnginePlanVersion,
  chip: EngineChip,
  deal: DealSnapshot | null,
  steps: TraceStep[],
  explanation: string[],
): TargetTrace {
  return {
    ...traceSource(plan, chip, chipSettings(chip)),
    deal: deal === null ? null : dealSnapshot(deal),
    steps,
    explanation,
  };
}

/** Appends the single rounding of the line to the computation's steps and sentences; returns the target. */
export function roundInto(
  computation: Computation,
  steps: TraceStep[],
  explanation: string[],
  decimals: number,
): bigint {
  const rounded = roundExactCents(computation.exact);
  steps.push(...computation.steps, {
    type: 'rounding',
    exact_cents: exactCentsString(computation.exact),
    rounded_cents: centsAsNumber(rounded),
    rule: 'half away from zero',
  });
  explanation.push(...computation.explanation);
  const parts = computation.addends ?? [];
  explanation.push(
    parts.length > 1
      ? `${parts.map((part) => formatExactMoney(part, decimals)).join(' + ')} = ${formatExactMoney(computation.exact, decimals)}, rounded half away from zero to ${formatMoney(rounded, decimals)}`
      : `${formatExactMoney(computation.exact, decimals)} rounded half away from zero is ${formatMoney(rounded, decimals)}`,
  );
  return rounded;
}

export function conditionSentences(outcome: ConditionOutcome): string[] {
  const verdict = outcome.result ? 'so the chip applies.' : 'so the chip does not apply.';
  const [only, ...others] = outcome.sentences;
  if (only !== undefined && others.length === 0) return [`${only}, ${verdict}`];
  return [
    ...outcome.sentences.map((sentence) => `${sentence}.`),
    `The chip's condition ${outcome.result ? 'holds' : 'does not hold'}, ${verdict}`,
  ];
}

export function whereDealCounts(deal: DealSnapshot, periodId: PeriodId): string {
  const name = `Deal ${deal.external_id}`;
  if (deal.status === 'won') {
    if (deal.close_date !== null)
      return `${name} was won with close date ${deal.close_date}, so it counts in period ${periodId}.`;
    if (deal.won_at !== null) {
      return `${name} was won on ${calendarDateOfInstant(deal.won_at)} and has no close date, so it counts in period ${periodId}.`;
    }
    return `${name} was won but has neither a close date nor a won time, so it counts in the current period, ${periodId}.`;
  }
  if (deal.status === 'open') {
    return deal.close_date !== null
      ? `${name} is open with close date ${deal.close_date}, so it is projected in period ${periodId}.`
      : `${name} is open without a close date, so it is projected in the current period, ${periodId}.`;
  }
  return `${name} is ${deal.status}, so it earns nothing.`;
}

/** The trace step that says a line's target is 0, and why. */
export function zeroTarget(reason: ZeroTargetReason): TraceStep {
  return { type: 'zero_target', reason, earned_cents: 0 };
}

/**
 * The computation with the deals that make up its running total named on its cumulative or threshold step. Every
 * line of a period names the one list, counted once, never copied per line: a period's lines would otherwise
 * hold its deals once each, as many times as it has deals.
 */
export function namingCountedDeals(
  computation: Computation,
  counted: TraceCountedDeal[],
  adjustments: TraceCountedAdjustment[] = [],
): Computation {
  const credited = adjustments.length === 0 ? {} : { counted_adjustments: adjustments };
  return {
    ...computation,
    steps: computation.steps.map((step) =>
      step.type === 'cumulative' || step.type === 'threshold' || step.type === 'deal_count'
        ? { ...step, counted_deals: counted, ...credited }
        : step,
    ),
  };
}
