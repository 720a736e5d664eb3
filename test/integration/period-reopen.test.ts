import assert from 'node:assert/strict';
import { describe } from 'vitest';
import type { QuotientClient } from '../../sdk/src/index.ts';
import { POLICY_YAML } from '../factories/accounting.ts';
import { createAdmin } from '../factories/admins.ts';
import { applyPlan, planDocument } from '../factories/plans.ts';
import { createEndpoint } from '../factories/webhooks.ts';
import { adminClient } from '../helpers/adminClient.ts';
import { onlyJson, runCli } from '../helpers/cli.ts';
import { testDatabase } from '../helpers/database.ts';
import { state } from '../helpers/earnings.ts';
import { test } from '../helpers/fixtures.ts';
import { testServices } from '../helpers/services.ts';

// The period guards and the way back (docs/pay-workflow.md, "Locking early" and "Reopening a period"): a lock of a
// period that has not ended needs a reason; a locked, unpaid period reopens with a reason (four-eyes where the org
// requires it), its approvals reset and its late changes back in it; a paid one never reopens.

const APRIL = { params: { path: { id: '2026-04' } } };

async function wonDeal(client: QuotientClient, externalId: string, cents: number, closeDate: string, owner = 'rep-1') {
  await client.deals.ingestEvent({
    external_id: externalId,
    state: { ...state(cents, 'closed_won', closeDate, { region: 'NA' }), owner_external_id: owner },
  });
}

/** The org's standing (pending, approved or paid) rows: period, status and amount per deal. */
async function standingRows(orgId: string) {
  const rows = await testDatabase().earning.findMany({
    where: { org_id: orgId, status: { in: ['pending', 'approved', 'paid'] }, deal_id: { not: null } },
    include: { deal: { select: { external_id: true } } },
    orderBy: [{ period_id: 'asc' }, { created_at: 'asc' }],
  });
  return rows.map((row) => [row.deal?.external_id, row.period_id, row.status, Number(row.amount_cents)]);
}

async function auditDetails(orgId: string, action: string) {
  const entries = await testDatabase().auditEntry.findMany({ where: { org_id: orgId, action } });
  return entries.map((entry) => entry.details as Record<string, unknown>);
}

describe('locking a period that has not ended', () => {
  test('is refused without a reason and changes nothing; with one it locks, audited as period.locked_early', async ({
    org,
    signedIn,
  }) => {
    const { client } = await signedIn('admin', org.id);
    const month = new Date().toISOString().slice(0, 7);
    const path = { params: { path: { id: month } } };
    const refused = await client.api.POST('/admin/v1/periods/{id}/lock', path);
    assert.equal(refused.response.status, 409);
    assert.equal(refused.error?.error, 'invalid_state');
    assert.match(refused.error?.reason ?? '', /has not ended/);
    assert.equal(await testDatabase().period.count({ where: { org_id: org.id, status: 'locked' } }), 0);

    const locked = await client.api.POST('/admin/v1/periods/{id}/lock', {
      ...path,
      body: { override_reason: 'payroll runs early this month' },
    });
    assert.equal(locked.data?.period.status, 'locked');
    assert.deepEqual(
      (await auditDetails(org.id, 'period.locked_early')).map((details) => [details.period_id, details.reason]),
      [[month, 'payroll runs early this month']],
    );
  });
});

