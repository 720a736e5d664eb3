import assert from 'node:assert/strict';
import { describe, test } from 'vitest';
import { parseDealEvent } from '../../src/domain/deals/event.ts';
import { applyEvent, EMPTY_STATE } from '../../src/domain/deals/projection.ts';
import { Refusal } from '../../src/domain/refusal.ts';

// Split credit on a deal event: parsing and merging into the projection as a whole.

const STAGES = { won: ['closed_won'], lost: ['closed_lost'] };
const SIXTY_FORTY = [
  { owner_external_id: 'rep-1', share_bps: 6000 },
  { owner_external_id: 'rep-2', share_bps: 4000 },
];

function refusal(splits: unknown): string {
  try {
    parseDealEvent({ external_id: 'opp-1', state: {}, splits });
  } catch (error) {
    assert.ok(error instanceof Refusal);
    assert.equal(error.code, 'invalid_body');
    return error.reason;
  }
  assert.fail(`splits ${JSON.stringify(splits)} were accepted`);
}

describe('parsing splits', () => {
  test('absent is undefined, null is null, a valid list is kept in its order', () => {
    assert.equal(parseDealEvent({ external_id: 'opp-1', state: {} }).splits, undefined);
    assert.equal(parseDealEvent({ external_id: 'opp-1', state: {}, splits: null }).splits, null);
    assert.deepEqual(parseDealEvent({ external_id: 'opp-1', state: {}, splits: SIXTY_FORTY }).splits, SIXTY_FORTY);
  });

  test('when the shares do not make a whole, or a rep is named twice, then the reason names the field', () => {
    assert.equal(
      refusal([{ owner_external_id: 'rep-1', share_bps: 6000 }]),
      'splits: the shares must sum to 10000 basis points, not 6000',
    );
    assert.equal(
      refusal([
        { owner_external_id: 'rep-1', share_bps: 5000 },
        { owner_external_id: 'rep-1', share_bps: 5000 },
      ]),
      'splits[1].owner_external_id: names rep-1 a second time',
    );
    assert.equal(refusal([]), 'splits: must NOT have fewer than 1 items');
    assert.equal(refusal({}), 'splits: must be array or null');
    assert.equal(
      refusal([{ owner_external_id: 'rep-1', share_bps: 10_000.5 }]),
      'splits[0].share_bps: must be an integer from 1 to 10000',
    );
    assert.equal(
      refusal([{ owner_external_id: ' ', share_bps: 10_000 }]),
      'splits[0].owner_external_id: must not be blank',
    );
    assert.equal(
      refusal([{ owner_external_id: 'rep-1', share_bps: 10_000, weight: 1 }]),
      'splits[0].weight: is not a member of a split',
    );
  });
});

describe('merging splits into the projection', () => {
  const current = {
    state: { ...EMPTY_STATE, owner_external_id: 'rep-1' },
    status: 'open' as const,
    lastOccurredAt: null,
  };

  function apply(splitsBefore: typeof SIXTY_FORTY | null, body: Record<string, unknown>) {
    const transition = applyEvent(
      { ...current, splits: splitsBefore },
      parseDealEvent({ external_id: 'opp-1', state: {}, ...body }),
      STAGES,
    );
    assert.equal(transition.stale, false);
    return transition as Extract<typeof transition, { stale: false }>;
  }

  test('a list replaces the splits and the change names them old → new', () => {
    const transition = apply(null, { splits: SIXTY_FORTY });
    assert.deepEqual(transition.splits, SIXTY_FORTY);
    assert.deepEqual(transition.changes, [{ field: 'splits', old: null, new: SIXTY_FORTY }]);
    assert.equal(transition.type, 'deal.updated');
  });

  test('absent keeps the splits and changes nothing; null removes them', () => {
    const kept = apply(SIXTY_FORTY, {});
    assert.deepEqual(kept.splits, SIXTY_FORTY);
    assert.deepEqual(kept.changes, []);
    const removed = apply(SIXTY_FORTY, { splits: null });
    assert.equal(removed.splits, null);
    assert.deepEqual(removed.changes, [{ field: 'splits', old: SIXTY_FORTY, new: null }]);
  });
});
