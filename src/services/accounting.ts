import { type AdminActor, adminAuditEntry, CLI_ACTOR } from '../audit/adminEntries.ts';
import { lastClosedMonth, monthsToClose } from '../domain/accounting/closes.ts';
import { booksFromLedger, conversionsToRecord, type LeftOutLine } from '../domain/accounting/history.ts';
import { addMonths, isMonth, type Month, monthOf } from '../domain/accounting/months.ts';
import { type AccountingPolicy, policyDigest, readPolicyFile } from '../domain/accounting/policy.ts';
import {
  type JournalEntry,
  journal,
  type RollForwardRow,
  rollForward,
  type Waterfall,
  type WaterfallRowsBy,
  waterfall,
} from '../domain/accounting/reports.ts';
import { buildSchedule, type Schedule } from '../domain/accounting/schedule.ts';
import { describeProblem } from '../domain/plans/planFile.ts';
import { Refusal } from '../domain/refusal.ts';
import { newId } from '../lib/ids.ts';
import * as books from '../repositories/accounting.ts';
import * as audit from '../repositories/audit.ts';
import * as exchangeRates from '../repositories/exchangeRates.ts';
import type { Transaction, Transactor } from '../repositories/transaction.ts';

// Commission expense accounting (docs/accounting.md): the org's policy file and its versions, closed months, and
// the reports, each computed from the earnings ledger on every read (src/domain/accounting/).

const TRANSACTION_OPTIONS = { maxWait: 10_000, timeout: 60_000 } as const;

export interface ApplyPolicyInput {
  orgId: string;
  text: string;
  format?: 'yaml' | 'json';
  /** Where the text came from (a file name), for messages and the audit log. */
  source?: string;
}

export interface PolicyVersion {
  id: string;
  number: number;
  digest: string;
  created_at: string;
  policy: AccountingPolicy;
}

/** What every report says about the book beside its figures. */
export interface BookHeader {
  org_id: string;
  book: AccountingPolicy['book'];
  currency: string;
  policy_version: number;
  /** The last closed month, null when none is. */
  closed_through: Month | null;
  /** Capitalisable lines the book leaves out, and why (no exchange rate converts them). */
  left_out: LeftOutLine[];
}

interface Books {
  header: BookHeader;
  schedules: Schedule[];
}

/** Whose schedules: a deal's, a rep's, or the rep's on the deal (external ids). */
export interface ScheduleFilter {
  deal?: string;
  rep?: string;
}

export interface MonthRange {
  from: Month;
  to: Month;
}

export class AccountingBooks {
  private readonly db: Transactor;
  private readonly now: () => Date;

  constructor(db: Transactor, options: { now?: () => Date } = {}) {
    this.db = db;
    this.now = options.now ?? (() => new Date());
  }

  /**
   * Validates the policy file (every problem by path; nothing applied when there is any), then stores a new
   * version when its normalised content differs from the current one; the same content changes nothing.
   */
  async applyPolicy(
    input: ApplyPolicyInput,
    actor: AdminActor = CLI_ACTOR,
  ): Promise<{ version: PolicyVersion; changed: boolean }> {
    const read = readPolicyFile(input.text, input.format === undefined ? {} : { format: input.format });
    const source = input.source ?? 'the accounting policy';
    if (!read.ok) {
      const count = read.problems.length;
      throw new Refusal(
        'invalid_plan_file',
        `${source} has ${count} problem${count === 1 ? '' : 's'}; nothing was applied`,
        {
          details: { problems: read.problems },
          lines: read.problems.map(describeProblem),
        },
      );
    }
    const digest = policyDigest(read.policy);
    return this.inBooks(input.orgId, async (tx) => {
      await books.lockBooks(tx, input.orgId);
      const current = (await books.policyVersions(tx, input.orgId)).at(-1);
      if (current?.digest === digest) return { version: current, changed: false };
      const version = await books.insertPolicyVersion(tx, input.orgId, {
        id: newId('apv'),
        number: (current?.number ?? 0) + 1,
        policy: read.policy,
        digest,
      });
      await audit.insertMany(tx, [
        adminAuditEntry(
          input.orgId,
          'accounting.policy_applied',
          { version_id: version.id, version: version.number, source: input.source ?? null },
          actor,
        ),
      ]);
      return { version, changed: true };
    });
  }

  async currentPolicy(orgId: string): Promise<PolicyVersion> {
    return this.inBooks(orgId, async (tx) => requirePolicy(await books.policyVersions(tx, orgId), orgId));
  }

