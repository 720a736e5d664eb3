import { conversionSentence, convertMinorUnits, type ExchangeRate, rateInForce } from '../earnings/exchange.ts';
import type { CalendarDate } from '../periods.ts';
import { type Month, monthOf } from './months.ts';
import { type AccountingPolicy, capitalises, contractMonthsOf } from './policy.ts';
import type { AssetEvent, AssetInput } from './schedule.ts';

// From the earnings ledger and the deals' history to each earning line's accounting history (docs/accounting.md,
// Where the figures come from). Nothing here is stored: the ledger's rows never change amount, periods lock once,
// and deal events are kept, so the same ledger always gives the same histories.
// - A row is capitalised when its period locks (pending rows become approved then): in its period's last month,
//   learnt at the lock. A row retired after that (superseded or reversed) takes its amount back in the month it
//   was retired; a clawback or top-up is a row of its own, capitalised when its period locks.
// - The benefit period starts at the deal's close date as it stood when the line was first capitalised.
// - The benefit term is the deal's contract field as it stood before its first change, then each change of it.
// - A deal marked lost or deleted, or whose churn field turns true, after the line was first capitalised impairs it;
//   one still so when the line is first capitalised impairs it from the month the contract ended.
// - The term a deal is created with is its term from the start.
// - A row in another currency than the book's is converted at the org's rate in force on the last day of its
//   period, the day it is capitalised (the historical rate at initial recognition), rounded once, half away from
//   zero, to the book's minor unit; its retirement takes back exactly that converted amount. Quotient learns the
//   converted amount when both the lock and the rate are known, so a rate set after a month closed lands in the
//   next open month. Once the month a row was capitalised in closes, its conversion is recorded and used from then
//   on instead of the rates: a rate replaced later does not remeasure it. A line with a row that neither a recorded
//   conversion nor a rate (either way) converts is left out of the book, with the reason `missing_exchange_rate`.

/** An org's exchange rate and the instant it was last set: a conversion is learnt no earlier. */
export interface RateForBooks extends ExchangeRate {
  /** ISO instant */
  set_at: string;
}

/** How a row in another currency was converted into the book's: recorded when its month closed, or from the rates. */
export interface RowConversion {
  earning_id: string;
  book_currency: string;
  rate: string;
  /** True when the opposite pair's rate was used, as 1 / rate. */
  inverse: boolean;
  rate_effective_on: CalendarDate;
  /** ISO instant the rate was last set (as it stood when recorded): the conversion was learnt no earlier. */
  rate_set_at: string;
  /** The row's amount converted, in minor units of the book's currency. */
  converted_minor: number;
  /** The month the row is capitalised in by its own date (its period's last month). */
  month: Month;
}

/** A conversion as recorded when its month closed. */
export type RecordedConversion = Omit<RowConversion, 'month'>;

export interface LedgerRowForBooks {
  id: string;
  line_key: string;
  user_external_id: string;
  deal_id: string | null;
  deal_external_id: string | null;
  /** The deal's close date: the contract start. */
  deal_close_date: CalendarDate | null;
  /** The deal's custom fields as they stand now. */
  deal_custom: Record<string, unknown> | null;
  plan_key: string;
  chip_key: string;
  amount_minor: number;
  currency: string;
  status: 'projected' | 'pending' | 'approved' | 'paid' | 'superseded' | 'reversed';
  period_id: string;
  period_ends_on: CalendarDate;
  /** ISO instant, null while the period is open. */
  period_locked_at: string | null;
  /** ISO instant of the row's last status change. */
  status_changed_at: string;
}

export interface DealChangeForBooks {
  id: string;
  deal_id: string;
  changes: ReadonlyArray<{ field: string; old: unknown; new: unknown }>;
  occurred_at: string | null;
  created_at: string;
}

export interface BookAsset {
  input: AssetInput;
  policy: AccountingPolicy;
  policy_version: number;
}

export interface LeftOutLine {
  line_key: string;
  reason: 'missing_exchange_rate';
  /** Which rate is missing and how to set it. */
  detail: string;
}

