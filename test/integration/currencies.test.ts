import assert from 'node:assert/strict';
import { describe } from 'vitest';
import { QuotientError } from '../../sdk/src/index.ts';
import { Refusal } from '../../src/domain/refusal.ts';
import { externalId } from '../factories/deals.ts';
import { applyPlan, planDocument, planFile } from '../factories/plans.ts';
import { cliJson as cli, onlyJson, runCli } from '../helpers/cli.ts';
import { listAll } from '../helpers/earnings.ts';
import { test } from '../helpers/fixtures.ts';

// Currencies end to end (docs/currencies.md): rates and default currencies set with the CLI, deal events and reads
// through the SDK against the real server, which validates its own responses against the contract.

async function refused(args: string[]): Promise<{ error: string; reason: string }> {
  const result = await runCli([...args, '--json']);
  assert.equal(result.code, 2, `${args.join(' ')} should be refused: ${result.stdout}${result.stderr}`);
  return onlyJson(result) as { error: string; reason: string };
}

async function collect<Item>(items: AsyncIterable<Item>): Promise<Item[]> {
  const all: Item[] = [];
  for await (const item of items) all.push(item);
  return all;
}

const commissionOnly = (overrides: Record<string, unknown> = {}) =>
  planDocument({ chips: [{ key: 'base', name: 'Base commission', kind: 'commission', rate_bps: 1000 }], ...overrides });

