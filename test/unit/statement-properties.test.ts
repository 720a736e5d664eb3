import assert from 'node:assert/strict';
import fc from 'fast-check';
import { describe, test } from 'vitest';
import { buildStatement, type StatementRow } from '../../src/domain/earnings/statement.ts';
import type { DealSnapshot } from '../../src/domain/earnings/types.ts';
import { periodBounds } from '../../src/domain/periods.ts';
import { deal, otherRep, plan, rep } from '../factories/earnings.ts';
import { EarningsWorld } from '../helpers/earningsLedger.ts';

// Statements over random histories of deal events, locks and payments (the in-memory ledger drives the pure
// engine as the ingestion transaction does): for every rep and period, each total of the statement is the sum
// of the ledger's rows of that status, the rows shown are exactly the ledger's live and frozen rows, and every
// row booked for an earlier period is shown as an adjustment from it.

const TODAY = '2026-04-25';
const PERIODS = ['2026-03', '2026-04', '2026-05', '2026-06'];
const reps = [rep, otherRep];
const STATUSES = ['projected', 'pending', 'approved', 'paid'] as const;
const enginePlan = plan();
const planInfo = {
  id: enginePlan.plan_id,
  key: enginePlan.plan_key,
  name: 'Core AE plan',
  period: enginePlan.period,
  quota_cents: enginePlan.quota_cents,
  draw: null,
};

const dealStates: fc.Arbitrary<DealSnapshot> = fc
  .record({
    n: fc.integer({ min: 1, max: 5 }),
    status: fc.constantFrom('open' as const, 'won' as const, 'lost' as const, 'deleted' as const),
    amount: fc.integer({ min: 0, max: 12_000_000 }),
    close_date: fc.constantFrom(null, '2026-03-31', '2026-04-20', '2026-05-15'),
    owner: fc.constantFrom(rep.external_id, rep.external_id, otherRep.external_id),
    region: fc.constantFrom('EMEA', 'NA', 'APAC'),
    new_logo: fc.boolean(),
  })
  .map(({ n, status, amount, close_date, owner, region, new_logo }) =>
    deal(n, {
      status,
      stage: status === 'won' ? 'closed_won' : 'proposal',
      amount_cents: amount,
      close_date,
      owner_external_id: owner,
      won_at: status === 'won' ? '2026-04-10T10:00:00.000Z' : null,
      custom: { region, new_logo },
    }),
  );

type Event = { kind: 'deal'; state: DealSnapshot } | { kind: 'lock' } | { kind: 'pay' };

const histories: fc.Arbitrary<Event[]> = fc.array(
  fc.oneof(
    { weight: 6, arbitrary: dealStates.map((state) => ({ kind: 'deal' as const, state })) },
    { weight: 1, arbitrary: fc.constant({ kind: 'lock' as const }) },
    { weight: 1, arbitrary: fc.constant({ kind: 'pay' as const }) },
  ),
  { maxLength: 24 },
);

function play(world: EarningsWorld, event: Event): void {
  if (event.kind === 'deal') {
    world.change(event.state);
    return;
  }
  const statuses = PERIODS.map((period) => world.ledger.periods.get(period) ?? 'open');
  const period = PERIODS[statuses.indexOf(event.kind === 'lock' ? 'open' : 'locked')];
  if (period && event.kind === 'lock') world.ledger.lock(period);
  if (period && event.kind === 'pay') world.ledger.markPaid(period);
}

describe('statements over random histories', () => {
  test('every total equals the ledger’s rows of that status, and every live or frozen row is shown once', () => {
    fc.assert(
      fc.property(histories, (history) => {
        const world = new EarningsWorld(enginePlan, reps, TODAY);
        for (const event of history) play(world, event);
        for (const who of reps) {
          for (const periodId of PERIODS) {
            const booked = world.ledger.rows.filter(
              (row) =>
                row.period_id === periodId &&
                (STATUSES as readonly string[]).includes(row.status) &&
                row.line_key.includes(who.user_id),
            );
            const rows: StatementRow[] = booked.map((row) => ({
              id: row.id,
              status: row.status as StatementRow['status'],
              amount_cents: row.amount_cents,
              deal_id: row.trace.deal?.id ?? null,
              plan_id: row.trace.plan.id,
              rule_chip_id: row.trace.chip.id,
              trace: row.trace,
            }));
            const statement = buildStatement({
              user: {
                id: who.user_id,
                external_id: who.external_id,
                display_name: null,
                created_at: '2026-01-01T00:00:00.000Z',
              },
              period: {
                id: periodId,
                kind: 'monthly',
                ...periodBounds(periodId),
                status: world.ledger.periods.get(periodId) ?? 'open',
              },
              plans: [planInfo],
              rows,
              deals: [...world.deals.values()].filter((candidate) => candidate.owner_external_id === who.external_id),
              today: TODAY,
            });
            for (const status of STATUSES) {
              const ledgerSum = booked
                .filter((row) => row.status === status)
                .reduce((sum, row) => sum + row.amount_cents, 0);
              assert.equal(statement.totals[`${status}_cents`], ledgerSum, `${who.external_id} ${periodId} ${status}`);
            }
            const [part] = statement.plans;
            const shown = [...(part?.lines ?? []), ...(part?.adjustments ?? [])].map((line) => line.earning_id).sort();
            assert.deepEqual(shown, booked.map((row) => row.id).sort());
            for (const adjustment of part?.adjustments ?? []) {
              assert.notEqual(adjustment.from_period_id, periodId);
              assert.equal(adjustment.kind, adjustment.amount_cents < 0 ? 'clawback' : 'top_up');
            }
            assert.equal(
              statement.payable_cents,
              statement.totals.pending_cents + statement.totals.approved_cents + statement.totals.paid_cents,
            );
          }
        }
      }),
      { numRuns: 120 },
    );
  });
});
