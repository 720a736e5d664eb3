import type { components } from '../../../generated/openapi.ts';
import { DEFAULT_CURRENCY, decimalsOf } from '../currencies.ts';
import type { CalendarDate, PeriodId, PeriodKind } from '../periods.ts';
import { type AttainmentRequest, attainmentIn } from './attainment.ts';
import { cashSums } from './cashTerms.ts';
import { formatChipRate, formatMoney, formatRatioAsPercent, rateOfBps } from './money.ts';
import type { RepQuotas } from './quotas.ts';
import type { DealSnapshot, EarningTrace, EnginePlanVersion, LinePricing, TraceStep } from './types.ts';

// A rep's statement for one period (GET /v1/users/{id}/statements/{period_id}), built from the rows booked in
// the period and the rep's deals. Pure: every total is a sum of the rows given, so a statement can never
// disagree with the ledger; the sentences are read off each row's trace.

type Schemas = components['schemas'];
export type Statement = Schemas['Statement'];
export type StatementPlan = Schemas['StatementPlan'];
export type StatementLine = Schemas['StatementLine'];
export type StatementAdjustment = Schemas['StatementAdjustment'];
export type StatusTotals = Schemas['StatusTotals'];
export type Attainment = Schemas['Attainment'];
export type ManualAdjustment = Schemas['Adjustment'];

/** A live or frozen row booked in the statement's period, with its trace. */
export interface StatementRow {
  id: string;
  status: 'projected' | 'pending' | 'approved' | 'paid';
  amount_cents: number;
  deal_id: string | null;
  plan_id: string;
  rule_chip_id: string;
  /** `missing_exchange_rate` for an unpriced line's row of 0 (no rate converts its deal); absent: priced. */
  pricing?: LinePricing;
  trace: EarningTrace;
}

/** A plan as a statement shows it. */
export interface StatementPlanInfo {
  id: string;
  key: string;
  name: string;
  period: PeriodKind;
  quota_cents: number | null;
  /** ISO 4217: the currency the plan pays in (its own, else the org's default); absent: the default currency. */
  currency?: string;
  /** The current version's draw; null when it has none. */
  draw: { amount_cents: number; recoverable: boolean } | null;
  /** `all`, or the current version's assignees (dated ones give the rep's windows); absent: `all`. */
  assignees?: EnginePlanVersion['assignees'];
  /** The current version's ramp; absent or null when it has none. */
  ramp?: readonly number[] | null;
}

export interface StatementRequest {
  user: Statement['user'];
  /** The rep's leaving date when they have left: a statement whose period holds it is marked final. */
  leavingDate?: string | null;
  period: Statement['period'];
  /** The plans to show, in order: those with rows in the period and the active ones that apply to the rep. */
  plans: readonly StatementPlanInfo[];
  /** The rep's rows booked in the period (projected, pending, approved, paid), in the order they were written. */
  rows: readonly StatementRow[];
  /** The rep's deals (owned, and split deals of others that credit it), for attainment. */
  deals: readonly DealSnapshot[];
  /** The org's default currency and exchange rates, which convert deals into plans' currencies for attainment. */
  money?: AttainmentRequest['money'];
  /** The rep's quota table and start date per plan id (quotas.ts); a plan absent here uses its own quota. */
  quotas?: ReadonlyMap<string, RepQuotas>;
  /** Per plan, what the rep's recoverable draw left unrecovered in the periods booked before this one. */
  drawBalances?: ReadonlyMap<string, number>;
  today: CalendarDate;
  /** The rep's manual adjustments paid in the period, oldest first: beside the rows, added to what is payable. */
  manualAdjustments?: readonly ManualAdjustment[];
  /**
   * The plans whose pay waits for the rep to accept them (the org's pay waits for acceptance and the rep has not
   * accepted the latest version asked of them): their payable part is `held_pending_acceptance_cents`.
   */
  heldPlanIds?: ReadonlySet<string>;
  /** The rep's adjustments that count toward attainment (any period; each counts in its own), for attainment. */
  credits?: AttainmentRequest['credits'];
}

const NO_TOTALS: StatusTotals = { projected_cents: 0, pending_cents: 0, approved_cents: 0, paid_cents: 0 };

