import assert from 'node:assert/strict';
import fc from 'fast-check';
import { describe, test } from 'vitest';
import type { ExchangeRate } from '../../src/domain/earnings/exchange.ts';
import { earliestOpenPeriodFrom, reconcileLine } from '../../src/domain/earnings/ledger.ts';
import type { QuotaEntry, RepQuotas } from '../../src/domain/earnings/quotas.ts';
import { movedByRate, ratesBefore } from '../../src/domain/earnings/rateChange.ts';
import type { DealSnapshot, EngineChip, EnginePlanVersion, Rep } from '../../src/domain/earnings/types.ts';
import {
  chip,
  deal,
  otherRep,
  plan,
  precedencePlan,
  rateTablePlan,
  rep,
  workedExampleChips,
} from '../factories/earnings.ts';
import { EarningsWorld, type StoredRow } from '../helpers/earningsLedger.ts';

// Properties of the engine and the ledger together, over random histories of deal events and period
// locks: (a) after every event the live rows of every line equal its target, (b) the same final deal
// states applied in any order, after any detours, leave the same live earnings, (c) approved and paid
// rows never change. Deals may be split between the reps; plans may cap chips and totals and assign reps
// for dated windows. Events are evaluated through `scopeOfDealChange` only, and (a) compares
// with a full evaluation, so it also shows that the scoped evaluation misses nothing (incremental
// evaluation equals a full recompute). Some deals are in EUR on the USD plans, and an exchange rate may be set
// between events, dated before periods already locked, as `quotient fx set` books it.

const TODAY = '2026-04-25';
const PERIODS = ['2026-03', '2026-04', '2026-05'];
const reps = [rep, otherRep];
const FIRST_RATE: ExchangeRate = { from_currency: 'EUR', to_currency: 'USD', effective_on: '2026-03-01', rate: '1.08' };

function worldOf(chosen: EnginePlanVersion): EarningsWorld {
  const world = new EarningsWorld(chosen, reps, TODAY);
  world.money = { default_currency: 'USD', rates: [FIRST_RATE] };
  return world;
}

const retroactivePlan: EnginePlanVersion = plan({
  plan_key: 'retro',
  quota_cents: 5_000_000,
  chips: [
    ...(workedExampleChips.slice(0, 1) as EngineChip[]),
    chip(5, {
      key: 'retro-tiers',
      name: 'Retroactive tiers in cents, for one region',
      kind: 'tiered_commission',
      when: { field: 'custom.region', op: 'ne', value: 'APAC' },
      params: {
        mode: 'retroactive',
        tiers: [
          { up_to_cents: 3_000_000, rate_bps: 300 },
          { up_to_cents: 8_000_000, rate_bps: 700 },
          { up_to_cents: null, rate_bps: 1_250 },
        ],
      },
    }),
    chip(6, {
      key: 'half-quota-bonus',
      name: 'Half quota bonus',
      kind: 'attainment_bonus',
      when: { field: 'custom.new_logo', op: 'eq', value: true },
      params: { threshold_pct: 50, amount_cents: 33_333 },
    }),
  ],
});

// Caps: per deal and per period on chips, and a plan cap over all of them.
const cappedPlan: EnginePlanVersion = plan({
  plan_key: 'capped',
  cap_cents: 1_500_000,
  chips: [
    chip(7, {
      key: 'capped-base',
      name: 'Capped commission',
      kind: 'commission',
      when: null,
      params: { rate_bps: 1000, base: 'amount_cents', cap_cents: 800_000, deal_cap_cents: 500_000 },
    }),
    chip(8, {
      key: 'capped-spiff',
      name: 'Capped SPIFF',
      kind: 'flat',
      when: { field: 'custom.new_logo', op: 'eq', value: true },
      params: { amount_cents: 50_000, cap_cents: 120_000 },
    }),
    ...(workedExampleChips.slice(1, 2) as EngineChip[]),
    ...(workedExampleChips.slice(3) as EngineChip[]),
  ],
});

// Dated assignments: rep-017 until mid-April, rep-018 from the 10th of April.
const datedPlan: EnginePlanVersion = plan({
  plan_key: 'dated',
  assignees: [
    { owner_external_id: rep.external_id, until: '2026-04-14' },
    { owner_external_id: otherRep.external_id, from: '2026-04-10' },
  ],
});

