import assert from 'node:assert/strict';
import { describe, test } from 'vitest';
import { AUDIT_CURSOR, auditLogFingerprint } from '../../src/audit/reader.ts';
import { type KeysetCursorCodec, keysetFingerprint } from '../../src/domain/lists/keysetCursor.ts';
import { Refusal } from '../../src/domain/refusal.ts';
import { DEAL_CURSOR, dealListFingerprint } from '../../src/services/deals.ts';
import { EARNING_CURSOR, earningListFingerprint } from '../../src/services/earnings/reader.ts';
import { PAYOUT_CURSOR } from '../../src/services/payouts.ts';
import { USER_CURSOR } from '../../src/services/users.ts';

// Every list pages with the one keyset codec; each list names its id prefix and the document member of the
// position's time. The cursors below were issued before the lists shared the codec: they must still decode.

const ORG = 'org_01kpnvmrz8f7z8pdg8ny07g73a';
const AT = new Date('2026-04-21T09:12:44.318Z');
const forged = (document: unknown) => Buffer.from(JSON.stringify(document)).toString('base64url');

function refusal(run: () => unknown): string {
  try {
    run();
  } catch (error) {
    assert.ok(error instanceof Refusal);
    assert.equal(error.code, 'invalid_body');
    return error.reason;
  }
  assert.fail('expected the cursor to be refused');
}

interface ListCase {
  list: string;
  codec: KeysetCursorCodec;
  id: string;
  otherKindOfId: string;
  timeMember: 'c' | 'u' | 'o';
}

const LISTS: ListCase[] = [
  {
    list: 'deals',
    codec: DEAL_CURSOR,
    id: 'deal_01kpnvmrz8f7z8pdg8ny07g73y',
    otherKindOfId: 'earn_01kpnvmrzqej3v8ht39yyeg4z9',
    timeMember: 'u',
  },
  {
    list: 'earnings',
    codec: EARNING_CURSOR,
    id: 'earn_01kpnvmrzqej3v8ht39yyeg4z9',
    otherKindOfId: 'deal_01kpnvmrzqej3v8ht39yyeg4z9',
    timeMember: 'c',
  },
  {
    list: 'users',
    codec: USER_CURSOR,
    id: 'user_01kpnvmrz8f7z8pdg8ny07g73z',
    otherKindOfId: 'deal_01kpnvmrz8f7z8pdg8ny07g73z',
    timeMember: 'c',
  },
  {
    list: 'payouts',
    codec: PAYOUT_CURSOR,
    id: 'user_01kpnvmrz8f7z8pdg8ny07g73z',
    otherKindOfId: 'earn_01kpnvmrz8f7z8pdg8ny07g73z',
    timeMember: 'c',
  },
  {
    list: 'the audit log',
    codec: AUDIT_CURSOR,
    id: 'aud_01kpnvmrz8f7z8pdg8ny07g73y',
    otherKindOfId: 'user_01kpnvmrz8f7z8pdg8ny07g73y',
    timeMember: 'o',
  },
];