export interface PolicyVersionForBooks {
  number: number;
  policy: AccountingPolicy;
  /** ISO instant */
  created_at: string;
}

/** Before every month: a term known before the first amount takes effect with it. */
const BEFORE_EVERYTHING = { effective_month: '0001-01', recorded_at: '0001-01-01T00:00:00.000Z' };

export function booksFromLedger(
  rows: readonly LedgerRowForBooks[],
  dealChanges: readonly DealChangeForBooks[],
  versions: readonly PolicyVersionForBooks[],
  rates: readonly RateForBooks[],
  recorded: readonly RecordedConversion[] = [],
): { assets: BookAsset[]; left_out: LeftOutLine[]; conversions: RowConversion[] } {
  const recordedByEarning = new Map(recorded.map((conversion) => [conversion.earning_id, conversion]));
  const conversions: RowConversion[] = [];
  const lines = new Map<string, LedgerRowForBooks[]>();
  for (const row of rows) lines.set(row.line_key, [...(lines.get(row.line_key) ?? []), row]);
  const assets: BookAsset[] = [];
  const leftOut: LeftOutLine[] = [];
  for (const [lineKey, lineRows] of lines) {
    const earliest = lineRows
      .flatMap(amountEvents)
      .reduce<AssetEvent | undefined>(
        (found, event) => (found === undefined || event.recorded_at < found.recorded_at ? event : found),
        undefined,
      );
    const head = lineRows[0];
    if (!earliest || !head) continue;
    const version = versionAt(versions, earliest.recorded_at);
    if (!version || !capitalises(version.policy, head.plan_key, head.chip_key)) continue;
    const bookCurrency = version.policy.currency;
    const converted = lineRows.map((row) => ({
      row,
      events: amountEvents(row),
      conversion: rowConversion(row, bookCurrency, rates, recordedByEarning.get(row.id)),
    }));
    const missing = converted.find(
      ({ row, events, conversion }) => events.length > 0 && row.currency !== bookCurrency && conversion === null,
    )?.row;
    if (missing) {
      leftOut.push({
        line_key: lineKey,
        reason: 'missing_exchange_rate',
        detail:
          `earning ${missing.id} is in ${missing.currency} and no ${missing.currency}→${bookCurrency} rate (either way) ` +
          `is in force on ${missing.period_ends_on}, the day it is capitalised: quotient fx set ${missing.currency} ${bookCurrency} RATE --from ${missing.period_ends_on}`,
      });
      continue;
    }
    const amounts = converted.flatMap(({ row, events, conversion }) => {
      if (conversion === null || events.length === 0) return events;
      conversions.push(conversion);
      return inBookCurrency(row, events, conversion);
    });
    const changes = dealChanges.filter((change) => change.deal_id === head.deal_id);
    assets.push({
      policy: version.policy,
      policy_version: version.number,
      input: {
        asset_id: lineKey,
        deal_id: head.deal_id,
        deal_external_id: head.deal_external_id,
        user_external_id: head.user_external_id,
        plan_key: head.plan_key,
        chip_key: head.chip_key,
        contract_start: closeDateAt(head, changes, earliest.recorded_at),
        events: [
          ...termEvents(version.policy, head, changes),
          ...amounts,
          ...impairmentEvents(version.policy, changes, earliest.recorded_at),
        ],
      },
    });
  }
  return { assets, left_out: leftOut, conversions };
}

/**
 * The conversions to record when months close through `closedThrough`: those of rows capitalised in a closed month
 * by their own date (known now, so they landed in a closed month) that are not recorded yet.
 */
export function conversionsToRecord(
  conversions: readonly RowConversion[],
  recorded: readonly RecordedConversion[],
  closedThrough: Month,
): RowConversion[] {
  const known = new Set(recorded.map((conversion) => conversion.earning_id));
  return conversions.filter((conversion) => conversion.month <= closedThrough && !known.has(conversion.earning_id));
}

