import type { components } from '../../../generated/openapi.ts';
import type { EarningStatus, EarningTrace } from './types.ts';

// What-if estimates (POST /v1/estimates) as a pure comparison: the ledger rows of the reps a deal event can touch,
// read before and after the event was applied (in a transaction that is then rolled back), give per line what it
// earns now and would earn after, the rows the event writes and the rows it retires. Nothing here knows how the
// rows came about: the estimate is whatever the engine really did.

type Schemas = components['schemas'];
export type EstimateLine = Schemas['EstimateLine'];
export type EstimatedRow = Schemas['EstimatedRow'];

/** A ledger row as the comparison reads it, before or after the event. */
export interface LedgerSnapshotRow {
  id: string;
  line_key: string;
  user_external_id: string;
  plan_id: string;
  /** ISO 4217: the currency of the row's plan. */
  currency: string;
  rule_chip_id: string;
  deal_id: string | null;
  deal_external_id: string | null;
  status: EarningStatus;
  amount_cents: number;
}

/** A row the event wrote, with what the contract shows of it. */
export interface WrittenRow {
  id: string;
  status: 'projected' | 'pending';
  period_id: string;
  amount_cents: number;
  supersedes_id: string | null;
  plan_version_id: string;
  rule_version: string;
  trace: EarningTrace;
}

export interface EstimateComparison {
  lines: EstimateLine[];
  earned_now_cents: number;
  earned_after_cents: number;
  difference_cents: number;
  by_currency: Schemas['Estimate']['by_currency'];
}

const EARNED: readonly EarningStatus[] = ['pending', 'approved', 'paid'];

function earned(rows: readonly LedgerSnapshotRow[]): number {
  return rows.filter((row) => EARNED.includes(row.status)).reduce((sum, row) => sum + row.amount_cents, 0);
}

function projected(rows: readonly LedgerSnapshotRow[]): number {
  return rows.filter((row) => row.status === 'projected').reduce((sum, row) => sum + row.amount_cents, 0);
}

/**
 * The lines whose rows the event changed, in the order their first new or retired row appears, with the owner's
 * totals. `hypotheticalDealId` is the id a deal Quotient has not seen got inside the rolled-back transaction: it
 * never existed, so lines show `null` for it.
 */
export function compareLedgers(input: {
  before: readonly LedgerSnapshotRow[];
  after: readonly LedgerSnapshotRow[];
  written: readonly WrittenRow[];
  ownerExternalId: string;
  hypotheticalDealId: string | null;
}): EstimateComparison {
  const beforeById = new Map(input.before.map((row) => [row.id, row]));
  const writtenById = new Map(input.written.map((row) => [row.id, row]));
  const changedLines: string[] = [];
  const retiredByLine = new Map<string, EstimateLine['retired']>();
  const rowsByLine = new Map<string, EstimatedRow[]>();
  const touch = (lineKey: string) => {
    if (!changedLines.includes(lineKey)) changedLines.push(lineKey);
  };
  for (const row of input.after) {
    const previous = beforeById.get(row.id);
    const wrote = writtenById.get(row.id);
    if (!previous && wrote) {
      touch(row.line_key);
      const { id: _id, ...shown } = wrote;
      rowsByLine.set(row.line_key, [...(rowsByLine.get(row.line_key) ?? []), shown]);
    } else if (
      previous &&
      previous.status !== row.status &&
      (row.status === 'superseded' || row.status === 'reversed')
    ) {
      touch(row.line_key);
      retiredByLine.set(row.line_key, [...(retiredByLine.get(row.line_key) ?? []), { id: row.id, status: row.status }]);
    }
  }
  const lines = changedLines.map((lineKey): EstimateLine => {
    const now = input.before.filter((row) => row.line_key === lineKey);
    const later = input.after.filter((row) => row.line_key === lineKey);
    const sample = later[0] as LedgerSnapshotRow;
    const dealId = sample.deal_id === input.hypotheticalDealId ? null : sample.deal_id;
    return {
      user_external_id: sample.user_external_id,
      plan_id: sample.plan_id,
      currency: sample.currency,
      rule_chip_id: sample.rule_chip_id,
      deal_id: dealId,
      deal_external_id: sample.deal_external_id,
      earned_now_cents: earned(now),
      earned_after_cents: earned(later),
      difference_cents: earned(later) - earned(now),
      projected_now_cents: projected(now),
      projected_after_cents: projected(later),
      rows: rowsByLine.get(lineKey) ?? [],
      retired: retiredByLine.get(lineKey) ?? [],
    };
  });
  const owners = lines.filter((line) => line.user_external_id === input.ownerExternalId);
  const currencies = [...new Set(owners.map((line) => line.currency))];
  return {
    lines,
    ...totalsOf(owners),
    by_currency: currencies.map((currency) => ({
      currency,
      ...totalsOf(owners.filter((line) => line.currency === currency)),
    })),
  };
}

function totalsOf(lines: readonly EstimateLine[]) {
  const now = lines.reduce((sum, line) => sum + line.earned_now_cents, 0);
  const after = lines.reduce((sum, line) => sum + line.earned_after_cents, 0);
  return { earned_now_cents: now, earned_after_cents: after, difference_cents: after - now };
}
