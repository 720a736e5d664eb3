import assert from 'node:assert/strict';
import { describe } from 'vitest';
import { createSqlPool } from '../../src/repositories/transaction.ts';
import { applyPlan, planDocument } from '../factories/plans.ts';
import { listAll, state } from '../helpers/earnings.ts';
import { test } from '../helpers/fixtures.ts';
import { testServices } from '../helpers/services.ts';

// Traces that name their causes, end to end through the SDK (the test server validates every trace against the
// contract): the deals that make up a running total, the deal event that moved a row of another deal, and why a
// row replaced its predecessor when a plan version changed.

describe('traces that name their causes', () => {
  test('the bonus and accelerator name the deals of the running total and the deal event that moved them', async ({
    db,
    org,
    client,
  }) => {
    const plan = await applyPlan(db, org.id, planDocument());
    const chipId = (key: string) => plan.chips.find((chip) => chip.key === key)?.id;
    const a = await client.deals.ingestEvent({
      external_id: 'opp-a',
      state: state(6_000_000, 'closed_won', '2026-04-10', { region: 'EMEA' }),
    });
    const b = await client.deals.ingestEvent({
      external_id: 'opp-b',
      state: state(5_000_000, 'closed_won', '2026-04-20', { region: 'NA' }),
    });
    const rows = await listAll(client, { status: ['pending'] });

    const bonusRow = rows.find((row) => row.rule_chip_id === chipId('quota-bonus'));
    assert.ok(bonusRow);
    const bonus = (await client.earnings.get(bonusRow.id)).trace;
    assert.deepEqual(bonus.cause && { ...bonus.cause, changes: undefined }, {
      domain_event_id: b.domain_event_id,
      event_kind: 'deal.created',
      deal_id: b.deal_id,
      deal_external_id: 'opp-b',
      changes: undefined,
    });
    const counted = [
      {
        id: a.deal_id,
        external_id: 'opp-a',
        amount_cents: 6_000_000,
        close_date: '2026-04-10',
        running_total_cents: 6_000_000,
      },
      {
        id: b.deal_id,
        external_id: 'opp-b',
        amount_cents: 5_000_000,
        close_date: '2026-04-20',
        running_total_cents: 11_000_000,
      },
    ];
    const threshold = bonus.steps.find((step) => step.type === 'threshold');
    assert.deepEqual(threshold?.type === 'threshold' && threshold.counted_deals, counted);

    const acceleratorRow = rows.find((row) => row.rule_chip_id === chipId('accelerator'));
    assert.equal(acceleratorRow?.deal_id, b.deal_id);
    const accelerator = (await client.earnings.get(acceleratorRow?.id as string)).trace;
    const cumulative = accelerator.steps.find((step) => step.type === 'cumulative');
    assert.deepEqual(cumulative?.type === 'cumulative' && cumulative.counted_deals, counted);

    // Deal A grows: B's accelerator row moves although B did not change, and says A's event did it.
    const grown = await client.deals.ingestEvent({ external_id: 'opp-a', state: { amount_cents: 7_000_000 } });
    const moved = (await listAll(client, { status: ['pending'] })).find(
      (row) => row.rule_chip_id === chipId('accelerator'),
    );
    assert.ok(moved && moved.id !== acceleratorRow?.id);
    assert.equal(moved.deal_id, b.deal_id);
    const movedTrace = (await client.earnings.get(moved.id)).trace;
    assert.deepEqual(movedTrace.cause, {
      domain_event_id: grown.domain_event_id,
      event_kind: 'deal.amount_changed',
      deal_id: a.deal_id,
      deal_external_id: 'opp-a',
      changes: [{ field: 'amount_cents', from: 6_000_000, to: 7_000_000 }],
    });
    assert.deepEqual(movedTrace.superseded, {
      id: acceleratorRow?.id,
      amount_cents: 50_000,
      reason: { code: 'amount_changed', explanation: "The line's amount changed." },
    });
  });

  test('a recompute after a new plan version says so on the rows that replace, and names no event', async ({
    db,
    org,
    client,
  }) => {
    const document = planDocument({ chips: [{ key: 'base', name: 'Base', kind: 'commission', rate_bps: 1000 }] });
    await applyPlan(db, org.id, document);
    await client.deals.ingestEvent({ external_id: 'opp-a', state: state(6_000_000, 'closed_won', '2026-04-10') });
    const [before] = await listAll(client, { status: ['pending'] });

    const applied = await applyPlan(db, org.id, { ...document, chips: [{ ...document.chips[0], rate_bps: 1200 }] });
    const pool = createSqlPool(process.env.DATABASE_URL as string, 2, () => {});
    try {
      await testServices({ pool }).admin.recompute.run({ orgId: org.id, planIds: [applied.plan_id] });
    } finally {
      await pool.end();
    }
    const [after] = await listAll(client, { status: ['pending'] });
    assert.equal(after?.amount_cents, 720_000);
    const trace = (await client.earnings.get(after?.id as string)).trace;
    assert.equal(trace.cause, undefined);
    assert.deepEqual(trace.superseded, {
      id: before?.id,
      amount_cents: 600_000,
      reason: { code: 'plan_version_changed', explanation: 'The plan changed, and its lines were recomputed.' },
    });
    const replaced = await client.earnings.get(before?.id as string);
    assert.equal(replaced.status, 'superseded');
    assert.deepEqual(replaced.status_reason, trace.superseded?.reason);
  });

  test('a chip removed by a new plan version reverses its rows, and the rows say why', async ({ db, org, client }) => {
    const base = { key: 'base', name: 'Base', kind: 'commission', rate_bps: 1000 } as const;
    const spiff = { key: 'spiff', name: 'Spiff', kind: 'flat', amount_cents: 50_000 } as const;
    const document = planDocument({ chips: [base, spiff] });
    await applyPlan(db, org.id, document);
    await client.deals.ingestEvent({ external_id: 'opp-a', state: state(6_000_000, 'closed_won', '2026-04-10') });
    assert.equal((await listAll(client, { status: ['pending'] })).length, 2);

    const applied = await applyPlan(db, org.id, { ...document, chips: [base] });
    const pool = createSqlPool(process.env.DATABASE_URL as string, 2, () => {});
    try {
      await testServices({ pool }).admin.recompute.run({ orgId: org.id, planIds: [applied.plan_id] });
    } finally {
      await pool.end();
    }
    const reversed = await listAll(client, { status: ['reversed'] });
    assert.deepEqual(
      reversed.map((row) => [row.amount_cents, row.status_reason]),
      [[50_000, { code: 'chip_removed', explanation: "The plan's new version no longer has this chip." }]],
    );
    assert.deepEqual(
      (await listAll(client, { status: ['pending'] })).map((row) => [row.amount_cents, row.status_reason]),
      [[600_000, null]],
    );
  });
});
