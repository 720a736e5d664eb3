import assert from 'node:assert/strict';
import { describe } from 'vitest';
import { type EarningListItem, QuotientError } from '../../sdk/src/index.ts';
import { externalId } from '../factories/deals.ts';
import { planDocument } from '../factories/plans.ts';
import { createEndpoint } from '../factories/webhooks.ts';
import { cliJson as cli } from '../helpers/cli.ts';
import { applyPlanFile, listAll } from '../helpers/earnings.ts';
import { test } from '../helpers/fixtures.ts';
import { assertMatchesContract } from '../helpers/webhookReceiver.ts';

// The plan features of docs/plan-features.md end to end: plans applied with the CLI, deal events and
// reads through the SDK against the real server, which validates its own responses against the contract.

/** 10% on every deal, the marginal accelerator (5% above a 100,000.00 quota) and the 2,000.00 quota bonus. */
function splitPlan() {
  const example = planDocument();
  return planDocument({
    chips: [
      { key: 'base', name: 'Base commission', kind: 'commission', rate_bps: 1000 },
      ...example.chips.filter((chip) => chip.key === 'accelerator' || chip.key === 'quota-bonus'),
    ],
  });
}

function live(earnings: readonly EarningListItem[], chips: ReadonlyMap<string, string>) {
  return earnings
    .filter((earning) => earning.status === 'pending' || earning.status === 'projected')
    .map((earning) => ({
      rep: earning.user_external_id,
      chip: chips.get(earning.rule_chip_id),
      deal: earning.deal_id,
      amount: earning.amount_cents,
      period: earning.period_id,
    }))
    .sort((a, b) => `${a.rep} ${a.chip} ${a.deal}`.localeCompare(`${b.rep} ${b.chip} ${b.deal}`));
}

describe('won time from the CRM', () => {
  test("a won deal without a close date earns in the period of the winning event's occurred_at", async ({
    org,
    client,
  }) => {
    await applyPlanFile(
      org.id,
      planDocument({ chips: [{ key: 'base', name: 'Base', kind: 'commission', rate_bps: 1000 }] }),
    );
    const external = externalId();
    await client.deals.ingestEvent({
      external_id: external,
      occurred_at: '2026-01-10T08:00:00.000Z',
      state: { amount_cents: 4_000_000, stage: 'proposal', owner_external_id: 'rep-017' },
    });
    const won = await client.deals.ingestEvent({
      external_id: external,
      occurred_at: '2026-01-14T16:05:00.000Z',
      state: { stage: 'closed_won' },
    });
    const pending = (await listAll(client, { deal_id: won.deal_id })).filter((row) => row.status === 'pending');
    assert.deepEqual(
      pending.map((row) => [row.period_id, row.amount_cents]),
      [['2026-01', 400_000]],
    );
    const earning = await client.earnings.get(pending[0]?.id as string);
    assert.equal(earning.trace?.deal?.won_at, '2026-01-14T16:05:00.000Z');
    assert.ok(
      earning.trace?.explanation.includes(
        `Deal ${external} was won on 2026-01-14 and has no close date, so it counts in period 2026-01.`,
      ),
    );
  });

  test('a backfill into a locked period is booked in the earliest open period after it', async ({ org, client }) => {
    await applyPlanFile(
      org.id,
      planDocument({ chips: [{ key: 'base', name: 'Base', kind: 'commission', rate_bps: 1000 }] }),
    );
    await cli(['periods', 'lock', '2026-01', '--org', org.id]);
    const won = await client.deals.ingestEvent({
      external_id: externalId(),
      occurred_at: '2026-01-14T16:05:00.000Z',
      state: { amount_cents: 1_000_000, stage: 'won', owner_external_id: 'rep-017' },
    });
    const [row] = await listAll(client, { deal_id: won.deal_id });
    assert.deepEqual([row?.period_id, row?.amount_cents, row?.status], ['2026-02', 100_000, 'pending']);
  });
});

