import assert from 'node:assert/strict';
import { describe } from 'vitest';
import type { RunningServer } from '../../src/main.ts';
import type { DealChange } from '../../src/services/dealChanges.ts';
import type { DealIngestion } from '../../src/services/ingestion.ts';
import { dealEvent, externalId, findDeal, ingest, listDeals, postEvent } from '../factories/deals.ts';
import { testDatabase } from '../helpers/database.ts';
import { test } from '../helpers/fixtures.ts';
import { ingestRequest } from '../helpers/ingestRequests.ts';
import { testServices } from '../helpers/services.ts';

const ID = {
  source: /^se_[0-7][0-9a-hjkmnp-tv-z]{25}$/,
  domain: /^de_[0-7][0-9a-hjkmnp-tv-z]{25}$/,
  deal: /^deal_[0-7][0-9a-hjkmnp-tv-z]{25}$/,
  user: /^user_[0-7][0-9a-hjkmnp-tv-z]{25}$/,
};

async function domainEvents(dealId: string) {
  return testDatabase().domainEvent.findMany({
    where: { deal_id: dealId },
    orderBy: [{ created_at: 'asc' }, { id: 'asc' }],
  });
}

async function sourceEventCount(orgId: string) {
  return testDatabase().sourceEvent.count({ where: { org_id: orgId } });
}

async function domainEventCount(orgId: string) {
  return testDatabase().domainEvent.count({ where: { org_id: orgId } });
}

describe('accepting a deal event', () => {
  test('a new deal is answered 201 with the ids of its source event, domain event and deal', async ({
    server,
    rawKey,
  }) => {
    const body = dealEvent({}, { region: 'NA', custom: { new_logo: true } });
    const response = await postEvent(server, rawKey, body);
    assert.equal(response.status, 201);
    assert.equal(response.headers.get('idempotent-replayed'), null);
    const ids = (await response.json()) as Record<string, string>;
    assert.match(ids.source_event_id ?? '', ID.source);
    assert.match(ids.domain_event_id ?? '', ID.domain);
    assert.match(ids.deal_id ?? '', ID.deal);

    const deal = await findDeal(server, rawKey, body.external_id);
    assert.ok(deal);
    assert.equal(deal.id, ids.deal_id);
    assert.deepEqual(deal.state, {
      amount_cents: 5_000_000,
      stage: 'prospecting',
      close_date: '2026-04-20',
      owner_external_id: 'rep-017',
      custom: { region: 'NA', new_logo: true },
    });
    assert.equal(deal.status, 'open');
    assert.equal(deal.version, 1);
    assert.equal(deal.last_domain_event_id, ids.domain_event_id);
    assert.match(deal.user_id ?? '', ID.user);
    assert.equal(deal.created_at, deal.updated_at);
  });

  test('the source event keeps the raw body byte for byte, the key, the dedup key and the body digest', async ({
    db,
    server,
    key,
    rawKey,
  }) => {
    const raw = `{ "state": {"stage":"qualified", "amount_cents": 100},\n  "external_id": "${externalId()}", "dedup_key": "crm-1" }`;
    const ids = await ingest(server, rawKey, raw);
    const [stored] = await db.$queryRaw<
      Array<{ body: string; key_id: string; dedup_key: string; body_digest: string; received_at: Date }>
    >`SELECT body::text AS body, key_id, dedup_key, body_digest, received_at FROM source_events WHERE id = ${ids.source_event_id}`;
    assert.ok(stored);
    assert.equal(stored.body, raw);
    assert.equal(stored.key_id, key.id);
    assert.equal(stored.dedup_key, 'crm-1');
    assert.match(stored.body_digest, /^[0-9a-f]{64}$/);
    assert.ok(Math.abs(stored.received_at.getTime() - Date.now()) < 60_000);
  });

  test('event_type defaults to upsert and is kept as the domain event hint', async ({ server, rawKey }) => {
    const ids = await ingest(server, rawKey, dealEvent());
    const [event] = await domainEvents(ids.deal_id);
    assert.equal(event?.event_type_hint, 'upsert');
  });

  test('an event with only what changed leaves every other member as it was', async ({ server, rawKey }) => {
    const body = dealEvent({}, { region: 'NA', tier: 'gold' });
    await ingest(server, rawKey, body);
    await ingest(server, rawKey, { external_id: body.external_id, state: { stage: 'negotiation' } });
    const deal = await findDeal(server, rawKey, body.external_id);
    assert.deepEqual(deal?.state, {
      amount_cents: 5_000_000,
      stage: 'negotiation',
      close_date: '2026-04-20',
      owner_external_id: 'rep-017',
      custom: { region: 'NA', tier: 'gold' },
    });
    assert.equal(deal?.version, 2);
  });

  test('null clears a standard member and removes a custom field, directly or inside state.custom', async ({
    server,
    rawKey,
  }) => {
    const body = dealEvent({}, { region: 'NA', tier: 'gold', industry: 'Retail' });
    await ingest(server, rawKey, body);
    await ingest(server, rawKey, {
      external_id: body.external_id,
      state: { close_date: null, region: null, custom: { tier: null } },
    });
    const deal = await findDeal(server, rawKey, body.external_id);
    assert.equal(deal?.state.close_date, null);
    assert.deepEqual(deal?.state.custom, { industry: 'Retail' });
  });
});