// A ramp from the reps' start dates, over the worked example's accelerator in percent of quota and its bonus.
const rampedPlan: EnginePlanVersion = plan({ plan_key: 'ramped', ramp: [25, 50, 75] });

// Tiers per deal (each deal climbs the bands from zero), marginal in percent of quota and whole-deal in cents, beside
// the worked example's cumulative accelerator.
const perDealPlan: EnginePlanVersion = plan({
  plan_key: 'per-deal',
  quota_cents: 5_000_000,
  chips: [
    ...(workedExampleChips.slice(1, 2) as EngineChip[]),
    chip(9, {
      key: 'per-deal-steps',
      name: 'Steps per deal',
      kind: 'tiered_commission',
      when: null,
      params: {
        mode: 'marginal',
        basis: 'per_deal',
        tiers: [
          { up_to_pct: 20, rate_bps: 100 },
          { up_to_pct: 60, rate_bps: 200 },
          { up_to_pct: null, rate_bps: 500 },
        ],
      },
    }),
    chip(10, {
      key: 'per-deal-rate',
      name: 'One rate per deal by its size',
      kind: 'tiered_commission',
      when: { field: 'custom.region', op: 'ne', value: 'APAC' },
      params: {
        mode: 'retroactive',
        basis: 'per_deal',
        tiers: [
          { up_to_cents: 3_000_000, rate_bps: 300 },
          { up_to_cents: null, rate_bps: 700 },
        ],
        deal_cap_cents: 400_000,
      },
    }),
  ],
});

// A quota of 0, read as 0% attainment: the accelerator's first band takes everything, the bonus is never reached.
const zeroQuotaPlan: EnginePlanVersion = plan({ plan_key: 'zero-quota', quota_cents: 0 });

// Tiers counted in deals: deals numbered by close date, then won time, then id, marginal and retroactive (on a
// condition), beside the worked example's accelerator in money.
const countPlan: EnginePlanVersion = plan({
  plan_key: 'count-tiers',
  chips: [
    ...(workedExampleChips.slice(1, 2) as EngineChip[]),
    chip(11, {
      key: 'by-deal-number',
      name: 'By deal number',
      kind: 'tiered_commission',
      when: null,
      params: {
        mode: 'marginal',
        tiers: [
          { up_to_deals: 1, rate_bps: 100 },
          { up_to_deals: 3, rate_bps: 300 },
          { up_to_deals: null, rate_bps: 700 },
        ],
      },
    }),
    chip(12, {
      key: 'by-deal-count',
      name: 'By deal count',
      kind: 'tiered_commission',
      when: { field: 'custom.region', op: 'ne', value: 'APAC' },
      params: {
        mode: 'retroactive',
        tiers: [
          { up_to_deals: 1, rate_bps: 200 },
          { up_to_deals: null, rate_bps: 600 },
        ],
      },
    }),
  ],
});

// Pay on cash (docs/plan-features.md, "Pay on cash"): the worked example with its base commission 40% held until paid
// pro rata, its accelerator (tiered, counted by running totals) held in full until the deal is paid in full, and its
// SPIFF held half until the first payment.
const cashPlan: EnginePlanVersion = plan({
  plan_key: 'cash',
  chips: workedExampleChips.map((entry) => {
    const cash = {
      base: { held_pct: 40, release: 'pro_rata' },
      accelerator: { held_pct: 100, release: 'full_payment' },
      'new-logo': { held_pct: 50, release: 'first_payment' },
    }[entry.key];
    return cash ? { ...entry, params: { ...entry.params, payable_on: 'cash', cash } } : entry;
  }) as EngineChip[],
});

// A plan year paid monthly from April (docs/plan-features.md, "A plan year paid monthly"): March closes the plan year
// 2025-04 to 2026-03 and April starts the next, so a history crosses years; tiers in percent of the annual quota (which
// the reps' quota tables change during the year, blended by days) and in cents count the year to date, beside the
// worked example's base commission and SPIFF.
const planYearPlan: EnginePlanVersion = plan({
  plan_key: 'plan-year',
  quota_cents: 8_000_000,
  plan_year: { starts_month: 4 },
  chips: [
    ...(workedExampleChips.slice(0, 1) as EngineChip[]),
    chip(15, {
      key: 'year-tiers',
      name: 'Tiers of the year to date',
      kind: 'tiered_commission',
      when: null,
      params: {
        mode: 'marginal',
        tiers: [
          { up_to_pct: 50, rate_bps: 300 },
          { up_to_pct: 100, rate_bps: 600 },
          { up_to_pct: null, rate_bps: 1_000 },
        ],
      },
    }),
    chip(16, {
      key: 'year-cents',
      name: 'Year to date in cents, outside APAC',
      kind: 'tiered_commission',
      when: { field: 'custom.region', op: 'ne', value: 'APAC' },
      params: {
        mode: 'marginal',
        tiers: [
          { up_to_cents: 6_000_000, rate_bps: 0 },
          { up_to_cents: null, rate_bps: 250 },
        ],
      },
    }),
    ...(workedExampleChips.slice(2, 3) as EngineChip[]),
  ],
});

