import assert from 'node:assert/strict';
import { describe } from 'vitest';
import { applyPlan, planDocument } from '../factories/plans.ts';
import { eventually } from '../helpers/clock.ts';
import { testDatabase } from '../helpers/database.ts';
import { listAll, state } from '../helpers/earnings.ts';
import { test } from '../helpers/fixtures.ts';
import { testServices } from '../helpers/services.ts';

// What-if estimates through the SDK against the real server (which validates its responses against the
// contract): the estimate of an event equals, cent for cent, the rows the same event then really writes, and
// the estimate itself leaves every table as it was (audit entries and rate-limit counters aside).

const UNTOUCHED_TABLES = [
  'orgs',
  'users',
  'source_events',
  'domain_events',
  'deals',
  'plans',
  'plan_versions',
  'periods',
  'earnings',
  'webhook_messages',
];

/**
 * Row counts of every table the engine or the pipeline writes, and a digest of the ledger and the deals, for one
 * org: other test files write to the same database at the same time, so a database-wide count would race them.
 */
async function tableState(orgId: string) {
  const db = testDatabase();
  const counts: Record<string, number> = {};
  for (const table of UNTOUCHED_TABLES) {
    const column = table === 'orgs' ? 'id' : 'org_id';
    const [row] = await db.$queryRawUnsafe<Array<{ n: bigint }>>(
      `SELECT count(*) AS n FROM ${table} WHERE ${column} = $1`,
      orgId,
    );
    counts[table] = Number(row?.n);
  }
  const [digest] = await db.$queryRawUnsafe<Array<{ earnings: string; deals: string }>>(
    `SELECT (SELECT md5(string_agg(id || status || amount_cents, ',' ORDER BY id)) FROM earnings WHERE org_id = $1)
              AS earnings,
            (SELECT md5(string_agg(id || version || status, ',' ORDER BY id)) FROM deals WHERE org_id = $1) AS deals`,
    orgId,
  );
  return { counts, digest };
}

/** A row as the estimate and the ledger can both show it: everything but ids, times and the won time. */
function comparable(row: {
  status: string;
  period_id: string;
  amount_cents: number;
  supersedes_id: string | null;
  plan_version_id: string;
  rule_version: string;
}) {
  return [row.status, row.period_id, row.amount_cents, row.supersedes_id, row.plan_version_id, row.rule_version];
}