describe('validation, refused with 400 invalid_body and the field path first', () => {
  const cases: Array<[string, string, RegExp]> = [
    ['external_id missing', '{"state":{}}', /^external_id: /],
    ['external_id empty', '{"external_id":"","state":{}}', /^external_id: /],
    ['external_id over 255 characters', `{"external_id":"${'x'.repeat(256)}","state":{}}`, /^external_id: /],
    ['state missing', '{"external_id":"a"}', /^state: /],
    ['state not an object', '{"external_id":"a","state":"won"}', /^state: /],
    ['an unknown top-level member', '{"external_id":"a","state":{},"dedupe_key":"k"}', /dedupe_key/],
    ['amount_cents fractional', '{"external_id":"a","state":{"amount_cents":1.5}}', /^state\.amount_cents: /],
    ['amount_cents negative', '{"external_id":"a","state":{"amount_cents":-1}}', /^state\.amount_cents: /],
    [
      'amount_cents above 2^53 - 1',
      '{"external_id":"a","state":{"amount_cents":9007199254740992}}',
      /^state\.amount_cents: /,
    ],
    ['stage empty', '{"external_id":"a","state":{"stage":""}}', /^state\.stage: /],
    ['stage blank', '{"external_id":"a","state":{"stage":"  "}}', /^state\.stage: /],
    ['owner_external_id empty', '{"external_id":"a","state":{"owner_external_id":""}}', /^state\.owner_external_id: /],
    ['close_date not a real day', '{"external_id":"a","state":{"close_date":"2026-02-30"}}', /^state\.close_date: /],
    [
      'close_date with a time',
      '{"external_id":"a","state":{"close_date":"2026-04-20T10:00:00Z"}}',
      /^state\.close_date: /,
    ],
    ['state.custom not an object', '{"external_id":"a","state":{"custom":[1]}}', /^state\.custom: /],
    [
      'a name in state and state.custom',
      '{"external_id":"a","state":{"region":"NA","custom":{"region":"EU"}}}',
      /^state\.custom\.region: given both in state and in state\.custom$/,
    ],
    [
      '__proto__ in state',
      '{"external_id":"a","state":{"__proto__":{"admin":true}}}',
      /^state\.__proto__: reserved name$/,
    ],
    ['constructor in state', '{"external_id":"a","state":{"constructor":"x"}}', /^state\.constructor: reserved name$/],
    [
      'prototype in state.custom',
      '{"external_id":"a","state":{"custom":{"prototype":1}}}',
      /^state\.custom\.prototype: reserved name$/,
    ],
    [
      '__proto__ nested in a custom value',
      '{"external_id":"a","state":{"meta":{"__proto__":{}}}}',
      /^state\.meta\.__proto__: reserved name$/,
    ],
    ['event_type outside the list', '{"external_id":"a","state":{},"event_type":"merge"}', /^event_type: /],
    ['dedup_key empty', '{"external_id":"a","state":{},"dedup_key":""}', /^dedup_key: /],
    ['occurred_at not a date-time', '{"external_id":"a","state":{},"occurred_at":"2026-04-20"}', /^occurred_at: /],
    ['a custom string with U+0000', '{"external_id":"a","state":{"note":"a\\u0000b"}}', /^state\.note: /],
  ];
  test.for(cases)('%s is refused and nothing is written', async ([, body, reason], { server, org, rawKey }) => {
    const response = await postEvent(server, rawKey, body);
    assert.equal(response.status, 400);
    const error = (await response.json()) as { error: string; reason: string };
    assert.equal(error.error, 'invalid_body');
    assert.match(error.reason, reason);
    assert.equal(await sourceEventCount(org.id), 0);
  });
});