describe('split credit', () => {
  const shared = (external: string) => ({
    external_id: external,
    state: { amount_cents: 5_000_001, stage: 'closed_won', close_date: '2026-04-20', owner_external_id: 'rep-017' },
    splits: [
      { owner_external_id: 'rep-017', share_bps: 6000 },
      { owner_external_id: 'rep-018', share_bps: 4000 },
    ],
  });

  test('a 60/40 split under a marginal tier crosses quota for one rep only (docs/plan-features.md)', async ({
    org,
    client,
  }) => {
    const plan = await applyPlanFile(org.id, splitPlan());
    const chips = new Map(plan.chips.map((chip) => [chip.id, chip.key]));
    const solo = await client.deals.ingestEvent({
      external_id: externalId(),
      state: { amount_cents: 8_000_000, stage: 'closed_won', close_date: '2026-04-05', owner_external_id: 'rep-017' },
    });
    const split = await client.deals.ingestEvent(shared(externalId()));

    assert.deepEqual(
      live(await listAll(client), chips),
      [
        { rep: 'rep-017', chip: 'accelerator', deal: split.deal_id, amount: 50_000, period: '2026-04' },
        { rep: 'rep-017', chip: 'base', deal: solo.deal_id, amount: 800_000, period: '2026-04' },
        { rep: 'rep-017', chip: 'base', deal: split.deal_id, amount: 300_000, period: '2026-04' },
        { rep: 'rep-017', chip: 'quota-bonus', deal: null, amount: 200_000, period: '2026-04' },
        { rep: 'rep-018', chip: 'base', deal: split.deal_id, amount: 200_000, period: '2026-04' },
      ].sort((a, b) => `${a.rep} ${a.chip} ${a.deal}`.localeCompare(`${b.rep} ${b.chip} ${b.deal}`)),
    );

    const otherBase = (await listAll(client, { deal_id: split.deal_id })).find(
      (row) => row.user_external_id === 'rep-018',
    );
    const trace = (await client.earnings.get(otherBase?.id as string)).trace;
    assert.deepEqual(
      trace?.steps.find((step) => step.type === 'split'),
      {
        type: 'split',
        owner_external_id: 'rep-018',
        share_bps: 4000,
        whole_cents: 5_000_001,
        credited_cents: 2_000_000,
      },
    );
    assert.deepEqual(trace?.deal?.splits, shared('x').splits);

    // Each rep's statement shows the attainment the accelerator and the bonus counted: its own share of the split.
    const attainments = await Promise.all(
      ['rep-017', 'rep-018'].map(async (rep) => {
        const row = (await listAll(client, { deal_id: split.deal_id })).find((r) => r.user_external_id === rep);
        return (await client.statements.get(row?.user_id as string, '2026-04')).plans[0]?.attainment;
      }),
    );
    assert.deepEqual(attainments, [
      {
        won_cents: 11_000_001,
        quota_cents: 10_000_000,
        percent: 110,
        quota_explanation: 'quota 100,000.00: plan quota.',
      },
      {
        won_cents: 2_000_000,
        quota_cents: 10_000_000,
        percent: 20,
        quota_explanation: 'quota 100,000.00: plan quota.',
      },
    ]);
  });

  test('the deals list and the deal.updated webhook show the splits; null removes them', async ({
    db,
    org,
    client,
  }) => {
    await createEndpoint(db, org.id, 'https://hooks.example.test/deals', ['deal.updated']);
    const external = externalId();
    await client.deals.ingestEvent(shared(external));
    const [deal] = await collect(client.deals.list({ external_id: external }));
    assert.deepEqual(deal?.splits, shared(external).splits);

    // Absent keeps the splits; null removes them.
    await client.deals.ingestEvent({ external_id: external, state: { amount_cents: 6_000_000 } });
    assert.deepEqual((await collect(client.deals.list({ external_id: external })))[0]?.splits, shared(external).splits);
    await client.deals.ingestEvent({ external_id: external, state: {}, splits: null });
    assert.equal((await collect(client.deals.list({ external_id: external })))[0]?.splits, null);

    const messages = await db.webhookMessage.findMany({
      where: { org_id: org.id },
      orderBy: { id: 'asc' },
    });
    for (const message of messages) assertMatchesContract(message.payload);
    const sent = messages.map(
      (message) => (message.payload as { data: { deal: { splits: unknown } } }).data.deal.splits,
    );
    assert.deepEqual(sent, [shared(external).splits, shared(external).splits, null]);
  });

  test('shares that do not sum to 10000, or name a rep twice, are 400 invalid_body naming splits', async ({
    client,
  }) => {
    const refusals: Array<[unknown, string]> = [
      [
        [
          { owner_external_id: 'rep-017', share_bps: 6000 },
          { owner_external_id: 'rep-018', share_bps: 3000 },
        ],
        'splits',
      ],
      [
        [
          { owner_external_id: 'rep-017', share_bps: 5000 },
          { owner_external_id: 'rep-017', share_bps: 5000 },
        ],
        'splits[1].owner_external_id',
      ],
      [[{ owner_external_id: 'rep-017', share_bps: 0 }], 'splits'],
      [[], 'splits'],
    ];
    for (const [splits, field] of refusals) {
      const refused = await client.deals
        .ingestEvent({ external_id: externalId(), state: { amount_cents: 1 }, splits } as never)
        .then(
          () => null,
          (error: unknown) => error,
        );
      assert.ok(refused instanceof QuotientError, `splits ${JSON.stringify(splits)} must be refused`);
      assert.equal(refused.status, 400);
      assert.equal(refused.error, 'invalid_body');
      assert.ok(refused.reason?.startsWith(field), `${refused.reason} names ${field}`);
    }
  });

  test('a split change supersedes exactly the rows it moves, and a plan recompute credits split reps', async ({
    org,
    client,
  }) => {
    const external = externalId();
    // The deal exists before the plan: applying the plan recomputes, which must find rep-018 through the split.
    const split = await client.deals.ingestEvent(shared(external));
    const plan = await applyPlanFile(org.id, splitPlan());
    const chips = new Map(plan.chips.map((chip) => [chip.id, chip.key]));
    const before = await listAll(client, { deal_id: split.deal_id });
    assert.deepEqual(
      live(before, chips).map((row) => [row.rep, row.chip, row.amount]),
      [
        ['rep-017', 'base', 300_000],
        ['rep-018', 'base', 200_000],
      ],
    );

    // rep-017 keeps 60%; rep-018's 40% goes to rep-019.
    await client.deals.ingestEvent({
      external_id: external,
      state: {},
      splits: [
        { owner_external_id: 'rep-017', share_bps: 6000 },
        { owner_external_id: 'rep-019', share_bps: 4000 },
      ],
    });
    const after = await listAll(client, { deal_id: split.deal_id });
    const was = new Map(before.map((row) => [row.id, row]));
    assert.deepEqual(
      after
        .filter((row) => was.get(row.id)?.status !== row.status && was.has(row.id))
        .map((row) => [row.user_external_id, row.status]),
      [['rep-018', 'reversed']],
    );
    assert.deepEqual(
      after.filter((row) => !was.has(row.id)).map((row) => [row.user_external_id, row.amount_cents, row.status]),
      [['rep-019', 200_000, 'pending']],
    );
  });
});