describe('POST /v1/estimates', () => {
  test('an open deal closing won: the estimate is what the same event then really writes, and writes nothing itself', async ({
    db,
    org,
    client,
  }) => {
    await applyPlan(db, org.id, planDocument());
    await client.deals.ingestEvent({
      external_id: 'opp-a',
      state: state(6_000_000, 'closed_won', '2026-04-10', { region: 'EMEA' }),
    });
    await client.deals.ingestEvent({
      external_id: 'opp-b',
      state: state(5_000_000, 'proposal', '2026-04-22', { region: 'NA' }),
    });
    const before = await listAll(client);
    const tables = await tableState(org.id);

    const estimate = await client.estimates.create({
      external_id: 'opp-b',
      state: { new_logo: true },
      close_date: '2026-04-20',
    });
    assert.deepEqual(await tableState(org.id), tables);
    assert.deepEqual(await listAll(client), before);

    assert.equal(estimate.deal.exists, true);
    assert.equal(estimate.deal.status, 'won');
    assert.equal(estimate.deal.state.close_date, '2026-04-20');
    // Only lines that change count: base 5,000.00 replaces the 5,000.00 projection; accelerator 500.00 over
    // quota; new logo 500.00; bonus 2,000.00. Deal A's lines do not move.
    assert.equal(estimate.earned_now_cents, 0);
    assert.equal(estimate.earned_after_cents, 500_000 + 50_000 + 50_000 + 200_000);
    assert.equal(estimate.difference_cents, 800_000);
    const base = estimate.lines.find(
      (line) => line.deal_external_id === 'opp-b' && line.projected_now_cents === 500_000,
    );
    assert.ok(base);
    assert.equal(base.projected_after_cents, 0);
    assert.deepEqual(base.retired, [{ id: base.rows[0]?.supersedes_id, status: 'superseded' }]);

    const real = await client.deals.ingestEvent({
      external_id: 'opp-b',
      state: { new_logo: true, stage: 'closed_won', close_date: '2026-04-20' },
    });
    const written = (await listAll(client)).filter((row) => row.triggering_domain_event_id === real.domain_event_id);
    const estimatedRows = estimate.lines.flatMap((line) => line.rows);
    assert.deepEqual(
      estimatedRows.map(comparable),
      written.map((row) => comparable(row)),
    );
    for (const [index, row] of written.entries()) {
      const full = await client.earnings.get(row.id);
      const estimated = estimatedRows[index];
      assert.ok(estimated);
      // The same trace, but for the won time (when the event is applied) and the cause (the real event).
      const { cause, ...trace } = full.trace;
      assert.equal(cause?.domain_event_id, real.domain_event_id);
      assert.equal(estimated.trace.cause, undefined);
      assert.deepEqual(
        { ...estimated.trace, deal: estimated.trace.deal && { ...estimated.trace.deal, won_at: null } },
        { ...trace, deal: trace.deal && { ...trace.deal, won_at: null } },
      );
    }
    const retired = estimate.lines.flatMap((line) => line.retired);
    const after = new Map((await listAll(client)).map((row) => [row.id, row.status]));
    for (const row of retired) assert.equal(after.get(row.id), row.status);
  });

  test('a hypothetical deal, a lower amount in a locked period (a clawback), the audit entry and refusals', async ({
    db,
    org,
    client,
  }) => {
    await applyPlan(db, org.id, planDocument());
    await client.deals.ingestEvent({
      external_id: 'opp-a',
      state: state(6_000_000, 'closed_won', '2026-04-10', { region: 'EMEA' }),
    });

    const hypothetical = await client.estimates.create({
      state: { amount_cents: 2_000_000, owner_external_id: 'rep-new', region: 'NA' },
      close_date: '2026-05-15',
    });
    assert.deepEqual(
      { id: hypothetical.deal.id, external_id: hypothetical.deal.external_id, exists: hypothetical.deal.exists },
      { id: null, external_id: null, exists: false },
    );
    assert.equal(hypothetical.user_external_id, 'rep-new');
    assert.equal(hypothetical.earned_after_cents, 200_000);
    assert.ok(hypothetical.lines.every((line) => line.deal_id === null));
    assert.equal(await client.users.findByExternalId('rep-new'), null);
    await testServices({ db }).admin.periods.lock(org.id, '2026-04');
    const tables = await tableState(org.id);
    // Half the amount, in locked April: the base line earns 3,000.00 against 6,000.00 approved.
    const halved = await client.estimates.create({
      external_id: 'opp-a',
      state: { amount_cents: 3_000_000 },
      close_date: '2026-04-10',
    });
    assert.deepEqual(await tableState(org.id), tables);
    const base = halved.lines.find((line) =>
      line.rows.some((row) => row.period_id === '2026-05' && row.amount_cents === -300_000),
    );
    assert.ok(base, 'the April base commission is partly clawed back in May');
    assert.deepEqual(
      [base.earned_now_cents, base.earned_after_cents, base.difference_cents],
      [600_000, 300_000, -300_000],
    );

    const audited = await eventually(async () => {
      const rows = await db.auditEntry.findMany({ where: { org_id: org.id, route: '/v1/estimates', method: 'POST' } });
      return rows.length === 2 ? rows : undefined;
    });
    assert.deepEqual(
      audited.map((entry) => entry.status),
      [200, 200],
    );

    await assert.rejects(
      client.estimates.create({ deal_id: 'deal_01kpnvmrz8f7z8pdg8ny07g73y', close_date: '2026-05-03' }),
      { status: 404 },
    );
    await assert.rejects(
      client.estimates.create({
        deal_id: 'deal_01kpnvmrz8f7z8pdg8ny07g73y',
        external_id: 'opp-a',
        close_date: '2026-05-03',
      }),
      { status: 400 },
    );
    await assert.rejects(
      client.estimates.create({ state: { amount_cents: 5 }, close_date: '2026-05-03' }),
      (error: { status: number; body: { reason: string } }) => {
        assert.equal(error.status, 400);
        assert.match(error.body.reason, /^state\.owner_external_id/);
        return true;
      },
    );
  });
});
