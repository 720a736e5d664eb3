import { decimalsOf } from '../currencies.ts';
import { type CalendarDate, comparePeriodIds, type PeriodId, periodBounds, periodIdOf } from '../periods.ts';
import { chipDefinitionDigest } from '../plans/digests.ts';
import type { PlanDefinition } from '../plans/types.ts';
import { planDrawTargets } from './advanceDraws.ts';
import type { AttainmentCredit } from './attainmentCredits.ts';
import { dealPeriodId } from './dealPeriods.ts';
import { DRAW_CHIP_KEY, DRAW_RECOVERY_CHIP_KEY, drawChipId, earnedByPeriod, readPlanDraw } from './draws.ts';
import type { RepHierarchy } from './hierarchy.ts';
import { planYearOf } from './planYear.ts';
import { creditedAmountOf, type OrgMoney, pricingOf } from './pricing.ts';
import { quotaForPeriod, type RepQuotas } from './quotas.ts';
import { evaluateLines } from './targets.ts';
import type { DealSnapshot, EnginePlanVersion, LineTarget, PlanProblem, Rep } from './types.ts';

// Plan scenarios (docs/scenarios.md): what a draft plan version would have paid over a span of closed history,
// rep by rep and period by period, beside what was actually paid. Pure: the caller reads the history (deals,
// quotas, hierarchy, rates, the standing earnings rows) and stores the results. The scenario's lines are the
// engine's own (evaluateLines), so a line here is exactly what applying the plan would book for it.

/** A span of history: its first and last month or quarter, inclusive. */
export interface ScenarioSpan {
  from: PeriodId;
  to: PeriodId;
}

/** The plan periods (of `kind`) that lie wholly inside the span, in order. */
export function periodsInSpan(span: ScenarioSpan, kind: EnginePlanVersion['period']): PeriodId[] {
  const starts = periodBounds(span.from).starts_on;
  const ends = periodBounds(span.to).ends_on;
  const periods: PeriodId[] = [];
  let day = starts;
  for (let periodId = periodIdOf(day, kind); ; ) {
    const bounds = periodBounds(periodId);
    if (bounds.starts_on > ends) break;
    if (bounds.starts_on >= starts && bounds.ends_on <= ends) periods.push(periodId);
    day = nextDay(bounds.ends_on);
    periodId = periodIdOf(day, kind);
  }
  return periods;
}

function nextDay(date: CalendarDate): CalendarDate {
  const next = new Date(`${date}T00:00:00Z`);
  next.setUTCDate(next.getUTCDate() + 1);
  return next.toISOString().slice(0, 10);
}

/** The chip ids and versions an apply of the draft would give: an existing plan's chips keep theirs by key. */
export interface DraftIdentity {
  plan_id: string;
  version_id: string;
  version_number: number;
  /** The existing plan's latest chips by key, with their definition digests; empty for a new plan. */
  chips: ReadonlyMap<string, { id: string; version: number; definition_digest: string }>;
  /** The id a chip new to the plan gets (the scenario's own, since apply would mint one). */
  newChipId: (key: string) => string;
}

/** The draft plan file's definition as the engine would read the version that applying it stores. */
export function draftEnginePlan(definition: PlanDefinition, identity: DraftIdentity): EnginePlanVersion {
  return {
    plan_id: identity.plan_id,
    plan_key: definition.key,
    version_id: identity.version_id,
    version_number: identity.version_number,
    period: definition.period,
    quota_cents: definition.quota_cents,
    plan_year: definition.plan_year ?? null,
    assignees: definition.assignees,
    ramp: definition.ramp ?? null,
    leaver_rule: definition.leaver_rule ?? null,
    cap_cents: definition.cap_cents ?? null,
    currency: definition.currency ?? null,
    draw: definition.draw ?? null,
    chips: definition.chips.map((chip) => {
      const before = identity.chips.get(chip.key);
      const digest = chipDefinitionDigest(definition, chip);
      const version = !before ? 1 : before.definition_digest === digest ? before.version : before.version + 1;
      return { ...chip, id: before?.id ?? identity.newChipId(chip.key), version: String(version) };
    }),
  };
}