describe('domain events, one per applied event, typed by what changed', () => {
  async function typeOf(server: RunningServer, rawKey: string, body: unknown) {
    const ids = await ingest(server, rawKey, body);
    const event = (await domainEvents(ids.deal_id)).find((candidate) => candidate.id === ids.domain_event_id);
    assert.ok(event);
    return event;
  }

  test('the first event of a deal is deal.created and lists every field it set', async ({ server, rawKey }) => {
    const event = await typeOf(server, rawKey, {
      external_id: externalId(),
      state: { amount_cents: 100, region: 'NA' },
    });
    assert.equal(event.type, 'deal.created');
    assert.equal(event.stale, false);
    assert.deepEqual(event.changes, [
      { field: 'amount_cents', old: null, new: 100 },
      { field: 'custom.region', old: null, new: 'NA' },
      { field: 'status', old: null, new: 'open' },
    ]);
  });

  test('a new stage is deal.stage_changed, a new amount deal.amount_changed, anything else deal.updated', async ({
    server,
    rawKey,
  }) => {
    const body = dealEvent();
    await ingest(server, rawKey, body);
    const stage = await typeOf(server, rawKey, {
      external_id: body.external_id,
      state: { stage: 'proposal', amount_cents: 1 },
    });
    assert.equal(stage.type, 'deal.stage_changed');
    assert.deepEqual(stage.changes, [
      { field: 'amount_cents', old: 5_000_000, new: 1 },
      { field: 'stage', old: 'prospecting', new: 'proposal' },
    ]);
    const amount = await typeOf(server, rawKey, { external_id: body.external_id, state: { amount_cents: 2 } });
    assert.equal(amount.type, 'deal.amount_changed');
    const other = await typeOf(server, rawKey, { external_id: body.external_id, state: { close_date: '2026-05-01' } });
    assert.equal(other.type, 'deal.updated');
    assert.deepEqual(other.changes, [{ field: 'close_date', old: '2026-04-20', new: '2026-05-01' }]);
    const nothing = await typeOf(server, rawKey, { external_id: body.external_id, state: { amount_cents: 2 } });
    assert.equal(nothing.type, 'deal.updated');
    assert.deepEqual(nothing.changes, []);
    assert.equal(
      (await findDeal(server, rawKey, body.external_id))?.version,
      5,
      'an event that changes nothing counts',
    );
  });

  test('a won stage is deal.closed_won and a lost stage deal.closed_lost, matched trimmed and case-folded', async ({
    db,
    server,
    rawKey,
  }) => {
    const won = dealEvent();
    await ingest(server, rawKey, won);
    const closedWon = await typeOf(server, rawKey, { external_id: won.external_id, state: { stage: ' Closed Won ' } });
    assert.equal(closedWon.type, 'deal.closed_won');
    assert.deepEqual((closedWon.changes as unknown[]).at(-1), { field: 'status', old: 'open', new: 'won' });
    const stored = await db.deal.findFirstOrThrow({ where: { id: closedWon.deal_id } });
    assert.ok(stored.won_at, 'won_at is set when the deal becomes won');
    assert.equal((await findDeal(server, rawKey, won.external_id))?.status, 'won');

    const lost = dealEvent();
    await ingest(server, rawKey, lost);
    assert.equal(
      (await typeOf(server, rawKey, { external_id: lost.external_id, state: { stage: 'LOST' } })).type,
      'deal.closed_lost',
    );
  });

  test("the org's own won and lost stages decide the status", async ({ db, server, org, rawKey }) => {
    await db.org.update({ where: { id: org.id }, data: { won_stages: ['signed'], lost_stages: ['dead'] } });
    const body = dealEvent();
    await ingest(server, rawKey, body);
    assert.equal(
      (await typeOf(server, rawKey, { external_id: body.external_id, state: { stage: 'closed_won' } })).type,
      'deal.stage_changed',
    );
    assert.equal(
      (await typeOf(server, rawKey, { external_id: body.external_id, state: { stage: 'Signed' } })).type,
      'deal.closed_won',
    );
  });

  test('a delete event is deal.deleted and a later event of any other type deal.restored', async ({
    server,
    rawKey,
  }) => {
    const body = dealEvent({}, { stage: 'closed_won' });
    await ingest(server, rawKey, body);
    const deleted = await typeOf(server, rawKey, { external_id: body.external_id, event_type: 'delete', state: {} });
    assert.equal(deleted.type, 'deal.deleted');
    assert.deepEqual(deleted.changes, [{ field: 'status', old: 'won', new: 'deleted' }]);
    const restored = await typeOf(server, rawKey, { external_id: body.external_id, state: { amount_cents: 1 } });
    assert.equal(restored.type, 'deal.restored');
    assert.deepEqual(restored.changes, [
      { field: 'amount_cents', old: 5_000_000, new: 1 },
      { field: 'status', old: 'deleted', new: 'won' },
    ]);
  });

  test('event_type is a hint: a stage_change that changes only the amount is deal.amount_changed', async ({
    server,
    rawKey,
  }) => {
    const body = dealEvent();
    await ingest(server, rawKey, body);
    const event = await typeOf(server, rawKey, {
      external_id: body.external_id,
      event_type: 'stage_change',
      state: { amount_cents: 9 },
    });
    assert.equal(event.type, 'deal.amount_changed');
    assert.equal(event.event_type_hint, 'stage_change');
  });
});