describe('a EUR deal on a USD plan', () => {
  test('is paid in USD at the rate of its date; unpriced without one, priced when the rate is set', async ({
    db,
    org,
    client,
  }) => {
    await applyPlan(db, org.id, commissionOnly({ currency: 'USD' }));
    const external = externalId();
    const won = await client.deals.ingestEvent({
      external_id: external,
      currency: 'EUR',
      state: { amount_cents: 1_234_567, stage: 'closed_won', close_date: '2026-04-20', owner_external_id: 'rep-017' },
    });
    const [deal] = await collect(client.deals.list({ external_id: external }));
    assert.equal(deal?.currency, 'EUR');

    // No EUR→USD rate yet: a row of 0 that says so.
    const [unpriced] = await listAll(client, { deal_id: won.deal_id });
    assert.deepEqual(
      [unpriced?.status, unpriced?.amount_cents, unpriced?.currency, unpriced?.pricing],
      ['pending', 0, 'USD', 'missing_exchange_rate'],
    );
    const detail = await client.earnings.get(unpriced?.id as string);
    // The missing rate is the computation's last step; the ledger's locked_total follows it, as on every row.
    assert.deepEqual(
      detail.trace?.steps.map((step) => step.type),
      ['missing_exchange_rate', 'locked_total'],
    );
    assert.match(detail.trace?.explanation.at(-2) ?? '', /quotient fx set EUR USD <rate> --from <date>/);
    assert.equal(
      detail.trace?.explanation.at(-1),
      "This row of 0.00 holds the line's place until the amount can be converted.",
    );

    // A rate from before the deal's date prices it: 12,345.67 EUR × 1.0845 = 13,388.88 USD; 10% = 1,338.89.
    const set = await cli<{ rate: { rate: string }; recompute: { rows_written: number } }>([
      'fx',
      'set',
      'EUR',
      'USD',
      '1.08450',
      '--from',
      '2026-04-15',
      '--org',
      org.id,
    ]);
    assert.equal(set.rate.rate, '1.0845');
    const rows = await listAll(client, { deal_id: won.deal_id });
    const priced = rows.find((row) => row.status === 'pending');
    assert.deepEqual([priced?.amount_cents, priced?.currency, priced?.pricing], [133_889, 'USD', 'priced']);
    assert.equal(priced?.supersedes_id, unpriced?.id);
    const trace = (await client.earnings.get(priced?.id as string)).trace;
    assert.equal(trace?.superseded?.reason?.code, 'exchange_rate_set');
    const conversion = trace?.steps.find((step) => step.type === 'conversion');
    assert.deepEqual(conversion && { rate: conversion.rate, converted: conversion.converted_cents }, {
      rate: '1.0845',
      converted: 1_338_888,
    });

    // Statements and payouts say their currency.
    const statement = await client.statements.get(priced?.user_id as string, '2026-04');
    assert.deepEqual(
      statement.by_currency.map((entry) => [entry.currency, entry.payable_cents]),
      [['USD', 133_889]],
    );
    assert.equal(statement.plans[0]?.currency, 'USD');
    // Its attainment counts the deal converted, as the plan's tiers do.
    assert.equal(statement.plans[0]?.attainment.won_cents, 1_338_888);
    await cli(['periods', 'lock', '2026-04', '--org', org.id]);
    const payouts = await collect(client.payouts.list({ period_id: '2026-04' }));
    assert.deepEqual(
      payouts.map((payout) => [payout.user_external_id, payout.currency, payout.total_cents]),
      [['rep-017', 'USD', 133_889]],
    );
  });

  test('a corrected rate dated before a locked period tops the line up in the earliest open period, frozen rows untouched', async ({
    db,
    org,
    client,
  }) => {
    await applyPlan(db, org.id, commissionOnly({ currency: 'USD' }));
    await cli(['fx', 'set', 'EUR', 'USD', '1.08', '--from', '2026-04-01', '--org', org.id]);
    // 12,345.67 EUR × 1.08 = 13,333.32 USD; 10% = 1,333.33.
    const won = await client.deals.ingestEvent({
      external_id: externalId(),
      currency: 'EUR',
      state: { amount_cents: 1_234_567, stage: 'closed_won', close_date: '2026-04-20', owner_external_id: 'rep-017' },
    });
    await cli(['periods', 'lock', '2026-04', '--org', org.id]);
    const [approved] = await listAll(client, { deal_id: won.deal_id });
    assert.deepEqual([approved?.status, approved?.amount_cents, approved?.period_id], ['approved', 133_333, '2026-04']);

    // Corrected from April 15, before the deal's date: 12,345.67 × 1.0845 = 13,388.88; 10% = 1,338.89, so +5.56.
    const set = await cli<{ recompute: { rows_written: number } }>([
      'fx',
      'set',
      'EUR',
      'USD',
      '1.0845',
      '--from',
      '2026-04-15',
      '--org',
      org.id,
    ]);
    assert.equal(set.recompute.rows_written, 1);
    const rows = await listAll(client, { deal_id: won.deal_id });
    assert.deepEqual(
      rows.map((row) => [row.id, row.status, row.amount_cents, row.period_id, row.supersedes_id]),
      [
        [approved?.id, 'approved', 133_333, '2026-04', null],
        [rows[1]?.id, 'pending', 556, '2026-05', null],
      ],
    );
    const topUp = await client.earnings.get(rows[1]?.id as string);
    assert.equal(topUp.triggering_domain_event_id, null);
    assert.deepEqual(topUp.trace?.period.id, '2026-04');
    assert.deepEqual(topUp.trace?.result, {
      target_cents: 133_889,
      locked_cents: 133_333,
      amount_cents: 556,
      status: 'pending',
    });
    const conversion = topUp.trace?.steps.find((step) => step.type === 'conversion');
    assert.deepEqual(conversion && [conversion.rate, conversion.rate_effective_on, conversion.converted_cents], [
      '1.0845',
      '2026-04-15',
      1_338_888,
    ]);
    assert.deepEqual(topUp.trace?.explanation.slice(-3), [
      'Period 2026-04 is locked, so this row is booked in 2026-05, the earliest open period after it.',
      'Already approved or paid on this line, 1,333.33, so this row is 1,338.89 - 1,333.33 = 5.56',
      'The EUR→USD exchange rate from 2026-04-15 was set to 1.0845, and the lines were evaluated again.',
    ]);

    // Paying April and running the recompute again changes nothing: the line meets its target.
    await cli(['periods', 'mark-paid', '2026-04', '--org', org.id]);
    const again = await cli<{ rows_written: number }>(['recompute', '--org', org.id]);
    assert.equal(again.rows_written, 0);
    const [paid] = await listAll(client, { deal_id: won.deal_id, status: ['paid'] });
    assert.deepEqual([paid?.id, paid?.amount_cents], [approved?.id, 133_333]);
  });

  test('a rep paid by a USD plan and a EUR plan gets a payout per currency', async ({ services, db, org, client }) => {
    await applyPlan(db, org.id, commissionOnly({ key: 'usd-plan', currency: 'USD' }));
    await applyPlan(db, org.id, commissionOnly({ key: 'eur-plan', currency: 'EUR' }));
    await services.admin.exchangeRates.set({
      orgId: org.id,
      from: 'USD',
      to: 'EUR',
      rate: '0.8',
      effectiveOn: '2026-01-01',
    });
    await client.deals.ingestEvent({
      external_id: externalId(),
      state: { amount_cents: 1_000_000, stage: 'won', close_date: '2026-04-10', owner_external_id: 'rep-017' },
    });
    await cli(['periods', 'lock', '2026-04', '--org', org.id]);
    const payouts = await collect(client.payouts.list({ period_id: '2026-04' }));
    // USD plan: 10% of 10,000.00 USD; EUR plan: 10% of 10,000.00 × 0.8 = 8,000.00 EUR.
    assert.deepEqual(
      payouts.map((payout) => [payout.currency, payout.total_cents]),
      [
        ['EUR', 80_000],
        ['USD', 100_000],
      ],
    );

    // A what-if estimate names each line's currency and gives the rep's totals per currency.
    const estimate = await client.estimates.create({
      state: { amount_cents: 500_000, owner_external_id: 'rep-017', currency: 'USD' },
      close_date: '2026-05-05',
    });
    assert.deepEqual(estimate.lines.map((line) => [line.currency, line.earned_after_cents]).sort(), [
      ['EUR', 40_000],
      ['USD', 50_000],
    ]);
    assert.deepEqual(
      [...estimate.by_currency].sort((a, b) => a.currency.localeCompare(b.currency)),
      [
        { currency: 'EUR', earned_now_cents: 0, earned_after_cents: 40_000, difference_cents: 40_000 },
        { currency: 'USD', earned_now_cents: 0, earned_after_cents: 50_000, difference_cents: 50_000 },
      ],
    );
  });
});