const plans = fc.constantFrom(
  plan(),
  planYearPlan,
  cashPlan,
  retroactivePlan,
  cappedPlan,
  datedPlan,
  rampedPlan,
  perDealPlan,
  zeroQuotaPlan,
  countPlan,
  precedencePlan,
  rateTablePlan,
);

function dealState(ids: fc.Arbitrary<number>): fc.Arbitrary<DealSnapshot> {
  return fc
    .record({
      n: ids,
      status: fc.constantFrom('open' as const, 'won' as const, 'lost' as const, 'deleted' as const),
      amount: fc.oneof(
        fc.constantFrom(null, 0, 1, 2_999_999, 3_000_000, 4_000_000, 5_000_000, 6_000_000, 10_000_000),
        fc.integer({ min: 0, max: 12_000_000 }),
      ),
      close_date: fc.constantFrom(null, '2026-03-31', '2026-04-01', '2026-04-20', '2026-05-15'),
      won_on: fc.constantFrom('2026-03-30', '2026-04-10', '2026-04-10', '2026-05-02'),
      owner: fc.constantFrom(rep.external_id, rep.external_id, otherRep.external_id, null),
      // Split credit: none most of the time, else shares of the two reps, or one rep alone.
      splits: fc.constantFrom<DealSnapshot['splits']>(
        null,
        null,
        null,
        [
          { owner_external_id: rep.external_id, share_bps: 6000 },
          { owner_external_id: otherRep.external_id, share_bps: 4000 },
        ],
        [
          { owner_external_id: otherRep.external_id, share_bps: 3333 },
          { owner_external_id: rep.external_id, share_bps: 6667 },
        ],
        [{ owner_external_id: otherRep.external_id, share_bps: 10_000 }],
      ),
      currency: fc.constantFrom(undefined, undefined, 'EUR'),
      region: fc.constantFrom('EMEA', 'NA', 'APAC', undefined),
      new_logo: fc.constantFrom(true, false, undefined),
    })
    .map(({ n, status, amount, close_date, won_on, owner, splits, currency, region, new_logo }) =>
      deal(n, {
        ...(splits === null ? {} : { splits }),
        ...(currency === undefined ? {} : { currency }),
        status,
        stage: status === 'won' ? 'closed_won' : status === 'lost' ? 'closed_lost' : 'proposal',
        amount_cents: amount,
        close_date,
        owner_external_id: owner,
        won_at: status === 'won' ? `${won_on}T10:00:00.000Z` : null,
        custom: {
          ...(region === undefined ? {} : { region }),
          ...(new_logo === undefined ? {} : { new_logo }),
        },
      }),
    );
}

type Event =
  | { kind: 'deal'; state: DealSnapshot }
  | { kind: 'lock' }
  | { kind: 'pay' }
  | { kind: 'fx'; rate: ExchangeRate }
  | { kind: 'payment'; n: number; amount_cents: number; received_on: string }
  | { kind: 'quota'; rep: Rep; quotas: RepQuotas };

// A rep's quota table and start date set anew, as the quota admin and the quota file set them: entries from a
// period's first day, the plan's quota again (null) from one, a start date that ramps the rep from before, inside
// or after the periods.
const quotaSet = fc
  .record({
    who: fc.constantFrom(rep, otherRep),
    start_date: fc.constantFrom(null, '2026-02-20', '2026-03-05', '2026-04-15', '2026-05-01'),
    entries: fc.constantFrom<QuotaEntry[]>(
      [],
      [{ from: '2026-04-01', quota_cents: 4_000_000 }],
      [{ from: '2026-03-01', quota_cents: 12_345_678 }],
      [
        { from: '2026-03-01', quota_cents: 2_500_001 },
        { from: '2026-05-01', quota_cents: null },
      ],
      [{ from: '2026-05-01', quota_cents: 1 }],
    ),
  })
  .map(({ who, start_date, entries }) => ({ kind: 'quota' as const, rep: who, quotas: { start_date, entries } }));

