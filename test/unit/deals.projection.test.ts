import assert from 'node:assert/strict';
import { describe, test } from 'vitest';
import { type DealEvent, parseDealEvent } from '../../src/domain/deals/event.ts';
import {
  applyEvent,
  type CurrentDeal,
  type DealState,
  deriveStatus,
  EMPTY_STATE,
  mergeState,
} from '../../src/domain/deals/projection.ts';

const STAGES = { won: ['closed_won', 'closed won', 'won'], lost: ['closed_lost', 'closed lost', 'lost'] };

function parsed(state: Record<string, unknown>, extra: Record<string, unknown> = {}): DealEvent {
  return parseDealEvent({ external_id: 'opp-1', state, ...extra });
}

function deal(state: Partial<DealState>, status: CurrentDeal['status'] = 'open', lastOccurredAt: Date | null = null) {
  return { state: { ...EMPTY_STATE, ...state }, status, lastOccurredAt };
}

function applied(current: CurrentDeal | null, event: DealEvent) {
  const transition = applyEvent(current, event, STAGES);
  assert.equal(transition.stale, false);
  return transition as Extract<typeof transition, { stale: false }>;
}

describe('merging a state patch', () => {
  test('an omitted member keeps its value, null clears it, a value replaces it', () => {
    const merged = mergeState(
      { amount_cents: 100, stage: 'qualified', close_date: '2026-01-01', owner_external_id: 'rep-1', custom: {} },
      parsed({ amount_cents: 200, close_date: null }).patch,
    );
    assert.deepEqual(merged, {
      amount_cents: 200,
      stage: 'qualified',
      close_date: null,
      owner_external_id: 'rep-1',
      custom: {},
    });
  });

  test('custom fields merge name by name: omitted kept, null removed, objects replaced whole', () => {
    const merged = mergeState(
      { ...EMPTY_STATE, custom: { region: 'NA', tier: 'gold', meta: { a: 1, b: 2 } } },
      parsed({ tier: null, custom: { meta: { a: 3 } }, industry: 'Retail' }).patch,
    );
    assert.deepEqual(merged.custom, { region: 'NA', meta: { a: 3 }, industry: 'Retail' });
  });
});

describe('deriving the status', () => {
  test('won and lost stages match trimmed and case-folded', () => {
    assert.equal(deriveStatus('  Closed Won ', false, STAGES), 'won');
    assert.equal(deriveStatus('LOST', false, STAGES), 'lost');
    assert.equal(deriveStatus('negotiation', false, STAGES), 'open');
    assert.equal(deriveStatus(null, false, STAGES), 'open');
  });

  test('the org decides which stages are won and lost', () => {
    assert.equal(deriveStatus('Signed', false, { won: ['signed'], lost: [] }), 'won');
    assert.equal(deriveStatus('closed_won', false, { won: ['signed'], lost: [] }), 'open');
  });

  test('a delete event makes the deal deleted whatever its stage', () => {
    assert.equal(deriveStatus('closed_won', true, STAGES), 'deleted');
  });
});

