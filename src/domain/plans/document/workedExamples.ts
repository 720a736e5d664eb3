import { decimalsOf } from '../../currencies.ts';
import { planDrawTargets } from '../../earnings/advanceDraws.ts';
import { earnedByPeriod, readPlanDraw } from '../../earnings/draws.ts';
import { repHierarchyOf } from '../../earnings/hierarchy.ts';
import { formatMoney } from '../../earnings/money.ts';
import { evaluateLines } from '../../earnings/targets.ts';
import type { DealSnapshot, EngineChip, EnginePlanVersion, LineTarget, Rep } from '../../earnings/types.ts';
import { type PeriodId, periodBounds } from '../../periods.ts';
import type { Condition, PlanDefinition, Tier } from '../types.ts';
import { fieldsFor, type SampleFields, withFields } from './sampleDeals.ts';

// Worked examples of a plan: sample deals made from the plan's own conditions, tiers and caps, run through the pure
// engine (the same `evaluateLines` and draw arithmetic that pay reps), so every figure in a plan document is one the
// engine computed. Nothing here is written by hand but the choice of deals.

/** The sample rep the examples are about, and the other people some examples need. */
export const SAMPLE_REP = 'you';
export const SAMPLE_COLLEAGUE = 'colleague';
export const SAMPLE_REPORT = 'your-report';

export interface ExampleDeal {
  external_id: string;
  /** The deal's owner: the sample rep, or the report of an override example. */
  owner_external_id: string;
  amount_cents: number;
  close_date: string;
  stage: string;
  custom: Record<string, unknown>;
  /** A split deal's shares; null when the owner is credited alone. */
  splits: Array<{ owner_external_id: string; share_bps: number }> | null;
}

export interface ExampleLine {
  chip_key: string;
  chip_name: string;
  /** The deal of a deal-level line; null for a period-level line (attainment bonus, draw). */
  deal_external_id: string | null;
  amount_cents: number;
  /** The engine's own explanation of the amount, sentence by sentence. */
  explanation: string[];
}

export interface WorkedExample {
  key: string;
  title: string;
  /** What the example shows, in a sentence. */
  description: string;
  period_id: PeriodId;
  deals: ExampleDeal[];
  /** Every line that pays something (non-zero), deal lines in deal order then period lines. */
  lines: ExampleLine[];
  /** The chips that paid nothing in the example, by name. */
  silent_chips: string[];
  total_cents: number;
  /** The manager's hierarchy the example assumes: `report` reports to the sample rep. */
  reports: string[];
}

export interface ExampleSettings {
  /** The rep's quota for the period the examples take place in (the plan's quota unless a quota source says else). */
  quota_cents: number | null;
  /** The period the examples take place in. */
  period_id: PeriodId;
  /** The stage a won deal has in the org (the stage CRM events send). */
  won_stage: string;
}

const DEFAULT_UNIT_CENTS = 10_000_000;
const MAX_WALK_DEALS = 6;

function tierBoundCents(tier: Tier, quota: number | null): number | null {
  if ('up_to_cents' in tier) return tier.up_to_cents;
  // A band in deals has no bound in money: the running total of the sample deals does not cross it.
  if ('up_to_deals' in tier) return null;
  if (tier.up_to_pct === null || quota === null) return null;
  return Math.round((quota * tier.up_to_pct) / 100);
}

/** Amounts look like a person chose them: whole hundreds, or whole thousands from 10,000 on. */
function roundAmount(cents: number): number {
  const step = cents >= 1_000_000 ? 100_000 : cents >= 10_000 ? 10_000 : 100;
  return Math.max(step, Math.round(cents / step) * step);
}

/** The running totals where something changes: tier bounds and attainment thresholds, in cents, ascending. */
function thresholds(plan: PlanDefinition, quota: number | null): number[] {
  const found = new Set<number>();
  for (const chip of plan.chips) {
    if (chip.kind === 'tiered_commission') {
      for (const tier of chip.params.tiers) {
        const bound = tierBoundCents(tier, quota);
        if (bound !== null && bound > 0) found.add(bound);
      }
    }
    if (chip.kind === 'attainment_bonus' && quota !== null) {
      found.add(Math.round((quota * chip.params.threshold_pct) / 100));
    }
  }
  return [...found].sort((a, b) => a - b);
}