/** A standing earnings row of the rep (pending, approved or paid), as actually paid. */
export interface ActualRow {
  period_id: PeriodId;
  chip_key: string;
  amount_cents: number;
}

export interface ScenarioRepInput {
  plan: EnginePlanVersion;
  rep: Rep;
  /** The rep's deals, and for override chips those of the rep's reports (as a recompute reads them). */
  deals: readonly DealSnapshot[];
  span: ScenarioSpan;
  today: CalendarDate;
  hierarchy?: RepHierarchy;
  money?: OrgMoney;
  quotas?: RepQuotas;
  credits?: readonly AttainmentCredit[];
  /** What was actually paid: the rep's standing rows of the compared plan(s) in the span. */
  actual: readonly ActualRow[];
  /**
   * A recoverable draw's balance still to recover before the span, as the ledger holds it for the plan (0 for a new
   * plan or without a draw), in the plan's currency's minor units.
   */
  drawOpeningCents?: number;
}

export interface ScenarioPeriod {
  period_id: PeriodId;
  actual_cents: number;
  scenario_cents: number;
  difference_cents: number;
  /** The rep's credited part of the deals won in the period, in the plan's currency. */
  booked_cents: number;
  quota_cents: number | null;
  /** booked ÷ quota in basis points; null without a quota. */
  attainment_bps: number | null;
}

export interface ScenarioChip {
  chip_key: string;
  actual_cents: number;
  scenario_cents: number;
  difference_cents: number;
}

export interface ScenarioRep {
  user_id: string;
  user_external_id: string;
  actual_cents: number;
  scenario_cents: number;
  difference_cents: number;
  booked_cents: number;
  /** booked over the span ÷ the span's quotas, in basis points; null without a quota. */
  attainment_bps: number | null;
  periods: ScenarioPeriod[];
  /** The chips whose pay moved, largest move first: what made the difference. */
  chips: ScenarioChip[];
  /** The scenario's lines that earn something, by line key, for the trace. */
  lines: Array<{ line_key: string; chip_key: string; period_id: PeriodId; deal_id: string | null; cents: number }>;
  problems: PlanProblem[];
}

/** The engine's evaluation of the draft for one rep over the span: the lines applying the plan would book. */
export function scenarioTargets(input: Omit<ScenarioRepInput, 'actual'>): {
  targets: LineTarget[];
  problems: PlanProblem[];
  periods: PeriodId[];
} {
  const periods = periodsInSpan(input.span, input.plan.period);
  const inSpan = new Set(periods);
  // Whole periods only, so tiers and attainment count every deal of each period evaluated; in a plan year, whole
  // years, since a month's tiers count the year to date.
  const planYear = input.plan.plan_year && input.plan.period === 'monthly' ? input.plan.plan_year : null;
  const counted = new Set(planYear ? periods.flatMap((periodId) => planYearOf(planYear, periodId).months) : periods);
  const deals = input.deals.filter((deal) => counted.has(dealPeriodId(deal, input.plan.period, input.today)));
  const evaluation = evaluateLines({
    plan: input.plan,
    rep: input.rep,
    deals,
    periods,
    today: input.today,
    ...(input.hierarchy ? { hierarchy: input.hierarchy } : {}),
    ...(input.money ? { money: input.money } : {}),
    ...(input.quotas ? { quotas: input.quotas } : {}),
    ...(input.credits ? { credits: input.credits } : {}),
  });
  const targets = evaluation.targets.filter((target) => inSpan.has(target.period_id));
  // The draw is settled over every period of the span, as the lock of each would settle it: what the chips earned
  // in the period against the draw, the balance carried from one period to the next.
  const { draw } = readPlanDraw(input.plan);
  if (draw !== null && periods.length > 0) {
    const currency = input.plan.currency ?? input.money?.default_currency;
    targets.push(
      ...planDrawTargets(
        input.plan,
        input.rep,
        draw,
        earnedByPeriod(targets, periods),
        BigInt(input.drawOpeningCents ?? 0),
        currency,
      ),
    );
  }
  return { targets, problems: evaluation.problems, periods };
}