// A EUR→USD rate set later, often dated before periods locked by then (every deal stays priced: FIRST_RATE is older).
const rateSet = fc
  .record({
    effective_on: fc.constantFrom('2026-03-01', '2026-03-31', '2026-04-15', '2026-05-01'),
    rate: fc.constantFrom('1.0845', '0.93', '1.2', '1.08'),
  })
  .map(({ effective_on, rate }) => ({
    kind: 'fx' as const,
    rate: { from_currency: 'EUR', to_currency: 'USD', effective_on, rate },
  }));

// A customer payment of a deal (POST /v1/payments), received in or around the periods; the engine holds over-payments
// to the deal's amount, which the API refuses.
const paymentMade = fc
  .record({
    n: fc.integer({ min: 1, max: 5 }),
    amount_cents: fc.constantFrom(1, 1_000_000, 2_500_000, 3_333_333, 6_000_000),
    received_on: fc.constantFrom('2026-03-15', '2026-04-05', '2026-04-30', '2026-05-20', '2026-06-02'),
  })
  .map((payment) => ({ kind: 'payment' as const, ...payment }));

const events: fc.Arbitrary<Event[]> = fc.array(
  fc.oneof(
    {
      weight: 6,
      arbitrary: dealState(fc.integer({ min: 1, max: 5 })).map((state) => ({ kind: 'deal' as const, state })),
    },
    { weight: 1, arbitrary: fc.constant({ kind: 'lock' as const }) },
    { weight: 1, arbitrary: fc.constant({ kind: 'pay' as const }) },
    { weight: 1, arbitrary: rateSet },
    { weight: 2, arbitrary: paymentMade },
    { weight: 1, arbitrary: quotaSet },
  ),
  { maxLength: 20 },
);

/**
 * `quotient fx set` as the recompute books it: every line evaluated with the new rates, and booked when its period
 * is open, its deal open (a forecast), it still has a live row, or the rate moved it (in a locked or paid period,
 * the ledger then books the difference in the earliest open period).
 */
function setRate(world: EarningsWorld, rate: ExchangeRate): void {
  const moved = movedByRate(world.everyTarget(PERIODS));
  world.money = {
    default_currency: 'USD',
    rates: [...ratesBefore(world.money?.rates ?? [], { rate, replaced: null }), rate],
  };
  const isOpen = (periodId: string) => (world.ledger.periods.get(periodId) ?? 'open') === 'open';
  const live = new Set(world.ledger.live().map((row) => row.line_key));
  world.ledger.apply(
    world
      .everyTarget(PERIODS)
      .filter(
        (target) =>
          isOpen(target.period_id) ||
          target.trace.deal?.status === 'open' ||
          live.has(target.line.line_key) ||
          moved(target),
      ),
  );
}

/**
 * The first day a change of a rep's quotas can move a quota, as the quota admin works it out: the day of every entry
 * added, changed or removed, and the first of the month of both start dates when the start date changed; null when
 * nothing changed.
 */
function quotaChangeFrom(before: RepQuotas | undefined, after: RepQuotas): string | null {
  const was = new Map((before?.entries ?? []).map((entry) => [entry.from, entry.quota_cents]));
  const is = new Map(after.entries.map((entry) => [entry.from, entry.quota_cents]));
  const days = [...new Set([...was.keys(), ...is.keys()])].filter((day) => was.get(day) !== is.get(day));
  const startBefore = before?.start_date ?? null;
  if (startBefore !== after.start_date) {
    for (const start of [startBefore, after.start_date]) if (start !== null) days.push(`${start.slice(0, 7)}-01`);
  }
  return days.sort()[0] ?? null;
}