describe('delete and restore', () => {
  test('a deleted deal leaves the default list, stays listed with status=deleted, and comes back restored', async ({
    server,
    rawKey,
  }) => {
    const body = dealEvent({}, { stage: 'negotiation' });
    await ingest(server, rawKey, body);
    await ingest(server, rawKey, { external_id: body.external_id, event_type: 'delete', state: {} });
    assert.equal((await listDeals(server, rawKey)).deals.length, 0);
    const deleted = await listDeals(server, rawKey, { status: 'deleted' });
    assert.deepEqual(
      deleted.deals.map((deal) => [deal.external_id, deal.status, deal.state.stage, deal.version]),
      [[body.external_id, 'deleted', 'negotiation', 2]],
    );
    await ingest(server, rawKey, { external_id: body.external_id, state: {} });
    const restored = await listDeals(server, rawKey);
    assert.deepEqual(
      restored.deals.map((deal) => [deal.status, deal.version]),
      [['open', 3]],
    );
  });

  test('a delete as the first event of a deal creates it deleted', async ({ server, rawKey }) => {
    const ids = await ingest(server, rawKey, {
      external_id: externalId(),
      event_type: 'delete',
      state: { stage: 'x' },
    });
    const [event] = await domainEvents(ids.deal_id);
    assert.equal(event?.type, 'deal.created');
    assert.deepEqual(
      (await listDeals(server, rawKey, { status: 'deleted' })).deals.map((deal) => deal.id),
      [ids.deal_id],
    );
  });
});

