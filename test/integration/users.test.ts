import assert from 'node:assert/strict';
import { describe } from 'vitest';
import { applyPlan, planDocument } from '../factories/plans.ts';
import { test } from '../helpers/fixtures.ts';

// Reps over the API: users by external id, a rep's earnings without looking up the internal id, and who a plan
// applies to. The test server validates every response against the contract.

function wonDeal(externalId: string, owner: string, amountCents = 5_000_000) {
  return {
    external_id: externalId,
    state: { amount_cents: amountCents, stage: 'closed_won', close_date: '2026-04-20', owner_external_id: owner },
  };
}

describe('GET /v1/users', () => {
  test('a rep is found by external id, and the user it names is the owner of the rep’s deals', async ({ client }) => {
    const deal = await client.deals.ingestEvent(wonDeal('opp-1', 'rep-017'));
    await client.deals.ingestEvent(wonDeal('opp-2', 'rep-021'));

    const page = await client.users.listPage({ external_id: 'rep-017' });
    assert.equal(page.users.length, 1);
    assert.equal(page.next_cursor, null);
    const [rep] = page.users;
    assert.equal(rep?.external_id, 'rep-017');
    const deals = await client.deals.listPage({ external_id: 'opp-1' });
    assert.equal(deals.deals[0]?.id, deal.deal_id);
    assert.equal(rep?.id, deals.deals[0]?.user_id);
    assert.deepEqual(await client.users.findByExternalId('rep-017'), rep);
    assert.deepEqual(await client.users.get(rep?.id as string), rep);
    assert.deepEqual(Object.keys(rep ?? {}).sort(), ['created_at', 'display_name', 'external_id', 'id']);
    assert.equal(rep?.display_name, null);
  });

  test('a rep Quotient has never seen is an empty page, not an error', async ({ client }) => {
    assert.deepEqual(await client.users.listPage({ external_id: 'rep-404' }), { users: [], next_cursor: null });
    assert.equal(await client.users.findByExternalId('rep-404'), null);
  });

  test('pages follow (created_at, id) with a cursor and together list every rep once', async ({ client }) => {
    const reps = ['rep-a', 'rep-b', 'rep-c', 'rep-d', 'rep-e'];
    for (const [index, rep] of reps.entries()) await client.deals.ingestEvent(wonDeal(`opp-${index}`, rep));

    const first = await client.users.listPage({ limit: 2 });
    assert.equal(first.users.length, 2);
    assert.equal(typeof first.next_cursor, 'string');
    const seen: string[] = [];
    for await (const user of client.users.list({ limit: 2 })) seen.push(user.external_id);
    assert.deepEqual(seen, reps);
  });

  test('a cursor sent with other filters, or a malformed one, is 400 invalid_body naming cursor', async ({
    client,
  }) => {
    for (const rep of ['rep-a', 'rep-b']) await client.deals.ingestEvent(wonDeal(`opp-${rep}`, rep));
    const first = await client.users.listPage({ limit: 1 });
    const cursor = first.next_cursor as string;
    await assert.rejects(
      client.users.listPage({ cursor, external_id: 'rep-a' }),
      (error: { status: number; body: { error: string; reason: string } }) => {
        assert.equal(error.status, 400);
        assert.equal(error.body.error, 'invalid_body');
        assert.match(error.body.reason, /^cursor: was issued for other filters/);
        return true;
      },
    );
    await assert.rejects(client.users.listPage({ cursor: 'not-a-cursor' }), { status: 400 });
  });

  test('another org’s user and unknown ids of any shape are 404 not_found', async ({ newOrg }) => {
    const owner = await newOrg();
    const other = await newOrg();
    await owner.client.deals.ingestEvent(wonDeal('opp-1', 'rep-017'));
    const rep = await owner.client.users.findByExternalId('rep-017');
    const client = other.client;
    for (const id of [rep?.id as string, 'user_01knvyqwr3fmtr77g6vdncr588', 'nonsense']) {
      await assert.rejects(client.users.get(id), {
        status: 404,
        body: { error: 'not_found', reason: `no user ${id}` },
      });
    }
    assert.deepEqual(await client.users.listPage({ external_id: 'rep-017' }), { users: [], next_cursor: null });
  });

  test('users need earnings:read', async ({ newOrg }) => {
    const { client } = await newOrg({ scopes: ['deals:read', 'plans:read'] });
    await assert.rejects(client.users.listPage(), {
      status: 403,
      body: { error: 'forbidden', reason: 'missing scope: earnings:read' },
    });
    await assert.rejects(client.users.get('user_01knvyqwr3fmtr77g6vdncr588'), { status: 403 });
  });
});

describe('GET /v1/earnings?user_external_id=', () => {
  test('lists exactly the rows of the rep with that external id', async ({ db, org, client }) => {
    await applyPlan(
      db,
      org.id,
      planDocument({ chips: [{ key: 'base', name: 'Base', kind: 'commission', rate_bps: 1000 }] }),
    );
    await client.deals.ingestEvent(wonDeal('opp-1', 'rep-017', 6_000_000));
    await client.deals.ingestEvent(wonDeal('opp-2', 'rep-021', 5_000_000));
    await client.deals.ingestEvent(wonDeal('opp-3', 'rep-017', 1_000_000));

    const rows = [];
    for await (const row of client.earnings.list({ user_external_id: 'rep-017', limit: 1 })) rows.push(row);
    assert.deepEqual(
      rows.map((row) => [row.user_external_id, row.amount_cents]),
      [
        ['rep-017', 600_000],
        ['rep-017', 100_000],
      ],
    );
    const rep = await client.users.findByExternalId('rep-017');
    const byId = [];
    for await (const row of client.earnings.list({ user_id: rep?.id as string })) byId.push(row);
    assert.deepEqual(byId, rows);
    assert.deepEqual((await client.earnings.listPage({ user_external_id: 'rep-404' })).earnings, []);
  });
});

describe('GET /v1/plans/{id} assignees', () => {
  test('shows who the current version applies to: all, then the listed reps, sorted, after a new version', async ({
    db,
    org,
    client,
  }) => {
    const document = planDocument();
    const applied = await applyPlan(db, org.id, document);
    assert.equal((await client.plans.get(applied.plan_id)).assignees, 'all');
    await applyPlan(db, org.id, { ...document, assignees: ['rep-021', 'rep-017'] });
    assert.deepEqual((await client.plans.get(applied.plan_id)).assignees, ['rep-017', 'rep-021']);
    assert.deepEqual((await client.plans.get(applied.plan_id, { include: 'chips' })).assignees, ['rep-017', 'rep-021']);
  });
});
