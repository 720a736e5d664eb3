import assert from 'node:assert/strict';
import { describe, test } from 'vitest';
import { withPrecedence } from '../../src/domain/earnings/precedence.ts';
import {
  type CauseEvent,
  compactTrace,
  inStoredOrder,
  isCompact,
  type StoredTrace,
  servedTrace,
} from '../../src/domain/earnings/storedTrace.ts';
import type { EarningTrace, EnginePlanVersion } from '../../src/domain/earnings/types.ts';
import { chip, deal, otherRep, plan, precedencePlan, rep } from '../factories/earnings.ts';
import { DrawsWorld } from '../helpers/drawsWorld.ts';
import type { EarningsWorld } from '../helpers/earningsLedger.ts';

// A row stores its trace compact (src/domain/earnings/storedTrace.ts) and serves it completed from its plan version
// and its cause's domain event: for every row the pure engine and the ledger write over a varied history (tiers and
// thresholds, splits, a replaced chip, currencies, clawbacks of locked periods, draws at the lock and in advance), the
// trace served is the engine's, as the same text a trace stored whole comes back as.

/** What PostgreSQL's jsonb gives back of a value written as JSON: its keys in jsonb's order. */
function throughJsonb(value: unknown): unknown {
  return inStoredOrder(JSON.parse(JSON.stringify(value)));
}

/** A deal event for every row, as the booking names it (the row's own deal, else another of the history). */
function causeOf(trace: EarningTrace, n: number): CauseEvent {
  return {
    domain_event_id: `de_${n}`,
    event_kind: n % 2 === 0 ? 'deal.updated' : 'deal.created',
    deal_id: trace.deal?.id ?? 'deal_other',
    deal_external_id: trace.deal?.external_id ?? 'opp-other',
    changes: [
      { field: 'amount_cents', old: null, new: 1_000_000 + n },
      { field: 'custom.region', old: 'EMEA', new: 'APAC' },
      { field: 'stage', old: 'proposal', new: 'closed_won' },
    ],
  };
}

/** Every row of the world, stored and served back; returns how many rows and how many characters each way. */
function assertServedAsWritten(world: EarningsWorld, enginePlan: EnginePlanVersion) {
  let whole = 0;
  let compact = 0;
  world.ledger.rows.forEach((row, n) => {
    const cause = causeOf(row.trace, n);
    const written: EarningTrace =
      n % 3 === 2
        ? row.trace
        : {
            ...row.trace,
            cause: {
              domain_event_id: cause.domain_event_id,
              event_kind: cause.event_kind as 'deal.updated',
              deal_id: cause.deal_id,
              deal_external_id: cause.deal_external_id,
              changes: cause.changes.map((change) => ({ field: change.field, from: change.old, to: change.new })),
            },
          };
    const stored = throughJsonb(compactTrace(written)) as StoredTrace;
    assert.ok(isCompact(stored));
    assert.ok(!('plan' in stored));
    const draw = written.chip.kind === 'draw' || written.chip.kind === 'draw_recovery';
    // What the ledger's SQL reads inside a trace stays where it is.
    const kept = stored as unknown as { period: { id: string }; chip: { kind: string; definition?: object } };
    assert.equal(kept.period.id, written.period.id);
    assert.equal(kept.chip.kind, written.chip.kind);
    if (draw) {
      assert.equal(
        (kept.chip.definition as { recoverable?: boolean }).recoverable,
        written.chip.definition.recoverable,
      );
    } else assert.equal(kept.chip.definition, undefined);
    const served = servedTrace(
      stored,
      { rule_chip_id: written.chip.id, rule_version: written.chip.version },
      enginePlan,
      written.cause ? cause : undefined,
    );
    // The same text as the trace the engine and the ledger made, stored whole and read back.
    assert.equal(JSON.stringify(served), JSON.stringify(throughJsonb(written)));
    assert.deepEqual(served, written);
    whole += JSON.stringify(written).length;
    compact += JSON.stringify(stored).length;
  });
  return { rows: world.ledger.rows.length, whole, compact };
}

const won = (n: number, amount: number, closeDate: string, overrides = {}) =>
  deal(n, { amount_cents: amount, close_date: closeDate, won_at: `${closeDate}T12:00:00.000Z`, ...overrides });

