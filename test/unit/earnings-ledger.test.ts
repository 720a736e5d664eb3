import assert from 'node:assert/strict';
import { describe, test } from 'vitest';
import {
  earliestOpenPeriodFrom,
  type LedgerRow,
  lockPeriod,
  markPeriodPaid,
  reconcileLine,
} from '../../src/domain/earnings/ledger.ts';
import { evaluateLines } from '../../src/domain/earnings/targets.ts';
import type { LineTarget, PeriodStatus } from '../../src/domain/earnings/types.ts';
import { deal, plan, rep, testId } from '../factories/earnings.ts';
import { assertValidTrace } from '../helpers/earningTraceSchema.ts';

// The ledger rule of product.md section 5, one line at a time: the live pending row carries E − L, the
// live projected row F; rows never change amount; approved and paid rows are never touched.

const baseTarget = evaluateLines({
  plan: plan(),
  rep,
  deals: [deal(1, { custom: { region: 'NA' } })],
  periods: [],
  today: '2026-04-25',
}).targets[0] as LineTarget;

function target(earned: number, projected = 0, period = '2026-04'): LineTarget {
  return { ...baseTarget, earned_cents: earned, projected_cents: projected, period_id: period };
}

let rowNumber = 0;
function row(status: LedgerRow['status'], amount: number, period = '2026-04'): LedgerRow {
  rowNumber += 1;
  return { id: testId('earn', rowNumber), status, amount_cents: amount, period_id: period };
}

function statuses(entries: Record<string, PeriodStatus>): Map<string, PeriodStatus> {
  return new Map(Object.entries(entries));
}

function reconcile(lineTarget: LineTarget, rows: LedgerRow[], periods = statuses({})) {
  const changes = reconcileLine(lineTarget, rows, periods);
  for (const write of changes.write) assertValidTrace(write.trace);
  return changes;
}