describe.each(LISTS)('the cursor of $list', ({ codec, id, otherKindOfId, timeMember }) => {
  const fingerprint = keysetFingerprint(ORG, { any: 'filter' });

  test('round-trips the position of the last item', () => {
    const position = { at: AT, id };
    assert.deepEqual(codec.decode(codec.encode(position, fingerprint), fingerprint), position);
  });

  test('round-trips the start position of an empty page', () => {
    assert.equal(codec.decode(codec.encode(null, fingerprint), fingerprint), null);
  });

  test('is base64url, safe in a query string without escaping', () => {
    assert.match(codec.encode({ at: new Date(), id }, fingerprint), /^[A-Za-z0-9_-]+$/);
  });

  test('keeps the time in its own member of the document', () => {
    const document = JSON.parse(Buffer.from(codec.encode({ at: AT, id }, fingerprint), 'base64url').toString());
    assert.deepEqual(document, { v: 1, [timeMember]: AT.toISOString(), i: id, f: fingerprint });
  });

  test('a cursor issued for another fingerprint is refused as issued for other filters', () => {
    const cursor = codec.encode({ at: AT, id }, fingerprint);
    assert.match(
      refusal(() => codec.decode(cursor, keysetFingerprint(ORG, { any: 'other' }))),
      /^cursor: was issued for other filters/,
    );
  });

  test('a bare position without a fingerprint (the contract examples) is accepted with any filters', () => {
    const cursor = forged({ v: 1, [timeMember]: AT.toISOString(), i: id });
    assert.deepEqual(codec.decode(cursor, keysetFingerprint('org_other', {})), { at: AT, id });
  });

  test('malformed cursors are refused with a reason starting cursor: is malformed', () => {
    for (const cursor of [
      'not a cursor!',
      'AAAA',
      'bm90IGpzb24',
      forged([1]),
      forged({ v: 1 }),
      forged({ v: 2, [timeMember]: null, i: null, f: fingerprint }),
      forged({ v: 1, [timeMember]: null, i: null, f: 7 }),
      forged({ v: 1, [timeMember]: 'yesterday', i: id, f: fingerprint }),
      forged({ v: 1, [timeMember]: '2026-04-20', i: id, f: fingerprint }),
      forged({ v: 1, [timeMember]: '2026-13-41T09:12:44.318Z', i: id, f: fingerprint }),
      forged({ v: 1, [timeMember]: AT.toISOString(), i: 'deal_x', f: fingerprint }),
      forged({ v: 1, [timeMember]: AT.toISOString(), i: otherKindOfId, f: fingerprint }),
    ]) {
      assert.match(
        refusal(() => codec.decode(cursor, fingerprint)),
        /^cursor: is malformed/,
        cursor,
      );
    }
  });
});