describe('stale events', () => {
  test('an event older than the last applied one is recorded as stale, answered 201, and changes nothing', async ({
    server,
    org,
    rawKey,
  }) => {
    const body = dealEvent({ occurred_at: '2026-04-20T12:00:00.000Z' }, { stage: 'proposal' });
    const first = await ingest(server, rawKey, body);
    const before = await findDeal(server, rawKey, body.external_id);
    const stale = await ingest(server, rawKey, {
      external_id: body.external_id,
      occurred_at: '2026-04-20T11:00:00.000Z',
      state: { stage: 'closed_won' },
    });
    assert.equal(stale.deal_id, first.deal_id);
    assert.deepEqual(await findDeal(server, rawKey, body.external_id), before);
    const event = (await domainEvents(first.deal_id)).find((candidate) => candidate.id === stale.domain_event_id);
    assert.equal(event?.stale, true);
    assert.equal(event?.type, 'deal.updated');
    assert.deepEqual(event?.changes, []);
    assert.equal(event?.occurred_at?.toISOString(), '2026-04-20T11:00:00.000Z');
    assert.equal(await sourceEventCount(org.id), 2, 'the stale event is still kept');
  });

  test('events at or after the last occurred_at, or without one, are applied', async ({ server, rawKey }) => {
    const body = dealEvent({ occurred_at: '2026-04-20T12:00:00.000Z' });
    await ingest(server, rawKey, body);
    await ingest(server, rawKey, {
      external_id: body.external_id,
      occurred_at: '2026-04-20T12:00:00.000Z',
      state: { amount_cents: 1 },
    });
    await ingest(server, rawKey, { external_id: body.external_id, state: { amount_cents: 2 } });
    await ingest(server, rawKey, {
      external_id: body.external_id,
      occurred_at: '2026-04-20T11:59:59.999Z',
      state: { amount_cents: 3 },
    });
    const deal = await findDeal(server, rawKey, body.external_id);
    assert.equal(deal?.state.amount_cents, 2);
    assert.equal(deal?.version, 3);
  });
});

describe('reps', () => {
  test('a new owner_external_id creates the user once, and the deal follows its owner', async ({
    db,
    server,
    org,
    rawKey,
  }) => {
    const first = dealEvent({}, { owner_external_id: 'rep-a' });
    const second = dealEvent({}, { owner_external_id: 'rep-a' });
    await ingest(server, rawKey, first);
    await ingest(server, rawKey, second);
    const users = await db.user.findMany({ where: { org_id: org.id } });
    assert.deepEqual(
      users.map((user) => [user.external_id, user.role]),
      [['rep-a', 'rep']],
    );
    const userA = users[0]?.id;
    assert.equal((await findDeal(server, rawKey, first.external_id))?.user_id, userA);
    assert.equal((await findDeal(server, rawKey, second.external_id))?.user_id, userA);

    await ingest(server, rawKey, { external_id: first.external_id, state: { owner_external_id: 'rep-b' } });
    const moved = await findDeal(server, rawKey, first.external_id);
    const userB = await db.user.findUniqueOrThrow({
      where: { org_id_external_id: { org_id: org.id, external_id: 'rep-b' } },
    });
    assert.equal(moved?.user_id, userB.id);

    await ingest(server, rawKey, { external_id: first.external_id, state: { amount_cents: 1 } });
    assert.equal(
      (await findDeal(server, rawKey, first.external_id))?.user_id,
      userB.id,
      'an omitted owner keeps the user',
    );
    await ingest(server, rawKey, { external_id: first.external_id, state: { owner_external_id: null } });
    assert.equal((await findDeal(server, rawKey, first.external_id))?.user_id, null);
  });
});