describe('a compact stored trace', () => {
  test('serves the trace the engine made: tiers, a bonus, a replaced chip, splits, currencies, clawbacks, a draw', () => {
    const enginePlan = withPrecedence({ ...precedencePlan, draw: { amount_cents: 300_000, recoverable: true } });
    const world = new DrawsWorld(enginePlan, [rep, otherRep], '2026-07-15');
    world.money = {
      default_currency: 'USD',
      rates: [{ from_currency: 'EUR', to_currency: 'USD', effective_on: '2026-04-01', rate: '1.08' }],
    };
    world.change(won(1, 6_000_000, '2026-04-05', { custom: { region: 'EMEA', new_logo: true } }));
    world.change(won(2, 7_500_000, '2026-04-12', { custom: { region: 'NA' } }));
    world.change(won(3, 4_000_000, '2026-04-20', { custom: { region: 'APAC' } }));
    world.change(
      won(4, 5_000_001, '2026-04-22', {
        custom: { region: 'EMEA' },
        splits: [
          { owner_external_id: rep.external_id, share_bps: 6000 },
          { owner_external_id: otherRep.external_id, share_bps: 4000 },
        ],
      }),
    );
    world.change(won(5, 1_234_567, '2026-05-03', { currency: 'EUR', custom: { region: 'EMEA' } }));
    world.change(deal(6, { status: 'open', stage: 'proposal', won_at: null, close_date: '2026-06-10' }));
    world.lock('2026-04');
    // A locked period's deal reopened, then lost: its rows are clawed back into the next open period.
    world.change(deal(2, { status: 'open', stage: 'proposal', won_at: null, close_date: '2026-04-12' }));
    world.change(deal(2, { status: 'lost', stage: 'closed_lost', won_at: null, close_date: '2026-04-12' }));
    world.change(won(1, 9_000_000, '2026-04-05', { custom: { region: 'EMEA', new_logo: true } }));
    const kinds = new Set(world.ledger.rows.map((row) => row.trace.chip.kind));
    assert.deepEqual([...kinds].sort(), ['attainment_bonus', 'commission', 'draw', 'flat', 'tiered_commission']);
    assert.ok(world.ledger.rows.some((row) => row.trace.superseded !== null));
    assert.ok(world.ledger.rows.some((row) => row.trace.deal?.splits !== undefined));
    assert.ok(world.ledger.rows.some((row) => row.trace.deal?.currency === 'EUR'));
    const sizes = assertServedAsWritten(world, enginePlan);
    assert.ok(sizes.compact < sizes.whole * 0.8, `${sizes.compact} of ${sizes.whole} characters`);
  });

  for (const paid of ['at_lock', 'in_advance'] as const) {
    test(`serves a recoverable draw's rows paid ${paid.replace('_', ' ')}, advances and recoveries`, () => {
      const enginePlan = withPrecedence(
        plan({
          quota_cents: null,
          draw: { amount_cents: 300_000, recoverable: true, ...(paid === 'in_advance' ? { paid } : {}) },
          chips: [
            chip(41, {
              key: 'base',
              name: 'Base commission',
              kind: 'commission',
              when: null,
              params: { rate_bps: 1000, base: 'amount_cents' },
            }),
          ],
        }),
      );
      const world = new DrawsWorld(enginePlan, [rep], '2026-07-15');
      world.change(won(1, 1_000_000, '2026-04-10'));
      world.lock('2026-04');
      world.change(won(2, 4_000_000, '2026-05-12'));
      world.lock('2026-05');
      world.change(won(3, 5_000_000, '2026-06-03'));
      world.lock('2026-06');
      const kinds = new Set(world.ledger.rows.map((row) => row.trace.chip.kind));
      assert.deepEqual([...kinds].sort(), ['commission', 'draw', 'draw_recovery']);
      assertServedAsWritten(world, enginePlan);
    });
  }

  test('a trace stored whole, or one no engine wrote, is served as it is', () => {
    const whole = { plan: { id: 'plan_1' }, chip: { kind: 'flat' }, steps: [], explanation: ['x'] };
    const row = { rule_chip_id: 'chip_1', rule_version: '1' };
    assert.equal(servedTrace(whole as unknown as StoredTrace, row, plan(), undefined), whole);
    const handWritten = { explanation: ['x'] };
    assert.equal(isCompact(handWritten as unknown as StoredTrace), false);
  });

  test("a compact trace whose plan version does not name the row's chip is refused, not served wrong", () => {
    const enginePlan = withPrecedence(precedencePlan);
    const world = new DrawsWorld(enginePlan, [rep], '2026-07-15');
    world.change(won(1, 6_000_000, '2026-04-05', { custom: { region: 'EMEA' } }));
    const [row] = world.ledger.rows;
    assert.ok(row);
    const stored = throughJsonb(compactTrace(row.trace)) as StoredTrace;
    assert.throws(() =>
      servedTrace(stored, { rule_chip_id: 'chip_unknown', rule_version: '1' }, enginePlan, undefined),
    );
    assert.throws(() =>
      servedTrace(stored, { rule_chip_id: row.trace.chip.id, rule_version: '2' }, enginePlan, undefined),
    );
  });
});