function play(world: EarningsWorld, event: Event): void {
  if (event.kind === 'deal') {
    // A deal event leaves the deal's payments as they are, as the projection does.
    const payments = world.deals.get(event.state.id)?.payments;
    world.change(payments ? { ...event.state, payments } : event.state);
    return;
  }
  if (event.kind === 'payment') {
    const current = world.deals.get(deal(event.n).id);
    if (!current) return;
    const payments = current.payments ?? [];
    const id = `pay_${event.n}_${payments.length + 1}`;
    const payment = { id, external_id: id, amount_cents: event.amount_cents, received_on: event.received_on };
    world.change({ ...current, payments: [...payments, payment] });
    return;
  }
  if (event.kind === 'fx') {
    setRate(world, event.rate);
    return;
  }
  if (event.kind === 'quota') {
    const from = quotaChangeFrom(world.quotas.get(event.rep.user_id), event.quotas);
    if (from !== null) world.changeQuotas(event.rep, event.quotas, from, PERIODS);
    return;
  }
  const statuses = PERIODS.map((period) => world.ledger.periods.get(period) ?? 'open');
  if (event.kind === 'lock') {
    const open = PERIODS[statuses.indexOf('open')];
    if (open) world.ledger.lock(open);
  } else {
    const locked = PERIODS[statuses.indexOf('locked')];
    if (locked) world.ledger.markPaid(locked);
  }
}

function assertLiveRowsEqualTargets(world: EarningsWorld): void {
  const targets = world.everyTarget(PERIODS);
  const keys = new Set(targets.map((target) => target.line.line_key));
  for (const row of world.ledger.rows)
    assert.ok(keys.has(row.line_key), `a row of a line nobody evaluates: ${row.line_key}`);
  for (const target of targets) {
    const rows = world.ledger.rowsOf(target.line.line_key);
    const locked = rows
      .filter((row) => row.status === 'approved' || row.status === 'paid')
      .reduce((sum, row) => sum + row.amount_cents, 0);
    const pending = rows.filter((row) => row.status === 'pending');
    const projected = rows.filter((row) => row.status === 'projected');
    assert.ok(pending.length <= 1 && projected.length <= 1, 'one live row per status');
    assert.equal(pending[0]?.amount_cents ?? 0, target.earned_cents - locked, 'pending = E - L');
    assert.equal(projected[0]?.amount_cents ?? 0, target.projected_cents, 'projected = F');
    if (pending[0]) assert.equal(pending[0].period_id, earliestOpenPeriodFrom(target.period_id, world.ledger.periods));
    if (projected[0]) assert.equal(projected[0].period_id, target.period_id);
    assert.deepEqual(
      reconcileLine(target, rows, world.ledger.periods),
      { retire: [], write: [] },
      'nothing left to do',
    );
  }
}

function liveEarnings(world: EarningsWorld): string[] {
  return world.ledger
    .live()
    .map((row) => `${row.line_key} ${row.status} ${row.amount_cents} ${row.period_id}`)
    .sort();
}

describe('the engine and the ledger, over a history fast-check once found', () => {
  test("a removed split rep's clawback moves with the deal when its close date moves, as a full evaluation puts it", () => {
    const world = new EarningsWorld(plan(), reps, TODAY);
    const newLogo = { region: 'EMEA', new_logo: true };
    const history: Event[] = [
      // Won in March, credited wholly to rep-018; March is then locked, approving rep-018's SPIFF.
      {
        kind: 'deal',
        state: deal(2, {
          amount_cents: 0,
          close_date: null,
          won_at: '2026-03-30T10:00:00.000Z',
          custom: newLogo,
          splits: [{ owner_external_id: otherRep.external_id, share_bps: 10_000 }],
        }),
      },
      { kind: 'lock' },
      // Reopened without splits: rep-018's SPIFF is clawed back in April, the period of an undated open deal.
      {
        kind: 'deal',
        state: deal(2, {
          amount_cents: null,
          stage: 'proposal',
          status: 'open',
          close_date: null,
          won_at: null,
          custom: newLogo,
        }),
      },
      // Dated in May: rep-018 no longer has any credit on the deal, but its clawback line is dated by it.
      {
        kind: 'deal',
        state: deal(2, {
          amount_cents: null,
          stage: 'proposal',
          status: 'open',
          close_date: '2026-05-15',
          won_at: null,
          custom: newLogo,
        }),
      },
    ];
    for (const event of history) {
      play(world, event);
      assertLiveRowsEqualTargets(world);
    }
    const clawback = world.ledger.live().find((row) => row.amount_cents < 0);
    assert.equal(clawback?.period_id, '2026-05');
  });
});