describe('reopening a period', () => {
  test('a locked period reopens with a reason: rows back to pending, approvals reset, the late deal back in it, announced and audited; a paid one never reopens', async ({
    org,
    client,
    signedIn,
  }) => {
    const db = testDatabase();
    await applyPlan(db, org.id, planDocument());
    await createEndpoint(db, org.id, 'https://hooks.example.test/periods', ['period.reopened']);
    const { client: admin } = await signedIn('admin', org.id);
    await admin.api.PUT('/admin/v1/pay-settings', { body: { statement_approval_policy: 'manager' } });
    await wonDeal(client, 'opp-on-time', 1_000_000, '2026-04-10');
    const lock = await admin.api.POST('/admin/v1/periods/{id}/lock', {
      ...APRIL,
      body: { override_reason: 'the manager approved by email' },
    });
    assert.equal(lock.data?.period.status, 'locked');
    await wonDeal(client, 'opp-late', 2_000_000, '2026-04-20');
    const [onTimeAmount, lateAmount] = [(await standingRows(org.id))[0]?.[3], (await standingRows(org.id))[1]?.[3]];
    assert.deepEqual(await standingRows(org.id), [
      ['opp-on-time', '2026-04', 'approved', onTimeAmount],
      ['opp-late', '2026-05', 'pending', lateAmount],
    ]);

    const missing = await admin.api.POST('/admin/v1/periods/{id}/reopen', { ...APRIL, body: { reason: ' ' } });
    assert.equal(missing.response.status, 400);
    assert.equal((await db.period.findFirst({ where: { org_id: org.id, id: '2026-04' } }))?.status, 'locked');

    const reopened = await admin.api.POST('/admin/v1/periods/{id}/reopen', {
      ...APRIL,
      body: { reason: 'opp-late closed in April but reached the CRM in May' },
    });
    assert.equal(reopened.response.status, 200);
    assert.deepEqual(
      [reopened.data?.changed, reopened.data?.rows_moved, reopened.data?.period.status],
      [true, 1, 'open'],
    );
    assert.equal(reopened.data?.period.locked_at, null);
    assert.ok(reopened.data?.period.reopened_at);
    assert.deepEqual(await standingRows(org.id), [
      ['opp-on-time', '2026-04', 'pending', onTimeAmount],
      ['opp-late', '2026-04', 'pending', lateAmount],
    ]);
    assert.deepEqual(
      (await auditDetails(org.id, 'period.reopened')).map((details) => [details.reason, details.rows_moved]),
      [['opp-late closed in April but reached the CRM in May', 1]],
    );
    const messages = await db.webhookMessage.findMany({ where: { org_id: org.id, type: 'period.reopened' } });
    assert.deepEqual(
      messages.map((message) => (message.payload as { data: unknown }).data),
      [
        {
          period: { id: '2026-04', kind: 'monthly', starts_on: '2026-04-01', ends_on: '2026-04-30', status: 'open' },
          reason: 'opp-late closed in April but reached the CRM in May',
        },
      ],
    );
    // The approvals were of the period before it reopened: every statement waits again, so the lock is refused.
    const waiting = await admin.api.POST('/admin/v1/periods/{id}/lock', APRIL);
    assert.equal(waiting.response.status, 409);
    assert.deepEqual(
      waiting.error?.waiting?.map((each) => each.state),
      ['waiting_manager'],
    );

    // A change from now on lands in April itself.
    await wonDeal(client, 'opp-later', 500_000, '2026-04-25');
    assert.equal((await standingRows(org.id)).filter((row) => row[1] === '2026-05').length, 0);

    await admin.api.POST('/admin/v1/periods/{id}/lock', { ...APRIL, body: { override_reason: 'approved by email' } });
    await admin.api.POST('/admin/v1/periods/{id}/mark-paid', APRIL);
    const paid = await admin.api.POST('/admin/v1/periods/{id}/reopen', { ...APRIL, body: { reason: 'one more' } });
    assert.equal(paid.response.status, 409);
    assert.match(paid.error?.reason ?? '', /never reopens/);
    assert.equal((await db.period.findFirst({ where: { org_id: org.id, id: '2026-04' } }))?.status, 'paid');
  });

  test('four-eyes: one admin requests with a reason, the same admin again is refused, a second admin reopens', async ({
    org,
    server,
    signedIn,
  }) => {
    const db = testDatabase();
    const { client: first } = await signedIn('admin', org.id);
    await first.api.PUT('/admin/v1/pay-settings', { body: { four_eyes_payment: true } });
    await first.api.POST('/admin/v1/periods/{id}/lock', APRIL);
    const requested = await first.api.POST('/admin/v1/periods/{id}/reopen', {
      ...APRIL,
      body: { reason: 'a missed deal' },
    });
    assert.deepEqual(
      [requested.data?.changed, requested.data?.period.status, requested.data?.reopen_request?.reason],
      [false, 'locked', 'a missed deal'],
    );
    const twice = await first.api.POST('/admin/v1/periods/{id}/reopen', { ...APRIL, body: { reason: 'again' } });
    assert.equal(twice.response.status, 409);

    const account = await createAdmin(db, org.id, 'admin');
    const second = adminClient(server);
    await second.signIn(account.email, account.password);
    const done = await second.api.POST('/admin/v1/periods/{id}/reopen', { ...APRIL, body: { reason: 'agreed' } });
    assert.deepEqual([done.data?.changed, done.data?.period.status, done.data?.reopen_request], [true, 'open', null]);
    const [entry] = await auditDetails(org.id, 'period.reopened');
    assert.deepEqual([entry?.reason, entry?.requested_reason], ['agreed', 'a missed deal']);
  });

  test('a period capitalised in a month the accounting book has closed is refused, and stays locked', async ({
    org,
    signedIn,
  }) => {
    const { client } = await signedIn('admin', org.id);
    await client.api.POST('/admin/v1/periods/{id}/lock', APRIL);
    const accounting = testServices({ db: testDatabase() }).admin.accounting;
    await accounting.applyPolicy({ orgId: org.id, text: POLICY_YAML });
    await accounting.close(org.id, '2026-04');
    const refused = await client.api.POST('/admin/v1/periods/{id}/reopen', { ...APRIL, body: { reason: 'late' } });
    assert.equal(refused.response.status, 409);
    assert.match(refused.error?.reason ?? '', /accounting book has closed/);
    assert.equal(
      (await testDatabase().period.findFirst({ where: { org_id: org.id, id: '2026-04' } }))?.status,
      'locked',
    );
  });

  test('quotient periods reopen needs --reason and reopens a locked period', async ({ org, signedIn }) => {
    const { client } = await signedIn('admin', org.id);
    await client.api.POST('/admin/v1/periods/{id}/lock', APRIL);
    const without = await runCli(['periods', 'reopen', '2026-04', '--org', org.id]);
    assert.notEqual(without.code, 0);
    assert.match(without.stderr, /--reason/);
    const reopened = await runCli(['periods', 'reopen', '2026-04', '--org', org.id, '--reason', 'late deal', '--json']);
    assert.equal(reopened.code, 0, reopened.stderr);
    assert.deepEqual(
      [(onlyJson(reopened) as { status?: string }).status, (onlyJson(reopened) as { changed?: boolean }).changed],
      ['open', true],
    );
  });
});
