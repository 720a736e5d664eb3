import assert from 'node:assert/strict';
import { fileURLToPath } from 'node:url';
import { describe } from 'vitest';
import type { EarningListItem } from '../../sdk/src/index.ts';
import { externalId } from '../factories/deals.ts';
import { planDocument } from '../factories/plans.ts';
import { createEndpoint } from '../factories/webhooks.ts';
import { cliJson as cli, onlyJson, runCli } from '../helpers/cli.ts';
import { type AppliedPlan, applyPlanFile, listAll } from '../helpers/earnings.ts';
import { test } from '../helpers/fixtures.ts';
import { assertMatchesContract } from '../helpers/webhookReceiver.ts';

// The earnings ledger end to end: plans applied with the CLI, deal events and reads through the SDK against the
// real server (which validates its own responses against the contract), periods locked with the CLI.

const EXAMPLE_PLAN = fileURLToPath(new URL('../../examples/plans/core-ae.yaml', import.meta.url));

function dealState(amountCents: number, stage: string, closeDate: string | null, custom: Record<string, unknown> = {}) {
  return { amount_cents: amountCents, stage, close_date: closeDate, owner_external_id: 'rep-017', ...custom };
}

/** A plan of one chip: 10% commission on every deal of every rep. */
function commissionPlan(overrides: Record<string, unknown> = {}) {
  return planDocument({
    chips: [{ key: 'base', name: 'Base commission', kind: 'commission', rate_bps: 1000 }],
    ...overrides,
  });
}

function byChip(plan: AppliedPlan) {
  return new Map(plan.chips.map((chip) => [chip.id, chip.key]));
}

describe('the worked example of product.md, end to end', () => {
  test('deals A and B won: five pending rows with the hand-computed amounts, and a trace that explains one', async ({
    org,
    client,
  }) => {
    const plan = await cli<AppliedPlan>(['plans', 'apply', EXAMPLE_PLAN, '--org', org.id]);
    const chipKey = byChip(plan);
    const a = await client.deals.ingestEvent({
      external_id: 'opp-1042',
      state: dealState(6_000_000, 'closed_won', '2026-04-10', { region: 'EMEA' }),
    });
    const b = await client.deals.ingestEvent({
      external_id: 'opp-1043',
      state: dealState(5_000_000, 'closed_won', '2026-04-20', { region: 'NA', new_logo: true }),
    });

    const earnings = await listAll(client);
    const summary = earnings.map((earning) => ({
      chip: chipKey.get(earning.rule_chip_id),
      deal: earning.deal_id,
      amount: earning.amount_cents,
      status: earning.status,
      period: earning.period_id,
      trigger: earning.triggering_domain_event_id,
    }));
    assert.deepEqual(summary, [
      {
        chip: 'base',
        deal: a.deal_id,
        amount: 600_000,
        status: 'pending',
        period: '2026-04',
        trigger: a.domain_event_id,
      },
      {
        chip: 'base',
        deal: b.deal_id,
        amount: 500_000,
        status: 'pending',
        period: '2026-04',
        trigger: b.domain_event_id,
      },
      {
        chip: 'accelerator',
        deal: b.deal_id,
        amount: 50_000,
        status: 'pending',
        period: '2026-04',
        trigger: b.domain_event_id,
      },
      {
        chip: 'new-logo',
        deal: b.deal_id,
        amount: 50_000,
        status: 'pending',
        period: '2026-04',
        trigger: b.domain_event_id,
      },
      {
        chip: 'quota-bonus',
        deal: null,
        amount: 200_000,
        status: 'pending',
        period: '2026-04',
        trigger: b.domain_event_id,
      },
    ]);
    for (const earning of earnings) {
      assert.equal(earning.user_external_id, 'rep-017');
      assert.equal(earning.plan_id, plan.plan_id);
      assert.equal(earning.plan_version_id, plan.version_id);
      assert.equal(earning.rule_version, '1');
      assert.equal(earning.supersedes_id, null);
    }

    const accelerator = earnings.find((earning) => chipKey.get(earning.rule_chip_id) === 'accelerator');
    const fetched = await client.earnings.get(accelerator?.id as string);
    const { trace, ...fields } = fetched;
    assert.deepEqual(fields, accelerator);
    assert.equal(trace.plan.version_id, plan.version_id);
    assert.equal(trace.deal?.external_id, 'opp-1043');
    assert.equal(trace.period.id, '2026-04');
    assert.deepEqual(trace.result, { target_cents: 50_000, locked_cents: 0, amount_cents: 50_000, status: 'pending' });
    assert.deepEqual(trace.explanation, [
      'Deal opp-1043 was won with close date 2026-04-20, so it counts in period 2026-04.',
      'Won by rep-017 in 2026-04 before this deal, 60,000.00; this deal adds 50,000.00, reaching 110,000.00.',
      'Band 1 (0.00 to 100,000.00, 100% of quota 100,000.00) takes 40,000.00 at 0.00% = 0.00',
      'Band 2 (from 100,000.00) takes 10,000.00 at 5.00% = 500.00',
      '0.00 + 500.00 = 500.00, rounded half away from zero to 500.00',
      'Already approved or paid on this line, 0.00, so this row is 500.00 - 0.00 = 500.00',
    ]);
    const tiers = trace.steps.filter((step) => step.type === 'tier');
    assert.equal(tiers.length, 2);

    // B is deleted: its three rows and the bonus (attainment fell to 60%) are reversed; A's row stays.
    const deleted = await client.deals.ingestEvent({
      external_id: 'opp-1043',
      event_type: 'delete',
      state: {},
    });
    const after = await listAll(client);
    assert.deepEqual(
      after.map((earning) => [chipKey.get(earning.rule_chip_id), earning.deal_id, earning.status]),
      [
        ['base', a.deal_id, 'pending'],
        ['base', b.deal_id, 'reversed'],
        ['accelerator', b.deal_id, 'reversed'],
        ['new-logo', b.deal_id, 'reversed'],
        ['quota-bonus', null, 'reversed'],
      ],
    );
    assert.equal(deleted.deal_id, b.deal_id);
  });
});