describe('a rate dated before a locked period', () => {
  test("tops the line up in the earliest open period and leaves the locked period's rows alone", () => {
    const world = new EarningsWorld(plan({ currency: 'USD' }), reps, TODAY);
    world.money = {
      default_currency: 'USD',
      rates: [{ from_currency: 'EUR', to_currency: 'USD', effective_on: '2026-04-01', rate: '1.08' }],
    };
    const won = deal(1, {
      currency: 'EUR',
      amount_cents: 1_234_567,
      close_date: '2026-04-20',
      custom: { region: 'EMEA' },
    });
    world.change(won);
    world.ledger.lock('2026-04');
    setRate(world, { from_currency: 'EUR', to_currency: 'USD', effective_on: '2026-04-15', rate: '1.0845' });
    const base = world.ledger.rows.filter((row) => row.trace.chip.key === 'base');
    // 12,345.67 EUR × 1.08 = 13,333.32 USD, 10% = 1,333.33; × 1.0845 = 13,388.88, 10% = 1,338.89: +5.56 in May.
    assert.deepEqual(
      base.map((row) => [row.status, row.amount_cents, row.period_id]),
      [
        ['approved', 133_333, '2026-04'],
        ['pending', 556, '2026-05'],
      ],
    );
    assertLiveRowsEqualTargets(world);
  });
});

describe('the engine and the ledger, over random histories', () => {
  test('(a) after every event, the live rows of every line equal its target', () => {
    fc.assert(
      fc.property(plans, events, (chosen, history) => {
        const world = worldOf(chosen);
        for (const event of history) {
          play(world, event);
          assertLiveRowsEqualTargets(world);
        }
      }),
      { numRuns: 150 },
    );
  });

  test('(e) in a plan year, a change to one month moves the later months of its year as a full recompute does', () => {
    // The plan-year plan alone, more often than among the others: its scope is the deal's whole plan year.
    fc.assert(
      fc.property(events, (history) => {
        const world = worldOf(planYearPlan);
        for (const event of history) {
          play(world, event);
          assertLiveRowsEqualTargets(world);
        }
      }),
      { numRuns: 60 },
    );
  });

  test('(d) a rate set after locks, dated before them, leaves every line where a full recompute puts it', () => {
    fc.assert(
      fc.property(plans, events, rateSet, events, (chosen, before, backdated, after) => {
        const world = worldOf(chosen);
        // March and April locked (or paid, as the history went), then the rate.
        const locks = [{ kind: 'lock' as const }, { kind: 'lock' as const }];
        for (const event of [...before, ...locks, backdated, ...after]) {
          play(world, event);
          assertLiveRowsEqualTargets(world);
        }
      }),
      { numRuns: 150 },
    );
  });

  test('(b) the same final deal states, in any order and after any detours, leave the same live earnings', () => {
    const finals = fc
      .integer({ min: 1, max: 5 })
      .chain((count) => fc.tuple(...Array.from({ length: count }, (_, index) => dealState(fc.constant(index + 1)))));
    fc.assert(
      fc.property(plans, finals, (chosen, finalStates) =>
        fc.assert(
          fc.property(
            fc.shuffledSubarray(finalStates, { minLength: finalStates.length }),
            fc.array(dealState(fc.integer({ min: 1, max: finalStates.length })), { maxLength: 8 }),
            fc.array(dealState(fc.integer({ min: 1, max: finalStates.length })), { maxLength: 8 }),
            (otherOrder, detours, otherDetours) => {
              const inOrder = worldOf(chosen);
              for (const state of [...detours, ...finalStates]) inOrder.change(state);
              const reordered = worldOf(chosen);
              for (const state of [...otherDetours, ...otherOrder]) reordered.change(state);
              assert.deepEqual(liveEarnings(reordered), liveEarnings(inOrder));
            },
          ),
          { numRuns: 5 },
        ),
      ),
      { numRuns: 60 },
    );
  });

  test('(c) approved and paid rows never change amount and only move from approved to paid', () => {
    fc.assert(
      fc.property(plans, events, (chosen, history) => {
        const world = worldOf(chosen);
        const frozen = new Map<string, StoredRow>();
        for (const event of history) {
          play(world, event);
          for (const [id, before] of frozen) {
            const now = world.ledger.rows.find((row) => row.id === id);
            assert.ok(now, 'a locked row disappeared');
            assert.equal(now.amount_cents, before.amount_cents);
            assert.ok(
              now.status === 'paid' || (now.status === 'approved' && before.status === 'approved'),
              `${before.status} became ${now.status}`,
            );
          }
          for (const row of world.ledger.rows) {
            if (row.status === 'approved' || row.status === 'paid') frozen.set(row.id, { ...row });
          }
        }
      }),
      { numRuns: 150 },
    );
  });
});