describe('the pending row', () => {
  test('a new earning writes one pending row in the target period', () => {
    const { retire, write } = reconcile(target(500_000), []);
    assert.deepEqual(retire, []);
    assert.deepEqual(
      write.map(({ status, amount_cents, period_id, supersedes_id }) => ({
        status,
        amount_cents,
        period_id,
        supersedes_id,
      })),
      [{ status: 'pending', amount_cents: 500_000, period_id: '2026-04', supersedes_id: null }],
    );
    assert.deepEqual(write[0]?.trace.result, {
      target_cents: 500_000,
      locked_cents: 0,
      amount_cents: 500_000,
      status: 'pending',
    });
    assert.deepEqual(write[0]?.trace.steps.at(-1), { type: 'locked_total', approved_and_paid_cents: 0 });
    assert.equal(write[0]?.trace.period.status, 'open');
  });

  test('the same target again changes nothing', () => {
    assert.deepEqual(reconcile(target(500_000), [row('pending', 500_000)]), { retire: [], write: [] });
    assert.deepEqual(reconcile(target(0), []), { retire: [], write: [] });
  });

  test('a changed amount supersedes the live row with a new one that names it', () => {
    const live = row('pending', 500_000);
    const { retire, write } = reconcile(target(600_000), [row('superseded', 400_000), live]);
    const amountChanged = { code: 'amount_changed', explanation: "The line's amount changed." };
    assert.deepEqual(retire, [{ id: live.id, status: 'superseded', reason: amountChanged }]);
    assert.deepEqual([write[0]?.amount_cents, write[0]?.supersedes_id], [600_000, live.id]);
    assert.deepEqual(write[0]?.trace.superseded, {
      id: live.id,
      amount_cents: 500_000,
      reason: { code: 'amount_changed', explanation: "The line's amount changed." },
    });
    assert.equal(write[0]?.trace.explanation.at(-1), `It replaces row ${live.id} of 5,000.00.`);
  });

  test('a target of nothing reverses the live row and writes none', () => {
    const live = row('pending', 500_000);
    assert.deepEqual(reconcile(target(0), [live]), {
      retire: [
        {
          id: live.id,
          status: 'reversed',
          reason: { code: 'amount_changed', explanation: "The line's amount changed." },
        },
      ],
      write: [],
    });
  });

  test('a line already approved in full has no pending row', () => {
    assert.deepEqual(reconcile(target(500_000), [row('approved', 500_000)], statuses({ '2026-04': 'locked' })), {
      retire: [],
      write: [],
    });
  });

  test('a raise after the period was locked is booked in the earliest open period after it', () => {
    const periods = statuses({ '2026-04': 'paid', '2026-05': 'locked' });
    const { write } = reconcile(target(600_000), [row('paid', 500_000)], periods);
    assert.deepEqual([write[0]?.status, write[0]?.amount_cents, write[0]?.period_id], ['pending', 100_000, '2026-06']);
    assert.deepEqual(write[0]?.trace.result, {
      target_cents: 600_000,
      locked_cents: 500_000,
      amount_cents: 100_000,
      status: 'pending',
    });
    // The trace keeps the period the line was evaluated for; the row's own period_id says where it went.
    assert.deepEqual(write[0]?.trace.period, {
      id: '2026-04',
      kind: 'monthly',
      starts_on: '2026-04-01',
      ends_on: '2026-04-30',
      status: 'paid',
    });
    assert.ok(
      write[0]?.trace.explanation.includes(
        'Period 2026-04 is paid, so this row is booked in 2026-06, the earliest open period after it.',
      ),
    );
  });

  test('an earning that no longer applies after the lock is clawed back, as a negative pending row', () => {
    const periods = statuses({ '2026-04': 'locked' });
    const { retire, write } = reconcile(target(0), [row('approved', 300_000), row('approved', 200_000)], periods);
    assert.deepEqual(retire, []);
    assert.deepEqual([write[0]?.amount_cents, write[0]?.period_id], [-500_000, '2026-05']);
    assert.ok(write[0]?.trace.explanation.at(-1)?.endsWith('= -5,000.00, a clawback'));
  });

  test('a clawback that the target moves back is superseded, and one the target cancels is reversed', () => {
    const periods = statuses({ '2026-04': 'locked' });
    const clawback = row('pending', -500_000, '2026-05');
    const partly = reconcile(target(100_000), [row('approved', 500_000), clawback], periods);
    const amountChanged = { code: 'amount_changed', explanation: "The line's amount changed." };
    assert.deepEqual(partly.retire, [{ id: clawback.id, status: 'superseded', reason: amountChanged }]);
    assert.deepEqual([partly.write[0]?.amount_cents, partly.write[0]?.period_id], [-400_000, '2026-05']);
    const restored = reconcile(target(500_000), [row('approved', 500_000), clawback], periods);
    assert.deepEqual(restored, { retire: [{ id: clawback.id, status: 'reversed', reason: amountChanged }], write: [] });
  });

  test('approved and paid rows are never retired, whatever the target', () => {
    const locked = [row('approved', 100), row('paid', 200, '2026-03')];
    for (const earned of [0, 300, 1_000, -50]) {
      const { retire } = reconcile(target(earned), locked, statuses({ '2026-03': 'paid', '2026-04': 'locked' }));
      assert.deepEqual(retire, []);
    }
  });

  test('a second live pending row, left by an interrupted write, is reversed', () => {
    const older = row('pending', 500_000);
    const newer = row('pending', 500_000);
    assert.deepEqual(reconcile(target(500_000), [older, newer]), {
      retire: [
        {
          id: older.id,
          status: 'reversed',
          reason: { code: 'amount_changed', explanation: 'A newer row of the line replaced it.' },
        },
      ],
      write: [],
    });
  });
});

