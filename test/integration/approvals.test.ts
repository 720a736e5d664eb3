import assert from 'node:assert/strict';
import fc from 'fast-check';
import { describe } from 'vitest';
import type { QuotientClient } from '../../sdk/src/index.ts';
import type { ApprovalPolicy, ApprovalStep, ApproverPrincipal } from '../../src/domain/approvals.ts';
import { Refusal } from '../../src/domain/refusal.ts';
import { orgViewer } from '../../src/domain/viewer.ts';
import { ERROR_STATUS } from '../../src/http/errors.ts';
import { createAdmin } from '../factories/admins.ts';
import { applyPlan, planDocument } from '../factories/plans.ts';
import { adminClient } from '../helpers/adminClient.ts';
import { cliJson, onlyJson, runCli } from '../helpers/cli.ts';
import { testDatabase } from '../helpers/database.ts';
import { state } from '../helpers/earnings.ts';
import { test } from '../helpers/fixtures.ts';
import { MINT_SCOPES } from '../helpers/repWorld.ts';
import { sdkClient } from '../helpers/sdk.ts';
import { testServices } from '../helpers/services.ts';

// Statement approvals before pay: the service with an explicit approver principal (a rep's, an admin's), /v1 with
// rep tokens (the rep principal) and API keys, the lock that waits for approvals, four-eyes payment through the admin API.

const PERIOD = '2026-04';

function services() {
  return testServices({ db: testDatabase() }).admin;
}

/** rep-1 under mgr-1, rep-2 under mgr-2, each with a won deal in April: their users' ids. */
async function team(orgId: string, client: QuotientClient) {
  await applyPlan(testDatabase(), orgId, planDocument());
  for (const [index, owner] of ['rep-1', 'rep-2', 'mgr-1', 'mgr-2'].entries()) {
    await client.deals.ingestEvent({
      external_id: `opp-${owner}`,
      state: {
        ...state(1_000_000 * (index + 1), 'closed_won', '2026-04-10', { region: 'NA' }),
        owner_external_id: owner,
      },
    });
  }
  const admin = services();
  await admin.repHierarchy.setManager({
    orgId,
    repExternalId: 'rep-1',
    managerExternalId: 'mgr-1',
    from: '2026-01-01',
  });
  await admin.repHierarchy.setManager({
    orgId,
    repExternalId: 'rep-2',
    managerExternalId: 'mgr-2',
    from: '2026-01-01',
  });
  const users = await testDatabase().user.findMany({ where: { org_id: orgId } });
  const id = (external: string) => users.find((user) => user.external_id === external)?.id ?? '';
  return { rep1: id('rep-1'), rep2: id('rep-2'), mgr1: id('mgr-1'), mgr2: id('mgr-2') };
}

async function approvalRows(orgId: string): Promise<number> {
  return testDatabase().statementApproval.count({ where: { org_id: orgId } });
}

type Actor = 'rep' | 'manager' | 'other_rep' | 'other_manager' | 'admin';
type Action = { kind: 'approve'; actor: Actor } | { kind: 'change' } | { kind: 'lock' };

/** What the documented rules say an approval of rep-1's statement does, given the model's state. */
function expected(
  policy: ApprovalPolicy,
  actor: Actor,
  model: { standing: Set<ApprovalStep>; locked: boolean },
): { code: string } | { step: ApprovalStep; changes: boolean } {
  if (actor === 'admin') return { code: 'forbidden' };
  if (actor === 'other_rep' || actor === 'other_manager') return { code: 'not_found' };
  const step: ApprovalStep = actor === 'rep' ? 'rep' : 'manager';
  if (policy === 'none') return { code: 'invalid_state' };
  const steps: ApprovalStep[] = policy === 'rep_then_manager' ? ['rep', 'manager'] : [policy];
  if (!steps.includes(step)) return { code: 'forbidden' };
  if (model.locked) return { code: 'invalid_state' };
  if (step === 'manager' && policy === 'rep_then_manager' && !model.standing.has('rep')) {
    return { code: 'invalid_state' };
  }
  return { step, changes: !model.standing.has(step) };
}

