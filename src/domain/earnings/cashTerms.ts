import { decimalsOf } from '../currencies.ts';
import { comparePeriodIds, type PeriodId, type PeriodKind, periodIdOf } from '../periods.ts';
import type { CashRelease } from '../plans/types.ts';
import { lineKeyOf } from './lineKeys.ts';
import { centsAsNumber, formatMoney, roundHalfAwayFromZero } from './money.ts';
import type { DealSnapshot, EnginePlanVersion, LineTarget, TraceStep } from './types.ts';

// Pay on cash (docs/plan-features.md, "Pay on cash"). A chip with `payable_on: cash` holds `held_pct` percent of each
// deal line's commission C (after the chip's and the plan's caps): H = C × held_pct / 100, rounded half away from zero.
// The deal's line earns C − H in the deal's period, as any line does. The customer's payments (recorded against the deal,
// on the deal snapshot as `payments`) release H: for each plan period P a payment arrives in, the deal has a release
// line of its own (key `plan:chip:user:deal:P`) that earns R(P) − R(the period before), where R(P) is what the
// payments received up to the end of P release in all. So a release is booked in the period the money arrives (the
// ledger moves it to the earliest open period after it when that period is closed), never earlier than the deal's own
// period, and each release line depends only on its deal: evaluating a deal again gives the same lines whatever order
// its payments and events came in. A deal that stops earning (lost, reopened, another owner) has C = 0, so its
// release lines are clawed back with its line.

export type DealPayment = NonNullable<DealSnapshot['payments']>[number];

export interface CashTerms {
  held_pct: number;
  release: CashRelease;
}

const RELEASES: readonly CashRelease[] = ['pro_rata', 'first_payment', 'full_payment'];

/** The chip's cash terms when it is paid on cash and they are well formed; null for a chip paid on booking. */
export function cashTermsOf(params: Record<string, unknown>): CashTerms | null {
  if (params.payable_on !== 'cash') return null;
  const cash = (params.cash ?? {}) as Record<string, unknown>;
  const held = cash.held_pct ?? 100;
  const release = cash.release ?? 'pro_rata';
  if (typeof held !== 'number' || !Number.isInteger(held) || held < 1 || held > 100) return null;
  if (!RELEASES.includes(release as CashRelease)) return null;
  return { held_pct: held, release: release as CashRelease };
}

/** What the plan file's `payable_on` and `cash` say wrong, by path; none when they are well formed or absent. */
export function cashTermProblems(params: Record<string, unknown>, path: string): { path: string; message: string }[] {
  const { payable_on: payableOn, cash } = params;
  if (payableOn === undefined || payableOn === 'booking') {
    return cash === undefined ? [] : [{ path: `${path}.cash`, message: 'applies only with payable_on: cash' }];
  }
  if (payableOn !== 'cash') return [{ path: `${path}.payable_on`, message: 'must be booking or cash' }];
  if (cashTermsOf(params) === null) {
    return [
      {
        path: `${path}.cash`,
        message: 'held_pct must be a whole number 1 to 100; release pro_rata, first_payment or full_payment',
      },
    ];
  }
  return [];
}

/** What the payments received up to the end of each period release in all, by period, in period order. */
export function releasesThrough(
  held: bigint,
  terms: CashTerms,
  dealAmount: bigint,
  payments: readonly { period_id: PeriodId; amount_cents: bigint }[],
): { period_id: PeriodId; collected: bigint; released_through: bigint }[] {
  const periods = [...new Set(payments.map((payment) => payment.period_id))].sort(comparePeriodIds);
  return periods.map((periodId) => {
    const collected = payments
      .filter((payment) => comparePeriodIds(payment.period_id, periodId) <= 0)
      .reduce((sum, payment) => sum + payment.amount_cents, 0n);
    return { period_id: periodId, collected, released_through: releasedBy(held, terms, dealAmount, collected) };
  });
}

/**
 * What `collected` of the deal's amount releases of `held` in all. A deal without a positive amount cannot be paid in
 * part: its first payment releases everything, whatever the rule.
 */
export function releasedBy(held: bigint, terms: CashTerms, dealAmount: bigint, collected: bigint): bigint {
  if (collected <= 0n) return 0n;
  if (dealAmount <= 0n || terms.release === 'first_payment') return held;
  if (terms.release === 'full_payment') return collected >= dealAmount ? held : 0n;
  const paid = collected < dealAmount ? collected : dealAmount;
  return roundHalfAwayFromZero(held * paid, dealAmount);
}

function paymentOnWire(payment: DealPayment): DealPayment {
  return {
    id: payment.id,
    external_id: payment.external_id,
    amount_cents: payment.amount_cents,
    received_on: payment.received_on,
    ...(payment.voided === true ? { voided: true } : {}),
  };
}

/**
 * The targets with the lines of chips paid on cash split: each deal line earns what is payable on booking and says
 * what it holds (a `cash_hold` step), and a release line per period the deal's payments arrive in earns what they
 * release (a `cash_release` step). Targets of other chips pass through unchanged.
 */
export function withCashTerms(plan: EnginePlanVersion, targets: readonly LineTarget[]): LineTarget[] {
  const terms = new Map(plan.chips.map((chip) => [chip.id, cashTermsOf({ ...chip.params })]));
  if (![...terms.values()].some((term) => term !== null)) return [...targets];
  return targets.flatMap((target) => {
    const chipTerms = terms.get(target.line.chip_id) ?? null;
    const deal = target.trace.deal;
    if (chipTerms === null || deal === null || target.line.deal_id === null) return [target];
    return splitLine(plan.period, target, deal, chipTerms);
  });
}

