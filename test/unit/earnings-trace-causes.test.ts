import assert from 'node:assert/strict';
import { describe, test } from 'vitest';
import { evaluateLines } from '../../src/domain/earnings/targets.ts';
import type { DealSnapshot, LineTarget, TraceStep } from '../../src/domain/earnings/types.ts';
import { deal, otherRep, plan, rep } from '../factories/earnings.ts';
import { EarningsWorld } from '../helpers/earningsLedger.ts';

// Traces that name their causes (the pure part): a zero target says why as a step, a clawback on a reopened deal
// shows "earned now: 0" before the subtraction, and a replacing row says why its predecessor went.

const TODAY = '2026-04-25';

function zeroSteps(target: LineTarget | undefined): TraceStep[] {
  return target?.trace.steps.filter((step) => step.type === 'zero_target') ?? [];
}

function baseLine(deals: DealSnapshot[], options: Parameters<typeof plan>[0] = {}) {
  const evaluation = evaluateLines({ plan: plan(options), rep, deals, periods: [], today: TODAY });
  return (dealId: string) =>
    evaluation.targets.find((target) => target.trace.chip.key === 'base' && target.line.deal_id === dealId);
}

describe('a zero target says why, as a step', () => {
  test.each([
    ['deal_lost', deal(1, { status: 'lost', stage: 'closed_lost', won_at: null, custom: { region: 'NA' } })],
    ['deal_deleted', deal(1, { status: 'deleted', custom: { region: 'NA' } })],
    ['not_owner', deal(1, { owner_external_id: otherRep.external_id, custom: { region: 'NA' } })],
    ['not_matching', deal(1, { custom: { region: 'APAC' } })],
  ] as const)('%s', (reason, zeroed) => {
    const line = baseLine([zeroed])(zeroed.id);
    assert.deepEqual([line?.earned_cents, line?.projected_cents], [0, 0]);
    assert.deepEqual(zeroSteps(line), [{ type: 'zero_target', reason, earned_cents: 0 }]);
  });

  test('not_assigned, and none on a line that earns', () => {
    const mine = deal(1, { custom: { region: 'NA' } });
    assert.deepEqual(zeroSteps(baseLine([mine], { assignees: ['rep-999'] })(mine.id)), [
      { type: 'zero_target', reason: 'not_assigned', earned_cents: 0 },
    ]);
    assert.deepEqual(zeroSteps(baseLine([mine])(mine.id)), []);
  });
});

describe('a replacing row says why', () => {
  const wonA = deal(1, { amount_cents: 6_000_000, custom: { region: 'EMEA' } });

  function rowsOfBase(world: EarningsWorld) {
    return world.ledger.rows.filter((row) => row.trace.chip.key === 'base');
  }

  test('a deal reopened after its period was locked: earned now 0 before the subtraction, then the clawback', () => {
    const world = new EarningsWorld(plan(), [rep], TODAY);
    world.change(wonA);
    world.ledger.lock('2026-04');
    world.change({ ...wonA, status: 'open', stage: 'proposal', won_at: null });
    const clawback = rowsOfBase(world).find((row) => row.status === 'pending');
    assert.ok(clawback);
    assert.deepEqual([clawback.amount_cents, clawback.period_id], [-600_000, '2026-05']);
    assert.deepEqual(clawback.trace.steps.slice(-2), [
      { type: 'zero_target', reason: 'deal_open', earned_cents: 0 },
      { type: 'locked_total', approved_and_paid_cents: 600_000 },
    ]);
    const sentences = clawback.trace.explanation;
    const earnedNow = sentences.indexOf('Earned now: 0.00.');
    assert.ok(earnedNow > 0, sentences.join('\n'));
    assert.ok(sentences.slice(earnedNow).some((sentence) => sentence.endsWith('= -6,000.00, a clawback')));
  });

  test.each([
    ['deal_lost', { status: 'lost', stage: 'closed_lost', won_at: null }, 'Deal opp-1 was lost.'],
    ['deal_deleted', { status: 'deleted' }, 'Deal opp-1 was deleted.'],
    ['owner_changed', { owner_external_id: otherRep.external_id }, 'Deal opp-1 now belongs to another rep.'],
    ['no_longer_matching', { custom: { region: 'APAC' } }, "Deal opp-1 no longer meets the chip's condition."],
    [
      'deal_reopened',
      { status: 'open', stage: 'proposal', won_at: null },
      'Deal opp-1 is open again, so it has earned nothing now.',
    ],
    ['amount_changed', { amount_cents: 7_000_000 }, "The line's amount changed."],
  ] as const)('%s, on the row that replaces a locked earning', (code, change, explanation) => {
    const world = new EarningsWorld(plan(), [rep], TODAY);
    world.change(wonA);
    world.ledger.lock('2026-04');
    world.change({ ...wonA, amount_cents: 5_000_000 });
    world.change({ ...wonA, ...change } as DealSnapshot);
    const [replacing] = rowsOfBase(world).filter((row) => row.status === 'pending' && row.supersedes_id !== null);
    assert.ok(replacing, 'a row replaced the first clawback');
    assert.deepEqual(replacing.trace.superseded?.reason, { code, explanation });
  });
});
