import assert from 'node:assert/strict';
import { setTimeout as sleep } from 'node:timers/promises';
import { describe } from 'vitest';
import { newId } from '../../src/lib/ids.ts';
import type { RunningServer } from '../../src/main.ts';
import { dealEvent, externalId, getDeals, ingest, listDeals, type WireDeal } from '../factories/deals.ts';
import { test } from '../helpers/fixtures.ts';
import { ingestRequest } from '../helpers/ingestRequests.ts';
import { testServices } from '../helpers/services.ts';

/** Pages through with `cursor` until next_cursor is null; returns every deal seen, in order, repeats included. */
async function pageThrough(
  server: RunningServer,
  rawKey: string,
  query: Record<string, string> = {},
): Promise<WireDeal[]> {
  const seen: WireDeal[] = [];
  let cursor: string | null = null;
  for (let pages = 0; pages < 100; pages++) {
    const page = await listDeals(server, rawKey, { ...query, ...(cursor ? { cursor } : {}) });
    seen.push(...page.deals);
    if (page.next_cursor === null) return seen;
    cursor = page.next_cursor;
  }
  throw new Error('next_cursor never became null');
}

async function errorOf(server: RunningServer, rawKey: string, query: Record<string, string>) {
  const response = await getDeals(server, rawKey, query);
  assert.equal(response.status, 400, JSON.stringify(query));
  return (await response.json()) as { error: string; reason: string };
}

describe('the deal item', () => {
  test('carries exactly the documented fields, with cents as numbers, dates and RFC 3339 timestamps', async ({
    server,
    rawKey,
  }) => {
    const body = dealEvent({}, { amount_cents: 100_000_000_000_000, region: 'NA', nested: { a: [1, 2] } });
    const ids = await ingest(server, rawKey, body);
    const { deals, next_cursor } = await listDeals(server, rawKey);
    assert.equal(next_cursor, null);
    assert.equal(deals.length, 1);
    const deal = deals[0] as WireDeal;
    assert.deepEqual(Object.keys(deal).sort(), [
      'created_at',
      'currency',
      'external_id',
      'id',
      'last_domain_event_id',
      'splits',
      'state',
      'status',
      'updated_at',
      'user_id',
      'version',
    ]);
    assert.equal(deal.id, ids.deal_id);
    assert.equal(deal.splits, null);
    assert.equal(deal.currency, 'USD');
    assert.equal(deal.state.amount_cents, 100_000_000_000_000);
    assert.equal(deal.state.close_date, '2026-04-20');
    assert.deepEqual(deal.state.custom, { region: 'NA', nested: { a: [1, 2] } });
    assert.match(deal.created_at, /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);
    assert.match(deal.updated_at, /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);
  });

  test('a deal with no owner has user_id null and null standard members', async ({ server, rawKey }) => {
    await ingest(server, rawKey, { external_id: externalId(), state: {} });
    const [deal] = (await listDeals(server, rawKey)).deals;
    assert.equal(deal?.user_id, null);
    assert.deepEqual(deal?.state, {
      amount_cents: null,
      stage: null,
      close_date: null,
      owner_external_id: null,
      custom: {},
    });
  });
});