/** The chip keys of a plan's lines by chip id: its chips' and, with a draw, the draw's two. */
function chipKeysOf(plan: EnginePlanVersion): Map<string, string> {
  const keys = new Map(plan.chips.map((chip) => [chip.id, chip.key]));
  keys.set(drawChipId(plan.plan_id, DRAW_CHIP_KEY), DRAW_CHIP_KEY);
  keys.set(drawChipId(plan.plan_id, DRAW_RECOVERY_CHIP_KEY), DRAW_RECOVERY_CHIP_KEY);
  return keys;
}

/** One rep's scenario beside what was actually paid, per period and per chip. */
export function scenarioOfRep(input: ScenarioRepInput): ScenarioRep {
  const { plan, rep, today } = input;
  const { targets, problems, periods } = scenarioTargets(input);
  const inSpan = new Set(periods);
  const chipKey = chipKeysOf(plan);
  const pricing = pricingOf(plan, input.money, today);
  const decimals = decimalsOf(pricing.plan_currency);
  const byPeriod = new Map<PeriodId, { actual: number; scenario: number; booked: number }>(
    periods.map((periodId) => [periodId, { actual: 0, scenario: 0, booked: 0 }]),
  );
  const byChip = new Map<string, { actual: number; scenario: number }>();
  const chip = (key: string) => {
    const found = byChip.get(key) ?? { actual: 0, scenario: 0 };
    byChip.set(key, found);
    return found;
  };
  const lines: ScenarioRep['lines'] = [];
  for (const target of targets) {
    const cents = target.earned_cents;
    if (cents === 0) continue;
    const key = chipKey.get(target.line.chip_id) ?? target.line.chip_id;
    (byPeriod.get(target.period_id) as { scenario: number }).scenario += cents;
    chip(key).scenario += cents;
    lines.push({
      line_key: target.line.line_key,
      chip_key: key,
      period_id: target.period_id,
      deal_id: target.line.deal_id,
      cents,
    });
  }
  for (const row of input.actual) {
    const period = byPeriod.get(row.period_id);
    if (!period) continue;
    period.actual += row.amount_cents;
    chip(row.chip_key).actual += row.amount_cents;
  }
  for (const deal of input.deals) {
    if (deal.status !== 'won') continue;
    const periodId = dealPeriodId(deal, plan.period, today);
    if (!inSpan.has(periodId)) continue;
    const credited = creditedAmountOf(deal, rep.external_id, pricing);
    if (credited !== null) (byPeriod.get(periodId) as { booked: number }).booked += Number(credited);
  }
  let quotaTotal = 0;
  let quotaKnown = periods.length > 0;
  const periodRows = periods.map((periodId): ScenarioPeriod => {
    const figures = byPeriod.get(periodId) as { actual: number; scenario: number; booked: number };
    const quota = quotaForPeriod(plan, input.quotas, periodId, decimals).quota_cents;
    if (quota === null) quotaKnown = false;
    else quotaTotal += quota;
    return {
      period_id: periodId,
      actual_cents: figures.actual,
      scenario_cents: figures.scenario,
      difference_cents: figures.scenario - figures.actual,
      booked_cents: figures.booked,
      quota_cents: quota,
      attainment_bps: ratioBps(figures.booked, quota),
    };
  });
  const sum = (pick: (period: ScenarioPeriod) => number) => periodRows.reduce((total, p) => total + pick(p), 0);
  const booked = sum((p) => p.booked_cents);
  const actual = sum((p) => p.actual_cents);
  const scenario = sum((p) => p.scenario_cents);
  const chips = [...byChip]
    .map(([key, figures]) => ({
      chip_key: key,
      actual_cents: figures.actual,
      scenario_cents: figures.scenario,
      difference_cents: figures.scenario - figures.actual,
    }))
    .filter((moved) => moved.difference_cents !== 0)
    .sort((a, b) => Math.abs(b.difference_cents) - Math.abs(a.difference_cents) || (a.chip_key < b.chip_key ? -1 : 1));
  return {
    user_id: rep.user_id,
    user_external_id: rep.external_id,
    actual_cents: actual,
    scenario_cents: scenario,
    difference_cents: scenario - actual,
    booked_cents: booked,
    attainment_bps: quotaKnown ? ratioBps(booked, quotaTotal) : null,
    periods: periodRows,
    chips,
    lines,
    problems,
  };
}