describe("a deal's path through the ledger", () => {
  test('open → projected; won → pending, superseding the projection; lost → reversed', async ({ org, client }) => {
    await applyPlanFile(org.id, commissionPlan());
    const external = externalId();
    const opened = await client.deals.ingestEvent({
      external_id: external,
      state: dealState(2_000_000, 'negotiation', '2026-06-15'),
    });
    const [projected] = await listAll(client, { deal_id: opened.deal_id });
    assert.deepEqual(
      [projected?.status, projected?.amount_cents, projected?.period_id, projected?.triggering_domain_event_id],
      ['projected', 200_000, '2026-06', opened.domain_event_id],
    );

    const won = await client.deals.ingestEvent({ external_id: external, state: { stage: 'Closed Won' } });
    const afterWin = await listAll(client, { deal_id: opened.deal_id });
    assert.deepEqual(
      afterWin.map((earning) => [earning.status, earning.amount_cents, earning.supersedes_id]),
      [
        ['superseded', 200_000, null],
        ['pending', 200_000, projected?.id],
      ],
    );
    assert.deepEqual(
      afterWin.map((earning) => earning.status_reason),
      [{ code: 'deal_won', explanation: `Deal ${external} was won, so its forecast became an earning.` }, null],
    );
    const pending = afterWin[1];
    assert.equal(pending?.triggering_domain_event_id, won.domain_event_id);
    assert.deepEqual((await client.earnings.get(pending?.id as string)).trace.superseded, {
      id: projected?.id,
      amount_cents: 200_000,
      reason: { code: 'deal_won', explanation: `Deal ${external} was won, so its forecast became an earning.` },
    });

    const lost = await client.deals.ingestEvent({ external_id: external, state: { stage: 'closed_lost' } });
    const afterLoss = await listAll(client, { deal_id: opened.deal_id });
    assert.deepEqual(
      afterLoss.map((earning) => earning.status),
      ['superseded', 'reversed'],
    );
    // The reversed row has no successor to say why: the row says it itself.
    assert.deepEqual(afterLoss[1]?.status_reason, { code: 'deal_lost', explanation: `Deal ${external} was lost.` });
    assert.equal(lost.deal_id, opened.deal_id);
  });

  test('a won deal deleted is reversed; restored and won again, it earns again', async ({ org, client }) => {
    await applyPlanFile(org.id, commissionPlan());
    const external = externalId();
    const won = await client.deals.ingestEvent({
      external_id: external,
      state: dealState(1_000_000, 'won', '2026-05-02'),
    });
    await client.deals.ingestEvent({ external_id: external, event_type: 'delete', state: {} });
    assert.deepEqual(
      (await listAll(client, { deal_id: won.deal_id })).map((earning) => [
        earning.status,
        earning.amount_cents,
        earning.status_reason?.code,
      ]),
      [['reversed', 100_000, 'deal_deleted']],
    );
    await client.deals.ingestEvent({ external_id: external, state: { amount_cents: 1_500_000, stage: 'won' } });
    assert.deepEqual(
      (await listAll(client, { deal_id: won.deal_id, status: ['pending'] })).map((earning) => earning.amount_cents),
      [150_000],
    );
  });

  test('an event that repeats the deal state, or changes only what no chip reads, writes no earnings', async ({
    org,
    client,
  }) => {
    await applyPlanFile(org.id, commissionPlan());
    const external = externalId();
    const won = await client.deals.ingestEvent({
      external_id: external,
      state: dealState(1_000_000, 'won', '2026-05-02'),
    });
    const before = await listAll(client, { deal_id: won.deal_id });
    await client.deals.ingestEvent({ external_id: external, state: dealState(1_000_000, 'won', '2026-05-02') });
    await client.deals.ingestEvent({ external_id: external, state: { note: 'called the customer' } });
    assert.deepEqual(await listAll(client, { deal_id: won.deal_id }), before);
  });

  test('a deal that changes owner moves its earnings from one rep to the other', async ({ org, client }) => {
    await applyPlanFile(org.id, commissionPlan());
    const external = externalId();
    const won = await client.deals.ingestEvent({
      external_id: external,
      state: dealState(1_000_000, 'won', '2026-05-02'),
    });
    await client.deals.ingestEvent({ external_id: external, state: { owner_external_id: 'rep-018' } });
    const rows = await listAll(client, { deal_id: won.deal_id });
    assert.deepEqual(
      rows.map((earning) => [earning.user_external_id, earning.status, earning.amount_cents]),
      [
        ['rep-017', 'reversed', 100_000],
        ['rep-018', 'pending', 100_000],
      ],
    );
  });
});