describe('filters', () => {
  /** A won, an open, a lost and a deleted deal in the test's org. */
  async function fourDeals(server: RunningServer, rawKey: string) {
    const won = dealEvent({ external_id: externalId('won') }, { stage: 'closed_won', owner_external_id: 'rep-a' });
    const open = dealEvent({ external_id: externalId('open') }, { stage: 'proposal', owner_external_id: 'rep-b' });
    const lost = dealEvent({ external_id: externalId('lost') }, { stage: 'lost', owner_external_id: 'rep-a' });
    const gone = dealEvent({ external_id: externalId('gone') }, { stage: 'proposal', owner_external_id: 'rep-a' });
    for (const body of [won, open, lost, gone]) await ingest(server, rawKey, body);
    await ingest(server, rawKey, { external_id: gone.external_id, event_type: 'delete', state: {} });
    return { won, open, lost, gone };
  }
  const externalIds = (deals: WireDeal[]) => deals.map((deal) => deal.external_id);

  test('without filters, every deal but the deleted ones', async ({ server, rawKey }) => {
    const { won, open, lost } = await fourDeals(server, rawKey);
    assert.deepEqual(externalIds(await pageThrough(server, rawKey)), [
      won.external_id,
      open.external_id,
      lost.external_id,
    ]);
  });

  test('status, stage, owner_external_id and external_id each narrow the list, and combine with AND', async ({
    server,
    rawKey,
  }) => {
    const { won, open, lost, gone } = await fourDeals(server, rawKey);
    assert.deepEqual(externalIds(await pageThrough(server, rawKey, { status: 'won' })), [won.external_id]);
    assert.deepEqual(externalIds(await pageThrough(server, rawKey, { status: 'lost' })), [lost.external_id]);
    assert.deepEqual(externalIds(await pageThrough(server, rawKey, { stage: 'proposal' })), [open.external_id]);
    assert.deepEqual(externalIds(await pageThrough(server, rawKey, { owner_external_id: 'rep-a' })), [
      won.external_id,
      lost.external_id,
    ]);
    assert.deepEqual(externalIds(await pageThrough(server, rawKey, { external_id: open.external_id })), [
      open.external_id,
    ]);
    assert.deepEqual(externalIds(await pageThrough(server, rawKey, { owner_external_id: 'rep-a', status: 'won' })), [
      won.external_id,
    ]);
    assert.deepEqual(externalIds(await pageThrough(server, rawKey, { external_id: gone.external_id })), []);
  });

  test('deleted deals only with status=deleted or include_deleted=true', async ({ server, rawKey }) => {
    const { won, open, lost, gone } = await fourDeals(server, rawKey);
    assert.deepEqual(externalIds(await pageThrough(server, rawKey, { status: 'deleted' })), [gone.external_id]);
    assert.deepEqual(externalIds(await pageThrough(server, rawKey, { include_deleted: 'true' })), [
      won.external_id,
      open.external_id,
      lost.external_id,
      gone.external_id,
    ]);
    assert.deepEqual(externalIds(await pageThrough(server, rawKey, { include_deleted: 'false' })), [
      won.external_id,
      open.external_id,
      lost.external_id,
    ]);
  });

  test('updated_since keeps deals updated at or after the time given', async ({ server, rawKey }) => {
    const { lost, gone } = await fourDeals(server, rawKey);
    const all = await pageThrough(server, rawKey, { include_deleted: 'true' });
    const since = all.find((deal) => deal.external_id === lost.external_id)?.updated_at as string;
    assert.deepEqual(
      externalIds(await pageThrough(server, rawKey, { updated_since: since, include_deleted: 'true' })),
      [lost.external_id, gone.external_id],
    );
  });

  test('a malformed parameter is 400 invalid_body naming it', async ({ server, rawKey }) => {
    assert.match((await errorOf(server, rawKey, { limit: '0' })).reason, /^limit: /);
    assert.match((await errorOf(server, rawKey, { limit: '201' })).reason, /^limit: /);
    assert.match((await errorOf(server, rawKey, { status: 'closed' })).reason, /^status: /);
    assert.match((await errorOf(server, rawKey, { updated_since: 'yesterday' })).reason, /^updated_since: /);
    assert.match((await errorOf(server, rawKey, { include_deleted: 'yes' })).reason, /^include_deleted: /);
  });
});

describe('pagination', () => {
  test('pages of `limit` deals in (updated_at, id) order cover every deal once, and the last cursor is null', async ({
    server,
    rawKey,
  }) => {
    const created: string[] = [];
    for (let index = 0; index < 7; index++) created.push((await ingest(server, rawKey, dealEvent())).deal_id);
    const first = await listDeals(server, rawKey, { limit: '3' });
    assert.equal(first.deals.length, 3);
    assert.ok(first.next_cursor);
    const seen = await pageThrough(server, rawKey, { limit: '3' });
    assert.deepEqual(
      seen.map((deal) => deal.id),
      created,
    );
    const order = seen.map((deal) => `${deal.updated_at} ${deal.id}`);
    assert.deepEqual(order, [...order].sort());
  });

  test('limit defaults to 50 and goes up to 200', async ({ db, server, org, rawKey }) => {
    await db.deal.createMany({
      data: Array.from({ length: 205 }, (_, index) => ({
        id: newId('deal'),
        org_id: org.id,
        external_id: `bulk-${index}`,
        last_domain_event_id: newId('de'),
        updated_at: new Date(Date.now() - 60_000),
      })),
    });
    assert.equal((await listDeals(server, rawKey)).deals.length, 50);
    const big = await listDeals(server, rawKey, { limit: '200' });
    assert.equal(big.deals.length, 200);
    assert.ok(big.next_cursor);
  });

  test('a malformed cursor is 400 invalid_body with a reason starting cursor:', async ({ server, rawKey }) => {
    for (const cursor of [
      'garbage!',
      'eyJ2IjoxfQ',
      Buffer.from('{"v":1,"u":"x","i":"y","f":"z"}').toString('base64url'),
    ]) {
      const error = await errorOf(server, rawKey, { cursor });
      assert.equal(error.error, 'invalid_body');
      assert.match(error.reason, /^cursor: /);
    }
  });

  test('a cursor sent with other filters, or by another org, is refused', async ({ server, newOrg }) => {
    const a = await newOrg();
    const b = await newOrg();
    for (let index = 0; index < 3; index++) await ingest(server, a.rawKey, dealEvent());
    const { next_cursor } = await listDeals(server, a.rawKey, { limit: '1' });
    assert.ok(next_cursor);
    assert.match(
      (await errorOf(server, a.rawKey, { cursor: next_cursor, status: 'open' })).reason,
      /^cursor: was issued for other/,
    );
    assert.match((await errorOf(server, b.rawKey, { cursor: next_cursor })).reason, /^cursor: /);
    assert.equal((await listDeals(server, a.rawKey, { cursor: next_cursor, limit: '5' })).deals.length, 2);
  });
});

