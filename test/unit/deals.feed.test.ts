import assert from 'node:assert/strict';
import { describe, test } from 'vitest';
import { cutFeedPage } from '../../src/domain/deals/feed.ts';
import { canonicalDigest, canonicalJson } from '../../src/domain/json.ts';

describe('canonical JSON', () => {
  test('sorts members at every depth and drops whitespace', () => {
    assert.equal(
      canonicalJson({ b: 1, a: { d: [3, { z: 1, y: 2 }], c: null } }),
      '{"a":{"c":null,"d":[3,{"y":2,"z":1}]},"b":1}',
    );
  });

  test('two bodies that differ only in order and formatting have the same digest', () => {
    const a = JSON.parse('{ "external_id": "x", "state": { "stage": "a", "amount_cents": 1 } }');
    const b = JSON.parse('{"state":{"amount_cents":1,"stage":"a"},"external_id":"x"}');
    assert.equal(canonicalDigest(a), canonicalDigest(b));
    assert.notEqual(canonicalDigest(a), canonicalDigest({ ...b, event_type: 'upsert' }));
  });
});

describe('cutting a change-feed page at the horizon', () => {
  const at = (ms: number) => new Date(Date.UTC(2026, 3, 20, 12, 0, 0, ms));
  const row = (ms: number, id: string) => ({ id, updated_at: at(ms) });
  const rows = [row(1, 'a'), row(2, 'b'), row(3, 'c')];

  test('a full page hands out a cursor at its last row', () => {
    const page = cutFeedPage(rows, { from: null, limit: 2, horizon: at(100), writesInFlight: false });
    assert.deepEqual(
      page.items.map((item) => item.id),
      ['a', 'b'],
    );
    assert.equal(page.more, true);
    assert.deepEqual(page.position, { at: at(2), id: 'b' });
  });

  test('rows at or after the horizon are held back and keep the cursor open', () => {
    const page = cutFeedPage(rows, { from: null, limit: 5, horizon: at(2), writesInFlight: true });
    assert.deepEqual(
      page.items.map((item) => item.id),
      ['a'],
    );
    assert.equal(page.more, true);
  });

  test('an empty page while a write is in flight keeps the position it started from', () => {
    const from = { at: at(5), id: 'e' };
    const page = cutFeedPage([], { from, limit: 5, horizon: at(1), writesInFlight: true });
    assert.deepEqual(page, { items: [], position: from, more: true });
  });

  test('the last page with nothing in flight ends the feed', () => {
    const page = cutFeedPage(rows, { from: null, limit: 5, horizon: at(100), writesInFlight: false });
    assert.equal(page.items.length, 3);
    assert.equal(page.more, false);
  });
});
