import { type Month, monthsBetween } from './months.ts';
import type { GlAccounts } from './policy.ts';
import type { Schedule, ScheduleMonth } from './schedule.ts';

// The book's reports (docs/accounting.md, Reports), pure sums over schedules: a roll-forward that reconciles
// (closing = opening + additions − amortisation − impairments), a waterfall of the expense recognised, and the
// journal entries of a month, every one of them balanced.

export interface RollForwardRow {
  month: Month;
  opening_minor: number;
  additions_minor: number;
  amortisation_minor: number;
  impairments_minor: number;
  closing_minor: number;
  /** Expensed at once under the practical expedient: never on the asset, shown beside it. */
  expensed_minor: number;
}

/** A schedule's figures of one month; a month a schedule does not list holds no balance and no movement. */
function monthOfSchedule(schedule: Schedule, month: Month): ScheduleMonth | undefined {
  return schedule.months.find((row) => row.month === month);
}

export function rollForward(schedules: readonly Schedule[], from: Month, to: Month): RollForwardRow[] {
  return monthsBetween(from, to).map((month) => {
    const row: RollForwardRow = {
      month,
      opening_minor: 0,
      additions_minor: 0,
      amortisation_minor: 0,
      impairments_minor: 0,
      closing_minor: 0,
      expensed_minor: 0,
    };
    for (const schedule of schedules) {
      const figures = monthOfSchedule(schedule, month);
      if (!figures) continue;
      row.opening_minor += figures.opening_minor;
      row.additions_minor += figures.additions_minor;
      row.amortisation_minor += figures.amortisation_minor;
      row.impairments_minor += figures.impairment_minor;
      row.closing_minor += figures.closing_minor;
      row.expensed_minor += figures.expensed_minor;
    }
    return row;
  });
}

export type WaterfallRowsBy = 'deal' | 'rep';

export interface Waterfall {
  months: Month[];
  rows: Array<{ key: string; amounts_minor: number[]; total_minor: number }>;
}

/** The expense each deal or rep's commissions recognise per month: amortisation, impairments and expensed amounts. */
export function waterfall(schedules: readonly Schedule[], by: WaterfallRowsBy, from: Month, to: Month): Waterfall {
  const months = monthsBetween(from, to);
  const rows = new Map<string, number[]>();
  for (const schedule of schedules) {
    const key = by === 'deal' ? (schedule.deal_external_id ?? '(no deal)') : schedule.user_external_id;
    const amounts = rows.get(key) ?? months.map(() => 0);
    months.forEach((month, index) => {
      const figures = monthOfSchedule(schedule, month);
      if (figures) {
        amounts[index] =
          (amounts[index] ?? 0) + figures.amortisation_minor + figures.impairment_minor + figures.expensed_minor;
      }
    });
    rows.set(key, amounts);
  }
  return {
    months,
    rows: [...rows.entries()]
      .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
      .map(([key, amounts]) => ({ key, amounts_minor: amounts, total_minor: amounts.reduce((sum, x) => sum + x, 0) })),
  };
}

export type JournalEntryKind = 'capitalisation' | 'true_up' | 'amortisation' | 'impairment' | 'expensed';

export interface JournalLine {
  account: string;
  debit_minor: number;
  credit_minor: number;
}

export interface JournalEntry {
  month: Month;
  kind: JournalEntryKind;
  description: string;
  lines: JournalLine[];
}

const DESCRIPTIONS: Record<JournalEntryKind, string> = {
  capitalisation: 'Commissions capitalised as costs of obtaining contracts',
  true_up: 'True-up of capitalised commissions (clawbacks and later changes)',
  amortisation: 'Amortisation of capitalised commissions',
  impairment: 'Impairment of capitalised commissions (contracts lost or churned)',
  expensed: 'Commissions expensed when incurred (practical expedient)',
};

/**
 * The month's journal entries, one per kind, each line the net of an account over the schedules: a positive
 * amount debits the first account and credits the second, a negative one the reverse.
 */
export function journal(schedules: readonly Schedule[], month: Month): JournalEntry[] {
  const nets = new Map<JournalEntryKind, Map<string, number>>();
  const post = (kind: JournalEntryKind, amount: number, debit: string, credit: string) => {
    if (amount === 0) return;
    const accounts = nets.get(kind) ?? new Map<string, number>();
    accounts.set(debit, (accounts.get(debit) ?? 0) + amount);
    accounts.set(credit, (accounts.get(credit) ?? 0) - amount);
    nets.set(kind, accounts);
  };
  for (const schedule of schedules) {
    const figures = monthOfSchedule(schedule, month);
    if (!figures) continue;
    const gl: GlAccounts = schedule.gl_accounts;
    const first = schedule.months[0]?.month === month;
    post(
      first ? 'capitalisation' : 'true_up',
      figures.additions_minor,
      gl.deferred_commission_asset,
      gl.commission_payable,
    );
    post('amortisation', figures.amortisation_minor, gl.amortisation_expense, gl.deferred_commission_asset);
    post('impairment', figures.impairment_minor, gl.impairment_expense, gl.deferred_commission_asset);
    post('expensed', figures.expensed_minor, gl.commission_expense, gl.commission_payable);
  }
  const kinds: JournalEntryKind[] = ['capitalisation', 'true_up', 'amortisation', 'impairment', 'expensed'];
  return kinds.flatMap((kind) => {
    const accounts = nets.get(kind);
    const lines = [...(accounts ?? new Map<string, number>()).entries()]
      .filter(([, net]) => net !== 0)
      .map(([account, net]) => ({ account, debit_minor: net > 0 ? net : 0, credit_minor: net < 0 ? -net : 0 }))
      .sort((a, b) => b.debit_minor - a.debit_minor || (a.account < b.account ? -1 : 1));
    return lines.length === 0 ? [] : [{ month, kind, description: DESCRIPTIONS[kind], lines }];
  });
}
