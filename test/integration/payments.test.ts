import assert from 'node:assert/strict';
import { describe } from 'vitest';
import { QuotientError } from '../../sdk/src/index.ts';
import { applyPlan, planDocument } from '../factories/plans.ts';
import { listAll, state } from '../helpers/earnings.ts';
import { test } from '../helpers/fixtures.ts';

// The customer's payments (POST /v1/payments) end to end through the SDK: a plan paid on cash holds part of a won
// deal's commission, each payment releases its share in the period the money arrived in, a replay writes nothing,
// bad input is refused with nothing changed, and a void takes the release back. docs/plan-features.md's worked
// example ("Pay on cash"): 10% of 50,000.00 with 40% held, paid 20,000.00 in May and 30,000.00 in June.

const CASH_PLAN = planDocument({
  quota_cents: 10_000_000,
  chips: [
    {
      key: 'base',
      name: 'Base commission',
      kind: 'commission',
      rate_bps: 1000,
      payable_on: 'cash',
      cash: { held_pct: 40, release: 'pro_rata' },
    },
  ],
});

async function refusal(call: Promise<unknown>): Promise<{ status: number; error: string }> {
  try {
    await call;
  } catch (error) {
    if (error instanceof QuotientError) return { status: error.status, error: error.error };
    throw error;
  }
  assert.fail('the call was not refused');
}

describe('payments', () => {
  test('a payment releases what a cash plan holds in its own period; replays and bad input change nothing; a void takes it back', async ({
    org,
    client,
    db,
  }) => {
    await applyPlan(db, org.id, CASH_PLAN);
    const won = await client.deals.ingestEvent({
      external_id: 'opp-1',
      state: state(5_000_000, 'closed_won', '2026-04-10'),
    });
    const rep = await client.users.findByExternalId('rep-017');
    assert.ok(rep);
    const earned = async (period: string) =>
      (await listAll(client, { user_id: rep.id, period_id: period }))
        .filter((row) => ['pending', 'approved', 'paid'].includes(row.status))
        .reduce((sum, row) => sum + row.amount_cents, 0);

    const april = await client.statements.get(rep.id, '2026-04');
    assert.equal(april.held_until_paid_cents, 200_000);
    assert.equal(await earned('2026-04'), 300_000);
    assert.equal(await earned('2026-05'), 0);

    const body = {
      external_id: 'inv-1',
      deal_external_id: 'opp-1',
      amount_cents: 2_000_000,
      received_on: '2026-05-12',
    };
    const may = await client.payments.record(body);
    assert.match(may.id, /^pay_/);
    assert.deepEqual(
      { ...may, id: undefined, created_at: undefined },
      {
        id: undefined,
        created_at: undefined,
        external_id: 'inv-1',
        deal_id: won.deal_id,
        deal_external_id: 'opp-1',
        amount_cents: 2_000_000,
        currency: 'USD',
        received_on: '2026-05-12',
        status: 'recorded',
        voided_at: null,
      },
    );
    // 20,000.00 is 40% of the deal: 40% of the 2,000.00 held, booked in May.
    assert.equal(await earned('2026-05'), 80_000);
    assert.equal(await earned('2026-04'), 300_000);
    const mayStatement = await client.statements.get(rep.id, '2026-05');
    assert.equal(mayStatement.released_on_payment_cents, 80_000);
    assert.equal(mayStatement.payable_cents, 80_000);

    // The same payment again: answered as recorded, nothing written.
    const rowsBefore = await db.earning.count({ where: { org_id: org.id } });
    const replayed = await client.payments.record(body);
    assert.deepEqual(replayed, may);
    // Refused, each writing nothing: another body under the same external_id, an unknown deal, a zero amount,
    // another currency, an unknown member.
    const refused = [
      await refusal(client.payments.record({ ...body, amount_cents: 2_500_000 })),
      await refusal(client.payments.record({ ...body, external_id: 'inv-x', deal_external_id: 'opp-404' })),
      await refusal(client.payments.record({ ...body, external_id: 'inv-y', amount_cents: 0 })),
      await refusal(client.payments.record({ ...body, external_id: 'inv-z', currency: 'EUR' })),
      await refusal(client.payments.record({ ...body, external_id: 'inv-w', note: 'x' } as typeof body)),
    ];
    assert.deepEqual(refused, [
      { status: 422, error: 'dedup_conflict' },
      { status: 422, error: 'unknown_deal' },
      { status: 400, error: 'invalid_body' },
      { status: 400, error: 'invalid_body' },
      { status: 400, error: 'invalid_body' },
    ]);
    assert.equal(await db.payment.count({ where: { org_id: org.id } }), 1);
    assert.equal(await db.earning.count({ where: { org_id: org.id } }), rowsBefore);

    // The rest in June releases the rest: 2,000.00 in all.
    const june = await client.payments.record({
      external_id: 'inv-2',
      deal_external_id: 'opp-1',
      amount_cents: 3_000_000,
      received_on: '2026-06-03',
    });
    assert.equal(await earned('2026-06'), 120_000);
    const listed = await client.payments.listPage({ deal_external_id: 'opp-1' });
    assert.deepEqual(
      listed.payments.map((payment) => payment.external_id),
      ['inv-1', 'inv-2'],
    );
    assert.equal((await client.payments.listPage({ deal_external_id: 'opp-2' })).payments.length, 0);
    assert.deepEqual(await client.payments.get(june.id), june);
    const firstPage = await client.payments.listPage({ limit: 1 });
    assert.ok(firstPage.next_cursor);
    const second = await client.payments.listPage({ limit: 1, cursor: firstPage.next_cursor });
    assert.deepEqual(
      second.payments.map((payment) => payment.id),
      [june.id],
    );

    // May's payment voided: May releases nothing, and June's 30,000.00 alone releases 60% of what is held.
    const voided = await client.payments.void(may.id);
    assert.equal(voided.status, 'voided');
    assert.ok(voided.voided_at);
    assert.deepEqual(await client.payments.void(may.id), voided);
    assert.equal(await earned('2026-05'), 0);
    assert.equal(await earned('2026-06'), 120_000);
    assert.equal(await earned('2026-04'), 300_000);
    const unknown = await refusal(client.payments.get('pay_01kq3a7d5ef0v9n4xw8f7c1b2e'));
    assert.deepEqual(unknown, { status: 404, error: 'not_found' });
  });
});