async function collect<T>(items: AsyncIterable<T>): Promise<T[]> {
  const all: T[] = [];
  for await (const item of items) all.push(item);
  return all;
}

describe('caps', () => {
  const won = (external: string, amountCents: number, closeDate: string) => ({
    external_id: external,
    state: { amount_cents: amountCents, stage: 'closed_won', close_date: closeDate, owner_external_id: 'rep-017' },
  });

  test('a chip cap hit mid-period, then released by a clawback after the period is locked', async ({ org, client }) => {
    await applyPlanFile(
      org.id,
      planDocument({
        chips: [{ key: 'base', name: 'Capped commission', kind: 'commission', rate_bps: 1000, cap_cents: 500_000 }],
      }),
    );
    const [first, second, third] = [externalId(), externalId(), externalId()];
    const one = await client.deals.ingestEvent(won(first, 3_000_000, '2026-04-05'));
    const two = await client.deals.ingestEvent(won(second, 3_000_000, '2026-04-10'));
    const three = await client.deals.ingestEvent(won(third, 1_000_000, '2026-04-15'));
    const deal = new Map([
      [one.deal_id, 'first'],
      [two.deal_id, 'second'],
      [three.deal_id, 'third'],
    ]);
    const april = await listAll(client, { period_id: '2026-04' });
    assert.deepEqual(
      april.map((row) => [deal.get(row.deal_id as string), row.amount_cents, row.status]),
      [
        ['first', 300_000, 'pending'],
        ['second', 200_000, 'pending'],
      ],
    );
    const trace = (await client.earnings.get(april[1]?.id as string)).trace;
    assert.deepEqual(
      trace?.steps.find((step) => step.type === 'cap'),
      {
        type: 'cap',
        scope: 'period',
        cap_cents: 500_000,
        used_before_cents: 300_000,
        uncapped_cents: 300_000,
        amount_cents: 200_000,
      },
    );

    await cli(['periods', 'lock', '2026-04', '--org', org.id]);
    await client.deals.ingestEvent({ external_id: first, state: { stage: 'closed_lost' } });
    const may = await listAll(client, { period_id: '2026-05' });
    // The rows of one event's booking share its transaction; which is written first is not a promise.
    assert.deepEqual(
      may
        .map((row) => [deal.get(row.deal_id as string), row.amount_cents, row.status])
        .sort((a, b) => String(a[0]).localeCompare(String(b[0]))),
      [
        ['first', -300_000, 'pending'],
        ['second', 100_000, 'pending'],
        ['third', 100_000, 'pending'],
      ],
    );
  });

  test("the plan's cap_cents caps the rep's total over all chips, shown as a plan cap in the trace", async ({
    org,
    client,
  }) => {
    await applyPlanFile(
      org.id,
      planDocument({
        cap_cents: 350_000,
        chips: [
          { key: 'base', name: 'Commission', kind: 'commission', rate_bps: 1000 },
          { key: 'spiff', name: 'SPIFF', kind: 'flat', amount_cents: 100_000 },
        ],
      }),
    );
    const ids = await client.deals.ingestEvent(won(externalId(), 3_000_000, '2026-04-05'));
    const rows = await listAll(client, { deal_id: ids.deal_id });
    // 3,000.00 commission, then the 1,000.00 SPIFF gets the 500.00 left of the 3,500.00 cap.
    assert.deepEqual(
      rows.map((row) => row.amount_cents),
      [300_000, 50_000],
    );
    const trace = (await client.earnings.get(rows[1]?.id as string)).trace;
    assert.deepEqual(
      trace?.steps.find((step) => step.type === 'cap'),
      {
        type: 'cap',
        scope: 'plan',
        cap_cents: 350_000,
        used_before_cents: 300_000,
        uncapped_cents: 100_000,
        amount_cents: 50_000,
      },
    );
  });
});