describe('the traces written', () => {
  // A decision's new rows reach PostgreSQL with their traces in one text, joined by U+001E: the character cannot
  // occur there raw, as JSON writes it escaped in a string. A custom field that holds it ends in every trace intact,
  // and each row gets its own trace, whether the rows are announced to a webhook endpoint or not.
  const SEPARATED = 'Q3\u001eEMEA';
  for (const announced of [false, true]) {
    test(`a custom field holding U+001E is stored in each row's own trace intact (rows ${announced ? '' : 'not '}announced)`, async ({
      db,
      org,
      client,
    }) => {
      if (announced) await createEndpoint(db, org.id, 'https://hooks.example.test/earnings', ['earning.created']);
      await applyPlanFile(
        org.id,
        planDocument({
          chips: [
            { key: 'base', name: 'Base commission', kind: 'commission', rate_bps: 1000 },
            { key: 'spiff', name: 'SPIFF', kind: 'flat', amount_cents: 10_000 },
          ],
        }),
      );
      const external = externalId();
      const opened = await client.deals.ingestEvent({
        external_id: external,
        state: dealState(2_000_000, 'proposal', '2026-06-15', { segment: SEPARATED }),
      });
      await client.deals.ingestEvent({ external_id: external, state: { stage: 'won' } });

      const rows = await listAll(client, { deal_id: opened.deal_id });
      assert.deepEqual(rows.map((row) => [row.status, row.amount_cents]).sort(), [
        ['pending', 10_000],
        ['pending', 200_000],
        ['superseded', 10_000],
        ['superseded', 200_000],
      ]);
      for (const row of rows) {
        const { trace } = await client.earnings.get(row.id);
        assert.deepEqual(
          [trace.chip.id, trace.result.amount_cents, trace.superseded?.id ?? null, trace.deal?.custom.segment],
          [row.rule_chip_id, row.amount_cents, row.supersedes_id, SEPARATED],
        );
      }
    });
  }
});