describe('org isolation', () => {
  test("an org never lists another org's deals, whatever the filter", async ({ server, newOrg }) => {
    const a = await newOrg();
    const b = await newOrg();
    const body = dealEvent();
    await ingest(server, a.rawKey, body);
    assert.deepEqual(
      (await listDeals(server, b.rawKey, { external_id: body.external_id, include_deleted: 'true' })).deals,
      [],
    );
    assert.deepEqual((await listDeals(server, b.rawKey)).deals, []);
  });
});

describe('the change feed', () => {
  test('a deal updated during pagination is seen again later with a higher version, never missed', async ({
    server,
    rawKey,
  }) => {
    const bodies = Array.from({ length: 6 }, () => dealEvent());
    for (const body of bodies) await ingest(server, rawKey, body);
    const first = await listDeals(server, rawKey, { limit: '2' });
    const [early] = first.deals;
    assert.ok(early && first.next_cursor);
    await ingest(server, rawKey, { external_id: early.external_id, state: { stage: 'negotiation' } });

    const rest: WireDeal[] = [];
    let cursor: string | null = first.next_cursor;
    while (cursor) {
      const page = await listDeals(server, rawKey, { limit: '2', cursor });
      rest.push(...page.deals);
      cursor = page.next_cursor;
    }
    const again = rest.find((deal) => deal.id === early.id);
    assert.equal(again?.version, 2);
    assert.equal(again?.state.stage, 'negotiation');
    assert.equal(rest.at(-1)?.id, early.id, 'the updated deal moved to the end of the order');
    const latest = new Map([...first.deals, ...rest].map((deal) => [deal.external_id, deal.version]));
    assert.deepEqual([...latest.keys()].sort(), bodies.map((body) => body.external_id).sort());
  });

  test('updated_since with the last updated_at seen picks up later changes, repeating only that instant', async ({
    server,
    rawKey,
  }) => {
    const a = dealEvent();
    const b = dealEvent();
    await ingest(server, rawKey, a);
    await ingest(server, rawKey, b);
    const seen = await pageThrough(server, rawKey);
    const mark = seen.at(-1)?.updated_at as string;
    await ingest(server, rawKey, { external_id: a.external_id, state: { amount_cents: 1 } });
    const changes = await pageThrough(server, rawKey, { updated_since: mark });
    assert.deepEqual(
      changes.map((deal) => [deal.external_id, deal.version]),
      [
        [b.external_id, 1],
        [a.external_id, 2],
      ],
    );
  });

  test('a write that commits after a reader paged past its start is still delivered to that reader', async ({
    server,
    pool,
    org,
    rawKey,
  }) => {
    const before = dealEvent();
    await ingest(server, rawKey, before);

    // A writer that has applied its event but holds its transaction open, as a slow earnings evaluation would.
    let entered: () => void = () => {};
    const inListener = new Promise<void>((done) => {
      entered = done;
    });
    let release: () => void = () => {};
    const released = new Promise<void>((done) => {
      release = done;
    });
    const slow = testServices({
      pool,
      listeners: {
        deals: {
          onDealChanged: async () => {
            entered();
            await released;
          },
        },
      },
    }).api.ingestion;
    const slowBody = dealEvent();
    const slowWrite = slow.ingest(ingestRequest(org.id, slowBody));
    await inListener;

    // Another deal is written and committed after the slow one took its updated_at.
    await sleep(5);
    const fast = dealEvent();
    await ingest(server, rawKey, fast);

    // The reader pages while the slow write is open: the committed deal newer than the open write is held back,
    // because handing it out would move the reader's cursor past the open write's updated_at.
    const during = await listDeals(server, rawKey);
    assert.deepEqual(
      during.deals.map((deal) => deal.external_id),
      [before.external_id],
    );
    assert.ok(during.next_cursor, 'the cursor stays open while a write is in flight');
    const again = await listDeals(server, rawKey, { cursor: during.next_cursor });
    assert.deepEqual(again.deals, []);
    assert.ok(again.next_cursor);

    release();
    await slowWrite;

    // Polling with the cursor now delivers both, in (updated_at, id) order: nothing was skipped.
    const resumed = await listDeals(server, rawKey, { cursor: again.next_cursor });
    assert.deepEqual(
      resumed.deals.map((deal) => deal.external_id),
      [slowBody.external_id, fast.external_id],
    );
    assert.equal(resumed.next_cursor, null);
  });

  test('a page taken with no write in flight ends the feed: next_cursor is null', async ({ server, rawKey }) => {
    await ingest(server, rawKey, dealEvent());
    const page = await listDeals(server, rawKey, { limit: '5' });
    assert.equal(page.deals.length, 1);
    assert.equal(page.next_cursor, null);
  });
});