describe('dated assignments', () => {
  test('a rep moving plans on the 15th is paid by each plan for its deals, in one statement for the period', async ({
    org,
    client,
  }) => {
    const commission = (key: string, rateBps: number) => [{ key, name: key, kind: 'commission', rate_bps: rateBps }];
    await applyPlanFile(
      org.id,
      planDocument({
        key: 'plan-a',
        assignees: [{ owner_external_id: 'rep-017', until: '2026-04-14' }],
        chips: commission('a-base', 1000),
      }),
    );
    await applyPlanFile(
      org.id,
      planDocument({
        key: 'plan-b',
        assignees: [{ owner_external_id: 'rep-017', from: '2026-04-15' }],
        chips: commission('b-base', 500),
      }),
    );
    const state = (amountCents: number, closeDate: string) => ({
      amount_cents: amountCents,
      stage: 'closed_won',
      close_date: closeDate,
      owner_external_id: 'rep-017',
    });
    const early = await client.deals.ingestEvent({ external_id: externalId(), state: state(6_000_000, '2026-04-10') });
    const late = await client.deals.ingestEvent({ external_id: externalId(), state: state(5_000_000, '2026-04-20') });

    const rows = await listAll(client, { period_id: '2026-04' });
    // Plan A: 10% of 60,000.00 = 6,000.00 on the early deal; plan B: 5% of 50,000.00 = 2,500.00 on the late one.
    assert.deepEqual(
      rows.map((row) => [row.deal_id, row.amount_cents]),
      [
        [early.deal_id, 600_000],
        [late.deal_id, 250_000],
      ],
    );
    const statement = await client.statements.get(rows[0]?.user_id as string, '2026-04');
    assert.deepEqual(
      statement.plans.map((plan) => [plan.plan_key, plan.lines.map((line) => line.amount_cents)]),
      [
        ['plan-a', [600_000]],
        ['plan-b', [250_000]],
      ],
    );
    assert.equal(statement.payable_cents, 850_000);
  });
});