/** a ÷ b in basis points, rounded half away from zero; null when b is null or zero. */
function ratioBps(a: number, b: number | null): number | null {
  if (b === null || b === 0) return null;
  const bps = (a * 10_000) / b;
  return Math.sign(bps) * Math.round(Math.abs(bps));
}

export interface ScenarioSummary {
  reps: number;
  actual_cents: number;
  scenario_cents: number;
  difference_cents: number;
  booked_cents: number;
  /** Pay ÷ booked amount, in basis points; null with nothing booked. */
  actual_cost_of_sales_bps: number | null;
  scenario_cost_of_sales_bps: number | null;
  /** Totals by period, in order. */
  periods: Array<{
    period_id: PeriodId;
    actual_cents: number;
    scenario_cents: number;
    difference_cents: number;
    booked_cents: number;
  }>;
  distribution: {
    better_off: number;
    worse_off: number;
    unchanged: number;
    /** Sum of the gains of the reps better off, and of the losses (negative) of those worse off. */
    gained_cents: number;
    lost_cents: number;
    largest_gain: { user_external_id: string; difference_cents: number } | null;
    largest_loss: { user_external_id: string; difference_cents: number } | null;
    /** The reps by how much their pay moved, in percent of what they were paid. */
    bands: Array<{ band: ScenarioBand; reps: number }>;
  };
}

export type ScenarioBand =
  | 'down_more_than_20_pct'
  | 'down_5_to_20_pct'
  | 'within_5_pct'
  | 'up_5_to_20_pct'
  | 'up_more_than_20_pct';

const BANDS: readonly ScenarioBand[] = [
  'down_more_than_20_pct',
  'down_5_to_20_pct',
  'within_5_pct',
  'up_5_to_20_pct',
  'up_more_than_20_pct',
];

/** The band of a rep's move: by difference ÷ actual; a rep paid nothing before who would be paid is up > 20 %. */
export function bandOf(rep: Pick<ScenarioRep, 'actual_cents' | 'difference_cents'>): ScenarioBand {
  if (rep.difference_cents === 0) return 'within_5_pct';
  if (rep.actual_cents <= 0) return rep.difference_cents > 0 ? 'up_more_than_20_pct' : 'down_more_than_20_pct';
  const pct = (rep.difference_cents * 100) / rep.actual_cents;
  if (pct < -20) return 'down_more_than_20_pct';
  if (pct < -5) return 'down_5_to_20_pct';
  if (pct <= 5) return 'within_5_pct';
  if (pct <= 20) return 'up_5_to_20_pct';
  return 'up_more_than_20_pct';
}

/** Totals, cost of sales and the distribution of reps better and worse off, from the reps' results. */
export function summariseScenario(reps: readonly ScenarioRep[]): ScenarioSummary {
  const periods = new Map<PeriodId, ScenarioSummary['periods'][number]>();
  for (const rep of reps) {
    for (const period of rep.periods) {
      const total = periods.get(period.period_id) ?? {
        period_id: period.period_id,
        actual_cents: 0,
        scenario_cents: 0,
        difference_cents: 0,
        booked_cents: 0,
      };
      total.actual_cents += period.actual_cents;
      total.scenario_cents += period.scenario_cents;
      total.difference_cents += period.difference_cents;
      total.booked_cents += period.booked_cents;
      periods.set(period.period_id, total);
    }
  }
  const sum = (pick: (rep: ScenarioRep) => number) => reps.reduce((total, rep) => total + pick(rep), 0);
  const actual = sum((rep) => rep.actual_cents);
  const scenario = sum((rep) => rep.scenario_cents);
  const booked = sum((rep) => rep.booked_cents);
  const better = reps.filter((rep) => rep.difference_cents > 0);
  const worse = reps.filter((rep) => rep.difference_cents < 0);
  const extreme = (list: readonly ScenarioRep[], pick: (a: number, b: number) => boolean) =>
    list.reduce<ScenarioRep | null>(
      (best, rep) =>
        best === null ||
        pick(rep.difference_cents, best.difference_cents) ||
        (rep.difference_cents === best.difference_cents && rep.user_external_id < best.user_external_id)
          ? rep
          : best,
      null,
    );
  const gain = extreme(better, (a, b) => a > b);
  const loss = extreme(worse, (a, b) => a < b);
  return {
    reps: reps.length,
    actual_cents: actual,
    scenario_cents: scenario,
    difference_cents: scenario - actual,
    booked_cents: booked,
    actual_cost_of_sales_bps: ratioBps(actual, booked),
    scenario_cost_of_sales_bps: ratioBps(scenario, booked),
    periods: [...periods.values()].sort((a, b) => comparePeriodIds(a.period_id, b.period_id)),
    distribution: {
      better_off: better.length,
      worse_off: worse.length,
      unchanged: reps.length - better.length - worse.length,
      gained_cents: better.reduce((total, rep) => total + rep.difference_cents, 0),
      lost_cents: worse.reduce((total, rep) => total + rep.difference_cents, 0),
      largest_gain: gain && { user_external_id: gain.user_external_id, difference_cents: gain.difference_cents },
      largest_loss: loss && { user_external_id: loss.user_external_id, difference_cents: loss.difference_cents },
      bands: BANDS.map((band) => ({ band, reps: reps.filter((rep) => bandOf(rep) === band).length })),
    },
  };
}