  /**
   * Closes the month (and the open months before it) once it has ended: its figures never change again. The
   * conversions of the rows in another currency capitalised in a closed month are recorded with it, so that a rate
   * replaced later does not move them.
   */
  async close(
    orgId: string,
    month: string,
    actor: AdminActor = CLI_ACTOR,
  ): Promise<{ months: Month[]; closed_at: string }> {
    requireMonth('month', month);
    return this.inBooks(orgId, async (tx) => {
      await books.lockBooks(tx, orgId);
      requirePolicy(await books.policyVersions(tx, orgId), orgId);
      const decision = monthsToClose(await books.closes(tx, orgId), month, monthOf(this.now().toISOString()));
      if (!decision.ok) throw new Refusal('invalid_state', decision.reason);
      const closedAt = await books.insertCloses(tx, orgId, decision.months);
      const closedThrough = decision.months.at(-1);
      if (closedThrough !== undefined) {
        const { ledger, recorded } = await booksInputs(tx, orgId);
        await books.insertConversions(tx, orgId, conversionsToRecord(ledger.conversions, recorded, closedThrough));
      }
      await audit.insertMany(tx, [
        adminAuditEntry(orgId, 'accounting.month_closed', { months: decision.months }, actor),
      ]);
      return { months: decision.months, closed_at: closedAt };
    });
  }

  async rollForward(orgId: string, range: MonthRange): Promise<BookHeader & { months: RollForwardRow[] }> {
    const { header, schedules } = await this.books(orgId, range);
    return { ...header, months: rollForward(schedules, range.from, range.to) };
  }

  async waterfall(
    orgId: string,
    by: WaterfallRowsBy,
    range: MonthRange,
  ): Promise<BookHeader & { by: WaterfallRowsBy } & Waterfall> {
    const { header, schedules } = await this.books(orgId, range);
    return { ...header, by, ...waterfall(schedules, by, range.from, range.to) };
  }

  async journal(orgId: string, range: MonthRange): Promise<BookHeader & { entries: JournalEntry[] }> {
    const { header, schedules } = await this.books(orgId, range);
    const entries: JournalEntry[] = [];
    for (let month = range.from; month <= range.to; month = addMonths(month, 1)) {
      entries.push(...journal(schedules, month));
    }
    return { ...header, entries };
  }

  /** The schedules of the org's capitalisable lines of a deal, of a rep, or of the rep on the deal (external ids). */
  async schedules(orgId: string, of: ScheduleFilter): Promise<BookHeader & { schedules: Schedule[] }> {
    if (of.deal === undefined && of.rep === undefined) {
      throw new Refusal('invalid_body', 'name a deal (deal_external_id), a rep (user_external_id), or both');
    }
    const { header, schedules } = await this.books(orgId);
    return {
      ...header,
      schedules: schedules.filter(
        (schedule) =>
          (of.deal === undefined || schedule.deal_external_id === of.deal) &&
          (of.rep === undefined || schedule.user_external_id === of.rep),
      ),
    };
  }

  private async books(orgId: string, range?: MonthRange): Promise<Books> {
    if (range) {
      requireMonth('from', range.from);
      requireMonth('to', range.to);
      if (range.to < range.from) throw new Refusal('invalid_body', `to: ${range.to} is before from ${range.from}`);
    }
    return this.inBooks(orgId, async (tx) => {
      const [{ versions, ledger }, closes] = await Promise.all([booksInputs(tx, orgId), books.closes(tx, orgId)]);
      const current = requirePolicy(versions, orgId);
      const { assets, left_out } = ledger;
      return {
        header: {
          org_id: orgId,
          book: current.policy.book,
          currency: current.policy.currency,
          policy_version: current.number,
          closed_through: lastClosedMonth(closes),
          left_out,
        },
        schedules: assets.flatMap((asset) => buildSchedule(asset.input, asset.policy, closes) ?? []),
      };
    });
  }

  private inBooks<T>(orgId: string, work: (tx: Transaction) => Promise<T>): Promise<T> {
    return this.db.run(async (tx) => {
      if (!(await books.orgExists(tx, orgId))) throw new Refusal('not_found', `no org ${orgId}`);
      return work(tx);
    }, TRANSACTION_OPTIONS);
  }
}

/** The org's policy versions, its recorded conversions, and its books from the ledger, the deals' history and rates. */
async function booksInputs(tx: Transaction, orgId: string) {
  const [versions, rates, recorded] = await Promise.all([
    books.policyVersions(tx, orgId),
    exchangeRates.list(tx, orgId),
    books.recordedConversions(tx, orgId),
  ]);
  const planKeys = [...new Set(versions.flatMap((version) => version.policy.capitalise.map((entry) => entry.plan)))];
  const rows = await books.ledgerRowsOfPlans(tx, orgId, planKeys);
  const dealIds = [...new Set(rows.flatMap((row) => (row.deal_id === null ? [] : [row.deal_id])))];
  const changes = await books.dealChanges(tx, orgId, dealIds);
  const ledger = booksFromLedger(
    rows,
    changes,
    versions,
    rates.map((rate) => ({ ...rate, set_at: rate.updated_at.toISOString() })),
    recorded,
  );
  return { versions, recorded, ledger };
}

function requirePolicy(versions: readonly PolicyVersion[], orgId: string): PolicyVersion {
  const current = versions.at(-1);
  if (!current) {
    throw new Refusal(
      'not_found',
      `org ${orgId} has no accounting policy yet: apply one with quotient accounting policy apply`,
    );
  }
  return current;
}

function requireMonth(name: string, value: string): void {
  if (!isMonth(value))
    throw new Refusal('invalid_body', `${name}: must be a month YYYY-MM, not ${JSON.stringify(value)}`);
}