describe('plan changes', () => {
  test('a new version recomputes the lines of open periods: rows superseded, no triggering event', async ({
    org,
    client,
  }) => {
    const document = planDocument({
      chips: [
        { key: 'base', name: 'Base commission', kind: 'commission', rate_bps: 1000 },
        { key: 'spiff', name: 'SPIFF', kind: 'flat', amount_cents: 10_000 },
      ],
    });
    const v1 = await applyPlanFile(org.id, document);
    assert.deepEqual(v1.recompute?.rows_written, 0);
    const won = await client.deals.ingestEvent({
      external_id: externalId(),
      state: dealState(1_000_000, 'won', '2026-04-03'),
    });
    const open = await client.deals.ingestEvent({
      external_id: externalId(),
      state: dealState(3_000_000, 'proposal', '2026-07-01'),
    });
    const before = await listAll(client);
    assert.equal(before.length, 4);

    // base goes to 12% (its version rises to 2); the SPIFF chip is dropped.
    const v2 = await applyPlanFile(org.id, {
      ...document,
      chips: [{ key: 'base', name: 'Base commission', kind: 'commission', rate_bps: 1200 }],
    });
    assert.deepEqual(v2.recompute && { ...v2.recompute, seconds: undefined }, {
      org_id: org.id,
      plan_ids: [v1.plan_id],
      reps: 1,
      deals: 2,
      lines_evaluated: 2,
      rows_written: 2,
      rows_superseded: 2,
      rows_reversed: 2,
      seconds: undefined,
    });
    const live = await listAll(client, { status: ['pending', 'projected'] });
    assert.deepEqual(
      live.map((earning) => [
        earning.deal_id,
        earning.status,
        earning.amount_cents,
        earning.plan_version_id,
        earning.rule_version,
        earning.triggering_domain_event_id,
      ]),
      [
        [won.deal_id, 'pending', 120_000, v2.version_id, '2', null],
        [open.deal_id, 'projected', 360_000, v2.version_id, '2', null],
      ],
    );
    const replaced = new Set(live.map((earning) => earning.supersedes_id));
    const superseded = await listAll(client, { status: ['superseded'] });
    assert.deepEqual(new Set(superseded.map((earning) => earning.id)), replaced);
    assert.equal((await listAll(client, { status: ['reversed'] })).length, 2, 'the SPIFF rows');

    // Recomputing again finds nothing to do; a plan the org does not have is refused.
    const again = await cli<AppliedPlan['recompute']>(['recompute', '--org', org.id]);
    assert.deepEqual([again?.rows_written, again?.rows_superseded, again?.rows_reversed], [0, 0, 0]);
    const unknown = await runCli(['recompute', '--org', org.id, '--plan', 'plan_nope', '--json']);
    assert.equal(unknown.code, 2);
    assert.deepEqual(onlyJson(unknown), { error: 'not_found', reason: `org ${org.id} has no plan plan_nope` });
  });

  test('archiving reverses the projections and stops evaluation; earned rows stay', async ({ org, client }) => {
    const plan = await applyPlanFile(org.id, commissionPlan());
    const approved = await client.deals.ingestEvent({
      external_id: externalId(),
      state: dealState(500_000, 'won', '2026-03-10'),
    });
    await cli(['periods', 'lock', '2026-03', '--org', org.id]);
    const won = await client.deals.ingestEvent({
      external_id: externalId(),
      state: dealState(1_000_000, 'won', '2026-04-03'),
    });
    const openExternal = externalId();
    const open = await client.deals.ingestEvent({
      external_id: openExternal,
      state: dealState(3_000_000, 'proposal', '2026-07-01'),
    });
    const archived = await cli<{ status: string; recompute: AppliedPlan['recompute'] }>([
      'plans',
      'archive',
      plan.plan_id,
      '--org',
      org.id,
    ]);
    assert.equal(archived.status, 'archived');
    assert.equal(archived.recompute?.rows_reversed, 1);
    assert.deepEqual(
      (await listAll(client)).map((earning) => [earning.deal_id, earning.status, earning.status_reason]),
      [
        [approved.deal_id, 'approved', null],
        [won.deal_id, 'pending', null],
        [
          open.deal_id,
          'reversed',
          { code: 'plan_archived', explanation: 'The plan was archived, so its forecasts no longer apply.' },
        ],
      ],
    );
    await client.deals.ingestEvent({ external_id: openExternal, state: { stage: 'won' } });
    assert.equal((await listAll(client)).length, 3, 'an archived plan is not evaluated');
  });
});

