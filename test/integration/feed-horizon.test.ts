import assert from 'node:assert/strict';
import { describe } from 'vitest';
import type { RunningServer } from '../../src/main.ts';
import type { SqlPool } from '../../src/repositories/transaction.ts';
import { dealEvent, ingest, listDeals, type WireDeal } from '../factories/deals.ts';
import { test } from '../helpers/fixtures.ts';
import { ingestRequest } from '../helpers/ingestRequests.ts';
import { testServices } from '../helpers/services.ts';

// The change feed's horizon comes from each org's writer slots (docs/architecture.md, "The change-feed horizon"):
// exact under concurrent writers of one org, and one org's long write holds back nobody else's feed or recompute.

/** A deal event of `orgId` that applies its event and then holds its transaction (and its slot) open until released. */
async function heldWrite(pool: SqlPool, orgId: string) {
  let entered: () => void = () => {};
  const inListener = new Promise<void>((done) => {
    entered = done;
  });
  let release: () => void = () => {};
  const released = new Promise<void>((done) => {
    release = done;
  });
  const ingestion = testServices({
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
  const body = dealEvent();
  const written = ingestion.ingest(ingestRequest(orgId, body));
  await inListener;
  return {
    body,
    release: () => {
      release();
      return written;
    },
  };
}

/** Pages on with the cursor until next_cursor is null. */
async function pageOn(server: RunningServer, rawKey: string, cursor: string | null, seen: WireDeal[]) {
  for (let next = cursor; next !== null; ) {
    const page = await listDeals(server, rawKey, { limit: '7', cursor: next });
    seen.push(...page.deals);
    next = page.next_cursor;
  }
}

describe('the change-feed horizon', () => {
  test('a reader paging while many writers of its org commit misses no deal and never goes back', async ({
    server,
    rawKey,
  }) => {
    const bodies = Array.from({ length: 12 }, () => dealEvent());
    let writing = true;
    const writers = (async () => {
      // Three rounds over the same deals, six events at once: creations, then updates.
      for (const round of [1, 2, 3]) {
        for (let start = 0; start < bodies.length; start += 6) {
          await Promise.all(
            bodies
              .slice(start, start + 6)
              .map((body) => ingest(server, rawKey, { ...body, state: { ...body.state, amount_cents: round } })),
          );
        }
      }
    })().finally(() => {
      writing = false;
    });
    // Each run of pages follows its cursor until next_cursor is null; the next run starts from the last updated_at
    // seen (updated_since), as a client that has caught up comes back.
    const runs: WireDeal[][] = [[]];
    let query: Record<string, string> = {};
    let cursor: string | null = null;
    const read = async () => {
      const page = await listDeals(server, rawKey, { limit: '7', ...query, ...(cursor ? { cursor } : {}) });
      runs.at(-1)?.push(...page.deals);
      cursor = page.next_cursor;
      if (cursor === null) {
        const last = runs.flat().at(-1);
        query = last ? { updated_since: last.updated_at } : {};
        runs.push([]);
      }
    };
    while (writing) await read();
    await writers;
    do await read();
    while (cursor !== null);

    for (const run of runs) {
      const times = run.map((deal) => deal.updated_at);
      assert.deepEqual(times, [...times].sort(), 'a run of pages only moves forward');
    }
    const last = new Map(runs.flat().map((deal) => [deal.external_id, deal]));
    assert.deepEqual([...last.keys()].sort(), bodies.map((body) => body.external_id).sort());
    for (const deal of last.values()) {
      assert.equal(deal.version, 3, deal.external_id);
      assert.equal(deal.state.amount_cents, 3, deal.external_id);
    }
  });

  test("one org's open write holds back its own feed, bounded, and neither another org's feed nor its recompute", async ({
    server,
    pool,
    db,
    newOrg,
  }) => {
    const a = await newOrg();
    const b = await newOrg();
    const beforeA = dealEvent();
    await ingest(server, a.rawKey, beforeA);
    const held = await heldWrite(pool, a.org.id);
    const laterA = dealEvent();
    await ingest(server, a.rawKey, laterA);
    const inB = [dealEvent(), dealEvent()];
    for (const body of inB) await ingest(server, b.rawKey, body);

    // B's feed is whole and closed: A's open transaction is not among B's writers.
    const pageOfB = await listDeals(server, b.rawKey);
    assert.deepEqual(
      pageOfB.deals.map((deal) => deal.external_id),
      inB.map((body) => body.external_id),
    );
    assert.equal(pageOfB.next_cursor, null);
    // B's recompute waits for B's writers only: it finishes while A's write is still open.
    const summary = await testServices({ db }).admin.recompute.run({ orgId: b.org.id });
    assert.equal(summary.org_id, b.org.id);

    // A's reader is answered while the write is open: the deal committed before it, nothing after it.
    const pageOfA = await listDeals(server, a.rawKey);
    assert.deepEqual(
      pageOfA.deals.map((deal) => deal.external_id),
      [beforeA.external_id],
    );
    assert.ok(pageOfA.next_cursor, 'the cursor stays open while the write is in flight');

    await held.release();
    const rest: WireDeal[] = [];
    await pageOn(server, a.rawKey, pageOfA.next_cursor, rest);
    assert.deepEqual(
      rest.map((deal) => deal.external_id),
      [held.body.external_id, laterA.external_id],
    );
  });

  test('a recompute of the org waits for its write in progress, and ends once it commits', async ({
    server,
    pool,
    db,
    org,
    rawKey,
  }) => {
    await ingest(server, rawKey, dealEvent());
    const held = await heldWrite(pool, org.id);
    let recomputed = false;
    const recompute = testServices({ db })
      .admin.recompute.run({ orgId: org.id })
      .then((summary) => {
        recomputed = true;
        return summary;
      });
    // A page of the org is answered meanwhile (the recompute holds no slot of it).
    const page = await listDeals(server, rawKey);
    assert.equal(page.deals.length, 1);
    assert.equal(recomputed, false, 'the recompute is still waiting for the open write');
    await held.release();
    assert.equal((await recompute).org_id, org.id);
  });
});