describe('what each list binds its cursors to', () => {
  test.each([
    {
      list: 'deals',
      cursor:
        'eyJ2IjoxLCJ1IjoiMjAyNi0wNC0yMVQwOToxMjo0NC4zMThaIiwiaSI6ImRlYWxfMDFrcG52bXJ6OGY3ejhwZGc4bnkwN2c3M3kiLCJmIjoiMmFkMWY2ODhkNWQxZGFjMSJ9',
      decode: (cursor: string) =>
        DEAL_CURSOR.decode(
          cursor,
          dealListFingerprint(ORG, {
            status: 'won',
            includeDeleted: false,
            updatedSince: new Date('2026-04-01T00:00:00.000Z'),
          }),
        ),
      id: 'deal_01kpnvmrz8f7z8pdg8ny07g73y',
    },
    {
      list: 'earnings',
      cursor:
        'eyJ2IjoxLCJjIjoiMjAyNi0wNC0yMVQwOToxMjo0NC4zMThaIiwiaSI6ImVhcm5fMDFrcG52bXJ6cWVqM3Y4aHQzOXl5ZWc0ejkiLCJmIjoiOGNlZDYwNWM1NDc1NzQxYyJ9',
      decode: (cursor: string) =>
        EARNING_CURSOR.decode(
          cursor,
          earningListFingerprint(ORG, { periodId: '2026-04', statuses: ['approved', 'pending'] }),
        ),
      id: 'earn_01kpnvmrzqej3v8ht39yyeg4z9',
    },
    {
      list: 'users',
      cursor:
        'eyJ2IjoxLCJjIjoiMjAyNi0wNC0yMVQwOToxMjo0NC4zMThaIiwiaSI6InVzZXJfMDFrcG52bXJ6OGY3ejhwZGc4bnkwN2c3M3oiLCJmIjoiMzkzNjgwNDAzYTAzYzU0MCJ9',
      decode: (cursor: string) => USER_CURSOR.decode(cursor, keysetFingerprint(ORG, { external_id: null })),
      id: 'user_01kpnvmrz8f7z8pdg8ny07g73z',
    },
    {
      list: 'the audit log',
      cursor:
        'eyJ2IjoxLCJvIjoiMjAyNi0wNC0yMVQwOToxMjo0NC4zMThaIiwiaSI6ImF1ZF8wMWtwbnZtcno4Zjd6OHBkZzhueTA3ZzczeSIsImYiOiIzYjcwNTUyMjczMjI5Y2ViIn0',
      decode: (cursor: string) =>
        AUDIT_CURSOR.decode(
          cursor,
          auditLogFingerprint(ORG, { actor: 'cli', from: new Date('2026-04-01T00:00:00.000Z') }),
        ),
      id: 'aud_01kpnvmrz8f7z8pdg8ny07g73y',
    },
  ])('a $list cursor handed out before the lists shared one codec still decodes', ({ cursor, decode, id }) => {
    assert.deepEqual(decode(cursor), { at: AT, id });
  });

  test('a deals cursor is refused with other filters or by another org', () => {
    const filters = { includeDeleted: false };
    const cursor = DEAL_CURSOR.encode(null, dealListFingerprint('org_a', filters));
    for (const other of [
      dealListFingerprint('org_a', { ...filters, status: 'won' }),
      dealListFingerprint('org_a', { ...filters, includeDeleted: true }),
      dealListFingerprint('org_b', filters),
    ]) {
      assert.throws(() => DEAL_CURSOR.decode(cursor, other), /^Refusal: cursor: was issued for other filters/);
    }
  });

  test('the page size is not part of the fingerprint, so it may change between pages', () => {
    assert.equal(
      dealListFingerprint('org_a', { includeDeleted: false }),
      dealListFingerprint('org_a', { includeDeleted: false }),
    );
  });

  test('the same earning statuses in another order or repeated make the same fingerprint', () => {
    assert.equal(
      earningListFingerprint('org_1', { statuses: ['pending', 'approved', 'pending'] }),
      earningListFingerprint('org_1', { statuses: ['approved', 'pending'] }),
    );
  });

  test('an earnings cursor sent with other filters or by another org is refused with a reason starting cursor:', () => {
    const position = { at: new Date('2026-04-20T16:30:12.456Z'), id: 'earn_01kpnvmrzqej3v8ht39yyeg4z9' };
    const cursor = EARNING_CURSOR.encode(position, earningListFingerprint('org_1', {}));
    for (const [org, filters] of [
      ['org_1', { planId: 'plan_1' }],
      ['org_2', {}],
      ['org_1', { createdSince: new Date('2026-04-01T00:00:00.000Z') }],
    ] as const) {
      assert.match(
        refusal(() => EARNING_CURSOR.decode(cursor, earningListFingerprint(org, filters))),
        /^cursor: was issued for other filters/,
      );
    }
  });

  test('an audit log cursor is refused with other filters', () => {
    const cursor = AUDIT_CURSOR.encode({ at: AT, id: 'aud_01kpnvmrz8f7z8pdg8ny07g73y' }, auditLogFingerprint(ORG, {}));
    assert.match(
      refusal(() => AUDIT_CURSOR.decode(cursor, auditLogFingerprint(ORG, { action: 'key.created' }))),
      /^cursor: was issued for other filters/,
    );
  });
});

describe('cutting a keyset page', () => {
  const rows = ['a', 'b', 'c'].map((id, index) => ({ id: `user_01kpnvmrz8f7z8pdg8ny07g7${index}${id}`, at: AT }));
  const positionOf = (row: { id: string; at: Date }) => ({ at: row.at, id: row.id });

  test('a page read with one row more than the limit hands out a cursor at its last item', () => {
    const page = USER_CURSOR.page(rows, 2, 'f', positionOf);
    assert.deepEqual(page.items, rows.slice(0, 2));
    assert.equal(page.nextCursor, USER_CURSOR.encode(positionOf(rows[1] as (typeof rows)[number]), 'f'));
  });

  test('the last page has no cursor', () => {
    assert.deepEqual(USER_CURSOR.page(rows, 3, 'f', positionOf), { items: rows, nextCursor: null });
    assert.deepEqual(USER_CURSOR.page([], 3, 'f', positionOf), { items: [], nextCursor: null });
  });
});