describe('idempotency', () => {
  test('a retry with the same dedup_key and body is 200 with the original ids, and writes nothing', async ({
    server,
    org,
    rawKey,
  }) => {
    const body = dealEvent({ dedup_key: 'crm-evt-1' });
    const original = await ingest(server, rawKey, body);
    const retry = await postEvent(server, rawKey, body);
    assert.equal(retry.status, 200);
    assert.equal(retry.headers.get('idempotent-replayed'), 'true');
    assert.deepEqual(await retry.json(), original);
    assert.equal(await sourceEventCount(org.id), 1);
    assert.equal(await domainEventCount(org.id), 1);
    assert.equal((await findDeal(server, rawKey, body.external_id))?.version, 1);
  });

  test('the bodies are compared as canonical JSON: member order and whitespace do not matter', async ({
    server,
    rawKey,
  }) => {
    const external = externalId();
    const original = await ingest(
      server,
      rawKey,
      `{"external_id":"${external}","dedup_key":"k","state":{"a":1,"b":2}}`,
    );
    const retry = await postEvent(
      server,
      rawKey,
      `{ "state": { "b": 2, "a": 1 }, "dedup_key": "k", "external_id": "${external}" }`,
    );
    assert.equal(retry.status, 200);
    assert.deepEqual(await retry.json(), original);
  });

  test('when the dedup_key is reused with another body, then 422 dedup_conflict and nothing is written', async ({
    server,
    org,
    rawKey,
  }) => {
    const body = dealEvent({ dedup_key: 'crm-evt-2' });
    await ingest(server, rawKey, body);
    const conflict = await postEvent(server, rawKey, { ...body, state: { ...body.state, amount_cents: 1 } });
    assert.equal(conflict.status, 422);
    assert.deepEqual(await conflict.json(), {
      error: 'dedup_conflict',
      reason: 'dedup_key crm-evt-2 was already used with a different body',
    });
    assert.equal(await sourceEventCount(org.id), 1);
    assert.equal((await findDeal(server, rawKey, body.external_id))?.state.amount_cents, 5_000_000);
  });

  test('20 racing identical requests give one 201 and nineteen 200s, and one event applied once', async ({
    server,
    org,
    rawKey,
  }) => {
    const body = dealEvent({ dedup_key: 'race-1' });
    const responses = await Promise.all(Array.from({ length: 20 }, () => postEvent(server, rawKey, body)));
    const statuses = responses.map((response) => response.status);
    assert.equal(statuses.filter((status) => status === 201).length, 1);
    assert.equal(statuses.filter((status) => status === 200).length, 19);
    const bodies = await Promise.all(responses.map((response) => response.json()));
    assert.equal(new Set(bodies.map((ids) => JSON.stringify(ids))).size, 1, 'every answer carries the same ids');
    assert.equal(responses.filter((response) => response.headers.get('idempotent-replayed') === 'true').length, 19);
    assert.equal(await sourceEventCount(org.id), 1);
    assert.equal(await domainEventCount(org.id), 1);
    assert.equal((await findDeal(server, rawKey, body.external_id))?.version, 1);
  });

  test('racing requests with one dedup_key and different bodies: one wins, the others are 422', async ({
    server,
    org,
    rawKey,
  }) => {
    const external = externalId();
    const responses = await Promise.all(
      Array.from({ length: 10 }, (_, index) =>
        postEvent(server, rawKey, { external_id: external, dedup_key: 'race-2', state: { amount_cents: index } }),
      ),
    );
    const statuses = responses.map((response) => response.status);
    assert.equal(statuses.filter((status) => status === 201).length, 1);
    assert.equal(statuses.filter((status) => status === 422).length, 9);
    assert.equal(await sourceEventCount(org.id), 1);
  });

  test('without dedup_key every request is a new event with a generated key', async ({ db, server, org, rawKey }) => {
    const body = dealEvent();
    const [first, second] = await Promise.all([ingest(server, rawKey, body), ingest(server, rawKey, body)]);
    assert.notEqual(first?.source_event_id, second?.source_event_id);
    const keys = await db.sourceEvent.findMany({ where: { org_id: org.id }, select: { dedup_key: true } });
    for (const { dedup_key } of keys) {
      assert.match(dedup_key, new RegExp(`^gen_${body.external_id}_\\d{4}-\\d\\d-\\d\\dT[\\d:.]+Z_[0-9a-f]{32}$`));
    }
    assert.equal((await findDeal(server, rawKey, body.external_id))?.version, 2);
  });

  test('dedup keys belong to one org: another org may use the same key', async ({ server, newOrg }) => {
    const a = await newOrg();
    const b = await newOrg();
    const body = dealEvent({ dedup_key: 'shared-key' });
    const inA = await ingest(server, a.rawKey, body);
    const inB = await ingest(server, b.rawKey, body);
    assert.notEqual(inA.deal_id, inB.deal_id);
  });
});

