import assert from 'node:assert/strict';
import { describe, test } from 'vitest';
import { InvalidCursor } from '../../src/domain/deals/cursor.ts';
import {
  decodeEarningCursor,
  earningFilterFingerprint,
  encodeEarningCursor,
} from '../../src/domain/earnings/listCursor.ts';

const position = { createdAt: new Date('2026-04-20T16:30:12.456Z'), id: 'earn_01kpnvmrzqej3v8ht39yyeg4z9' };

function refusal(run: () => unknown): string {
  try {
    run();
  } catch (error) {
    assert.ok(error instanceof InvalidCursor);
    return error.message;
  }
  assert.fail('expected InvalidCursor');
}

describe('the earnings list cursor', () => {
  test('round-trips the position of the last row for the same org and filters', () => {
    const fingerprint = earningFilterFingerprint('org_1', { periodId: '2026-04', statuses: ['pending'] });
    assert.deepEqual(decodeEarningCursor(encodeEarningCursor(position, fingerprint), fingerprint), position);
    assert.equal(decodeEarningCursor(encodeEarningCursor(null, fingerprint), fingerprint), null);
  });

  test('the same statuses in another order or repeated make the same fingerprint', () => {
    assert.equal(
      earningFilterFingerprint('org_1', { statuses: ['pending', 'approved', 'pending'] }),
      earningFilterFingerprint('org_1', { statuses: ['approved', 'pending'] }),
    );
  });

  test('when sent with other filters or by another org, then refused with a reason starting cursor:', () => {
    const cursor = encodeEarningCursor(position, earningFilterFingerprint('org_1', {}));
    for (const [org, filters] of [
      ['org_1', { planId: 'plan_1' }],
      ['org_2', {}],
      ['org_1', { createdSince: new Date('2026-04-01T00:00:00.000Z') }],
    ] as const) {
      assert.match(
        refusal(() => decodeEarningCursor(cursor, earningFilterFingerprint(org, filters))),
        /^cursor: was issued for other filters/,
      );
    }
  });

  test('when malformed, then refused with a reason starting cursor:', () => {
    const fingerprint = earningFilterFingerprint('org_1', {});
    const forged = (document: unknown) => Buffer.from(JSON.stringify(document)).toString('base64url');
    for (const cursor of [
      'not a cursor',
      'bm90IGpzb24',
      forged([1, 2]),
      forged({ v: 2, c: null, i: null, f: fingerprint }),
      forged({ v: 1, c: '2026-04-20', i: position.id, f: fingerprint }),
      forged({ v: 1, c: position.createdAt.toISOString(), i: 'deal_01kpnvmrzqej3v8ht39yyeg4z9', f: fingerprint }),
    ]) {
      assert.match(
        refusal(() => decodeEarningCursor(cursor, fingerprint)),
        /^cursor: is malformed/,
        cursor,
      );
    }
  });
});
