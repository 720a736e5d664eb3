import { formatMinorUnits } from '../currencies.ts';
import type { CalendarDate } from '../periods.ts';
import {
  addMonths,
  addMonthsToDate,
  daysOfMonthWithin,
  type Month,
  monthIndex,
  monthOf,
  monthOfIndex,
} from './months.ts';
import type { AccountingPolicy, GlAccounts } from './policy.ts';

// The amortisation schedule of one capitalisable earning line (docs/accounting.md, Schedules), a pure function
// of the line's history and the policy it was capitalised under. Amounts are integer minor units of the book's
// currency (bigint inside, so products never round). The rules:
// - Each event lands in its own month, or in the first month that was still open when Quotient learnt of it:
//   a closed month never changes.
// - The first amount starts the schedule. A benefit period of at most the practical expedient's months is
//   expensed at once, then and for every later change; otherwise the amount is capitalised.
// - Straight line: when the balance is (re)planned in month t, each month m from t to the last month of the
//   benefit period gets floor(balance × weight(m) ÷ total weight) and the last month gets what remains, so the
//   schedule always sums to what was capitalised. A weight is 1 a month (monthly proration) or the month's days
//   within the period (daily). The first plan also weighs t with the months of the period before t (catch-up).
// - A later amount (a clawback, a top-up, a superseded row) is a true-up of the asset in the month it lands, and
//   a term change (an extension) moves the last month; either re-plans the balance from that month. A balance
//   a clawback takes below zero reverses that much expense at once.
// - An impairment (the deal lost or churned after the fact) expenses the whole balance; later changes of an
//   impaired asset are impaired in the month they land. A contract that ended by the month of the first amount
//   leaves no asset (ASC 340-40-35-3): every amount of the line is expensed when incurred.

export interface AccountingClose {
  month: Month;
  /** ISO instant: from then on, events of this month or earlier land in the next open month. */
  closed_at: string;
}

export type AssetChange =
  | { kind: 'amount'; amount_minor: number }
  | { kind: 'term'; contract_months: number }
  | { kind: 'impair'; reason: string };

export interface AssetEvent {
  /** The month the change belongs to by its own date. */
  effective_month: Month;
  /** ISO instant when Quotient learnt of it: decides whether its month was already closed. */
  recorded_at: string;
  /** What a person can look up: `earning ern_… approved`, `deal event dev_…`. */
  source: string;
  change: AssetChange;
  /** How an amount in another currency was converted into the book's: the rate, its day, the original amount. */
  conversion?: string;
}

/** What names an earning line in the books: its key, deal, rep, plan and chip. */
export interface AssetIdentity {
  /** The earning line's key: one schedule per line. */
  asset_id: string;
  deal_id: string | null;
  deal_external_id: string | null;
  user_external_id: string;
  plan_key: string;
  chip_key: string;
}

export interface AssetInput extends AssetIdentity {
  /** The contract start (the deal's close date); the first day of the first amount's month when unknown. */
  contract_start: CalendarDate | null;
  events: readonly AssetEvent[];
}

export interface ScheduleMonth {
  month: Month;
  opening_minor: number;
  /** Capitalised in the month: the first amount, then true-ups (negative for a clawback). */
  additions_minor: number;
  /** Negative when a clawback took the balance below zero (a reversal of expense). */
  amortisation_minor: number;
  impairment_minor: number;
  /** Expensed at once under the practical expedient (never on the balance). */
  expensed_minor: number;
  closing_minor: number;
  /** Sentences from which a person can recompute the month's figures. */
  trace: string[];
}

export interface Schedule extends AssetIdentity {
  currency: string;
  treatment: 'capitalised' | 'expensed';
  /** The sum of every month's additions (or expensed amounts): what the schedule sums to. */
  capitalised_minor: number;
  contract_months: number;
  benefit_months: number;
  benefit_start: CalendarDate;
  benefit_last_month: Month;
  gl_accounts: GlAccounts;
  months: ScheduleMonth[];
}

/** The month an event lands in: its own, or the first month still open when it was recorded. */
export function landingMonth(
  event: Pick<AssetEvent, 'effective_month' | 'recorded_at'>,
  closes: readonly AccountingClose[],
): Month {
  let lastClosed: Month | null = null;
  for (const close of closes) {
    if (close.closed_at <= event.recorded_at && (lastClosed === null || close.month > lastClosed))
      lastClosed = close.month;
  }
  const firstOpen = lastClosed === null ? null : addMonths(lastClosed, 1);
  return firstOpen !== null && firstOpen > event.effective_month ? firstOpen : event.effective_month;
}

interface Plan {
  base: bigint;
  totalWeight: bigint;
  firstMonth: Month;
  firstWeight: bigint;
}

