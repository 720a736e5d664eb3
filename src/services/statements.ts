import { buildStatement, type Statement } from '../domain/earnings/statement.ts';
import { type CalendarDate, periodBounds, periodKindOf } from '../domain/periods.ts';
import { namesAssignee } from '../domain/plans/types.ts';
import { type Viewer, visibleUserIdsOf } from '../domain/viewer.ts';
import * as adjustments from '../repositories/adjustments.ts';
import * as dealSnapshots from '../repositories/dealSnapshots.ts';
import * as ledgerPlans from '../repositories/ledgerPlans.ts';
import * as orgs from '../repositories/orgs.ts';
import * as periods from '../repositories/periods.ts';
import * as planAcceptances from '../repositories/planAcceptances.ts';
import * as repQuotas from '../repositories/repQuotas.ts';
import * as statementRows from '../repositories/statementRows.ts';
import type { Transactor } from '../repositories/transaction.ts';
import * as users from '../repositories/users.ts';
import { toWireAdjustment } from '../wire/adjustments.ts';
import { toWireUser } from '../wire/users.ts';
import { withServedTraces } from './earnings/servedTraces.ts';

function todayUtc(): CalendarDate {
  return new Date().toISOString().slice(0, 10);
}

/** A rep's statement for a period: the rows booked in it, read once, summed and explained by the domain. */
export class StatementReader {
  readonly #pool: Transactor;
  readonly #today: () => CalendarDate;

  constructor(pool: Transactor, options: { today?: () => CalendarDate } = {}) {
    this.#pool = pool;
    this.#today = options.today ?? todayUtc;
  }

  /**
   * Null when the org has no such user or the viewer may not see them. `periodId` is a valid period id (the contract
   * checks it).
   */
  async statement(viewer: Viewer, userId: string, periodId: string): Promise<Statement | null> {
    const { orgId } = viewer;
    const tx = this.#pool.statements;
    const user = await users.find(tx, orgId, userId, visibleUserIdsOf(viewer));
    if (!user) return null;
    const bounds = periodBounds(periodId);
    const [period, storedRows, orgPlans, repDeals, drawBalances, config, books, manual, held, credits] =
      await Promise.all([
        periods.findSummary(tx, orgId, periodId),
        statementRows.rowsOfRepInPeriod(tx, orgId, userId, periodId),
        ledgerPlans.listForStatements(tx, orgId),
        // Only the deals that can count in the period (closed in it, or not closed yet): attainment counts a deal in
        // the period its close date (else its win, else today) falls in, so the rep's other periods never matter.
        dealSnapshots.dealsOfRepAround(tx, orgId, userId, { from: bounds.starts_on, to: bounds.ends_on }),
        statementRows.drawBalancesByPlanBefore(tx, orgId, userId, periodId),
        orgs.loadConfig(tx, orgId),
        repQuotas.booksOfReps(tx, orgId, [userId]),
        adjustments.ofRepInPeriod(tx, orgId, userId, periodId),
        heldPlansOf(tx, orgId, userId),
        adjustments.attainmentCreditsOfReps(tx, orgId, [userId]),
      ]);
    const rows = (await withServedTraces(tx, orgId, storedRows)).map(
      ({ plan_version_id: _version, rule_version: _chipVersion, ...row }) => row,
    );
    const book = books.get(userId);
    const kind = periodKindOf(periodId);
    const withRows = new Set([...rows.map((row) => row.plan_id), ...drawBalances.keys()]);
    const shown = orgPlans.filter(
      (plan) =>
        withRows.has(plan.id) ||
        (plan.status === 'active' && plan.period === kind && namesAssignee(plan.assignees, user.external_id)),
    );
    return buildStatement({
      user: toWireUser(user),
      leavingDate: book?.leaving?.date ?? null,
      period: period ?? { id: periodId, kind, ...bounds, status: 'open' },
      plans: shown,
      rows,
      deals: repDeals,
      money: { default_currency: config.defaultCurrency, rates: config.rates },
      drawBalances,
      manualAdjustments: manual.map(toWireAdjustment),
      credits: credits.get(userId) ?? [],
      quotas: new Map(shown.map((plan) => [plan.id, repQuotas.quotasUnder(book, plan.id)])),
      today: this.#today(),
      ...(period?.status === 'paid' ? {} : { heldPlanIds: held }),
    });
  }
}

/**
 * The plans whose pay waits for the rep's acceptance (docs/plan-acceptance.md): none unless the org's pay waits for
 * acceptance; then those whose latest version asked of the rep is not accepted yet.
 */
export async function heldPlansOf(
  tx: Parameters<typeof orgs.paySettings>[0],
  orgId: string,
  userId: string,
): Promise<ReadonlySet<string>> {
  const settings = await orgs.paySettings(tx, orgId);
  if (!settings?.pay_waits_for_acceptance) return new Set();
  return (await planAcceptances.unacceptedPlansByUser(tx, orgId, [userId])).get(userId) ?? new Set();
}