describe('the domain event of a transition', () => {
  test('the first event of a deal is deal.created, listing every field it sets', () => {
    const transition = applied(null, parsed({ amount_cents: 100, stage: 'closed_won', region: 'NA' }));
    assert.equal(transition.type, 'deal.created');
    assert.equal(transition.status, 'won');
    assert.equal(transition.becameWon, true);
    assert.deepEqual(transition.changes, [
      { field: 'amount_cents', old: null, new: 100 },
      { field: 'stage', old: null, new: 'closed_won' },
      { field: 'custom.region', old: null, new: 'NA' },
      { field: 'status', old: null, new: 'won' },
    ]);
  });

  test('a delete event is deal.deleted', () => {
    const transition = applied(deal({ stage: 'qualified' }), parsed({}, { event_type: 'delete' }));
    assert.equal(transition.type, 'deal.deleted');
    assert.equal(transition.status, 'deleted');
    assert.deepEqual(transition.changes, [{ field: 'status', old: 'open', new: 'deleted' }]);
  });

  test('a delete of a deleted deal is still deal.deleted, with no changes', () => {
    const transition = applied(deal({}, 'deleted'), parsed({}, { event_type: 'delete' }));
    assert.equal(transition.type, 'deal.deleted');
    assert.deepEqual(transition.changes, []);
  });

  test('any other event on a deleted deal is deal.restored, even when it closes the deal', () => {
    const transition = applied(deal({ stage: 'qualified' }, 'deleted'), parsed({ stage: 'closed_won' }));
    assert.equal(transition.type, 'deal.restored');
    assert.equal(transition.status, 'won');
  });

  test('a stage that makes the deal won is deal.closed_won', () => {
    const transition = applied(deal({ stage: 'negotiation' }), parsed({ stage: 'Won', amount_cents: 7 }));
    assert.equal(transition.type, 'deal.closed_won');
    assert.equal(transition.becameWon, true);
  });

  test('a stage that makes the deal lost is deal.closed_lost', () => {
    assert.equal(applied(deal({ stage: 'negotiation' }), parsed({ stage: 'closed lost' })).type, 'deal.closed_lost');
  });

  test('moving between two won stages is a stage change, not a second close', () => {
    const transition = applied(deal({ stage: 'won' }, 'won'), parsed({ stage: 'closed_won' }));
    assert.equal(transition.type, 'deal.stage_changed');
    assert.equal(transition.becameWon, false);
  });

  test('a stage change outranks an amount change in the same event', () => {
    const transition = applied(deal({ stage: 'a', amount_cents: 1 }), parsed({ stage: 'b', amount_cents: 2 }));
    assert.equal(transition.type, 'deal.stage_changed');
    assert.deepEqual(
      transition.changes.map((change) => change.field),
      ['amount_cents', 'stage'],
    );
  });

  test('an amount change alone is deal.amount_changed', () => {
    assert.equal(applied(deal({ amount_cents: 1 }), parsed({ amount_cents: 2 })).type, 'deal.amount_changed');
  });

  test('any other change is deal.updated, and so is an event that changes nothing', () => {
    const changed = applied(deal({ owner_external_id: 'rep-1' }), parsed({ owner_external_id: 'rep-2' }));
    assert.equal(changed.type, 'deal.updated');
    assert.deepEqual(changed.changes, [{ field: 'owner_external_id', old: 'rep-1', new: 'rep-2' }]);
    const unchanged = applied(
      deal({ amount_cents: 1, custom: { a: { x: 1, y: 2 } } }),
      parsed({ amount_cents: 1, a: { y: 2, x: 1 } }),
    );
    assert.equal(unchanged.type, 'deal.updated');
    assert.deepEqual(unchanged.changes, []);
  });

  test('event_type is only a hint: an amount_change event that changes the stage is deal.stage_changed', () => {
    const transition = applied(deal({ stage: 'a' }), parsed({ stage: 'b' }, { event_type: 'amount_change' }));
    assert.equal(transition.type, 'deal.stage_changed');
  });

  test('leaving the won status clears becameWon and lists the status change', () => {
    const transition = applied(deal({ stage: 'won' }, 'won'), parsed({ stage: 'negotiation' }));
    assert.equal(transition.becameWon, false);
    assert.deepEqual(transition.changes.at(-1), { field: 'status', old: 'won', new: 'open' });
  });
});

describe('stale events', () => {
  const last = new Date('2026-04-20T12:00:00.000Z');

  test('an event older than the last applied occurred_at is stale and changes nothing', () => {
    const transition = applyEvent(
      deal({ stage: 'a' }, 'open', last),
      parsed({ stage: 'b' }, { occurred_at: '2026-04-20T11:59:59.999Z' }),
      STAGES,
    );
    assert.deepEqual(transition, { stale: true, type: 'deal.updated', changes: [] });
  });

  test('an event at the same instant is applied, and a later one moves last_occurred_at', () => {
    assert.equal(
      applyEvent(deal({}, 'open', last), parsed({}, { occurred_at: last.toISOString() }), STAGES).stale,
      false,
    );
    const later = applied(deal({}, 'open', last), parsed({}, { occurred_at: '2026-04-21T00:00:00Z' }));
    assert.equal(later.lastOccurredAt?.toISOString(), '2026-04-21T00:00:00.000Z');
  });

  test('an event without occurred_at is never stale and keeps last_occurred_at', () => {
    const transition = applied(deal({}, 'open', last), parsed({ stage: 'b' }));
    assert.equal(transition.lastOccurredAt, last);
  });
});