describe('concurrent events for one deal', () => {
  test('30 racing events for one new deal are all applied: one deal, versions 1 to 30, one deal.created', async ({
    db,
    server,
    org,
    rawKey,
  }) => {
    const external = externalId();
    const results = await Promise.all(
      Array.from({ length: 30 }, (_, index) =>
        ingest(server, rawKey, { external_id: external, state: { amount_cents: index, owner_external_id: 'rep-new' } }),
      ),
    );
    assert.equal(new Set(results.map((ids) => ids.deal_id)).size, 1);
    const deal = await findDeal(server, rawKey, external);
    assert.equal(deal?.version, 30);
    const events = await domainEvents(deal?.id as string);
    assert.equal(events.length, 30);
    assert.equal(events.filter((event) => event.type === 'deal.created').length, 1);
    assert.equal(await db.user.count({ where: { org_id: org.id } }), 1, 'the racing events create one user');
    assert.ok(events.some((event) => event.id === deal?.last_domain_event_id));
  });
});

describe('org isolation', () => {
  test('the same external_id in two orgs is two deals, and each org sees only its own', async ({ server, newOrg }) => {
    const a = await newOrg();
    const b = await newOrg();
    const external = externalId();
    const inA = await ingest(server, a.rawKey, { external_id: external, state: { stage: 'closed_won' } });
    const inB = await ingest(server, b.rawKey, { external_id: external, state: { stage: 'qualified' } });
    assert.notEqual(inA.deal_id, inB.deal_id);
    assert.deepEqual(
      (await listDeals(server, a.rawKey)).deals.map((deal) => [deal.id, deal.status]),
      [[inA.deal_id, 'won']],
    );
    assert.deepEqual(
      (await listDeals(server, b.rawKey)).deals.map((deal) => [deal.id, deal.status]),
      [[inB.deal_id, 'open']],
    );
  });
});

describe('the deal-change listener', () => {
  function ingestDirectly(ingestion: DealIngestion, orgId: string, body: Record<string, unknown>) {
    return ingestion.ingest(ingestRequest(orgId, body));
  }

  test('is called inside the transaction with the org, the deal before and after, and the domain event', async ({
    pool,
    org,
  }) => {
    const changes: DealChange[] = [];
    const seenInTransaction: number[] = [];
    const ingestion = testServices({
      pool,
      listeners: {
        deals: {
          onDealChanged: async (tx, change) => {
            changes.push(change);
            const rows = await tx.query<{ version: number }>({
              text: 'SELECT version FROM deals WHERE org_id = $1 AND id = $2',
              values: [org.id, change.after.id],
            });
            seenInTransaction.push(rows[0]?.version ?? -1);
          },
        },
      },
    }).api.ingestion;
    const external = externalId();
    await ingestDirectly(ingestion, org.id, { external_id: external, state: { amount_cents: 1 } });
    await ingestDirectly(ingestion, org.id, { external_id: external, state: { stage: 'won' } });
    await ingestDirectly(ingestion, org.id, { external_id: external, state: {}, occurred_at: '2000-01-01T00:00:00Z' });
    await ingestDirectly(ingestion, org.id, { external_id: external, state: {}, occurred_at: '1999-01-01T00:00:00Z' });

    assert.equal(changes.length, 3, 'not called for the stale event');
    const [created, won] = changes;
    assert.equal(created?.before, null);
    assert.equal(created?.after.version, 1);
    assert.equal(created?.domainEvent.type, 'deal.created');
    assert.equal(created?.org.id, org.id);
    assert.deepEqual(created?.org.stages.won, ['closed_won', 'closed won', 'won']);
    assert.equal(won?.before?.version, 1);
    assert.equal(won?.after.status, 'won');
    assert.ok(won?.after.won_at);
    assert.equal(won?.domainEvent.type, 'deal.closed_won');
    assert.deepEqual(seenInTransaction, [1, 2, 3]);
  });

  test('when it throws, the event is refused and nothing of it is kept', async ({ db, pool, org }) => {
    const ingestion = testServices({
      pool,
      listeners: {
        deals: {
          onDealChanged: async () => {
            throw new Error('earnings evaluation failed');
          },
        },
      },
    }).api.ingestion;
    await assert.rejects(
      ingestDirectly(ingestion, org.id, { external_id: externalId(), state: {} }),
      /earnings evaluation failed/,
    );
    assert.equal(await sourceEventCount(org.id), 0);
    assert.equal(await db.deal.count({ where: { org_id: org.id } }), 0);
  });
});