/** The line's schedule, or null while nothing has been capitalised (no amount yet, or amounts netting to none). */
export function buildSchedule(
  input: AssetInput,
  policy: AccountingPolicy,
  closes: readonly AccountingClose[],
): Schedule | null {
  const landed = input.events
    .map((event, order) => ({ ...event, month: landingMonth(event, closes), order }))
    .sort((a, b) => monthIndex(a.month) - monthIndex(b.month) || a.order - b.order);
  const first = landed.find((event) => event.change.kind === 'amount' && event.change.amount_minor !== 0);
  if (!first) return null;
  const startMonth = first.month;
  // Term changes and impairments known before the first amount take effect with it; `landed` keeps the month each
  // landed in, so that only a closed month is called one.
  const events = landed.map((event) => ({ ...event, landed: event.month, month: maxMonth(event.month, startMonth) }));
  const lastEventMonth = events[events.length - 1]?.month ?? startMonth;
  const money = (amount: bigint) => formatMinorUnits(amount, policy.currency);
  const renewal = policy.benefit_period.anticipated_renewal_months;
  const benefitStart = input.contract_start ?? `${startMonth}-01`;

  let contractMonths = policy.benefit_period.default_months;
  let term = benefitTerm(benefitStart, contractMonths + renewal, policy.amortisation.proration);
  let expensed = false;
  let impaired = false;
  let plan: Plan | null = null;
  let planned = false;
  let balance = 0n;
  let capitalised = 0n;
  const months: ScheduleMonth[] = [];

  for (let index = monthIndex(startMonth); ; index++) {
    const month = monthOfIndex(index);
    if (month > lastEventMonth && balance === 0n) break;
    const own = events.filter((event) => event.month === month);
    const trace: string[] = [];
    const opening = balance;
    let additions = 0n;
    let replan = false;
    let impairNow = false;
    let endedBy: string | null = null;
    for (const event of own) {
      const change = event.change;
      if (change.kind === 'amount') {
        if (change.amount_minor === 0) continue;
        additions += BigInt(change.amount_minor);
        const what =
          month === startMonth && additions === BigInt(change.amount_minor) ? 'Capitalisable amount' : 'True-up';
        trace.push(`${what} ${money(BigInt(change.amount_minor))}: ${event.source}${landedLate(event)}.`);
        if (event.conversion !== undefined) trace.push(event.conversion);
        replan = true;
      } else if (change.kind === 'term') {
        if (change.contract_months === contractMonths) continue;
        if (month !== startMonth && (expensed || impaired)) {
          trace.push(
            `Contract term now ${change.contract_months} months (${event.source}); no balance to re-amortise.`,
          );
          continue;
        }
        contractMonths = change.contract_months;
        term = benefitTerm(benefitStart, contractMonths + renewal, policy.amortisation.proration);
        trace.push(
          `Contract term ${contractMonths} months (${event.source}${landedLate(event)}): the benefit period ends in ${term.lastMonth}.`,
        );
        replan = true;
      } else if (month === startMonth) {
        endedBy ??= `${change.reason} (${event.source}${landedLate(event)})`;
      } else if (!impaired && !expensed) {
        impairNow = true;
        trace.push(`Impairment: ${change.reason} (${event.source}${landedLate(event)}).`);
      }
    }
    if (month === startMonth) {
      const benefitMonths = contractMonths + renewal;
      const threshold = policy.practical_expedient_months;
      expensed = endedBy !== null || (threshold !== null && benefitMonths <= threshold);
      if (endedBy !== null) {
        trace.push(
          `The contract no longer exists by ${month}: ${endedBy}. A cost of obtaining a contract that no longer exists is not an asset (${policy.book === 'asc_340_40' ? 'ASC 340-40-35-3' : 'IFRS 15.91'}), so every amount is expensed when incurred.`,
        );
      } else
        trace.push(
          `Benefit period ${contractMonths}${renewal > 0 ? ` + ${renewal} anticipated renewal` : ''} months from ${benefitStart}, ${policy.amortisation.proration} proration: ` +
            (expensed
              ? `at most the practical expedient's ${threshold} months, so every amount is expensed when incurred.`
              : `the amount is capitalised and amortised to ${term.lastMonth}.`),
        );
    }
    capitalised += additions;
    if (expensed) {
      if (additions !== 0n) trace.push(`Expensed at once: ${money(additions)}.`);
      if (own.length > 0) months.push(monthRow(month, 0n, 0n, 0n, 0n, additions, 0n, trace));
      continue;
    }
    balance += additions;
    let impairment = 0n;
    if (impaired || impairNow) {
      impairment = balance;
      if (impaired && balance !== 0n)
        trace.push(`The asset is impaired: the change is impaired at once, ${money(balance)}.`);
      else if (impairNow) trace.push(`The balance ${money(balance)} is impaired.`);
      balance = 0n;
      impaired = true;
    }
    let amortisation = 0n;
    if (!impaired && balance < 0n) {
      amortisation = balance;
      trace.push(
        `The balance would be ${money(balance)}: that much amortisation expense is reversed and the asset is 0.`,
      );
      balance = 0n;
      plan = null;
    } else if (!impaired && balance > 0n) {
      if (month >= term.lastMonth) {
        amortisation = balance;
        trace.push(
          `${month === term.lastMonth ? 'Last month of the benefit period' : 'After the benefit period'}: the whole balance, ${money(balance)}.`,
        );
      } else {
        if (replan || plan === null) {
          plan = planFrom(month, balance, term, !planned);
          trace.push(
            `Plan from ${month}: ${money(balance)} over ${month} to ${term.lastMonth}, total weight ${plan.totalWeight} ${policy.amortisation.proration === 'daily' ? 'days' : 'months'}` +
              (plan.firstWeight === term.weight(month)
                ? ''
                : ` (${month} weighs ${plan.firstWeight}, the months before it included)`) +
              `; each month floor(${balance} × weight ÷ ${plan.totalWeight}) minor units, the last month the rest.`,
          );
        }
        const weight = month === plan.firstMonth ? plan.firstWeight : term.weight(month);
        amortisation = (plan.base * weight) / plan.totalWeight;
        trace.push(
          `Amortisation floor(${plan.base} × ${weight} ÷ ${plan.totalWeight}) = ${amortisation}: ${money(amortisation)}.`,
        );
      }
      planned = true;
      balance -= amortisation;
    }
    if (opening !== 0n || additions !== 0n || own.length > 0 || amortisation !== 0n || impairment !== 0n) {
      months.push(monthRow(month, opening, additions, amortisation, impairment, 0n, balance, trace));
    }
  }
  const { contract_start: _start, events: _events, ...identity } = input;
  return {
    ...identity,
    currency: policy.currency,
    treatment: expensed ? 'expensed' : 'capitalised',
    capitalised_minor: Number(capitalised),
    contract_months: contractMonths,
    benefit_months: contractMonths + renewal,
    benefit_start: benefitStart,
    benefit_last_month: term.lastMonth,
    gl_accounts: policy.gl_accounts,
    months,
  };

  function landedLate(event: { effective_month: Month; landed: Month }): string {
    return event.landed > event.effective_month ? `, of ${event.effective_month}, a closed month` : '';
  }
}

