import assert from 'node:assert/strict';
import { fileURLToPath } from 'node:url';
import { describe } from 'vitest';
import type { Database } from '../../src/db/prisma.ts';
import type { DealEvent } from '../../src/domain/deals/event.ts';
import { loadContract } from '../../src/http/contract.ts';
import { DealEventCheck } from '../../src/http/dealEventCheck.ts';
import type { RunningServer } from '../../src/main.ts';
import { dealEvent, externalId, findDeal, postEvent } from '../factories/deals.ts';
import { applyPlan, planDocument } from '../factories/plans.ts';
import { cliJson as cli } from '../helpers/cli.ts';
import { test } from '../helpers/fixtures.ts';

const EXAMPLE_PLAN = fileURLToPath(new URL('../../examples/plans/core-ae.yaml', import.meta.url));

interface ItemResult {
  status: number;
  source_event_id?: string;
  domain_event_id?: string;
  deal_id?: string;
  error?: { error: string; reason?: string };
}

function postBatch(server: RunningServer, rawKey: string, body: unknown) {
  return fetch(`${server.url}/v1/deals/events/batch`, {
    method: 'POST',
    headers: { authorization: `Bearer ${rawKey}`, 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
}

async function batchResults(server: RunningServer, rawKey: string, events: unknown[]): Promise<ItemResult[]> {
  const response = await postBatch(server, rawKey, { events });
  assert.equal(response.status, 200, await response.clone().text());
  return ((await response.json()) as { results: ItemResult[] }).results;
}

function sourceEventCount(db: Database, orgId: string) {
  return db.sourceEvent.count({ where: { org_id: orgId } });
}

/** The org's live earnings lines, named by what they are about rather than by ids, in a stable order. */
async function liveLines(db: Database, orgId: string) {
  return db.$queryRaw<Array<Record<string, unknown>>>`
    SELECT u.external_id AS rep, d.external_id AS deal, c.key AS chip, e.period_id, e.amount_cents::text AS amount,
           e.status
      FROM earnings e
      JOIN users u ON u.org_id = e.org_id AND u.id = e.user_id
      JOIN chips c ON c.org_id = e.org_id AND c.id = e.rule_chip_id
      LEFT JOIN deals d ON d.org_id = e.org_id AND d.id = e.deal_id
     WHERE e.org_id = ${orgId} AND e.status NOT IN ('superseded', 'reversed')
     ORDER BY 1, 2, 3, 4, 5`;
}

describe('POST /v1/deals/events/batch', () => {
  test('good, invalid and duplicate events are each answered in order, and only the good new ones are applied', async ({
    db,
    server,
    org,
    rawKey,
  }) => {
    const first = dealEvent({ dedup_key: 'crm-1' });
    const invalid = dealEvent({ dedup_key: 'crm-2' }, { amount_cents: '12k' });
    const unknownMember = { ...dealEvent(), dedup_kee: 'typo' };
    const repeated = { ...first };
    const conflicting = dealEvent({ dedup_key: 'crm-1' });
    const second = dealEvent({ dedup_key: 'crm-3' }, { stage: 'closed_won' });

    const results = await batchResults(server, rawKey, [first, invalid, unknownMember, repeated, conflicting, second]);

    assert.deepEqual(
      results.map((result) => result.status),
      [201, 400, 400, 200, 422, 201],
    );
    assert.equal(results[3]?.source_event_id, results[0]?.source_event_id);
    assert.equal(results[4]?.error?.error, 'dedup_conflict');
    assert.equal(await sourceEventCount(db, org.id), 2);
    assert.equal((await findDeal(server, rawKey, second.external_id))?.status, 'won');
    assert.equal(await findDeal(server, rawKey, invalid.external_id), undefined);
  });

  test('an invalid event is refused with the error the single endpoint gives for the same body', async ({
    server,
    rawKey,
  }) => {
    const invalid = [
      dealEvent({}, { amount_cents: '12k' }),
      { ...dealEvent(), dedup_kee: 'typo' },
      { state: { stage: 'won' } },
      dealEvent({ occurred_at: '2026-13-01T00:00:00Z' }),
      dealEvent({}, { custom: { region: 'NA' }, region: 'EMEA' }),
      dealEvent({}, { constructor: 1 }),
      'not an object',
    ];
    const results = await batchResults(server, rawKey, invalid.slice(0, -1));
    for (const [index, body] of invalid.slice(0, -1).entries()) {
      const single = await postEvent(server, rawKey, body);
      assert.equal(single.status, 400);
      assert.deepEqual(
        { status: results[index]?.status, error: results[index]?.error },
        {
          status: 400,
          error: await single.json(),
        },
      );
    }
    const notObject = await postBatch(server, rawKey, { events: invalid });
    assert.equal(notObject.status, 400);
    assert.match(((await notObject.json()) as { reason: string }).reason, /^events\.6: must be object/);
  });

  test('a retried batch replays every event with its original ids and writes nothing new', async ({
    db,
    server,
    org,
    rawKey,
  }) => {
    const events = Array.from({ length: 20 }, (_, index) => dealEvent({ dedup_key: `backfill-${index}` }));
    const applied = await batchResults(server, rawKey, events);
    assert.ok(applied.every((result) => result.status === 201));
    const before = await sourceEventCount(db, org.id);

    const replayed = await batchResults(server, rawKey, events);
    assert.ok(replayed.every((result) => result.status === 200));
    assert.deepEqual(
      replayed.map(({ status: _status, ...ids }) => ids),
      applied.map(({ status: _status, ...ids }) => ids),
    );
    assert.equal(await sourceEventCount(db, org.id), before);
  });

  test('a batch cut short is completed by sending it again: the applied events replay, the rest apply', async ({
    db,
    server,
    org,
    rawKey,
  }) => {
    const events = Array.from({ length: 10 }, (_, index) => dealEvent({ dedup_key: `partial-${index}` }));
    await batchResults(server, rawKey, events.slice(0, 4));
    const results = await batchResults(server, rawKey, events);
    assert.deepEqual(
      results.map((result) => result.status),
      [200, 200, 200, 200, 201, 201, 201, 201, 201, 201],
    );
    assert.equal(await sourceEventCount(db, org.id), 10);
  });

  test("one deal's events are applied in the batch's order", async ({ server, rawKey }) => {
    const id = externalId();
    const stages = ['prospecting', 'qualified', 'negotiation', 'closed_won', 'closed_lost', 'closed_won'];
    const events = stages.map((stage, index) => ({ external_id: id, dedup_key: `${id}-${index}`, state: { stage } }));
    const others = Array.from({ length: 12 }, () => dealEvent());
    const results = await batchResults(server, rawKey, [...others.slice(0, 6), ...events, ...others.slice(6)]);
    assert.ok(results.every((result) => result.status === 201));
    const deal = await findDeal(server, rawKey, id);
    assert.equal(deal?.version, stages.length);
    assert.equal(deal?.state.stage, 'closed_won');
  });

  test('a batch of 1,000 events is taken; 1,001, none, or a body without events is refused whole', async ({
    db,
    server,
    org,
    rawKey,
  }) => {
    const event = () => ({ external_id: externalId(), state: { stage: 'prospecting' } });
    const tooMany = await postBatch(server, rawKey, { events: Array.from({ length: 1001 }, event) });
    assert.equal(tooMany.status, 400);
    assert.match(((await tooMany.json()) as { reason: string }).reason, /^events: must NOT have more than 1000 items/);
    assert.equal((await postBatch(server, rawKey, { events: [] })).status, 400);
    assert.equal((await postBatch(server, rawKey, [event()])).status, 400);
    assert.equal(await sourceEventCount(db, org.id), 0);

    const results = await batchResults(server, rawKey, Array.from({ length: 1000 }, event));
    assert.equal(results.filter((result) => result.status === 201).length, 1000);
  });

  test('needs deals:write; without it nothing is written', async ({ db, server, newOrg }) => {
    const { org, rawKey } = await newOrg({ scopes: ['deals:read'] });
    const response = await postBatch(server, rawKey, { events: [dealEvent()] });
    assert.equal(response.status, 403);
    assert.equal(await sourceEventCount(db, org.id), 0);
  });

  test('the request is audited once, in the transaction of its first accepted event', async ({
    db,
    server,
    org,
    rawKey,
  }) => {
    const response = await postBatch(server, rawKey, { events: [dealEvent(), dealEvent(), { state: {} }] });
    assert.equal(response.status, 200);
    const entries = await db.auditEntry.findMany({ where: { org_id: org.id, route: '/v1/deals/events/batch' } });
    assert.equal(entries.length, 1);
    assert.equal(entries[0]?.status, 200);
    assert.equal(entries[0]?.request_id, response.headers.get('x-request-id'));
  });

  test('earnings from a batch are those of the same events sent one by one', async ({ db, server, newOrg }) => {
    const single = await newOrg();
    const batched = await newOrg();
    const plan = planDocument({ key: 'same-plan' });
    await applyPlan(db, single.org.id, plan);
    await applyPlan(db, batched.org.id, plan);
    const events = Array.from({ length: 40 }, (_, index) =>
      dealEvent(
        { external_id: `opp-${index % 25}`, dedup_key: `identity-${index}` },
        {
          amount_cents: 1_000_000 + index * 250_000,
          stage: index % 3 === 0 ? 'closed_lost' : 'closed_won',
          close_date: `2026-0${1 + (index % 3)}-${String(10 + (index % 15)).padStart(2, '0')}`,
          owner_external_id: `rep-${index % 4}`,
          region: index % 2 === 0 ? 'NA' : 'EMEA',
          new_logo: index % 5 === 0,
        },
      ),
    );
    for (const event of events) assert.equal((await postEvent(server, single.rawKey, event)).status, 201);
    await batchResults(server, batched.rawKey, events);

    const expected = await liveLines(db, single.org.id);
    assert.ok(expected.length > 0);
    assert.deepEqual(await liveLines(db, batched.org.id), expected);
  });

  test('mixed histories batched (owners, splits, dates and stages changing, several events per deal) earn what one by one does, and a recompute finds nothing to change', async ({
    db,
    server,
    newOrg,
    services,
  }) => {
    const single = await newOrg();
    const batched = await newOrg();
    // A third org takes the same batches as an import does (no key: each run's rows written one statement per table;
    // earnings not evaluated in the batches' transactions but once, after the round's last batch, each (rep, period)
    // in full: src/services/pendingEvaluations.ts).
    const imported = await newOrg();
    for (const { org } of [single, batched, imported]) await cli(['plans', 'apply', EXAMPLE_PLAN, '--org', org.id]);
    const check = new DealEventCheck(loadContract());
    const importBatch = async (events: unknown[]) => {
      const results = await services.api.dealEventBatch.ingestAll({
        orgId: imported.org.id,
        keyId: null,
        events: events.map((body) => {
          const outcome = check.outcome(body);
          if (!('event' in outcome)) throw new Error(outcome.refusal);
          return { event: outcome.event, body };
        }),
        receivedAt: new Date(),
        deferEvaluation: true,
      });
      assert.ok(
        results.every((result) => result.kind === 'accepted'),
        JSON.stringify(results.filter((result) => result.kind !== 'accepted')),
      );
      // A retried batch replays every event and writes nothing.
      const again = await services.api.dealEventBatch.ingestAll({
        orgId: imported.org.id,
        keyId: null,
        events: events.map((body) => ({ event: (check.outcome(body) as { event: DealEvent }).event, body })),
        receivedAt: new Date(),
        deferEvaluation: true,
      });
      assert.deepEqual(
        again.map((result) => (result.kind === 'replayed' ? result.ids : result.kind)),
        results.map((result) => (result.kind === 'accepted' ? result.ids : result.kind)),
      );
    };
    // Deterministic: the same histories every run.
    let seed = 0x9e3779b9;
    const next = (limit: number) => {
      seed ^= seed << 13;
      seed ^= seed >>> 17;
      seed ^= seed << 5;
      return (seed >>> 0) % limit;
    };
    const stages = ['proposal', 'negotiation', 'closed_won', 'closed_won', 'closed_won', 'closed_lost'];
    const history = (round: number, count: number) =>
      Array.from({ length: count }, (_, index) => {
        const deal = next(30);
        const state: Record<string, unknown> = {
          amount_cents: 500_000 + next(40) * 250_000,
          stage: stages[next(stages.length)],
          close_date: `2026-0${1 + next(3)}-${String(1 + next(28)).padStart(2, '0')}`,
          region: next(3) === 0 ? 'APAC' : 'EMEA',
          new_logo: next(4) === 0,
        };
        if (next(6) === 0) {
          state.splits = [
            { owner_external_id: `rep-${next(3)}`, share_bps: 6000 },
            { owner_external_id: `rep-${3 + next(2)}`, share_bps: 4000 },
          ];
        } else {
          state.owner_external_id = `rep-${next(5)}`;
          if (next(5) === 0) state.splits = null;
        }
        // Some events change one field only, as CRMs send them.
        if (next(4) === 0) for (const field of ['stage', 'close_date', 'region']) delete state[field];
        return { external_id: `mixed-${deal}`, dedup_key: `mixed-${round}-${index}`, state };
      });
    const rounds = [history(1, 60), history(2, 60)];
    for (const [round, events] of rounds.entries()) {
      // From the second round on, some reps have quotas of their own (docs/quotas.md), which the tier bands and the
      // attainment bonus read: from the running totals and in full evaluations alike.
      if (round === 1) {
        for (const { org } of [single, batched, imported]) {
          for (const [rep, quota, from] of [
            ['rep-0', '6000000', '2026-01-01'],
            ['rep-3', '15000000', '2026-02-01'],
          ] as const) {
            await cli(['quotas', 'set', rep, 'core-ae', quota, '--from', from, '--org', org.id]);
          }
          await cli(['quotas', 'start-date', 'rep-1', '2026-02-09', '--org', org.id]);
        }
      }
      for (const event of events) {
        const response = await postEvent(server, single.rawKey, event);
        assert.ok(response.status === 201, await response.text());
      }
      // In batches of 20, which repeat deals of each other and within themselves.
      for (let start = 0; start < events.length; start += 20) {
        const results = await batchResults(server, batched.rawKey, events.slice(start, start + 20));
        assert.ok(
          results.every((result) => result.status === 201),
          JSON.stringify(results.filter((r) => r.status !== 201)),
        );
      }
      // As an import: in batches of 40, and once the whole round at once.
      if (round === 0)
        for (let start = 0; start < events.length; start += 40) await importBatch(events.slice(start, start + 40));
      else await importBatch(events);
      // The deals wait for their evaluation, which an import (here one of no rows) does first.
      const pending = await db.$queryRaw<Array<{ count: bigint }>>`
        SELECT count(*) AS count FROM pending_evaluations WHERE org_id = ${imported.org.id}`;
      assert.ok(Number(pending[0]?.count) > 0);
      const evaluation = await services.admin.dealImport.run({
        orgId: imported.org.id,
        rows: (async function* () {})(),
        dryRun: false,
        source: 'pending',
      });
      assert.equal(evaluation.evaluated, Number(pending[0]?.count));
      const expected = await liveLines(db, single.org.id);
      assert.ok(expected.length > 0);
      assert.deepEqual(await liveLines(db, batched.org.id), expected);
      assert.deepEqual(await liveLines(db, imported.org.id), expected);
    }
    // The running totals the batches stored are those the one-by-one events stored: single events after them are
    // decided the same way, and a recompute of either org changes nothing.
    for (const event of history(3, 15)) {
      for (const { rawKey } of [single, batched, imported]) {
        assert.equal((await postEvent(server, rawKey, event)).status, 201);
      }
    }
    assert.deepEqual(await liveLines(db, batched.org.id), await liveLines(db, single.org.id));
    assert.deepEqual(await liveLines(db, imported.org.id), await liveLines(db, single.org.id));
    for (const { org } of [batched, single, imported]) {
      const recompute = await cli<{ rows_written: number; rows_superseded: number; rows_reversed: number }>([
        'recompute',
        '--org',
        org.id,
      ]);
      assert.deepEqual([recompute.rows_written, recompute.rows_superseded, recompute.rows_reversed], [0, 0, 0]);
    }
  }, 600_000);

  test('the SDK gives each event without a dedup_key one of its own, kept across retries', async ({
    db,
    org,
    client,
  }) => {
    const events = [dealEvent(), dealEvent({ dedup_key: 'mine' })];
    const { results } = await client.deals.ingestEvents(events);
    assert.deepEqual(
      results.map((result) => result.status),
      [201, 201],
    );
    const keys = (await db.sourceEvent.findMany({ where: { org_id: org.id } })).map((row) => row.dedup_key).sort();
    assert.equal(keys[0], 'mine');
    assert.match(keys[1] ?? '', /^sdk-/);
  });
});