/** Deal amounts whose running total starts below the first threshold and ends past the last one. */
function walkAmounts(plan: PlanDefinition, quota: number | null): number[] {
  const marks = thresholds(plan, quota);
  const unit = quota ?? marks.at(-1) ?? DEFAULT_UNIT_CENTS;
  if (marks.length === 0) return [roundAmount(unit * 0.3), roundAmount(unit * 0.5)];
  const targets = [(marks[0] as number) * 0.6];
  marks.forEach((mark, index) => {
    const next = marks[index + 1];
    targets.push(next === undefined ? mark * 1.25 : (mark + next) / 2);
  });
  const amounts: number[] = [];
  let total = 0;
  for (const target of targets.slice(0, MAX_WALK_DEALS)) {
    const amount = roundAmount(target - total);
    amounts.push(amount);
    total += amount;
  }
  return amounts;
}

/** A deal amount large enough to reach every cap of the plan. */
function amountPastCaps(plan: PlanDefinition, quota: number | null): number | null {
  const needs: number[] = [];
  const capNeed = (cap: number | undefined, rateBps: number) => {
    if (cap !== undefined && rateBps > 0) needs.push((cap * 10_000) / rateBps);
  };
  for (const chip of plan.chips) {
    if (chip.kind === 'commission' || chip.kind === 'override') {
      capNeed(chip.params.deal_cap_cents, chip.params.rate_bps);
      capNeed(chip.params.cap_cents, chip.params.rate_bps);
    }
    if (chip.kind === 'tiered_commission') {
      const top = Math.max(...chip.params.tiers.map((tier) => ('rate_bps' in tier ? tier.rate_bps : 0)));
      const last = chip.params.tiers.at(-2);
      const below = last === undefined ? 0 : (tierBoundCents(last, quota) ?? 0);
      for (const cap of [chip.params.deal_cap_cents, chip.params.cap_cents]) {
        if (cap !== undefined && top > 0) needs.push(below + (cap * 10_000) / top);
      }
    }
  }
  if (plan.cap_cents !== undefined) {
    const rates = plan.chips.flatMap((chip) =>
      chip.kind === 'commission' || chip.kind === 'override' ? [chip.params.rate_bps] : [],
    );
    const rate = rates.reduce((sum, bps) => sum + bps, 0);
    if (rate > 0) needs.push((plan.cap_cents * 10_000) / rate);
  }
  if (needs.length === 0) return null;
  return roundAmount(Math.max(...needs) * 1.5);
}

function conditionsOf(plan: PlanDefinition): Condition[] {
  return plan.chips.flatMap((chip) => (chip.when === null ? [] : [chip.when]));
}

/** The plan as the engine runs it, for a sample rep covered by it all period. */
function enginePlan(plan: PlanDefinition, quota: number | null): EnginePlanVersion {
  return {
    plan_id: 'plan_example',
    plan_key: plan.key,
    version_id: 'planversion_example',
    version_number: 1,
    period: plan.period,
    quota_cents: quota,
    assignees: 'all',
    cap_cents: plan.cap_cents ?? null,
    currency: plan.currency ?? null,
    draw: plan.draw ?? null,
    chips: plan.chips.map((chip, index): EngineChip => ({ ...chip, id: `chip_example${index}`, version: '1' })),
  };
}

function closeDates(periodId: PeriodId, count: number): string[] {
  const { starts_on, ends_on } = periodBounds(periodId);
  const start = Date.parse(`${starts_on}T00:00:00Z`);
  const days = Math.round((Date.parse(`${ends_on}T00:00:00Z`) - start) / 86_400_000) + 1;
  return Array.from({ length: count }, (_, index) =>
    new Date(start + Math.floor(((index + 1) * days) / (count + 1)) * 86_400_000).toISOString().slice(0, 10),
  );
}