export function addToTotals(totals: StatusTotals, status: StatementRow['status'], amountCents: number): StatusTotals {
  const key = `${status}_cents` as const;
  return { ...totals, [key]: totals[key] + amountCents };
}

export function payableOf(totals: StatusTotals): number {
  return totals.pending_cents + totals.approved_cents + totals.paid_cents;
}

export function buildStatement(request: StatementRequest): Statement {
  const periodId = request.period.id;
  const plans = request.plans.map((plan) => planPart(plan, request, periodId));
  const manual = request.manualAdjustments ?? [];
  const totals = plans.reduce((sum, plan) => addTotals(sum, plan.totals), NO_TOTALS);
  const currencies = [...new Set([...plans.map((plan) => plan.currency), ...manual.map((each) => each.currency)])];
  const by_currency = currencies.map((currency) => {
    const sum = plans
      .filter((plan) => plan.currency === currency)
      .reduce((acc, plan) => addTotals(acc, plan.totals), NO_TOTALS);
    const adjusted = sumOf(manual.filter((each) => each.currency === currency));
    return { currency, totals: sum, manual_adjustments_cents: adjusted, payable_cents: payableOf(sum) + adjusted };
  });
  const manualCents = sumOf(manual);
  return {
    user: request.user,
    period: request.period,
    plans,
    totals,
    by_currency,
    manual_adjustments: [...manual],
    manual_adjustments_cents: manualCents,
    payable_cents: payableOf(totals) + manualCents,
    held_pending_acceptance_cents: plans
      .filter((plan) => request.heldPlanIds?.has(plan.plan_id) === true)
      .reduce((sum, plan) => sum + plan.payable_cents, 0),
    ...finalMark(request),
    // Pay on cash: what the period's rows hold until the customer pays, and what payments released in it.
    ...cashSums(periodId, request.rows),
  };
}

/** A leaver's final statement: the one whose period holds their leaving date. */
function finalMark(request: StatementRequest): Pick<Statement, 'final'> {
  const leavingDate = request.leavingDate;
  if (!leavingDate) return {};
  const { starts_on, ends_on } = request.period;
  return starts_on <= leavingDate && leavingDate <= ends_on ? { final: { leaving_date: leavingDate } } : {};
}

function sumOf(manual: readonly ManualAdjustment[]): number {
  return manual.reduce((sum, each) => sum + each.amount_cents, 0);
}

function addTotals(a: StatusTotals, b: StatusTotals): StatusTotals {
  return {
    projected_cents: a.projected_cents + b.projected_cents,
    pending_cents: a.pending_cents + b.pending_cents,
    approved_cents: a.approved_cents + b.approved_cents,
    paid_cents: a.paid_cents + b.paid_cents,
  };
}

function planPart(plan: StatementPlanInfo, request: StatementRequest, periodId: PeriodId): StatementPlan {
  const rows = request.rows.filter((row) => row.plan_id === plan.id);
  const decimals = decimalsOf(plan.currency);
  const lines: StatementLine[] = [];
  const adjustments: StatementAdjustment[] = [];
  let totals = NO_TOTALS;
  for (const row of rows) {
    totals = addToTotals(totals, row.status, row.amount_cents);
    const line = statementLine(row, decimals);
    const fromPeriod = row.trace.period.id;
    if (fromPeriod === periodId) lines.push(line);
    else {
      adjustments.push({
        ...line,
        kind: row.amount_cents < 0 ? 'clawback' : 'top_up',
        from_period_id: fromPeriod,
        reason: adjustmentReason(row, decimals),
      });
    }
  }
  return {
    plan_id: plan.id,
    plan_key: plan.key,
    plan_name: plan.name,
    currency: plan.currency ?? DEFAULT_CURRENCY,
    attainment: attainmentOf(plan, request, periodId),
    lines,
    adjustments,
    draw: drawPart(plan, rows, request.drawBalances?.get(plan.id) ?? 0),
    totals,
    payable_cents: payableOf(totals),
  };
}

/**
 * The plan's draw in the period, from the rows booked in it and the balance the earlier periods left:
 * null when the plan has no draw and nothing of a draw is booked or carried.
 */
