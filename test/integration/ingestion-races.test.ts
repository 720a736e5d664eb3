import assert from 'node:assert/strict';
import { describe } from 'vitest';
import type { RunningServer } from '../../src/main.ts';
import { dealEvent, postEvent } from '../factories/deals.ts';
import { applyPlan, planDocument } from '../factories/plans.ts';
import { test } from '../helpers/fixtures.ts';

// Concurrent deal events that race for the same rows: a rep that does not exist yet (created on first sight by
// whichever event names it first), a deal that does not exist yet, one dedup key sent twice, and single events
// racing batches (which create every rep they name before they take their deals). Each event takes its locks in
// the order every ingestion does (reps, then dedup key, then deal: src/repositories/sourceEvents.ts), so none of
// these may end in a deadlock or a unique violation: every request is answered, none with a 5xx. A 500 here was
// the contract fuzzer's rare `500 internal_error` on POST /v1/deals/events (a deadlock between a single event,
// which took its deal before its new rep, and a batch, which took the rep before the deal).

const ROUNDS = 12;

interface Answer {
  what: string;
  status: number;
  body: string;
}

async function send(server: RunningServer, rawKey: string, what: string, path: string, body: unknown) {
  const response =
    path === 'single'
      ? await postEvent(server, rawKey, body)
      : await fetch(`${server.url}/v1/deals/events/batch`, {
          method: 'POST',
          headers: { authorization: `Bearer ${rawKey}`, 'content-type': 'application/json' },
          body: JSON.stringify(body),
        });
  return { what, status: response.status, body: await response.text() } satisfies Answer;
}

describe('racing deal events', () => {
  test('events naming the same new reps and deals, single and batched, with a dedup key sent twice: none fails', async ({
    db,
    server,
    newOrg,
  }) => {
    const { org, rawKey } = await newOrg({ rateLimit: 100_000 });
    // With a plan in force each event also evaluates its reps' lines, so its transaction (and its locks) last.
    await applyPlan(db, org.id, planDocument());
    const answers: Answer[] = [];
    let accepted = 0;
    for (let round = 0; round < ROUNDS; round++) {
      const [repA, repB, repC] = [`race-${round}-a`, `race-${round}-b`, `race-${round}-c`];
      const [dealX, dealY, dealZ] = [`race-${round}-x`, `race-${round}-y`, `race-${round}-z`];
      const won = { stage: 'closed_won', close_date: '2026-06-15', amount_cents: 1_000_000 + round };
      const event = (deal: string, state: Record<string, unknown>, splitWith: string[] = [], dedupKey?: string) => ({
        ...dealEvent({ external_id: deal, ...(dedupKey === undefined ? {} : { dedup_key: dedupKey }) }, state),
        ...(splitWith.length === 0
          ? {}
          : { splits: splitWith.map((owner) => ({ owner_external_id: owner, share_bps: 10_000 / splitWith.length })) }),
      });
      const twice = event(dealX, { owner_external_id: repB, ...won }, [], `race-${round}-twice`);
      const requests: Array<[string, 'single' | 'batch', unknown]> = [
        [
          'batch x y z',
          'batch',
          {
            events: [
              event(dealX, { owner_external_id: repA }),
              event(dealY, { owner_external_id: repC, ...won }, [repC, repA]),
              event(dealZ, { owner_external_id: repB, ...won }),
            ],
          },
        ],
        ['single x (a)', 'single', event(dealX, { owner_external_id: repA, ...won })],
        ['single x (b, split c)', 'single', event(dealX, { owner_external_id: repB, ...won }, [repB, repC])],
        ['single y (b)', 'single', event(dealY, { owner_external_id: repB, ...won })],
        ['single z (c, split a)', 'single', event(dealZ, { owner_external_id: repC }, [repA, repC])],
        ['single x, first of a dedup key sent twice', 'single', twice],
        ['single x, second of a dedup key sent twice', 'single', twice],
        [
          'batch z y x',
          'batch',
          {
            events: [
              event(dealZ, { owner_external_id: repC, ...won }),
              event(dealY, { owner_external_id: repA }),
              event(dealX, { owner_external_id: repA, ...won }, [repA, repB]),
            ],
          },
        ],
      ];
      const round_ = await Promise.all(requests.map(([what, path, body]) => send(server, rawKey, what, path, body)));
      answers.push(...round_);
      for (const answer of round_) {
        if (answer.status === 201) accepted++;
        if (answer.status === 200 && answer.what.startsWith('batch')) {
          const { results } = JSON.parse(answer.body) as { results: Array<{ status: number }> };
          accepted += results.filter((result) => result.status === 201).length;
          answers.push(
            ...results.map((result) => ({ what: `${answer.what} (item)`, status: result.status, body: answer.body })),
          );
        }
      }
    }
    const failed = answers.filter((answer) => answer.status >= 500);
    assert.deepEqual(failed, [], `${failed.length} requests failed`);
    const twiceAnswers = answers.filter((answer) => answer.what.includes('dedup key sent twice'));
    assert.deepEqual(
      [...new Set(twiceAnswers.map((answer) => answer.status))].sort(),
      [200, 201],
      'one of the two is applied, the other replays it',
    );
    assert.equal(await db.sourceEvent.count({ where: { org_id: org.id } }), accepted);
    const reps = await db.user.findMany({ where: { org_id: org.id, external_id: { startsWith: 'race-' } } });
    assert.equal(reps.length, ROUNDS * 3, 'each new rep is created once');
  });
});