interface Scenario {
  key: string;
  title: string;
  description: string;
  deals: Array<{ amount_cents: number; fields: SampleFields; owner?: string; splits?: ExampleDeal['splits'] }>;
  reports?: string[];
}

function snapshotOf(deal: ExampleDeal, index: number): DealSnapshot {
  return {
    id: `deal_example${index}`,
    external_id: deal.external_id,
    amount_cents: deal.amount_cents,
    stage: deal.stage,
    close_date: deal.close_date,
    owner_external_id: deal.owner_external_id,
    status: 'won',
    custom: deal.custom,
    won_at: `${deal.close_date}T12:00:00.000Z`,
    splits: deal.splits,
  };
}

function run(plan: PlanDefinition, settings: ExampleSettings, scenario: Scenario): WorkedExample {
  const engine = enginePlan(plan, settings.quota_cents);
  const dates = closeDates(settings.period_id, scenario.deals.length);
  const deals = scenario.deals.map((sample, index): ExampleDeal => {
    const base = snapshotOf(
      {
        external_id: `${scenario.key}-${index + 1}`,
        owner_external_id: sample.owner ?? SAMPLE_REP,
        amount_cents: sample.amount_cents,
        close_date: dates[index] as string,
        stage: settings.won_stage,
        custom: {},
        splits: sample.splits ?? null,
      },
      index,
    );
    const deal = withFields(base, sample.fields);
    return {
      external_id: deal.external_id,
      owner_external_id: deal.owner_external_id as string,
      amount_cents: deal.amount_cents as number,
      close_date: deal.close_date as string,
      stage: deal.stage as string,
      custom: deal.custom,
      splits: deal.splits ?? null,
    };
  });
  const rep: Rep = { user_id: 'user_example', external_id: SAMPLE_REP };
  const reports = scenario.reports ?? [];
  const hierarchy = repHierarchyOf(
    reports.map((report) => ({ rep_external_id: report, manager_external_id: SAMPLE_REP, from: '0001-01-01' })),
  );
  const { starts_on, ends_on } = periodBounds(settings.period_id);
  const evaluation = evaluateLines({
    plan: engine,
    rep,
    deals: deals.map(snapshotOf),
    periods: [settings.period_id],
    hierarchy,
    today: ends_on < starts_on ? starts_on : ends_on,
  });
  const targets: LineTarget[] = [...evaluation.targets];
  const draw = readPlanDraw(engine).draw;
  if (draw !== null) {
    targets.push(
      ...planDrawTargets(
        engine,
        rep,
        draw,
        earnedByPeriod(evaluation.targets, [settings.period_id]),
        0n,
        plan.currency,
      ),
    );
  }
  const chipsById = new Map(engine.chips.map((chip) => [chip.id, chip]));
  const dealsById = new Map(deals.map((deal, index) => [`deal_example${index}`, deal]));
  const lines = targets
    .filter((target) => target.earned_cents !== 0)
    .map(
      (target): ExampleLine => ({
        chip_key: target.trace.chip.key,
        chip_name: chipsById.get(target.line.chip_id)?.name ?? drawLineName(target.trace.chip.key),
        deal_external_id:
          target.line.deal_id === null ? null : (dealsById.get(target.line.deal_id)?.external_id ?? null),
        amount_cents: target.earned_cents,
        explanation: target.trace.explanation,
      }),
    );
  const paying = new Set(lines.map((line) => line.chip_key));
  return {
    key: scenario.key,
    title: scenario.title,
    description: scenario.description,
    period_id: settings.period_id,
    deals,
    // Deal by deal (period lines last), each deal's lines in the plan's chip order, as the engine gave them.
    lines: [...deals.map((deal) => deal.external_id), null].flatMap((external) =>
      lines.filter((line) => line.deal_external_id === external),
    ),
    silent_chips: plan.chips.filter((chip) => !paying.has(chip.key)).map((chip) => chip.name),
    total_cents: lines.reduce((sum, line) => sum + line.amount_cents, 0),
    reports,
  };
}

function drawLineName(key: string): string {
  return key === '$draw-recovery' ? 'Draw recovery' : 'Draw';
}