describe('rule precedence and tiers counted in deals', () => {
  test('a plan applied with the CLI: the EMEA rate replaces the default on EMEA deals, the second deal pays band 2', async ({
    org,
    client,
  }) => {
    const plan = await applyPlanFile(
      org.id,
      planDocument({
        chips: [
          { key: 'default-rate', name: 'Default rate', kind: 'commission', rate_bps: 800 },
          {
            key: 'emea-rate',
            name: 'EMEA rate',
            kind: 'commission',
            rate_bps: 1000,
            when: { field: 'custom.region', op: 'eq', value: 'EMEA' },
            replaces: ['default-rate'],
          },
          {
            key: 'by-count',
            name: 'By deal count',
            kind: 'tiered_commission',
            mode: 'marginal',
            tiers: [
              { up_to_deals: 1, rate_bps: 100 },
              { up_to_deals: null, rate_bps: 500 },
            ],
          },
        ],
      }),
    );
    const chips = new Map(plan.chips.map((chip) => [chip.id, chip.key]));
    const won = async (region: string, day: string) =>
      client.deals.ingestEvent({
        external_id: externalId(),
        occurred_at: `${day}T10:00:00.000Z`,
        state: {
          amount_cents: 1_000_000,
          stage: 'closed_won',
          close_date: day,
          owner_external_id: 'rep-017',
          custom: { region },
        },
      });
    const emea = await won('EMEA', '2026-01-05');
    const apac = await won('APAC', '2026-01-06');
    const rows = live(await listAll(client, {}), chips).map(({ chip, deal, amount }) => ({ chip, deal, amount }));
    const of = (chip: string, deal: string) => rows.find((row) => row.chip === chip && row.deal === deal)?.amount ?? 0;
    assert.deepEqual(
      [emea.deal_id, apac.deal_id].map((deal) => [
        of('default-rate', deal),
        of('emea-rate', deal),
        of('by-count', deal),
      ]),
      [
        [0, 100_000, 10_000],
        [80_000, 0, 50_000],
      ],
    );
  });
});

describe('rate tables and rates finer than a basis point', () => {
  test('a plan applied with the CLI: a table of amounts pays in proportion, a 133.33 bps rate exactly, traced through the SDK', async ({
    org,
    client,
  }) => {
    const plan = await applyPlanFile(
      org.id,
      planDocument({
        chips: [
          { key: 'target-rate', name: 'Target-based rate', kind: 'commission', rate_bps: 133.33 },
          {
            key: 'table',
            name: 'Table',
            kind: 'tiered_commission',
            mode: 'marginal',
            basis: 'per_deal',
            tiers: [
              { up_to_cents: 100_000, amount_cents: 1_000 },
              { up_to_cents: 300_000, amount_cents: 4_000 },
            ],
          },
        ],
      }),
    );
    const chips = new Map(plan.chips.map((chip) => [chip.id, chip.key]));
    const event = await client.deals.ingestEvent({
      external_id: externalId(),
      occurred_at: '2026-01-05T10:00:00.000Z',
      state: { amount_cents: 150_000, stage: 'closed_won', close_date: '2026-01-05', owner_external_id: 'rep-017' },
    });
    const rows = live(await listAll(client, {}), chips).filter((row) => row.deal === event.deal_id);
    // 1.3333% of 1,500.00 = 19.9995 → 20.00; the table: 10.00 for band 1 filled + 40.00 × 500 / 2,000 = 20.00.
    assert.deepEqual(
      rows.map(({ chip, amount }) => [chip, amount]),
      [
        ['table', 2_000],
        ['target-rate', 2_000],
      ],
    );
    const listed = (await listAll(client, {})).filter((earning) => earning.deal_id === event.deal_id);
    const traces = await Promise.all(listed.map((earning) => client.earnings.get(earning.id)));
    const steps = traces.flatMap((earning) => earning.trace.steps);
    assert.ok(steps.some((step) => step.type === 'rate' && step.rate_bps === 133.33 && step.exact_cents === '1999.95'));
    assert.ok(
      steps.some((step) => step.type === 'proportional_tier' && step.band === 2 && step.exact_cents === '1000'),
    );
  });
});
