import assert from 'node:assert/strict';
import pg from 'pg';
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

  test('rows store their trace compact and serve it whole; a row stored whole is served the same', async ({
    db,
    org,
    client,
  }) => {
    const document = planDocument();
    const plan = await applyPlan(db, org.id, document);
    await client.deals.ingestEvent({
      external_id: 'opp-a',
      state: state(6_000_000, 'closed_won', '2026-04-10', { region: 'EMEA' }),
    });
    const b = await client.deals.ingestEvent({
      external_id: 'opp-b',
      state: state(5_000_000, 'closed_won', '2026-04-20', { region: 'NA', new_logo: true }),
    });
    const rows = await listAll(client, { status: ['pending'] });
    assert.ok(rows.length >= 4);
    const sql = new pg.Client({ connectionString: process.env.DATABASE_URL as string });
    await sql.connect();
    try {
      for (const row of rows) {
        const served = await client.earnings.get(row.id);
        // Served whole: the plan version, the chip with its definition, the cause's event with its changes.
        assert.deepEqual(served.trace.plan, {
          id: plan.plan_id,
          key: document.key,
          version_id: plan.version_id,
          version_number: 1,
        });
        const chip = plan.chips.find((each) => each.id === row.rule_chip_id);
        assert.equal(served.trace.chip.key, chip?.key);
        assert.equal(served.trace.chip.definition.key, chip?.key);
        assert.ok(served.trace.cause && served.trace.cause.changes.length > 0);
        if (served.trace.cause.domain_event_id === b.domain_event_id) {
          assert.deepEqual(
            served.trace.cause.changes.find((change) => change.field === 'custom.new_logo'),
            {
              field: 'custom.new_logo',
              from: null,
              to: true,
            },
          );
        }
        // Stored compact: none of what the trace names by reference.
        const stored = await sql.query<{ trace: Record<string, unknown> }>(
          'SELECT trace FROM earnings WHERE org_id = $1 AND id = $2',
          [org.id, row.id],
        );
        const trace = stored.rows[0]?.trace ?? {};
        assert.equal(trace.plan, undefined);
        assert.deepEqual(trace.chip, { kind: served.trace.chip.kind });
        assert.deepEqual(trace.cause, { domain_event_id: served.trace.cause.domain_event_id });
        // A row written before the compact form holds its trace whole: it is served as it is, the same JSON.
        await sql.query('UPDATE earnings SET trace = $3::jsonb WHERE org_id = $1 AND id = $2', [
          org.id,
          row.id,
          JSON.stringify(served.trace),
        ]);
        const again = await client.earnings.get(row.id);
        assert.equal(JSON.stringify(again.trace), JSON.stringify(served.trace));
      }
    } finally {
      await sql.end();
    }
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
