import assert from 'node:assert/strict';
import { createHmac } from 'node:crypto';
import { describe, test } from 'vitest';
import {
  checkSignatureV3,
  dealEventsOf,
  dealRecord,
  matchOwners,
  mergeOf,
  pendingEntry,
  pendingEvents,
  portalMapping,
  retryWaitMs,
  stagesOf,
  versionKey,
} from '../../src/domain/connectors/hubspot.ts';
import { RowMapper } from '../../src/domain/imports/recordMapper.ts';

const PIPELINES = [
  {
    label: 'Sales',
    stages: [
      { id: 'qualified', label: 'Qualified', metadata: { isClosed: 'false', probability: '0.4' } },
      { id: 'closedwon', label: 'Closed Won', metadata: { isClosed: 'true', probability: '1.0' } },
      { id: 'closedlost', label: 'Closed Lost', metadata: { isClosed: 'true', probability: '0.0' } },
    ],
  },
  { label: 'Renewals', stages: [{ id: '77', label: 'Renewed', metadata: { isClosed: 'true', probability: '1.0' } }] },
];

describe('HubSpot: pipelines, records and the mapping', () => {
  test('won stages are closed with probability 1.0, lost the other closed ones, by stage id', () => {
    const mapping = portalMapping(stagesOf(PIPELINES));
    assert.equal(mapping.name, 'hubspot-api');
    assert.deepEqual(mapping.won_stages, ['closedwon', '77']);
    assert.deepEqual(mapping.lost_stages, ['closedlost']);
  });

  test('a deal of the objects API becomes the deal event the import mapping model makes of it', () => {
    const mapping = portalMapping(stagesOf(PIPELINES));
    const { header, cells } = dealRecord(
      {
        id: '123',
        properties: {
          dealstage: '77',
          amount: '1999.5',
          closedate: '2026-03-31T00:00:00Z',
          hubspot_owner_id: '9',
          deal_currency_code: 'EUR',
          hs_lastmodifieddate: '2026-04-01T10:00:00.000Z',
          pipeline: 'renewals',
        },
      },
      (owner) => `rep-${owner}`,
    );
    const mapped = new RowMapper(mapping, header).map(cells, {
      conventions: mapping.conventions ?? { source: 'test' },
      fallbackCurrency: 'USD',
    });
    assert.equal(mapped.kind, 'event');
    if (mapped.kind !== 'event') return;
    assert.deepEqual(mapped.body.state, {
      stage: 'closed_won',
      amount_cents: 199_950,
      close_date: '2026-03-31',
      owner_external_id: 'rep-9',
      custom: { pipeline: 'renewals' },
    });
    assert.equal(mapped.body.currency, 'EUR');
    assert.equal(mapped.body.occurred_at, '2026-04-01T10:00:00.000Z');
    assert.equal(versionKey('44', '123', '2026-04-01T10:00:00.000Z'), 'hubspot:44:123:1775037600000');
  });

  test('an archived deal is a deletion, not a live deal', () => {
    const mapping = portalMapping(stagesOf(PIPELINES));
    const { header, cells } = dealRecord({ id: '5', properties: { dealstage: 'closedwon' }, archived: true }, String);
    assert.deepEqual(
      new RowMapper(mapping, header).map(cells, { conventions: { source: 't' }, fallbackCurrency: 'USD' }),
      {
        kind: 'deleted',
        externalId: '5',
      },
    );
  });

  test('owners are reps by owner id, else by email (any case), else new reps of their owner id', () => {
    const reps = new Set(['7', 'Ana@Acme.example']);
    assert.deepEqual(
      matchOwners(
        [
          { id: '7', email: 'x@acme.example' },
          { id: '8', email: 'ana@acme.example' },
          { id: '9', email: null },
        ],
        reps,
      ).map((match) => [match.owner_id, match.rep_external_id, match.matched_by]),
      [
        ['7', '7', 'owner_id'],
        ['8', 'Ana@Acme.example', 'email'],
        ['9', '9', 'new'],
      ],
    );
  });

  test('merges: the deals merged away are deletions, the one that remains (the new one, else the winner) a change', () => {
    assert.deepEqual(
      dealEventsOf([
        { objectId: 10, subscriptionType: 'deal.merge', primaryObjectId: 10, mergedObjectIds: [11, 12], occurredAt: 9 },
      ]),
      [
        { dealId: '11', kind: 'deletion', occurredAt: 9 },
        { dealId: '12', kind: 'deletion', occurredAt: 9 },
        { dealId: '10', kind: 'change', occurredAt: 9 },
      ],
    );
    // A merge that created a new record: both the winner and the merged deal are gone.
    assert.deepEqual(mergeOf({ objectId: 10, primaryObjectId: 10, mergedObjectIds: [11], newObjectId: 20 }), {
      survivor: '20',
      mergedAway: ['10', '11'],
    });
    assert.equal(mergeOf({ objectId: 10, mergedObjectIds: 'x' }), null);
    assert.equal(mergeOf({ objectId: 10, mergedObjectIds: [{}] }), null);
    assert.equal(dealEventsOf([{ subscriptionType: 'deal.merge', mergedObjectIds: [1] }]), null);
  });

  test("a 429's wait: its Retry-After in seconds, else doubling from 1 s; never under 100 ms, never over the cap", () => {
    assert.equal(retryWaitMs('2', 0, 10_000), 2000);
    assert.equal(retryWaitMs(undefined, 0, 10_000), 1000);
    assert.equal(retryWaitMs(undefined, 3, 10_000), 8000);
    assert.equal(retryWaitMs('0', 0, 10_000), 100);
    assert.equal(retryWaitMs('3600', 0, 10_000), 10_000);
    assert.equal(retryWaitMs('soon', 1, 10_000), 2000);
  });

  test('webhook batches: deal events by kind, other objects ignored, anything else refused', () => {
    assert.deepEqual(
      dealEventsOf([
        { objectId: 1, subscriptionType: 'deal.propertyChange', occurredAt: 5 },
        { objectId: 2, subscriptionType: 'deal.deletion', occurredAt: 6 },
        { objectId: 3, subscriptionType: 'contact.creation', occurredAt: 7 },
      ]),
      [
        { dealId: '1', kind: 'change', occurredAt: 5 },
        { dealId: '2', kind: 'deletion', occurredAt: 6 },
      ],
    );
    assert.equal(dealEventsOf({ objectId: 1 }), null);
    assert.equal(dealEventsOf([{ subscriptionType: 'deal.creation' }]), null);
    const waiting = [
      pendingEntry({ dealId: '1', kind: 'change', occurredAt: 0 }),
      pendingEntry({ dealId: '2', kind: 'deletion', occurredAt: 0 }),
    ];
    assert.deepEqual(
      pendingEvents(waiting).map((event) => [event.dealId, event.kind]),
      [
        ['1', 'change'],
        ['2', 'deletion'],
      ],
    );
  });
});

