import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { describe, test } from 'vitest';
import { parse } from 'yaml';
import type { DealSnapshot, EarningTrace } from '../../src/domain/earnings/types.ts';
import { deal, plan, rep } from '../factories/earnings.ts';
import { EarningsWorld, type StoredRow } from '../helpers/earningsLedger.ts';

// product.md section 10: monthly plan, quota 100,000.00. The rep wins deal A (60,000.00, EMEA, closes
// 2026-04-10) and deal B (50,000.00, NA, new logo, closes 2026-04-20).

// The ids of the contract examples, whose traces name the deals counted toward quota.
const dealA = deal(1, {
  id: 'deal_01knvyqwr3fyw9nzzchng2xze2',
  external_id: 'opp-1042',
  amount_cents: 6_000_000,
  close_date: '2026-04-10',
  won_at: '2026-04-10T09:12:00.000Z',
  custom: { region: 'EMEA' },
});
const dealB = deal(2, {
  id: 'deal_01kpnvmrz8f7z8pdg8ny07g73y',
  external_id: 'opp-1043',
  amount_cents: 5_000_000,
  close_date: '2026-04-20',
  won_at: '2026-04-20T16:30:12.456Z',
  custom: { region: 'NA', new_logo: true },
});

function worldWithBothWon(): EarningsWorld {
  const world = new EarningsWorld(plan(), [rep], '2026-04-20');
  world.change(dealA);
  world.change(dealB);
  return world;
}

function summary(rows: StoredRow[]) {
  return rows.map((row) => ({
    chip: row.trace.chip.key,
    deal: row.trace.deal?.external_id ?? null,
    amount: row.amount_cents,
    status: row.status,
    period: row.period_id,
  }));
}

function contractExample(name: string): { trace: EarningTrace } {
  const file = new URL(`../../openapi/components/examples/${name}.yaml`, import.meta.url);
  return (parse(readFileSync(file, 'utf8')) as { value: { trace: EarningTrace } }).value;
}