function drawPart(plan: StatementPlanInfo, rows: readonly StatementRow[], opening: number): StatementPlan['draw'] {
  const booked = rows.filter((row) => row.status !== 'projected');
  const advances = booked.filter((row) => row.trace.chip.kind === 'draw');
  const recoveries = booked.filter((row) => row.trace.chip.kind === 'draw_recovery');
  if (plan.draw === null && advances.length === 0 && recoveries.length === 0 && opening === 0) return null;
  const recoverable = plan.draw?.recoverable ?? advances.some((row) => row.trace.chip.definition.recoverable === true);
  const advance = advances.reduce((sum, row) => sum + row.amount_cents, 0);
  const recovery = -recoveries.reduce((sum, row) => sum + row.amount_cents, 0);
  const recoverableAdvance = advances
    .filter((row) => row.trace.chip.definition.recoverable === true)
    .reduce((sum, row) => sum + row.amount_cents, 0);
  // Paid in advance, a draw that is not recoverable forgives what the earnings leave unrepaid: its repayments are
  // in `recovery_cents`, but it carries no balance.
  const forgiven = recoveries
    .filter((row) => row.trace.chip.definition.recoverable !== true)
    .reduce((sum, row) => sum + row.amount_cents, 0);
  return {
    amount_cents: plan.draw?.amount_cents ?? 0,
    recoverable,
    opening_balance_cents: opening,
    advance_cents: advance,
    recovery_cents: recovery,
    closing_balance_cents: opening + recoverableAdvance - recovery - forgiven,
  };
}

/**
 * The rep's won amount in the period under the plan against its quota, counted as the plan's tiers and attainment
 * bonuses count it (`attainmentIn`): credited parts, in the plan's currency, in the rep's windows, prorated quota.
 */
export function attainmentOf(
  plan: StatementPlanInfo,
  request: Pick<StatementRequest, 'user' | 'deals' | 'today' | 'money' | 'quotas' | 'credits'>,
  periodId: PeriodId,
): Attainment {
  const repQuotas = request.quotas?.get(plan.id);
  const {
    won_cents,
    adjustments_cents,
    quota_cents,
    quota: figure,
  } = attainmentIn({
    plan: { ...plan, assignees: plan.assignees ?? 'all' },
    repExternalId: request.user.external_id,
    deals: request.deals,
    periodId,
    today: request.today,
    ...(request.money ? { money: request.money } : {}),
    ...(repQuotas ? { quotas: repQuotas } : {}),
    ...(request.credits ? { credits: request.credits } : {}),
  });
  const won = Number(won_cents);
  const quota = quota_cents === null ? null : Number(quota_cents);
  return {
    won_cents: won,
    ...(adjustments_cents === null ? {} : { adjustments_cents: Number(adjustments_cents) }),
    quota_cents: quota,
    percent: quota === null || quota === 0 ? null : Math.round((won * 10000) / quota) / 100,
    quota_explanation: figure.quota_cents === null ? null : figure.explanation,
  };
}

function statementLine(row: StatementRow, decimals: number): StatementLine {
  const { trace } = row;
  return {
    earning_id: row.id,
    status: row.status,
    amount_cents: row.amount_cents,
    pricing: row.pricing ?? 'priced',
    deal_id: row.deal_id,
    deal_external_id: trace.deal?.external_id ?? null,
    rule_chip_id: row.rule_chip_id,
    chip_key: trace.chip.key,
    chip_name: trace.chip.name,
    chip_kind: trace.chip.kind,
    explanation: lineSentence(row, decimals),
  };
}

/** Cents as money; a running total past 2^53 − 1 arrives as its exact decimal string. */
function money(decimals: number, cents: number | string): string {
  return formatMoney(BigInt(cents), decimals);
}

function subjectOf(trace: EarningTrace): string {
  return trace.deal
    ? `${trace.chip.name} on deal ${trace.deal.external_id}`
    : `${trace.chip.name} for ${trace.period.id}`;
}

function stepsOf<Type extends TraceStep['type']>(trace: EarningTrace, type: Type) {
  return trace.steps.filter((step): step is Extract<TraceStep, { type: Type }> => step.type === type);
}