describe('periods', () => {
  test('lock approves, mark-paid pays, and a later change claws back in the next open period', async ({
    org,
    client,
  }) => {
    await applyPlanFile(org.id, commissionPlan());
    const external = externalId();
    const won = await client.deals.ingestEvent({
      external_id: external,
      state: dealState(1_000_000, 'won', '2026-03-10'),
    });
    await cli(['periods', 'lock', '2026-03', '--org', org.id]);
    assert.deepEqual(
      (await listAll(client)).map((earning) => [earning.status, earning.amount_cents]),
      [['approved', 100_000]],
    );
    await cli(['periods', 'lock', '2026-04', '--org', org.id]);
    await cli(['periods', 'mark-paid', '2026-03', '--org', org.id]);
    assert.deepEqual(
      (await listAll(client)).map((earning) => earning.status),
      ['paid'],
    );

    // The amount drops to 6,000.00: March and April are closed, so May gets -400.00.
    const lowered = await client.deals.ingestEvent({ external_id: external, state: { amount_cents: 600_000 } });
    const clawback = (await listAll(client, { status: ['pending'] }))[0];
    assert.deepEqual(
      [clawback?.period_id, clawback?.amount_cents, clawback?.deal_id, clawback?.triggering_domain_event_id],
      ['2026-05', -40_000, won.deal_id, lowered.domain_event_id],
    );
    const trace = (await client.earnings.get(clawback?.id as string)).trace;
    assert.deepEqual([trace.period.id, trace.period.status], ['2026-03', 'paid']);
    assert.deepEqual(trace.result, {
      target_cents: 60_000,
      locked_cents: 100_000,
      amount_cents: -40_000,
      status: 'pending',
    });
    assert.deepEqual(trace.explanation.slice(-2), [
      'Period 2026-03 is paid, so this row is booked in 2026-05, the earliest open period after it.',
      'Already approved or paid on this line, 1,000.00, so this row is 600.00 - 1,000.00 = -400.00, a clawback',
    ]);

    // Back up to 12,000.00: the clawback is superseded by a top-up of +200.00.
    await client.deals.ingestEvent({ external_id: external, state: { amount_cents: 1_200_000 } });
    const [topUp] = await listAll(client, { status: ['pending'] });
    assert.deepEqual([topUp?.period_id, topUp?.amount_cents, topUp?.supersedes_id], ['2026-05', 20_000, clawback?.id]);
  });
});

describe('concurrent events', () => {
  test('events for one rep on different deals, all at once, end as if applied one by one', async ({ org, client }) => {
    const plan = await cli<AppliedPlan>(['plans', 'apply', EXAMPLE_PLAN, '--org', org.id]);
    const chipKey = byChip(plan);
    const firstAmounts = [1_500_000, 2_000_000, 2_500_000, 1_000_000, 3_000_000, 1_200_000, 900_000, 2_100_000];
    await Promise.all(
      firstAmounts.map((amount, index) =>
        client.deals.ingestEvent({
          external_id: `parallel-${index}`,
          state: dealState(amount, 'closed_won', `2026-04-${String(10 + index).padStart(2, '0')}`, { region: 'NA' }),
        }),
      ),
    );
    // Then every deal changes at once: each event holds its deal's row while the others rewrite the rep's
    // accelerator rows, which refer to that deal.
    const amounts = firstAmounts.map((amount, index) => amount + 100_000 * (index + 1));
    await Promise.all(
      amounts.map((amount, index) =>
        client.deals.ingestEvent({ external_id: `parallel-${index}`, state: { amount_cents: amount } }),
      ),
    );
    const live = await listAll(client, { status: ['pending'] });
    const total = amounts.reduce((sum, amount) => sum + amount, 0);
    const sumOf = (key: string) =>
      live.filter((earning) => chipKey.get(earning.rule_chip_id) === key).reduce((sum, e) => sum + e.amount_cents, 0);
    assert.equal(sumOf('base'), total / 10);
    assert.equal(sumOf('accelerator'), ((total - 10_000_000) * 500) / 10_000, '5% of what is above quota');
    assert.deepEqual(
      live.filter((earning) => chipKey.get(earning.rule_chip_id) === 'quota-bonus').map((e) => e.amount_cents),
      [200_000],
    );
    const lines = live.map((earning) => `${earning.rule_chip_id}:${earning.deal_id}`);
    assert.equal(new Set(lines).size, lines.length, 'one live row per line');
    // A recompute from scratch agrees with what the concurrent evaluations left.
    const recompute = await cli<NonNullable<AppliedPlan['recompute']>>(['recompute', '--org', org.id]);
    assert.deepEqual([recompute.rows_written, recompute.rows_superseded, recompute.rows_reversed], [0, 0, 0]);
  });
});