describe('the org default currency and the CLI', () => {
  test('deals without a currency take the default, which can be set only before deals or plans exist', async ({
    org,
    client,
  }) => {
    const set = await cli<{ default_currency: string; changed: boolean }>([
      'orgs',
      'set-currency',
      'jpy',
      '--org',
      org.id,
    ]);
    assert.deepEqual(set, { org_id: org.id, default_currency: 'JPY', changed: true });
    const external = externalId();
    await client.deals.ingestEvent({
      external_id: external,
      state: { amount_cents: 500_000, owner_external_id: 'rep-017' },
    });
    const [deal] = await collect(client.deals.list({ external_id: external }));
    assert.equal(deal?.currency, 'JPY');
    const late = await refused(['orgs', 'set-currency', 'EUR', '--org', org.id]);
    assert.equal(late.error, 'invalid_state');
  });

  test('bad input is refused with the JSON refusal contract and changes nothing', async ({ services, org }) => {
    const rates = services.admin.exchangeRates;
    const set = (from: string, to: string, rate: string, effectiveOn: string) =>
      rates.set({ orgId: org.id, from, to, rate, effectiveOn }).then(
        () => assert.fail(`${from} ${to} ${rate} ${effectiveOn} was accepted`),
        (error: unknown) => (error instanceof Refusal ? error.code : error),
      );
    assert.equal(await set('EUR', 'USD', '1,08', '2026-04-01'), 'invalid_body');
    assert.equal(await set('EUR', 'USD', '0', '2026-04-01'), 'invalid_body');
    assert.equal(await set('EUR', 'EUR', '1', '2026-04-01'), 'invalid_body');
    assert.equal(await set('EUR', 'USD', '1.1', '2026-02-30'), 'invalid_body');
    // Through the CLI: the JSON refusal, naming what is wrong.
    const unknown = await refused(['fx', 'set', 'EUR', 'XYZ', '1.1', '--from', '2026-04-01', '--org', org.id]);
    assert.deepEqual(unknown, {
      error: 'invalid_argument',
      reason: 'TO XYZ is not a known ISO 4217 currency',
    });
    assert.equal((await refused(['fx', 'list', '--org', 'org_00000000000000000000000000'])).error, 'not_found');
    assert.deepEqual(await rates.list(org.id), []);
  });

  test('fx list shows the rates by pair and day, filtered by currency', async ({ services, org }) => {
    const rates = services.admin.exchangeRates;
    await rates.set({ orgId: org.id, from: 'EUR', to: 'USD', rate: '1.1', effectiveOn: '2026-05-01' });
    await rates.set({ orgId: org.id, from: 'EUR', to: 'USD', rate: '1.08', effectiveOn: '2026-04-01' });
    await rates.set({ orgId: org.id, from: 'GBP', to: 'USD', rate: '1.27', effectiveOn: '2026-04-01' });
    const again = await cli<{ replaced_rate: string | null }>([
      'fx',
      'set',
      'EUR',
      'USD',
      '1.09',
      '--from',
      '2026-04-01',
      '--org',
      org.id,
    ]);
    assert.equal(again.replaced_rate, '1.08');
    const listed = await cli<{ rates: Array<{ from_currency: string; effective_on: string; rate: string }> }>([
      'fx',
      'list',
      '--org',
      org.id,
      '--currency',
      'EUR',
    ]);
    assert.deepEqual(
      listed.rates.map((rate) => [rate.from_currency, rate.effective_on, rate.rate]),
      [
        ['EUR', '2026-04-01', '1.09'],
        ['EUR', '2026-05-01', '1.1'],
      ],
    );
  });
});

describe('the contract', () => {
  test('an unknown currency on a deal event is 400 invalid_body naming currency, and nothing is written', async ({
    client,
  }) => {
    const external = externalId();
    const error = await client.deals
      .ingestEvent({ external_id: external, currency: 'EURO', state: { amount_cents: 1 } })
      .then(
        () => assert.fail('accepted'),
        (caught: unknown) => caught,
      );
    assert.ok(error instanceof QuotientError);
    assert.equal(error.status, 400);
    assert.match(error.reason ?? '', /^currency/);
    const unknown = await client.deals
      .ingestEvent({ external_id: external, currency: 'XYZ', state: { amount_cents: 1 } })
      .then(
        () => assert.fail('accepted'),
        (caught: unknown) => caught,
      );
    assert.ok(unknown instanceof QuotientError);
    assert.match(unknown.reason ?? '', /^currency: XYZ is not a known ISO 4217 currency/);
    assert.deepEqual(await collect(client.deals.list({ external_id: external })), []);
  });

  test("a plan's currency cannot change once applied", async ({ org }) => {
    await cli([
      'plans',
      'apply',
      await planFile(commissionOnly({ key: 'eur-plan', currency: 'EUR' })),
      '--org',
      org.id,
    ]);
    const result = await refused([
      'plans',
      'apply',
      await planFile(commissionOnly({ key: 'eur-plan', currency: 'USD' })),
      '--org',
      org.id,
    ]);
    assert.equal(result.error, 'invalid_plan_file');
  });
});