function splitLine(kind: PeriodKind, target: LineTarget, deal: DealSnapshot, terms: CashTerms): LineTarget[] {
  const money = (cents: bigint) => formatMoney(cents, decimalsOf(target.currency));
  const commission = BigInt(target.earned_cents);
  const held = roundHalfAwayFromZero(commission * BigInt(terms.held_pct), 100n);
  const payable = commission - held;
  const payments = [...(deal.payments ?? [])].sort((a, b) =>
    a.received_on < b.received_on ? -1 : a.received_on > b.received_on ? 1 : a.id < b.id ? -1 : 1,
  );
  // Release lines are keyed by the period each payment was received in, so that a deal's lines are the same set
  // whatever its close date; a payment received before the deal's period is booked in the deal's period, since nothing
  // is paid before it is earned.
  const placed = payments.map((payment) => ({
    payment,
    period_id: periodIdOf(payment.received_on, kind),
    // A voided payment counts as nothing but keeps its period's release line, which then takes back what it released.
    amount_cents: payment.voided === true ? 0n : BigInt(payment.amount_cents),
  }));
  const bookedIn = (periodId: PeriodId) =>
    comparePeriodIds(periodId, target.period_id) < 0 ? target.period_id : periodId;
  const dealAmount = BigInt(deal.amount_cents ?? 0);
  const releases = releasesThrough(held, terms, dealAmount, placed);
  const released = releases.at(-1)?.released_through ?? 0n;
  const hold: TraceStep = {
    type: 'cash_hold',
    commission_cents: centsAsNumber(commission),
    held_pct: terms.held_pct,
    held_cents: centsAsNumber(held),
    payable_cents: centsAsNumber(payable),
    release: terms.release,
    released_cents: centsAsNumber(released),
    still_held_cents: centsAsNumber(held - released),
  };
  const releaseRule = {
    pro_rata: "in proportion to what the customer's payments pay of the deal's amount",
    first_payment: "all at once on the customer's first payment",
    full_payment: "all at once when the customer's payments reach the deal's amount",
  }[terms.release];
  const holdSentence = `The chip is paid on cash: ${terms.held_pct}% of the commission of ${money(commission)}, ${money(held)} rounded half away from zero, is held until the customer pays, released ${releaseRule}.`;
  const main: LineTarget = {
    ...target,
    earned_cents: centsAsNumber(payable),
    trace: {
      ...target.trace,
      steps: [...target.trace.steps, hold],
      explanation: [
        ...target.trace.explanation,
        holdSentence,
        `Payable on booking: ${money(commission)} - ${money(held)} = ${money(payable)}; the payments so far released ${money(released)}, so ${money(held - released)} is still held.`,
      ],
    },
  };
  let before = 0n;
  const lines = releases.map(({ period_id, collected, released_through }) => {
    const amount = released_through - before;
    const counted = placed
      .filter((entry) => comparePeriodIds(entry.period_id, period_id) <= 0)
      .map((entry) => paymentOnWire(entry.payment));
    const step: TraceStep = {
      type: 'cash_release',
      period_id,
      release: terms.release,
      held_cents: centsAsNumber(held),
      deal_amount_cents: centsAsNumber(dealAmount),
      collected_cents: centsAsNumber(collected),
      payments: counted,
      released_through_cents: centsAsNumber(released_through),
      released_before_cents: centsAsNumber(before),
      released_cents: centsAsNumber(amount),
    };
    const early =
      bookedIn(period_id) === period_id
        ? []
        : [`${period_id} is before the deal's period, so this release is booked in ${bookedIn(period_id)}.`];
    const explanation = [
      holdSentence,
      `Up to the end of ${period_id} the customer paid ${money(collected)} of the deal's ${money(dealAmount)} (deal currency), which releases ${money(released_through)} in all; earlier periods released ${money(before)}, so ${period_id} releases ${money(released_through)} - ${money(before)} = ${money(amount)}.`,
      ...early,
    ];
    before = released_through;
    const ref = { ...target.line, period_id };
    const line: LineTarget = {
      ...target,
      line: { ...ref, line_key: lineKeyOf(ref) },
      earned_cents: centsAsNumber(amount),
      projected_cents: 0,
      period_id: bookedIn(period_id),
      trace: { ...target.trace, steps: [hold, step], explanation },
    };
    return line;
  });
  return [main, ...lines];
}

/**
 * What a statement shows of pay on cash: what the commissions booked for its period held back until the customer pays
 * (the `held_cents` of the `cash_hold` step of each deal line evaluated for the period, release lines aside: a figure
 * that payments do not change, since they pay it out in the periods they arrive in) and what releases the period pays
 * (the rows with a `cash_release` step). Absent members when no row of the period is paid on cash.
 */
export function cashSums(
  periodId: PeriodId,
  rows: readonly { status: string; amount_cents: number; trace: { period?: { id: string }; steps: TraceStep[] } }[],
): { held_until_paid_cents?: number; released_on_payment_cents?: number } {
  let held: number | null = null;
  let released: number | null = null;
  for (const row of rows) {
    if (row.status === 'projected') continue;
    const release = row.trace.steps.some((step) => step.type === 'cash_release');
    if (release) {
      released = (released ?? 0) + row.amount_cents;
      continue;
    }
    const hold = row.trace.steps.find((step) => step.type === 'cash_hold');
    if (hold?.type === 'cash_hold' && row.trace.period?.id === periodId) held = (held ?? 0) + hold.held_cents;
  }
  return {
    ...(held === null ? {} : { held_until_paid_cents: held }),
    ...(released === null ? {} : { released_on_payment_cents: released }),
  };
}