describe('the projected row', () => {
  test('carries F in the target period, ignoring what is locked', () => {
    const { write } = reconcile(
      target(0, 300_000, '2026-04'),
      [row('approved', 100)],
      statuses({ '2026-04': 'locked' }),
    );
    const projected = write.find((candidate) => candidate.status === 'projected');
    assert.deepEqual([projected?.amount_cents, projected?.period_id], [300_000, '2026-04']);
    assert.deepEqual(projected?.trace.result, {
      target_cents: 300_000,
      locked_cents: 0,
      amount_cents: 300_000,
      status: 'projected',
    });
  });

  test('moves to a new row when the close date moves to another period', () => {
    const live = row('projected', 300_000, '2026-04');
    const { retire, write } = reconcile(target(0, 300_000, '2026-06'), [live]);
    assert.deepEqual(retire, [
      {
        id: live.id,
        status: 'superseded',
        reason: { code: 'amount_changed', explanation: "The line's amount changed." },
      },
    ]);
    assert.deepEqual([write[0]?.period_id, write[0]?.supersedes_id], ['2026-06', live.id]);
  });

  test('a reopened deal: the earning is superseded by the projection', () => {
    const earned = row('pending', 300_000);
    const { retire, write } = reconcile(target(0, 300_000), [earned]);
    assert.deepEqual(retire, [
      {
        id: earned.id,
        status: 'superseded',
        reason: { code: 'deal_reopened', explanation: 'Deal opp-1 is open again, so it has earned nothing now.' },
      },
    ]);
    assert.deepEqual([write[0]?.status, write[0]?.supersedes_id], ['projected', earned.id]);
  });

  test('a lost deal: the projection is reversed', () => {
    const projected = row('projected', 300_000);
    const lost = evaluateLines({
      plan: plan(),
      rep,
      deals: [deal(1, { status: 'lost', stage: 'closed_lost', custom: { region: 'NA' } })],
      periods: [],
      today: '2026-04-25',
    }).targets[0] as LineTarget;
    assert.deepEqual(reconcile({ ...lost, earned_cents: 0, projected_cents: 0 }, [projected]), {
      retire: [
        { id: projected.id, status: 'reversed', reason: { code: 'deal_lost', explanation: 'Deal opp-1 was lost.' } },
      ],
      write: [],
    });
  });

  test('a won deal that earns nothing on the line: the projection is reversed, saying so', () => {
    const projected = row('projected', 300_000);
    assert.deepEqual(reconcile(target(0, 0), [projected]), {
      retire: [
        {
          id: projected.id,
          status: 'reversed',
          reason: { code: 'deal_won', explanation: 'Deal opp-1 was won, and this line earns nothing on it.' },
        },
      ],
      write: [],
    });
  });
});

describe('period transitions', () => {
  const rows = [row('pending', 100), row('projected', 200), row('pending', 300, '2026-05'), row('reversed', 400)];

  test('locking an open period approves its pending rows and nothing else', () => {
    const locked = lockPeriod('2026-04', 'open', rows);
    assert.deepEqual(locked, {
      ok: true,
      period_status: 'locked',
      changes: [{ id: rows[0]?.id, from: 'pending', to: 'approved' }],
    });
  });

  test('marking a locked period paid pays its approved rows', () => {
    const approved = [row('approved', 100), row('approved', 100, '2026-05')];
    assert.deepEqual(markPeriodPaid('2026-04', 'locked', approved), {
      ok: true,
      period_status: 'paid',
      changes: [{ id: approved[0]?.id, from: 'approved', to: 'paid' }],
    });
  });

  test('only an open period can be locked and only a locked one paid', () => {
    assert.deepEqual(lockPeriod('2026-04', 'locked', rows), {
      ok: false,
      reason: 'period 2026-04 is locked; it must be open to become locked',
    });
    assert.equal(markPeriodPaid('2026-04', 'open', rows).ok, false);
    assert.equal(markPeriodPaid('2026-04', 'paid', rows).ok, false);
  });

  test('the earliest open period skips locked and paid ones, and a period not yet created is open', () => {
    const periods = statuses({ '2026-Q1': 'paid', '2026-Q2': 'locked', '2026-Q3': 'open' });
    assert.equal(earliestOpenPeriodFrom('2026-Q1', periods), '2026-Q3');
    assert.equal(earliestOpenPeriodFrom('2026-Q3', periods), '2026-Q3');
    assert.equal(earliestOpenPeriodFrom('2026-12', statuses({ '2026-12': 'locked' })), '2027-01');
  });
});
