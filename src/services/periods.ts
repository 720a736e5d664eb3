import { type AdminActor, adminAuditEntry, CLI_ACTOR } from '../audit/adminEntries.ts';
import type { Database } from '../db/prisma.ts';
import { isPeriodId } from '../domain/periods.ts';
import { Refusal } from '../domain/refusal.ts';
import * as audit from '../repositories/audit.ts';
import type { PeriodTotal } from '../repositories/earnings.ts';
import * as earnings from '../repositories/earnings.ts';
import * as orgs from '../repositories/orgs.ts';
import type { PeriodRecord } from '../repositories/periods.ts';
import * as periods from '../repositories/periods.ts';
import { databaseStatements, inPrismaTransaction, type Transaction } from '../repositories/transaction.ts';
import type { PayoutReader } from './payouts.ts';
import type { PeriodChangeListener } from './periodChanges.ts';

export interface PeriodChangeResult {
  period: PeriodRecord;
  /** False when the period already had the status asked for. */
  changed: boolean;
  /** Earnings rows the change moved: pending → approved on lock, approved → paid on mark-paid. */
  rows_moved: number;
}

/**
 * Admin operations on periods: open → locked → paid, never back. Each change is one transaction with its audit
 * entry and the period-change listener (the ledger's status moves), so a period never moves without both.
 */
export class PeriodAdmin {
  private readonly db: Database;
  private readonly listener: PeriodChangeListener;

  readonly #statements: Transaction;
  readonly #payouts: PayoutReader;

  constructor(db: Database, listener: PeriodChangeListener, payouts: PayoutReader) {
    this.#payouts = payouts;
    this.db = db;
    this.listener = listener;
    this.#statements = databaseStatements(db);
  }

  async list(orgId: string): Promise<PeriodRecord[]> {
    await this.requireOrg(orgId);
    return periods.listForOrg(this.#statements, orgId);
  }

  /** The periods with, per period, the count and sum of its standing earnings rows by status. */
  async listWithTotals(orgId: string): Promise<Array<PeriodRecord & { totals: PeriodTotal[] }>> {
    await this.requireOrg(orgId);
    const [found, totals] = await Promise.all([
      periods.listForOrg(this.#statements, orgId),
      earnings.periodTotalsByStatus(this.#statements, orgId),
    ]);
    return found.map((period) => ({ ...period, totals: totals.filter((total) => total.period_id === period.id) }));
  }

  /**
   * Locks an open period: its amounts are frozen and later changes go to the next open period. A period with
   * no row yet is created locked, so a month can be closed before anything was booked in it. Locking a locked
   * period changes nothing; a paid period cannot be locked again.
   */
  async lock(orgId: string, periodId: string, actor: AdminActor = CLI_ACTOR): Promise<PeriodChangeResult> {
    this.requirePeriodId(periodId);
    await this.requireOrg(orgId);
    return inPrismaTransaction(this.db, async (tx) => {
      await this.listener.beforePeriodLocked?.(tx, { orgId, periodId });
      const created = await periods.ensurePeriods(tx, orgId, [periodId]);
      const current = (await periods.lockForUpdate(tx, orgId, periodId)) as PeriodRecord;
      if (current.status === 'locked') return { period: current, changed: false, rows_moved: 0 };
      if (current.status === 'paid') {
        throw new Refusal(
          'invalid_state',
          `period ${periodId} is paid (since ${current.paid_at?.toISOString()}); it cannot be locked again`,
        );
      }
      const period = await periods.markLocked(tx, orgId, periodId, new Date());
      const pendingBefore = await earnings.countOfPeriodWithStatus(tx, orgId, periodId, 'pending');
      await this.listener.onPeriodLocked(tx, { orgId, period, existedBefore: created.length === 0 });
      const rowsMoved = pendingBefore - (await earnings.countOfPeriodWithStatus(tx, orgId, periodId, 'pending'));
      await audit.insertMany(tx, [
        adminAuditEntry(orgId, 'period.locked', { period_id: periodId, rows_moved: rowsMoved }, actor),
      ]);
      return { period, changed: true, rows_moved: rowsMoved };
    });
  }

  /** Marks a locked period paid. Marking a paid period changes nothing; an open period must be locked first. */
  async markPaid(orgId: string, periodId: string, actor: AdminActor = CLI_ACTOR): Promise<PeriodChangeResult> {
    this.requirePeriodId(periodId);
    await this.requireOrg(orgId);
    return inPrismaTransaction(this.db, async (tx) => {
      const current = await periods.lockForUpdate(tx, orgId, periodId);
      if (!current) throw new Refusal('not_found', `org ${orgId} has no period ${periodId}`);
      if (current.status === 'paid') return { period: current, changed: false, rows_moved: 0 };
      if (current.status === 'open') {
        throw new Refusal(
          'invalid_state',
          `period ${periodId} is open; lock it first (quotient periods lock ${periodId} --org ${orgId})`,
        );
      }
      const period = await periods.markPaid(tx, orgId, periodId, new Date());
      const approvedBefore = await earnings.countOfPeriodWithStatus(tx, orgId, periodId, 'approved');
      await this.listener.onPeriodPaid(tx, { orgId, period, existedBefore: true });
      const rowsMoved = approvedBefore - (await earnings.countOfPeriodWithStatus(tx, orgId, periodId, 'approved'));
      await audit.insertMany(tx, [
        adminAuditEntry(orgId, 'period.paid', { period_id: periodId, rows_moved: rowsMoved }, actor),
      ]);
      return { period, changed: true, rows_moved: rowsMoved };
    });
  }

  /**
   * Every rep's payout of a locked or paid period, for payroll: the same sums as `GET /v1/payouts`. An open
   * period has nothing approved yet and is refused.
   */
  async payouts(orgId: string, periodId: string): ReturnType<PayoutReader['all']> {
    this.requirePeriodId(periodId);
    await this.requireOrg(orgId);
    try {
      return await this.#payouts.all(orgId, periodId);
    } catch (error) {
      if (!(error instanceof Refusal) || (error.code !== 'not_found' && error.code !== 'period_open')) throw error;
      throw new Refusal(
        error.code === 'not_found' ? 'not_found' : 'invalid_state',
        error.code === 'not_found'
          ? `org ${orgId} has no period ${periodId}`
          : `period ${periodId} is open; lock it first (quotient periods lock ${periodId} --org ${orgId})`,
      );
    }
  }

  private requirePeriodId(periodId: string): void {
    if (!isPeriodId(periodId)) {
      throw new Refusal(
        'invalid_body',
        `${JSON.stringify(periodId)} is not a period id: use YYYY-MM (a month) or YYYY-Qn (a quarter)`,
      );
    }
  }

  private async requireOrg(orgId: string): Promise<void> {
    if (!(await orgs.find(this.#statements, orgId))) throw new Refusal('not_found', `no org ${orgId}`);
  }
}
