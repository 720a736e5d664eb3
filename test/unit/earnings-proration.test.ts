import assert from 'node:assert/strict';
import { describe, test } from 'vitest';
import { evaluateLines } from '../../src/domain/earnings/targets.ts';
import { chip, deal, plan, rep } from '../factories/earnings.ts';

// Quota proration: a rep whose dated assignment covers part of a period counts against the quota
// prorated by the days covered. Computed by hand: quota 100,000.00, a 2,000.00 bonus at 100% of quota, the rep
// assigned from April 16 (15 of April's 30 days): the quota is 100,000.00 × 15 / 30 = 50,000.00, so a 60,000.00
// deal of April 20 reaches 120% and earns the bonus (against the whole quota it would be 60%, and earn nothing).

const bonus = chip(51, {
  key: 'quota-bonus',
  name: 'Quota bonus',
  kind: 'attainment_bonus',
  when: null,
  params: { threshold_pct: 100, amount_cents: 200_000 },
});

const won = deal(1, { amount_cents: 6_000_000, close_date: '2026-04-20', won_at: '2026-04-20T12:00:00.000Z' });

describe('quota proration for a dated assignment, by hand', () => {
  test('a rep assigned for half of April counts against half the quota', () => {
    const dated = plan({
      chips: [bonus],
      assignees: [{ owner_external_id: rep.external_id, from: '2026-04-16' }],
    });
    const [line] = evaluateLines({ plan: dated, rep, deals: [won], periods: ['2026-04'], today: '2026-05-01' }).targets;
    assert.equal(line?.earned_cents, 200_000);
    assert.deepEqual(
      line?.trace.steps.find((step) => step.type === 'threshold'),
      {
        type: 'threshold',
        attained_cents: 6_000_000,
        quota_cents: 5_000_000,
        threshold_pct: 100,
        reached: true,
        counted_deals: [
          {
            id: won.id,
            external_id: won.external_id,
            amount_cents: 6_000_000,
            close_date: '2026-04-20',
            running_total_cents: 6_000_000,
          },
        ],
      },
    );
    assert.equal(
      line?.trace.explanation[0],
      'rep-017 is assigned to plan core-ae for 15 of the 30 days of 2026-04, so the quota is prorated: 100,000.00 × 15 / 30, rounded half away from zero, is 50,000.00.',
    );
  });

  test('a whole period keeps the whole quota, and May is not prorated', () => {
    const dated = plan({
      chips: [bonus],
      assignees: [{ owner_external_id: rep.external_id, from: '2026-04-16' }],
    });
    const may = deal(2, { amount_cents: 6_000_000, close_date: '2026-05-20', won_at: '2026-05-20T12:00:00.000Z' });
    const [line] = evaluateLines({ plan: dated, rep, deals: [may], periods: ['2026-05'], today: '2026-06-01' }).targets;
    assert.equal(line?.earned_cents, 0);
    const undated = plan({ chips: [bonus] });
    const [whole] = evaluateLines({
      plan: undated,
      rep,
      deals: [won],
      periods: ['2026-04'],
      today: '2026-05-01',
    }).targets;
    assert.equal(whole?.earned_cents, 0);
  });
});