describe('the worked example of product.md', () => {
  test('both deals won: every paying line has one pending row with the hand-computed amount', () => {
    const world = worldWithBothWon();
    assert.deepEqual(summary(world.ledger.rows), [
      { chip: 'base', deal: 'opp-1042', amount: 600_000, status: 'pending', period: '2026-04' },
      { chip: 'base', deal: 'opp-1043', amount: 500_000, status: 'pending', period: '2026-04' },
      { chip: 'accelerator', deal: 'opp-1043', amount: 50_000, status: 'pending', period: '2026-04' },
      { chip: 'new-logo', deal: 'opp-1043', amount: 50_000, status: 'pending', period: '2026-04' },
      { chip: 'quota-bonus', deal: null, amount: 200_000, status: 'pending', period: '2026-04' },
    ]);
  });

  test("A's accelerator line earns 0 (A stays below quota), so by the ledger rule it has no row", () => {
    const world = worldWithBothWon();
    const acceleratorOfA = world
      .everyTarget(['2026-04'])
      .find((target) => target.trace.chip.key === 'accelerator' && target.line.deal_id === dealA.id);
    assert.equal(acceleratorOfA?.earned_cents, 0);
    assert.ok(
      acceleratorOfA?.trace.explanation.includes(
        'Band 1 (0.00 to 100,000.00, 100% of quota 100,000.00) takes 60,000.00 at 0.00% = 0.00',
      ),
    );
    assert.deepEqual(world.ledger.rowsOf(acceleratorOfA?.line.line_key ?? ''), []);
  });

  test('the traces say what the contract examples say', () => {
    const world = worldWithBothWon();
    const rowOf = (key: string, forDeal: DealSnapshot | null) =>
      world.ledger.rows.find(
        (row) => row.trace.chip.key === key && (row.trace.deal?.id ?? null) === (forDeal?.id ?? null),
      );
    for (const [key, forDeal, example] of [
      ['base', dealB, 'EarningBaseCommissionExample'],
      ['accelerator', dealB, 'EarningAcceleratorExample'],
      ['quota-bonus', null, 'EarningAttainmentBonusExample'],
    ] as const) {
      const written = rowOf(key, forDeal)?.trace;
      const expected = contractExample(example).trace;
      assert.ok(written, key);
      assert.deepEqual(written.steps, expected.steps, key);
      assert.deepEqual(written.result, expected.result, key);
      assert.deepEqual(written.explanation, expected.explanation, key);
      assert.deepEqual(written.period, expected.period, key);
      // The plan module fills in a commission's default `base: amount_cents`, which the example leaves out.
      const { base: _filledIn, ...definition } = written.chip.definition;
      assert.deepEqual(definition, expected.chip.definition, key);
      assert.deepEqual(written.deal?.custom ?? null, expected.deal?.custom ?? null, key);
    }
  });

  test("B deleted: B's three rows and the bonus are reversed, A's rows stay", () => {
    const world = worldWithBothWon();
    world.change({ ...dealB, status: 'deleted' });
    assert.deepEqual(summary(world.ledger.rows), [
      { chip: 'base', deal: 'opp-1042', amount: 600_000, status: 'pending', period: '2026-04' },
      { chip: 'base', deal: 'opp-1043', amount: 500_000, status: 'reversed', period: '2026-04' },
      { chip: 'accelerator', deal: 'opp-1043', amount: 50_000, status: 'reversed', period: '2026-04' },
      { chip: 'new-logo', deal: 'opp-1043', amount: 50_000, status: 'reversed', period: '2026-04' },
      { chip: 'quota-bonus', deal: null, amount: 200_000, status: 'reversed', period: '2026-04' },
    ]);
  });

  test('B deleted after April was locked: the approved rows stay and May gets the clawbacks', () => {
    const world = worldWithBothWon();
    world.ledger.lock('2026-04');
    world.change({ ...dealB, status: 'deleted' });
    assert.deepEqual(summary(world.ledger.rows), [
      { chip: 'base', deal: 'opp-1042', amount: 600_000, status: 'approved', period: '2026-04' },
      { chip: 'base', deal: 'opp-1043', amount: 500_000, status: 'approved', period: '2026-04' },
      { chip: 'accelerator', deal: 'opp-1043', amount: 50_000, status: 'approved', period: '2026-04' },
      { chip: 'new-logo', deal: 'opp-1043', amount: 50_000, status: 'approved', period: '2026-04' },
      { chip: 'quota-bonus', deal: null, amount: 200_000, status: 'approved', period: '2026-04' },
      { chip: 'base', deal: 'opp-1043', amount: -500_000, status: 'pending', period: '2026-05' },
      { chip: 'accelerator', deal: 'opp-1043', amount: -50_000, status: 'pending', period: '2026-05' },
      { chip: 'new-logo', deal: 'opp-1043', amount: -50_000, status: 'pending', period: '2026-05' },
      { chip: 'quota-bonus', deal: null, amount: -200_000, status: 'pending', period: '2026-05' },
    ]);
    const clawback = world.ledger.rows.find((row) => row.trace.chip.key === 'quota-bonus' && row.amount_cents < 0);
    assert.deepEqual(clawback?.trace.result, {
      target_cents: 0,
      locked_cents: 200_000,
      amount_cents: -200_000,
      status: 'pending',
    });
    assert.deepEqual(
      [clawback?.period_id, clawback?.trace.period.id, clawback?.trace.period.status],
      ['2026-05', '2026-04', 'locked'],
    );
    assert.deepEqual(clawback?.trace.explanation.slice(-2), [
      'Period 2026-04 is locked, so this row is booked in 2026-05, the earliest open period after it.',
      'Already approved or paid on this line, 2,000.00, so this row is 0.00 - 2,000.00 = -2,000.00, a clawback',
    ]);
  });

  test('A projected while open, then won: the projection is superseded by the earning', () => {
    const world = new EarningsWorld(plan(), [rep], '2026-04-05');
    world.change({ ...dealA, status: 'open', stage: 'negotiation', won_at: null });
    assert.deepEqual(summary(world.ledger.rows), [
      { chip: 'base', deal: 'opp-1042', amount: 600_000, status: 'projected', period: '2026-04' },
    ]);
    world.change(dealA);
    const [projection, earning] = world.ledger.rows;
    assert.equal(projection?.status, 'superseded');
    assert.deepEqual(
      [earning?.status, earning?.amount_cents, earning?.supersedes_id],
      ['pending', 600_000, projection?.id],
    );
    assert.deepEqual(earning?.trace.superseded, {
      id: projection?.id,
      amount_cents: 600_000,
      reason: { code: 'deal_won', explanation: 'Deal opp-1042 was won, so its forecast became an earning.' },
    });
  });
});