describe('HubSpot: the v3 webhook signature', () => {
  const secret = 'app-secret';
  const uri = 'https://quotient.example/connectors/hubspot/webhooks/org_1/con_1';
  const body = '[{"objectId":1}]';
  const now = new Date('2026-05-01T12:00:00Z');
  const timestamp = String(now.getTime() - 1000);
  const sign = (text: string, key = secret) => createHmac('sha256', key).update(text).digest('base64');
  const check = (overrides: Partial<Parameters<typeof checkSignatureV3>[0]>) =>
    checkSignatureV3({
      method: 'POST',
      uri,
      body,
      timestamp,
      signature: sign(`POST${uri}${body}${timestamp}`),
      clientSecret: secret,
      now,
      ...overrides,
    });

  test.each([
    ['the signature of method, URI, body and timestamp', {}, 'valid'],
    ['another secret', { signature: sign(`POST${uri}${body}${timestamp}`, 'other') }, 'invalid'],
    ['another body', { body: '[]' }, 'invalid'],
    ['no signature', { signature: undefined }, 'missing'],
    ['a timestamp over 5 minutes old', { timestamp: String(now.getTime() - 5 * 60 * 1000 - 1) }, 'stale'],
    ['a timestamp that is not a number', { timestamp: 'soon' }, 'stale'],
  ] as const)('%s is %s', (_name, overrides, expected) => {
    assert.equal(check(overrides), expected);
  });

  test('the URI is signed with the characters HubSpot decodes decoded', () => {
    const query = `${uri}?a=b%3Ac`;
    assert.equal(check({ uri: query, signature: sign(`POST${uri}?a=b:c${body}${timestamp}`) }), 'valid');
  });
});