/** The version in force at an instant; the first version for what was capitalised before any policy. */
function versionAt(versions: readonly PolicyVersionForBooks[], instant: string): PolicyVersionForBooks | undefined {
  const sorted = [...versions].sort((a, b) => a.number - b.number);
  return sorted.filter((version) => version.created_at <= instant).at(-1) ?? sorted[0];
}

function amountEvents(row: LedgerRowForBooks): AssetEvent[] {
  const lockedAt = row.period_locked_at;
  if (lockedAt === null || row.amount_minor === 0) return [];
  const retired = row.status === 'superseded' || row.status === 'reversed';
  if (row.status === 'projected' || row.status === 'pending' || (retired && row.status_changed_at <= lockedAt)) {
    return [];
  }
  const capitalised: AssetEvent = {
    effective_month: monthOf(row.period_ends_on),
    recorded_at: lockedAt,
    source: `earning ${row.id}, approved when period ${row.period_id} locked`,
    change: { kind: 'amount', amount_minor: row.amount_minor },
  };
  if (!retired) return [capitalised];
  return [
    capitalised,
    {
      effective_month: monthOf(row.status_changed_at),
      recorded_at: row.status_changed_at,
      source: `earning ${row.id}, ${row.status}`,
      change: { kind: 'amount', amount_minor: -row.amount_minor },
    },
  ];
}

/**
 * How a row in another currency is converted into the book's: its recorded conversion when there is one (into the
 * same currency), else at the rate in force on the last day of its period. Null when the row is in the book's
 * currency or nothing converts it.
 */
function rowConversion(
  row: LedgerRowForBooks,
  bookCurrency: string,
  rates: readonly RateForBooks[],
  recorded: RecordedConversion | undefined,
): RowConversion | null {
  if (row.currency === bookCurrency) return null;
  if (recorded?.book_currency === bookCurrency) return { ...recorded, month: monthOf(row.period_ends_on) };
  const used = rateInForce(rates, row.currency, bookCurrency, row.period_ends_on);
  if (used === null) return null;
  const [from, to] = used.inverse ? [bookCurrency, row.currency] : [row.currency, bookCurrency];
  const setAt =
    rates.find(
      (rate) => rate.from_currency === from && rate.to_currency === to && rate.effective_on === used.effective_on,
    )?.set_at ?? '';
  return {
    earning_id: row.id,
    book_currency: bookCurrency,
    rate: used.rate,
    inverse: used.inverse,
    rate_effective_on: used.effective_on,
    rate_set_at: setAt,
    converted_minor: Number(convertMinorUnits(BigInt(row.amount_minor), row.currency, bookCurrency, used).converted),
    month: monthOf(row.period_ends_on),
  };
}

/**
 * A row's amount events in the book's currency, each the row's converted amount with the event's sign (a
 * retirement takes back what its capitalisation converted), learnt no earlier than the rate, with the sentence
 * that redoes the conversion.
 */
function inBookCurrency(row: LedgerRowForBooks, events: readonly AssetEvent[], used: RowConversion): AssetEvent[] {
  const bookCurrency = used.book_currency;
  const rate = { rate: used.rate, effective_on: used.rate_effective_on, inverse: used.inverse };
  return events.map((event) => {
    if (event.change.kind !== 'amount') return event;
    const original = BigInt(event.change.amount_minor);
    const converted = BigInt(
      event.change.amount_minor === row.amount_minor ? used.converted_minor : -used.converted_minor,
    );
    const conversion = { ...convertMinorUnits(original, row.currency, bookCurrency, rate), converted };
    return {
      ...event,
      recorded_at: used.rate_set_at > event.recorded_at ? used.rate_set_at : event.recorded_at,
      change: { kind: 'amount', amount_minor: Number(converted) },
      conversion: conversionSentence(`The book is in ${bookCurrency}`, {
        amount: original,
        from: row.currency,
        to: bookCurrency,
        used: rate,
        conversion,
        day: row.period_ends_on,
      }),
    };
  });
}

