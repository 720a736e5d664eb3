import assert from 'node:assert/strict';
import { describe, test } from 'vitest';
import { parseDealEvent } from '../../src/domain/deals/event.ts';
import { Refusal } from '../../src/domain/refusal.ts';

function refusal(body: unknown): string {
  try {
    parseDealEvent(body);
  } catch (error) {
    if (error instanceof Refusal && error.code === 'invalid_body') return error.reason;
    throw error;
  }
  assert.fail(`expected ${JSON.stringify(body)} to be refused`);
}

const event = (state: Record<string, unknown>, extra: Record<string, unknown> = {}) => ({
  external_id: 'opp-1',
  state,
  ...extra,
});

describe('parsing a deal event', () => {
  test('a full event yields its members, and event_type defaults to upsert', () => {
    const parsed = parseDealEvent(
      event(
        { amount_cents: 5000, stage: 'won', close_date: '2024-02-29', owner_external_id: 'rep-1' },
        { dedup_key: 'k1', occurred_at: '2026-04-20T16:30:11.902+02:00' },
      ),
    );
    assert.equal(parsed.externalId, 'opp-1');
    assert.equal(parsed.eventType, 'upsert');
    assert.equal(parsed.dedupKey, 'k1');
    assert.equal(parsed.occurredAt?.toISOString(), '2026-04-20T14:30:11.902Z');
    assert.deepEqual(parsed.patch.standard, {
      amount_cents: 5000,
      stage: 'won',
      close_date: '2024-02-29',
      owner_external_id: 'rep-1',
    });
  });

  test('omitted standard members are absent from the patch and null members clear', () => {
    const parsed = parseDealEvent(event({ stage: null }));
    assert.deepEqual(parsed.patch.standard, { stage: null });
    assert.equal('amount_cents' in parsed.patch.standard, false);
  });

  test('non-standard members become custom fields and merge with state.custom', () => {
    const parsed = parseDealEvent(event({ region: 'NA', tier: null, custom: { new_logo: true } }));
    assert.deepEqual(parsed.patch.custom, { region: 'NA', tier: null, new_logo: true });
  });

  test('without dedup_key or occurred_at, both are undefined', () => {
    const parsed = parseDealEvent(event({}));
    assert.equal(parsed.dedupKey, undefined);
    assert.equal(parsed.occurredAt, undefined);
  });
});

describe('validation rules, each refused with the field path first', () => {
  const cases: Array<[string, unknown, RegExp]> = [
    ['a body that is not an object', [1], /^body: must be object/],
    ['a missing external_id', { state: {} }, /^external_id: is required/],
    ['an empty external_id', { external_id: '', state: {} }, /^external_id: must NOT have fewer than 1/],
    [
      'an external_id over 255 characters',
      { external_id: 'x'.repeat(256), state: {} },
      /^external_id: must NOT have more than 255/,
    ],
    ['a missing state', { external_id: 'a' }, /^state: is required/],
    ['a state that is not an object', { external_id: 'a', state: [] }, /^state: must be object/],
    ['an unknown top-level member', { external_id: 'a', state: {}, dedupe_key: 'k' }, /^dedupe_key: is not a member/],
    ['a fractional amount_cents', event({ amount_cents: 1.5 }), /^state\.amount_cents: must be integer/],
    ['a string amount_cents', event({ amount_cents: '100' }), /^state\.amount_cents: must be integer/],
    [
      'a negative amount_cents',
      event({ amount_cents: -1 }),
      /^state\.amount_cents: must be a whole number of cents from 0/,
    ],
    ['an amount_cents above 2^53 - 1', event({ amount_cents: 2 ** 53 }), /^state\.amount_cents: must be a whole/],
    ['an empty stage', event({ stage: '' }), /^state\.stage: must NOT have fewer than 1/],
    ['a blank stage', event({ stage: '   ' }), /^state\.stage: must not be blank/],
    ['a stage that is not a string', event({ stage: 3 }), /^state\.stage: must be string/],
    ['a blank owner_external_id', event({ owner_external_id: ' ' }), /^state\.owner_external_id: must not be blank/],
    ['an empty owner_external_id', event({ owner_external_id: '' }), /^state\.owner_external_id: must NOT have fewer/],
    [
      'a close_date that does not exist',
      event({ close_date: '2026-02-30' }),
      /^state\.close_date: must be a calendar date/,
    ],
    ['a close_date on 29 February of a common year', event({ close_date: '2100-02-29' }), /^state\.close_date: /],
    ['a close_date with a time', event({ close_date: '2026-04-20T00:00:00Z' }), /^state\.close_date: /],
    ['a close_date in year 0', event({ close_date: '0000-01-01' }), /^state\.close_date: /],
    ['a state.custom that is not an object', event({ custom: 'x' }), /^state\.custom: must be object/],
    [
      'a name both in state and in state.custom',
      event({ region: 'NA', custom: { region: 'EU' } }),
      /^state\.custom\.region: given both/,
    ],
    [
      '__proto__ in state',
      JSON.parse('{"external_id":"a","state":{"__proto__":{"x":1}}}'),
      /^state\.__proto__: reserved name/,
    ],
    ['constructor in state', event({ constructor: 1 }), /^state\.constructor: reserved name/],
    ['prototype in state.custom', event({ custom: { prototype: 1 } }), /^state\.custom\.prototype: reserved name/],
    [
      'a reserved name nested in a custom value',
      event({ meta: { a: [{ constructor: 1 }] } }),
      /^state\.meta\.a\[0\]\.constructor: reserved/,
    ],
    ['an event_type outside the list', event({}, { event_type: 'merge' }), /^event_type: must be one of upsert/],
    ['an empty dedup_key', event({}, { dedup_key: '' }), /^dedup_key: must NOT have fewer than 1/],
    [
      'an occurred_at without a time zone',
      event({}, { occurred_at: '2026-04-20T16:30:11' }),
      /^occurred_at: must be an RFC 3339/,
    ],
    ['an occurred_at that is not a time', event({}, { occurred_at: 'yesterday' }), /^occurred_at: /],
    ['a custom string with U+0000', event({ note: 'a\u0000b' }), /^state\.note: must be well-formed Unicode/],
    ['a custom string with a lone surrogate', event({ note: '\ud800' }), /^state\.note: must be well-formed Unicode/],
    ['an external_id with U+0000', { external_id: 'a\u0000', state: {} }, /^external_id: must be well-formed/],
    [
      'a custom value nested 40 levels deep',
      event({ deep: JSON.parse(`${'['.repeat(40)}${']'.repeat(40)}`) }),
      /nests deeper than 32/,
    ],
  ];
  test.each(cases)('%s is refused', (_name, body, reason) => {
    assert.match(refusal(body), reason);
  });
});