export interface ComparedPeriod {
  period_id: PeriodId;
  a_cents: number;
  b_cents: number;
  difference_cents: number;
}

export interface ScenarioComparison {
  a_cents: number;
  b_cents: number;
  difference_cents: number;
  periods: ComparedPeriod[];
  reps: Array<{
    user_external_id: string;
    a_cents: number;
    b_cents: number;
    difference_cents: number;
    periods: ComparedPeriod[];
  }>;
}

/**
 * Two scenarios side by side, per rep and period: what A pays beside what B pays (B − A). A rep or a period in one
 * of them only counts 0 in the other.
 */
export function compareScenarios(
  a: readonly Pick<ScenarioRep, 'user_external_id' | 'periods'>[],
  b: readonly Pick<ScenarioRep, 'user_external_id' | 'periods'>[],
): ScenarioComparison {
  const byRep = new Map<string, Map<PeriodId, ComparedPeriod>>();
  const add = (reps: typeof a, side: 'a_cents' | 'b_cents') => {
    for (const rep of reps) {
      const periods = byRep.get(rep.user_external_id) ?? new Map<PeriodId, ComparedPeriod>();
      byRep.set(rep.user_external_id, periods);
      for (const period of rep.periods) {
        const row = periods.get(period.period_id) ?? {
          period_id: period.period_id,
          a_cents: 0,
          b_cents: 0,
          difference_cents: 0,
        };
        row[side] += period.scenario_cents;
        row.difference_cents = row.b_cents - row.a_cents;
        periods.set(period.period_id, row);
      }
    }
  };
  add(a, 'a_cents');
  add(b, 'b_cents');
  const totals = new Map<PeriodId, ComparedPeriod>();
  const reps = [...byRep]
    .sort(([x], [y]) => (x < y ? -1 : x > y ? 1 : 0))
    .map(([external, periods]) => {
      const rows = [...periods.values()].sort((x, y) => comparePeriodIds(x.period_id, y.period_id));
      for (const row of rows) {
        const total = totals.get(row.period_id) ?? {
          period_id: row.period_id,
          a_cents: 0,
          b_cents: 0,
          difference_cents: 0,
        };
        total.a_cents += row.a_cents;
        total.b_cents += row.b_cents;
        total.difference_cents = total.b_cents - total.a_cents;
        totals.set(row.period_id, total);
      }
      const aCents = rows.reduce((sum, row) => sum + row.a_cents, 0);
      const bCents = rows.reduce((sum, row) => sum + row.b_cents, 0);
      return {
        user_external_id: external,
        a_cents: aCents,
        b_cents: bCents,
        difference_cents: bCents - aCents,
        periods: rows,
      };
    });
  const aTotal = reps.reduce((sum, rep) => sum + rep.a_cents, 0);
  const bTotal = reps.reduce((sum, rep) => sum + rep.b_cents, 0);
  return {
    a_cents: aTotal,
    b_cents: bTotal,
    difference_cents: bTotal - aTotal,
    periods: [...totals.values()].sort((x, y) => comparePeriodIds(x.period_id, y.period_id)),
    reps,
  };
}