interface BenefitTerm {
  firstMonth: Month;
  lastMonth: Month;
  weight(month: Month): bigint;
}

/** The benefit period's last month and each month's weight: 1 (monthly) or its days within the period (daily). */
function benefitTerm(start: CalendarDate, months: number, proration: 'monthly' | 'daily'): BenefitTerm {
  if (proration === 'monthly') {
    const firstMonth = monthOf(start);
    const lastMonth = addMonths(firstMonth, months - 1);
    return { firstMonth, lastMonth, weight: (month) => (month >= firstMonth && month <= lastMonth ? 1n : 0n) };
  }
  const end = addMonthsToDate(start, months);
  const lastMonth = end.endsWith('-01') ? addMonths(monthOf(end), -1) : monthOf(end);
  return { firstMonth: monthOf(start), lastMonth, weight: (month) => BigInt(daysOfMonthWithin(month, start, end)) };
}

function maxMonth(a: Month, b: Month): Month {
  return a > b ? a : b;
}

function planFrom(month: Month, balance: bigint, term: BenefitTerm, catchUp: boolean): Plan {
  let firstWeight = term.weight(month);
  if (catchUp) {
    // The months of the benefit period before the first plan had no asset yet: their share is amortised now.
    for (let index = monthIndex(term.firstMonth); index < monthIndex(month); index++) {
      firstWeight += term.weight(monthOfIndex(index));
    }
  }
  let totalWeight = firstWeight;
  for (let index = monthIndex(month) + 1; index <= monthIndex(term.lastMonth); index++) {
    totalWeight += term.weight(monthOfIndex(index));
  }
  return { base: balance, totalWeight, firstMonth: month, firstWeight };
}

function monthRow(
  month: Month,
  opening: bigint,
  additions: bigint,
  amortisation: bigint,
  impairment: bigint,
  expensed: bigint,
  closing: bigint,
  trace: string[],
): ScheduleMonth {
  return {
    month,
    opening_minor: Number(opening),
    additions_minor: Number(additions),
    amortisation_minor: Number(amortisation),
    impairment_minor: Number(impairment),
    expensed_minor: Number(expensed),
    closing_minor: Number(closing),
    trace,
  };
}