/** How the target was reached, as a clause: `10.00% of 60,000.00 = 6,000.00`. */
function computationClause(trace: EarningTrace, decimals: number): string {
  const target = trace.result.target_cents;
  const [rate] = stepsOf(trace, 'rate');
  const tiers = stepsOf(trace, 'tier');
  const [flat] = stepsOf(trace, 'flat');
  const [threshold] = stepsOf(trace, 'threshold');
  const [cumulative] = stepsOf(trace, 'cumulative');
  const [draw] = stepsOf(trace, 'draw');
  if (draw && trace.chip.kind === 'draw_recovery') {
    return `${money(decimals, draw.earned_cents)} earned is ${money(decimals, draw.earned_cents - draw.period_draw_cents)} above the draw of ${money(decimals, draw.period_draw_cents)}, which recovers ${money(decimals, draw.recovery_cents)} of the ${money(decimals, draw.opening_balance_cents)} advanced before, leaving ${money(decimals, draw.closing_balance_cents)} = ${money(decimals, target)}`;
  }
  if (draw) {
    return `the draw of ${money(decimals, draw.period_draw_cents)} less ${money(decimals, draw.earned_cents)} earned = ${money(decimals, target)}`;
  }
  const [advance] = stepsOf(trace, 'draw_advance');
  if (advance) return `the draw of ${money(decimals, advance.period_draw_cents)}, paid in advance`;
  const [settlement] = stepsOf(trace, 'draw_settlement');
  if (settlement) {
    return `${money(decimals, settlement.earned_cents)} earned repays ${money(decimals, settlement.offset_cents)} of the ${money(decimals, settlement.advance_cents)} advance and recovers ${money(decimals, settlement.recovery_cents)} of the ${money(decimals, settlement.opening_balance_cents)} left before = ${money(decimals, target)}`;
  }
  if (tiers.length > 0 && cumulative) {
    return `${tiers.length === 1 ? 'one tier band' : `${tiers.length} tier bands`} over the running total from ${money(decimals, cumulative.prior_won_cents)} to ${money(decimals, cumulative.period_won_cents)} = ${money(decimals, target)}`;
  }
  if (rate)
    return `${formatChipRate(rateOfBps(rate.rate_bps) ?? 0n)} of ${money(decimals, rate.base_cents)} = ${money(decimals, target)}`;
  if (flat) return `a flat ${money(decimals, flat.amount_cents)}`;
  if (threshold) {
    const share = formatRatioAsPercent(BigInt(threshold.attained_cents), BigInt(threshold.quota_cents));
    return `${money(decimals, threshold.attained_cents)} won is ${share} of quota, the threshold of ${threshold.threshold_pct}% is ${threshold.reached ? 'reached' : 'not reached'}, so ${money(decimals, target)}`;
  }
  return `earns ${money(decimals, target)} now`;
}

/** The row in one sentence: what the line earns and, when something was already approved or paid, the difference. */
export function lineSentence(row: Pick<StatementRow, 'status' | 'amount_cents' | 'trace'>, decimals = 2): string {
  const { trace } = row;
  const subject = subjectOf(trace);
  const clause =
    trace.result.target_cents === 0 ? `earns ${money(decimals, 0)} now` : computationClause(trace, decimals);
  const projected = row.status === 'projected' ? ' (projected while the deal is open)' : '';
  if (trace.result.locked_cents === 0) return `${subject}: ${clause}${projected}.`;
  return `${subject}: ${clause}, less ${money(decimals, trace.result.locked_cents)} already approved or paid = ${money(decimals, row.amount_cents)}.`;
}

function becauseOf(trace: EarningTrace): string {
  const deal = trace.deal;
  if (deal && deal.status !== 'won') return `Deal ${deal.external_id} is ${deal.status}, so the line`;
  if (deal) return `Deal ${deal.external_id} changed, so the line`;
  return `The rep's attainment in ${trace.period.id} changed, so the line`;
}

/** Why a row of an earlier period's line is booked here, in one sentence. */
export function adjustmentReason(row: Pick<StatementRow, 'amount_cents' | 'trace'>, decimals = 2): string {
  const { trace } = row;
  const { target_cents, locked_cents } = trace.result;
  const what = row.amount_cents < 0 ? 'is clawed back here' : 'is topped up here';
  return `${becauseOf(trace)} earns ${money(decimals, target_cents)} now against ${money(decimals, locked_cents)} already approved or paid for ${trace.period.id}, which was ${trace.period.status}: ${money(decimals, row.amount_cents)} ${what}.`;
}