/**
 * The deal's close date when the line was first capitalised: the benefit period starts there, and a later edit of
 * the date does not move it (the months already amortised, maybe closed, stay as they were).
 */
function closeDateAt(
  head: LedgerRowForBooks,
  changes: readonly DealChangeForBooks[],
  capitalisedAt: string,
): CalendarDate | null {
  const later = changes
    .filter((change) => change.created_at > capitalisedAt)
    .flatMap((change) => change.changes.filter((member) => member.field === 'close_date'))[0];
  return later ? ((later.old as CalendarDate | null) ?? null) : head.deal_close_date;
}

function termEvents(
  policy: AccountingPolicy,
  head: LedgerRowForBooks,
  changes: readonly DealChangeForBooks[],
): AssetEvent[] {
  const field = policy.benefit_period.field;
  const own = changes.flatMap((change) =>
    change.changes.filter((member) => member.field === field).map((member) => ({ change, member })),
  );
  const name = field?.slice('custom.'.length) ?? '';
  // The value a deal is created with is its value from the start, not a change in the month the event arrived.
  const created = own[0] !== undefined && createsDeal(own[0].change) ? own[0] : undefined;
  const changed = created ? own.slice(1) : own;
  const initial = created ? created.member.new : own[0] ? own[0].member.old : head.deal_custom?.[name];
  return [
    {
      ...BEFORE_EVERYTHING,
      source: created
        ? `the deal as created (deal event ${created.change.id})`
        : 'the deal as it stood at its first contract change (or now)',
      change: { kind: 'term', contract_months: contractMonthsOf(policy, { [name]: initial }) },
    },
    ...changed.map(({ change, member }) => ({
      effective_month: monthOf(change.occurred_at ?? change.created_at),
      recorded_at: change.created_at,
      source: `deal event ${change.id}`,
      change: { kind: 'term' as const, contract_months: contractMonthsOf(policy, { [name]: member.new }) },
    })),
  ];
}

/** The event that created the deal: its status changed from none. */
function createsDeal(change: DealChangeForBooks): boolean {
  return change.changes.some((member) => member.field === 'status' && member.old === null);
}

/**
 * The deal events that end the contract: marked lost or deleted, or the churn field turned true. One learnt after
 * the line was first capitalised impairs it. Of those learnt before, only the state at the capitalisation counts:
 * a deal that ended and came back before it does not impair, and one still ended then impairs from the month it
 * ended (a contract that ended by the month of its first amount leaves no asset: the schedule expenses it).
 */
function impairmentEvents(
  policy: AccountingPolicy,
  changes: readonly DealChangeForBooks[],
  capitalisedAt: string,
): AssetEvent[] {
  const churn = policy.impairment.churn_field;
  let endedBefore: AssetEvent | null = null;
  const after: AssetEvent[] = [];
  for (const change of changes) {
    const ends = change.changes
      .map((member) => {
        if (member.field === 'status' && (member.new === 'lost' || member.new === 'deleted')) {
          return `the deal was marked ${member.new}`;
        }
        return churn !== null && member.field === churn && member.new === true ? `${churn} turned true` : null;
      })
      .find((found) => found !== null);
    const event = ends
      ? {
          effective_month: monthOf(change.occurred_at ?? change.created_at),
          recorded_at: change.created_at,
          source: `deal event ${change.id}`,
          change: { kind: 'impair' as const, reason: ends },
        }
      : null;
    if (change.created_at > capitalisedAt) {
      if (event) after.push(event);
      continue;
    }
    if (event) endedBefore ??= event;
    else if (endedBefore && change.changes.some((member) => restores(member, churn))) endedBefore = null;
  }
  return endedBefore ? [endedBefore, ...after] : after;
}

/** Whether a change brings an ended contract back: the deal reopened or won again, or the churn field cleared. */
function restores(member: { field: string; new: unknown }, churn: string | null): boolean {
  if (member.field === 'status') return member.new !== 'lost' && member.new !== 'deleted';
  return churn !== null && member.field === churn && member.new !== true;
}