describe('statement approvals', () => {
  test('over random sequences by the rep, their manager, another rep, another manager and an admin: only the documented transitions succeed, and a refusal changes nothing', {
    timeout: 240_000,
  }, async ({ newOrg }) => {
    // Each run is a fresh org; the actions go to the service with an explicit principal.
    await fc.assert(
      fc.asyncProperty(
        fc.constantFrom<ApprovalPolicy>('none', 'rep', 'manager', 'rep_then_manager'),
        fc.array(
          fc.oneof(
            {
              weight: 6,
              arbitrary: fc
                .constantFrom<Actor>('rep', 'manager', 'other_rep', 'other_manager', 'admin')
                .map((actor): Action => ({ kind: 'approve', actor })),
            },
            { weight: 1, arbitrary: fc.constant<Action>({ kind: 'change' }) },
            { weight: 1, arbitrary: fc.constant<Action>({ kind: 'lock' }) },
          ),
          { minLength: 1, maxLength: 10 },
        ),
        async (policy, actions) => {
          const { org, client } = await newOrg();
          const ids = await team(org.id, client);
          const admin = services();
          await admin.approvals.updateSettings(org.id, { statement_approval_policy: policy });
          const principals: Record<Actor, ApproverPrincipal> = {
            rep: { kind: 'rep', orgId: org.id, userId: ids.rep1 },
            manager: { kind: 'rep', orgId: org.id, userId: ids.mgr1 },
            other_rep: { kind: 'rep', orgId: org.id, userId: ids.rep2 },
            other_manager: { kind: 'rep', orgId: org.id, userId: ids.mgr2 },
            admin: { kind: 'admin', orgId: org.id, adminId: 'adm_x', email: 'a@example.com' },
          };
          const model = { standing: new Set<ApprovalStep>(), locked: false };
          let changes = 0;
          for (const action of actions) {
            if (action.kind === 'change') {
              if (model.locked) continue;
              await admin.adjustments.create(org.id, {
                user_id: ids.rep1,
                period_id: PERIOD,
                amount_cents: 1000 + changes++,
                category: 'correction',
                reason: 'a change after approval',
              });
              model.standing.clear();
              continue;
            }
            if (action.kind === 'lock') {
              const waiting = (await admin.approvals.waiting(org.id, PERIOD)).map((view) => view.user_external_id);
              const mustWait = !model.locked && policy !== 'none';
              if (mustWait) assert.ok(waiting.length > 0);
              try {
                await admin.periods.lock(org.id, PERIOD);
                assert.ok(!mustWait, 'a lock succeeded while statements were waiting');
                model.locked = true;
              } catch (error) {
                assert.ok(error instanceof Refusal && error.code === 'invalid_state' && mustWait, String(error));
                assert.ok(Array.isArray(error.details.waiting));
              }
              continue;
            }
            const want = expected(policy, action.actor, model);
            const before = await admin.approvals.view(orgViewer(org.id), ids.rep1, PERIOD);
            const rowsBefore = await approvalRows(org.id);
            try {
              const result = await admin.approvals.approve(principals[action.actor], ids.rep1, PERIOD);
              assert.ok('step' in want, `${action.actor} under ${policy} succeeded; expected ${JSON.stringify(want)}`);
              assert.equal(result.changed, want.changes);
              assert.equal(await approvalRows(org.id), rowsBefore + (want.changes ? 1 : 0));
              model.standing.add(want.step);
              assert.deepEqual(
                new Set(result.view.steps.filter((step) => step.standing).map((step) => step.step)),
                model.standing,
              );
            } catch (error) {
              if (!(error instanceof Refusal)) throw error;
              assert.ok('code' in want, `${action.actor} under ${policy} was refused: ${error.reason}`);
              assert.equal(error.code, want.code, error.reason);
              assert.equal(ERROR_STATUS[error.code], { forbidden: 403, not_found: 404, invalid_state: 409 }[want.code]);
              assert.equal(await approvalRows(org.id), rowsBefore);
              assert.deepEqual(await admin.approvals.view(orgViewer(org.id), ids.rep1, PERIOD), before);
            }
          }
        },
      ),
      { numRuns: 8, seed: 2024 },
    );
  });

  test('an approval is reset by a late deal event, and shows the difference from what was approved', async ({
    org,
    client,
  }) => {
    const ids = await team(org.id, client);
    const admin = services();
    await admin.approvals.updateSettings(org.id, { statement_approval_policy: 'rep' });
    const approved = await admin.approvals.approve({ kind: 'rep', orgId: org.id, userId: ids.rep1 }, ids.rep1, PERIOD);
    assert.equal(approved.view.state, 'approved');
    assert.deepEqual(
      (await admin.approvals.waiting(org.id, PERIOD)).map((view) => view.user_external_id),
      ['mgr-1', 'mgr-2', 'rep-2'],
    );

    await client.deals.ingestEvent({
      external_id: 'opp-late',
      state: { ...state(2_000_000, 'closed_won', '2026-04-20', { region: 'NA' }), owner_external_id: 'rep-1' },
    });
    const now = await admin.approvals.view(orgViewer(org.id), ids.rep1, PERIOD);
    assert.equal(now?.state, 'waiting_rep');
    const [step] = now?.steps ?? [];
    assert.equal(step?.standing, false);
    assert.equal(step?.difference?.approved_payable_cents, approved.view.payable_cents);
    assert.equal(step?.difference?.now_payable_cents, now?.payable_cents);
    assert.ok((now?.payable_cents ?? 0) > approved.view.payable_cents);
    assert.ok(
      step?.difference?.rows.some((row) => row.approved_cents === null && row.description.includes('opp-late')),
    );

    const again = await admin.approvals.approve({ kind: 'rep', orgId: org.id, userId: ids.rep1 }, ids.rep1, PERIOD);
    assert.deepEqual([again.changed, again.view.state], [true, 'approved']);
  });

  test('a lock is refused listing the statements waiting, then overridden with a reason, audited', async ({
    org,
    client,
    db,
    signedIn,
  }) => {
    await team(org.id, client);
    const { client: console_ } = await signedIn('admin', org.id);
    const set = await console_.api.PUT('/admin/v1/pay-settings', {
      body: { statement_approval_policy: 'manager' },
    });
    assert.deepEqual(set.data, {
      statement_approval_policy: 'manager',
      four_eyes_payment: false,
      pay_waits_for_acceptance: false,
    });

    const refused = await console_.api.POST('/admin/v1/periods/{id}/lock', { params: { path: { id: PERIOD } } });
    assert.equal(refused.response.status, 409);
    assert.equal(refused.error?.error, 'invalid_state');
    assert.deepEqual(
      refused.error?.waiting?.map((each) => [each.user_external_id, each.state]),
      [
        ['mgr-1', 'waiting_manager'],
        ['mgr-2', 'waiting_manager'],
        ['rep-1', 'waiting_manager'],
        ['rep-2', 'waiting_manager'],
      ],
    );
    assert.equal((await db.period.findFirst({ where: { org_id: org.id, id: PERIOD } }))?.status, 'open');
    const listed = await console_.api.GET('/admin/v1/periods/{id}/approvals', { params: { path: { id: PERIOD } } });
    assert.equal(listed.data?.statements.length, 4);

    const locked = await console_.api.POST('/admin/v1/periods/{id}/lock', {
      params: { path: { id: PERIOD } },
      body: { override_reason: 'Managers are at the offsite; approved by the VP by email' },
    });
    assert.equal(locked.response.status, 200);
    assert.equal(locked.data?.period.status, 'locked');
    const [entry] = await db.auditEntry.findMany({ where: { org_id: org.id, action: 'period.lock_overridden' } });
    assert.equal(
      (entry?.details as { reason?: string } | undefined)?.reason,
      'Managers are at the offsite; approved by the VP by email',
    );
    assert.equal((entry?.details as { waiting?: unknown[] } | undefined)?.waiting?.length, 4);
  });

  test('four-eyes payment: one admin requests, the same admin again is refused, a second admin pays', async ({
    org,
    client,
    db,
    server,
    signedIn,
  }) => {
    await team(org.id, client);
    const { client: first } = await signedIn('admin', org.id);
    await first.api.PUT('/admin/v1/pay-settings', { body: { four_eyes_payment: true } });
    assert.equal(
      (await first.api.POST('/admin/v1/periods/{id}/lock', { params: { path: { id: PERIOD } } })).response.status,
      200,
    );

    const requested = await first.api.POST('/admin/v1/periods/{id}/mark-paid', { params: { path: { id: PERIOD } } });
    assert.equal(requested.response.status, 200);
    assert.equal(requested.data?.changed, false);
    assert.equal(requested.data?.period.status, 'locked');
    assert.ok(requested.data?.payment_request);

    const twice = await first.api.POST('/admin/v1/periods/{id}/mark-paid', { params: { path: { id: PERIOD } } });
    assert.equal(twice.response.status, 409);
    assert.equal(twice.error?.error, 'invalid_state');
    assert.equal((await db.period.findFirst({ where: { org_id: org.id, id: PERIOD } }))?.status, 'locked');

    const account = await createAdmin(db, org.id, 'admin');
    const second = adminClient(server);
    assert.equal((await second.signIn(account.email, account.password)).response.status, 201);
    const paid = await second.api.POST('/admin/v1/periods/{id}/mark-paid', { params: { path: { id: PERIOD } } });
    assert.equal(paid.response.status, 200);
    assert.deepEqual([paid.data?.changed, paid.data?.period.status, paid.data?.payment_request], [true, 'paid', null]);
    const [entry] = await db.auditEntry.findMany({ where: { org_id: org.id, action: 'period.paid' } });
    assert.equal(entry?.actor, account.email);
  });

  test('the sign-off board: who each statement waits on and since when, a reset with its difference, bulk reminders recorded once an hour, the payment request the second admin sees, totals with the adjustments that equal the payroll file', {
    timeout: 120_000,
  }, async ({ org, client, db, server, signedIn }) => {
    const ids = await team(org.id, client);
    const admin = services();
    await admin.approvals.updateSettings(org.id, {
      statement_approval_policy: 'rep_then_manager',
      four_eyes_payment: true,
    });
    const rep = (userId: string): ApproverPrincipal => ({ kind: 'rep', orgId: org.id, userId });
    // rep-1 approved, then a correction resets it; rep-2 approved, and waits on mgr-2.
    const first = await admin.approvals.approve(rep(ids.rep1), ids.rep1, PERIOD);
    await admin.approvals.approve(rep(ids.rep2), ids.rep2, PERIOD);
    await admin.adjustments.create(org.id, {
      user_id: ids.rep1,
      period_id: PERIOD,
      amount_cents: 12_345,
      category: 'correction',
      reason: 'a missed deal',
    });
    const { client: firstAdmin, account: firstAccount } = await signedIn('admin', org.id);
    const email = firstAccount.email;
    const board = async () => {
      const answer = await firstAdmin.api.GET('/admin/v1/periods/{id}/sign-off', { params: { path: { id: PERIOD } } });
      assert.equal(answer.response.status, 200);
      return answer.data as NonNullable<typeof answer.data>;
    };
    const open = await board();
    const row = (userId: string) => open.statements.find((each) => each.user_id === userId);
    assert.deepEqual(
      open.statements.map((each) => [each.user_external_id, each.approval.state]),
      [
        ['mgr-1', 'waiting_rep'],
        ['mgr-2', 'waiting_rep'],
        ['rep-1', 'waiting_rep'],
        ['rep-2', 'waiting_manager'],
      ],
    );
    assert.deepEqual(
      row(ids.rep2)?.waiting_on.map((person) => [person.external_id, person.role]),
      [['mgr-2', 'manager']],
    );
    const rep2Approval = row(ids.rep2)?.approval.steps.find((step) => step.step === 'rep')?.approval?.approved_at;
    assert.equal(row(ids.rep2)?.waiting_since, rep2Approval);
    const reset = row(ids.rep1)?.approval.steps.find((step) => step.step === 'rep');
    assert.equal(reset?.standing, false);
    assert.equal(row(ids.rep1)?.waiting_since, first.view.steps[0]?.approval?.created_at.toISOString());
    assert.deepEqual(
      reset?.difference?.adjustments.map((each) => [each.approved_cents, each.now_cents]),
      [[null, 12_345]],
    );
    assert.deepEqual(
      row(ids.mgr1)?.waiting_on.map((person) => person.role),
      ['rep'],
    );
    assert.equal(row(ids.mgr1)?.waiting_since, '2026-04-01T00:00:00.000Z');
    const payable = open.statements.reduce((sum, each) => sum + (each.currencies[0]?.payable_cents ?? 0), 0);
    assert.deepEqual(open.totals, [
      {
        currency: 'USD',
        earnings_cents: payable - 12_345,
        adjustments_cents: 12_345,
        payable_cents: payable,
        held_pending_acceptance_cents: 0,
        payroll_cents: null,
      },
    ]);

    // Bulk: every waiting statement; again within the hour, each is skipped; an unknown rep is refused.
    const remind = (body: { user_ids?: string[] }) =>
      firstAdmin.api.POST('/admin/v1/periods/{id}/sign-off/reminders', { params: { path: { id: PERIOD } }, body });
    const reminded = await remind({});
    assert.equal(reminded.response.status, 200);
    assert.equal(reminded.data?.reminded.length, 4);
    assert.equal(reminded.data?.delivered_by_webhook, false);
    assert.deepEqual(
      reminded.data?.reminded.find((each) => each.user_id === ids.rep2)?.recipients.map((p) => p.external_id),
      ['mgr-2'],
    );
    const again = await remind({ user_ids: [ids.rep1] });
    assert.deepEqual(again.data?.skipped, [{ user_id: ids.rep1, reason: 'reminded_recently' }]);
    const unknown = await remind({ user_ids: ['user_nobody'] });
    assert.equal(unknown.response.status, 400);
    assert.equal(await db.statementReminder.count({ where: { org_id: org.id } }), 4);
    assert.equal(await db.auditEntry.count({ where: { org_id: org.id, action: 'statement_approval.reminded' } }), 4);
    assert.ok(
      (await board()).statements.every((each) => each.last_reminded_at === reminded.data?.reminded[0]?.reminded_at),
    );

    // Locked and asked to pay by the first admin: the second admin sees who asked, on the board and the periods list.
    await admin.periods.lock(org.id, PERIOD, undefined, { overrideReason: 'the managers are away' });
    const requested = await firstAdmin.api.POST('/admin/v1/periods/{id}/mark-paid', {
      params: { path: { id: PERIOD } },
    });
    assert.ok(requested.data?.payment_request);
    assert.equal((await remind({})).response.status, 409);
    const account = await createAdmin(db, org.id, 'admin');
    const second = adminClient(server);
    await second.signIn(account.email, account.password);
    const seen = await second.api.GET('/admin/v1/periods/{id}/sign-off', { params: { path: { id: PERIOD } } });
    assert.equal(seen.data?.payment_request?.requested_by, email);
    const listed = (await second.api.GET('/admin/v1/periods')).data?.periods.find((each) => each.id === PERIOD);
    assert.equal(listed?.payment_request?.requested_by, email);
    assert.deepEqual(listed?.adjustments, [{ currency: 'USD', count: 1, amount_cents: 12_345 }]);
    // The totals with the adjustment are what the payroll file pays.
    const csv = String(
      (
        await second.api.GET('/admin/v1/periods/{id}/payroll-export', {
          params: { path: { id: PERIOD } },
          parseAs: 'text',
        })
      ).data,
    );
    const [header, ...lines] = csv.trim().split(/\r?\n/);
    const column = (header ?? '').split(',').indexOf('total_cents');
    const payroll = lines.reduce((sum, line) => sum + Number(line.split(',')[column]), 0);
    assert.equal(payroll, payable);
    assert.deepEqual(listed?.payable, [{ currency: 'USD', amount_cents: payroll }]);
    const locked = seen.data?.totals[0];
    assert.deepEqual(
      [locked?.payroll_cents, locked?.payable_cents, locked?.adjustments_cents],
      [payroll, payroll, 12_345],
    );
  });

  test('/v1: the approval is read with earnings:read; approving with an API key is 403, as it is a rep action', async ({
    org,
    client,
  }) => {
    const ids = await team(org.id, client);
    await services().approvals.updateSettings(org.id, { statement_approval_policy: 'rep' });
    const view = await client.statements.approval(ids.rep1, PERIOD);
    assert.deepEqual([view.policy, view.state, view.steps.map((step) => step.step)], ['rep', 'waiting_rep', ['rep']]);
    await assert.rejects(client.statements.approve(ids.rep1, PERIOD), { status: 403 });
    await assert.rejects(client.statements.approval('user_01knvyqwr3fmtr77g6vdncr588', PERIOD), { status: 404 });
    assert.equal(await approvalRows(org.id), 0);
  });

  test('/v1 with rep tokens: a rep approves their own statement, their manager then approves it; another rep and another manager see no such user', async ({
    newOrg,
    server,
  }) => {
    const { org, client } = await newOrg({ scopes: MINT_SCOPES });
    const ids = await team(org.id, client);
    await services().approvals.updateSettings(org.id, { statement_approval_policy: 'rep_then_manager' });
    const as = async (userId: string) =>
      sdkClient(server, (await client.repTokens.create({ user_id: userId })).token, { maxRetries: 0 });
    const rep1 = await as(ids.rep1);
    const rep2 = await as(ids.rep2);
    const mgr1 = await as(ids.mgr1);
    const mgr2 = await as(ids.mgr2);

    await assert.rejects(rep2.statements.approve(ids.rep1, PERIOD), { status: 404 });
    await assert.rejects(mgr2.statements.approve(ids.rep1, PERIOD), { status: 404 });
    await assert.rejects(mgr1.statements.approve(ids.rep1, PERIOD), { status: 409 });
    assert.equal(await approvalRows(org.id), 0, 'a refusal records nothing');

    const own = await rep1.statements.approve(ids.rep1, PERIOD);
    assert.deepEqual([own.changed, own.statement_approval.state], [true, 'waiting_manager']);
    const again = await rep1.statements.approve(ids.rep1, PERIOD);
    assert.deepEqual([again.changed, again.statement_approval.state], [false, 'waiting_manager']);
    const byManager = await mgr1.statements.approve(ids.rep1, PERIOD);
    assert.deepEqual([byManager.changed, byManager.statement_approval.state], [true, 'approved']);
    assert.equal(await approvalRows(org.id), 2);
    const approvals = await testDatabase().statementApproval.findMany({
      where: { org_id: org.id },
      orderBy: { created_at: 'asc' },
    });
    assert.deepEqual(
      approvals.map((each) => [each.step, each.approver_type, each.approver_id]),
      [
        ['rep', 'rep', ids.rep1],
        ['manager', 'rep', ids.mgr1],
      ],
    );

    // A rep token reads its own statement's approval, and not another rep's.
    assert.equal((await rep1.statements.approval(ids.rep1, PERIOD)).state, 'approved');
    await assert.rejects(rep2.statements.approval(ids.rep1, PERIOD), { status: 404 });
    // The API key still may not approve: it acts for no rep.
    await assert.rejects(client.statements.approve(ids.rep2, PERIOD), { status: 403 });
  });

  test('the CLI sets the policy, and its lock is refused with the waiting statements, then overridden', {
    timeout: 120_000,
  }, async ({ org, client }) => {
    await team(org.id, client);
    const settings = await cliJson<{ statement_approval_policy: string }>([
      'approvals',
      'settings',
      '--org',
      org.id,
      '--policy',
      'rep',
    ]);
    assert.equal(settings.statement_approval_policy, 'rep');
    const listed = await cliJson<{ statements: Array<{ state: string }> }>([
      'approvals',
      'list',
      PERIOD,
      '--org',
      org.id,
    ]);
    assert.deepEqual(
      listed.statements.map((each) => each.state),
      ['waiting_rep', 'waiting_rep', 'waiting_rep', 'waiting_rep'],
    );
    const board = await cliJson<{ statements: Array<{ approval: { state: string }; waiting_on: unknown[] }> }>([
      'periods',
      'board',
      PERIOD,
      '--org',
      org.id,
    ]);
    assert.deepEqual(
      board.statements.map((each) => [each.approval.state, each.waiting_on.length]),
      listed.statements.map(() => ['waiting_rep', 1]),
    );
    const human = await runCli(['periods', 'board', PERIOD, '--org', org.id]);
    assert.equal(human.code, 0, human.stderr);
    assert.match(human.stdout, /approvals: rep/);
    assert.match(human.stdout, /waiting_rep/);
    const refused = await runCli(['periods', 'lock', PERIOD, '--org', org.id, '--json']);
    assert.equal(refused.code, 2);
    const error = onlyJson(refused) as { error: string; waiting: unknown[] };
    assert.deepEqual([error.error, error.waiting.length], ['invalid_state', 4]);
    const locked = await cliJson<{ status: string; changed: boolean }>([
      'periods',
      'lock',
      PERIOD,
      '--org',
      org.id,
      '--override-reason',
      'Quarter-end deadline',
    ]);
    assert.deepEqual([locked.status, locked.changed], ['locked', true]);
  });
});
