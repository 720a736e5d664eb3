import assert from 'node:assert/strict';
import { fileURLToPath } from 'node:url';
import { describe } from 'vitest';
import type { EarningListItem, QuotientClient } from '../../sdk/src/index.ts';
import { cliJson as cli } from '../helpers/cli.ts';
import { test } from '../helpers/fixtures.ts';

// Deal events decided from the running totals (docs/plans-and-earnings.md, "What one deal event costs") through
// the real pipeline, mixed with events that must evaluate the whole period: a recompute afterwards finds nothing to
// change, so what the events left equals a full evaluation.

const EXAMPLE_PLAN = fileURLToPath(new URL('../../examples/plans/core-ae.yaml', import.meta.url));

interface AppliedPlan {
  chips: Array<{ id: string; key: string }>;
}

interface Recompute {
  rows_written: number;
  rows_superseded: number;
  rows_reversed: number;
}

async function listAll(client: QuotientClient): Promise<EarningListItem[]> {
  const earnings: EarningListItem[] = [];
  for await (const earning of client.earnings.list({ status: ['pending', 'projected'] })) earnings.push(earning);
  return earnings;
}

const won = (external_id: string, amount_cents: number, close_date: string) => ({
  external_id,
  state: { amount_cents, stage: 'closed_won', close_date, owner_external_id: 'rep-017', region: 'NA' },
});

describe('running totals', () => {
  test('events decided from the totals and events that evaluate the period leave what a recompute would', async ({
    org,
    client,
  }) => {
    const plan = await cli<AppliedPlan>(['plans', 'apply', EXAMPLE_PLAN, '--org', org.id]);
    const accelerator = plan.chips.find((chip) => chip.key === 'accelerator')?.id;
    // Past quota from the first deal on: every later deal is in the accelerator's last band.
    await client.deals.ingestEvent(won('totals-0', 12_000_000, '2026-04-01'));
    // Appended in counting order: decided from the totals.
    for (let n = 1; n <= 4; n++) await client.deals.ingestEvent(won(`totals-${n}`, 100_000 * n, `2026-04-0${n + 1}`));
    // The deal counted last changes its amount and stays last; an open deal is projected after the won ones.
    await client.deals.ingestEvent({ external_id: 'totals-4', state: { amount_cents: 450_000 } });
    await client.deals.ingestEvent({
      external_id: 'totals-open',
      state: { amount_cents: 300_000, stage: 'proposal', close_date: '2026-04-28', owner_external_id: 'rep-017' },
    });
    // Then events that move other lines or leave the count: a deal dated before others, a change to a deal in the
    // middle, a deal lost; and one more appended after them.
    await client.deals.ingestEvent(won('totals-early', 200_000, '2026-04-01'));
    await client.deals.ingestEvent({ external_id: 'totals-2', state: { amount_cents: 2_500_000 } });
    await client.deals.ingestEvent({ external_id: 'totals-3', state: { stage: 'closed_lost' } });
    await client.deals.ingestEvent(won('totals-5', 600_000, '2026-04-20'));

    const live = await listAll(client);
    const last = live.find((earning) => earning.rule_chip_id === accelerator && earning.amount_cents === 30_000);
    assert.ok(last, 'totals-5 earns 5% of 600,000');
    const cumulative = (await client.earnings.get(last.id)).trace.steps.find((step) => step.type === 'cumulative');
    assert.deepEqual(
      cumulative && 'counted_deals' in cumulative ? cumulative.counted_deals?.map((deal) => deal.external_id) : null,
      ['totals-4', 'totals-5'],
      'decided from the totals: the trace names the deal counted before it, and itself',
    );
    const recompute = await cli<Recompute>(['recompute', '--org', org.id]);
    assert.deepEqual([recompute.rows_written, recompute.rows_superseded, recompute.rows_reversed], [0, 0, 0]);
  });

  test('under quota, deals appended with and without open deals projected in their period', async ({ org, client }) => {
    await cli(['plans', 'apply', EXAMPLE_PLAN, '--org', org.id]);
    // Under quota: decided from the totals while no other open deal is projected in April.
    for (let n = 1; n <= 3; n++) await client.deals.ingestEvent(won(`under-${n}`, 1_000_000 * n, `2026-04-0${n}`));
    await client.deals.ingestEvent({
      external_id: 'under-open-may',
      state: { amount_cents: 4_000_000, stage: 'proposal', close_date: '2026-05-15', owner_external_id: 'rep-017' },
    });
    await client.deals.ingestEvent(won('under-4', 2_000_000, '2026-04-10'));
    // An open deal projected in April: the next deal appended moves its projection, and the period is evaluated.
    await client.deals.ingestEvent({
      external_id: 'under-open-april',
      state: { amount_cents: 3_000_000, stage: 'proposal', close_date: '2026-04-29', owner_external_id: 'rep-017' },
    });
    await client.deals.ingestEvent(won('under-5', 1_500_000, '2026-04-12'));
    await client.deals.ingestEvent({ external_id: 'under-open-april', state: { stage: 'closed_lost' } });
    await client.deals.ingestEvent(won('under-6', 3_000_000, '2026-04-14'));
    const recompute = await cli<Recompute>(['recompute', '--org', org.id]);
    assert.deepEqual([recompute.rows_written, recompute.rows_superseded, recompute.rows_reversed], [0, 0, 0]);
  });
});
