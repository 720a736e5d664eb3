import assert from 'node:assert/strict';
import { describe, test } from 'vitest';
import {
  type DealListFilters,
  decodeCursor,
  encodeCursor,
  filterFingerprint,
  InvalidCursor,
} from '../../src/domain/deals/cursor.ts';
import { cutFeedPage } from '../../src/domain/deals/feed.ts';
import { canonicalDigest, canonicalJson } from '../../src/domain/json.ts';

const FILTERS: DealListFilters = { includeDeleted: false };
const DEAL_ID = 'deal_01kpnvmrz8f7z8pdg8ny07g73y';

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

describe('the deals cursor', () => {
  const fingerprint = filterFingerprint('org_a', FILTERS);

  test('round-trips the position of the last deal', () => {
    const position = { updatedAt: new Date('2026-04-21T09:12:44.318Z'), id: DEAL_ID };
    assert.deepEqual(decodeCursor(encodeCursor(position, fingerprint), fingerprint), position);
  });

  test('round-trips the start position of an empty page', () => {
    assert.equal(decodeCursor(encodeCursor(null, fingerprint), fingerprint), null);
  });

  test('is base64url, safe in a query string without escaping', () => {
    assert.match(encodeCursor({ updatedAt: new Date(), id: DEAL_ID }, fingerprint), /^[A-Za-z0-9_-]+$/);
  });

  test('a cursor issued for other filters or another org is refused as foreign', () => {
    const cursor = encodeCursor(null, fingerprint);
    for (const other of [
      filterFingerprint('org_a', { ...FILTERS, status: 'won' }),
      filterFingerprint('org_a', { ...FILTERS, includeDeleted: true }),
      filterFingerprint('org_b', FILTERS),
    ]) {
      assert.throws(() => decodeCursor(cursor, other), /^InvalidCursor: cursor: was issued for other filters/);
    }
  });

  test('the page size is not part of the fingerprint, so it may change between pages', () => {
    assert.equal(filterFingerprint('org_a', FILTERS), filterFingerprint('org_a', { includeDeleted: false }));
  });

  test('malformed cursors are refused with a reason starting cursor:', () => {
    const encode = (document: unknown) => Buffer.from(JSON.stringify(document)).toString('base64url');
    for (const cursor of [
      'not a cursor!',
      'AAAA',
      encode([1]),
      encode({ v: 2, u: null, i: null, f: fingerprint }),
      encode({ v: 1, u: 'yesterday', i: DEAL_ID, f: fingerprint }),
      encode({ v: 1, u: '2026-04-21T09:12:44.318Z', i: 'deal_x', f: fingerprint }),
      encode({ v: 1, u: '2026-13-41T09:12:44.318Z', i: DEAL_ID, f: fingerprint }),
    ]) {
      assert.throws(
        () => decodeCursor(cursor, fingerprint),
        (error: unknown) => error instanceof InvalidCursor && error.message.startsWith('cursor: is malformed'),
        cursor,
      );
    }
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
    assert.deepEqual(page.position, { updatedAt: at(2), id: 'b' });
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
    const from = { updatedAt: at(5), id: 'e' };
    const page = cutFeedPage([], { from, limit: 5, horizon: at(1), writesInFlight: true });
    assert.deepEqual(page, { items: [], position: from, more: true });
  });

  test('the last page with nothing in flight ends the feed', () => {
    const page = cutFeedPage(rows, { from: null, limit: 5, horizon: at(100), writesInFlight: false });
    assert.equal(page.items.length, 3);
    assert.equal(page.more, false);
  });
});