describe('GET /v1/earnings and GET /v1/earnings/{id}', () => {
  test('filters, keyset pages and a refused cursor', async ({ org, client }) => {
    await applyPlanFile(org.id, commissionPlan());
    const deals = [];
    for (const close of ['2026-04-01', '2026-04-02', '2026-05-03']) {
      deals.push(
        await client.deals.ingestEvent({ external_id: externalId(), state: dealState(100_000, 'won', close) }),
      );
    }
    await client.deals.ingestEvent({ external_id: externalId(), state: dealState(100_000, 'proposal', '2026-06-01') });
    const all = await listAll(client);
    assert.equal(all.length, 4);
    const paged = await listAll(client, { limit: 1 });
    assert.deepEqual(paged, all);
    assert.deepEqual(
      (await listAll(client, { period_id: '2026-04' })).map((earning) => earning.deal_id),
      [deals[0]?.deal_id, deals[1]?.deal_id],
    );
    assert.deepEqual(
      (await listAll(client, { status: ['projected', 'paid'] })).map((earning) => earning.period_id),
      ['2026-06'],
    );
    assert.equal((await listAll(client, { user_id: all[0]?.user_id, deal_id: deals[2]?.deal_id })).length, 1);
    assert.equal((await listAll(client, { created_since: all[3]?.created_at })).at(-1)?.id, all[3]?.id);

    const first = await client.earnings.listPage({ limit: 2 });
    assert.ok(first.next_cursor);
    const mismatched = await client.raw.GET('/v1/earnings', {
      params: { query: { cursor: first.next_cursor, period_id: '2026-04' } },
    });
    assert.equal(mismatched.response.status, 400);
    assert.equal(mismatched.error?.error, 'invalid_body');
    assert.match(mismatched.error?.reason ?? '', /^cursor: /);
    const garbage = await client.raw.GET('/v1/earnings', { params: { query: { cursor: 'not-a-cursor' } } });
    assert.equal(garbage.response.status, 400);
    assert.match(garbage.error?.reason ?? '', /^cursor: /);
  });

  test("another org's earning is 404, and its rows are not listed", async ({ newOrg }) => {
    const { org, client } = await newOrg();
    await applyPlanFile(org.id, commissionPlan());
    await client.deals.ingestEvent({ external_id: externalId(), state: dealState(100_000, 'won', '2026-04-01') });
    const [mine] = await listAll(client);
    const other = await newOrg();
    assert.deepEqual(await listAll(other.client), []);
    const response = await other.client.raw.GET('/v1/earnings/{id}', { params: { path: { id: mine?.id as string } } });
    assert.equal(response.response.status, 404);
    assert.equal(response.error?.error, 'not_found');
    const unknown = await client.raw.GET('/v1/earnings/{id}', { params: { path: { id: 'earn_nope' } } });
    assert.equal(unknown.response.status, 404);
  });
});

describe('earnings webhooks', () => {
  test('every row written and every status change is in the outbox, with the row as the API lists it', async ({
    db,
    org,
    client,
  }) => {
    await createEndpoint(db, org.id, 'https://hooks.example.test/earnings', [
      'earning.created',
      'earning.status_changed',
    ]);
    await applyPlanFile(org.id, commissionPlan());
    const external = externalId();
    await client.deals.ingestEvent({ external_id: external, state: dealState(1_000_000, 'proposal', '2026-04-20') });
    await client.deals.ingestEvent({ external_id: external, state: { stage: 'won' } });
    await cli(['periods', 'lock', '2026-04', '--org', org.id]);

    const messages = await db.webhookMessage.findMany({
      where: { org_id: org.id },
      orderBy: { id: 'asc' },
    });
    for (const message of messages) assertMatchesContract(message.payload);
    const payloads = messages.map(
      (message) => message.payload as { type: string; data: { earning: EarningListItem; previous_status?: string } },
    );
    const [projected, pending] = await listAll(client);
    assert.deepEqual(
      payloads.map((payload) => [
        payload.type,
        payload.data.earning.id,
        payload.data.earning.status,
        payload.data.previous_status,
      ]),
      [
        ['earning.created', projected?.id, 'projected', undefined],
        ['earning.status_changed', projected?.id, 'superseded', 'projected'],
        ['earning.created', pending?.id, 'pending', undefined],
        ['earning.status_changed', pending?.id, 'approved', 'pending'],
      ],
    );
    assert.deepEqual(payloads.at(-1)?.data.earning, pending);
  });
});
