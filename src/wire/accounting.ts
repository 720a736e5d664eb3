import type { components } from '../../generated/openapi-admin.ts';
import type { JournalEntry, RollForwardRow, Waterfall, WaterfallRowsBy } from '../domain/accounting/reports.ts';
import type { Schedule } from '../domain/accounting/schedule.ts';
import { csvFile } from '../domain/csvFile.ts';
import type { BookHeader, PolicyVersion } from '../services/accounting.ts';

// The accounting books on the wire: the admin API's JSON and `quotient accounting … --format json` print these
// documents, and the CSV exports are the same rows. Amounts are integer minor units of the book's currency.

type Schemas = components['schemas'];
export type WireAccountingPolicyVersion = Schemas['AccountingPolicyVersion'];
export type WireAccountingRollForward = Schemas['AccountingRollForward'];
export type WireAccountingWaterfall = Schemas['AccountingWaterfall'];
export type WireAccountingJournal = Schemas['AccountingJournal'];
export type WireAccountingSchedules = Schemas['AccountingSchedules'];
type WireBook = Schemas['AccountingBook'];

export function toWireAccountingPolicyVersion(version: PolicyVersion): WireAccountingPolicyVersion {
  return {
    id: version.id,
    version: version.number,
    digest: version.digest,
    created_at: version.created_at,
    policy: version.policy,
  };
}

function toWireBook(header: BookHeader): WireBook {
  return {
    book: header.book,
    currency: header.currency,
    policy_version: header.policy_version,
    closed_through: header.closed_through,
    left_out: header.left_out.map((line) => ({ line_key: line.line_key, reason: line.reason, detail: line.detail })),
  };
}

export function toWireRollForward(report: BookHeader & { months: RollForwardRow[] }): WireAccountingRollForward {
  return {
    ...toWireBook(report),
    months: report.months.map((row) => ({
      month: row.month,
      closed: report.closed_through !== null && row.month <= report.closed_through,
      opening_cents: row.opening_minor,
      additions_cents: row.additions_minor,
      amortisation_cents: row.amortisation_minor,
      impairments_cents: row.impairments_minor,
      closing_cents: row.closing_minor,
      expensed_cents: row.expensed_minor,
    })),
  };
}

export function toWireWaterfall(report: BookHeader & { by: WaterfallRowsBy } & Waterfall): WireAccountingWaterfall {
  return {
    ...toWireBook(report),
    by: report.by,
    months: report.months,
    rows: report.rows.map((row) => ({ key: row.key, amounts_cents: row.amounts_minor, total_cents: row.total_minor })),
  };
}

export function toWireJournal(report: BookHeader & { entries: JournalEntry[] }): WireAccountingJournal {
  return {
    ...toWireBook(report),
    entries: report.entries.map((entry) => ({
      month: entry.month,
      entry: entry.kind,
      description: entry.description,
      lines: entry.lines.map((line) => ({
        account: line.account,
        debit_cents: line.debit_minor,
        credit_cents: line.credit_minor,
      })),
    })),
  };
}

export function toWireSchedules(report: BookHeader & { schedules: Schedule[] }): WireAccountingSchedules {
  return {
    ...toWireBook(report),
    schedules: report.schedules.map((schedule) => ({
      line_key: schedule.asset_id,
      deal_external_id: schedule.deal_external_id,
      user_external_id: schedule.user_external_id,
      plan_key: schedule.plan_key,
      chip_key: schedule.chip_key,
      treatment: schedule.treatment,
      capitalised_cents: schedule.capitalised_minor,
      contract_months: schedule.contract_months,
      benefit_months: schedule.benefit_months,
      benefit_start: schedule.benefit_start,
      benefit_last_month: schedule.benefit_last_month,
      months: schedule.months.map((month) => ({
        month: month.month,
        opening_cents: month.opening_minor,
        additions_cents: month.additions_minor,
        amortisation_cents: month.amortisation_minor,
        impairment_cents: month.impairment_minor,
        expensed_cents: month.expensed_minor,
        closing_cents: month.closing_minor,
        trace: month.trace,
      })),
    })),
  };
}

export function rollForwardCsv(report: WireAccountingRollForward): string {
  return csvFile(
    [
      'month',
      'currency',
      'opening_cents',
      'additions_cents',
      'amortisation_cents',
      'impairments_cents',
      'closing_cents',
      'expensed_cents',
      'closed',
    ],
    report.months.map((row) => [
      row.month,
      report.currency,
      row.opening_cents,
      row.additions_cents,
      row.amortisation_cents,
      row.impairments_cents,
      row.closing_cents,
      row.expensed_cents,
      row.closed,
    ]),
  );
}

export function waterfallCsv(report: WireAccountingWaterfall): string {
  return csvFile(
    [report.by, ...report.months, 'total_cents'],
    report.rows.map((row) => [row.key, ...row.amounts_cents, row.total_cents]),
  );
}

export function journalCsv(report: WireAccountingJournal): string {
  return csvFile(
    ['month', 'entry', 'description', 'account', 'debit_cents', 'credit_cents'],
    report.entries.flatMap((entry) =>
      entry.lines.map((line) => [
        entry.month,
        entry.entry,
        entry.description,
        line.account,
        line.debit_cents,
        line.credit_cents,
      ]),
    ),
  );
}