/**
 * The worked examples of a plan: a period whose deals walk through every tier and threshold; a deal outside the
 * chips' conditions; a deal large enough for the caps; a quiet period against the draw; a split deal; a report's
 * deal for an override. Each only when the plan has what it shows.
 */
export function workedExamples(plan: PlanDefinition, settings: ExampleSettings): WorkedExample[] {
  const quota = settings.quota_cents;
  const base = snapshotOf(
    {
      external_id: 'sample',
      owner_external_id: SAMPLE_REP,
      amount_cents: quota ?? DEFAULT_UNIT_CENTS,
      close_date: periodBounds(settings.period_id).starts_on,
      stage: settings.won_stage,
      custom: {},
      splits: null,
    },
    0,
  );
  const conditions = conditionsOf(plan);
  const meeting = fieldsFor(conditions, true, base);
  const dealChips = plan.chips.filter((chip) => chip.kind !== 'attainment_bonus' && chip.kind !== 'override');
  const unit = quota ?? thresholds(plan, quota).at(-1) ?? DEFAULT_UNIT_CENTS;
  const money = (cents: number) => formatMoney(BigInt(cents), decimalsOf(plan.currency));
  const scenarios: Scenario[] = [];

  if (dealChips.length > 0 || plan.chips.some((chip) => chip.kind === 'attainment_bonus')) {
    const amounts = walkAmounts(plan, quota);
    const marks = thresholds(plan, quota);
    scenarios.push({
      key: 'period',
      title: 'A period of won deals',
      description:
        marks.length > 0
          ? `You win ${amounts.length} deals in one period, adding up to ${money(amounts.reduce((a, b) => a + b, 0))}: the running total passes ${marks.map(money).join(', ')}, where the plan's rates or bonuses change.`
          : `You win ${amounts.length} deals in one period.`,
      deals: amounts.map((amount_cents) => ({ amount_cents, fields: meeting })),
    });
  }
  if (conditions.length > 0 && dealChips.length > 0) {
    const failing = fieldsFor(conditions, false, base);
    scenarios.push({
      key: 'outside',
      title: 'A deal outside the conditions',
      description: 'One deal that does not meet the chips’ conditions: only what applies to every deal pays.',
      deals: [{ amount_cents: roundAmount(unit * 0.4), fields: failing }],
    });
  }
  const large = amountPastCaps(plan, quota);
  if (large !== null) {
    scenarios.push({
      key: 'capped',
      title: 'A very large deal',
      description: `One deal of ${money(large)}, large enough for the plan's caps to take effect.`,
      deals: [{ amount_cents: large, fields: meeting }],
    });
  }
  if (plan.draw !== undefined && plan.draw.amount_cents > 0) {
    scenarios.push({
      key: 'quiet',
      title: 'A quiet period',
      description: `One small deal: the plan's earnings fall short of the draw of ${money(plan.draw.amount_cents)}${plan.draw.paid === 'in_advance' ? ': the draw is paid in advance, and the earnings repay what they can of it when the period is locked.' : ', and the draw makes up the difference when the period is locked.'}`,
      deals: [{ amount_cents: roundAmount(unit * 0.1), fields: meeting }],
    });
  }
  if (dealChips.length > 0) {
    scenarios.push({
      key: 'split',
      title: 'A split deal',
      description: 'One deal shared with a colleague, 60% to you and 40% to them: you are paid on your part.',
      deals: [
        {
          amount_cents: roundAmount(unit * 0.5),
          fields: meeting,
          splits: [
            { owner_external_id: SAMPLE_REP, share_bps: 6000 },
            { owner_external_id: SAMPLE_COLLEAGUE, share_bps: 4000 },
          ],
        },
      ],
    });
  }
  if (plan.chips.some((chip) => chip.kind === 'override')) {
    scenarios.push({
      key: 'override',
      title: 'A deal of your report',
      description: 'Someone who reports to you wins a deal: the override pays you on it.',
      deals: [{ amount_cents: roundAmount(unit * 0.5), fields: meeting, owner: SAMPLE_REPORT }],
      reports: [SAMPLE_REPORT],
    });
  }
  return scenarios.map((scenario) => run(plan, settings, scenario));
}
