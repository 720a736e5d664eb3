import assert from 'node:assert/strict';
import { describe } from 'vitest';
import type { Database } from '../../src/db/prisma.ts';
import type { RunningServer } from '../../src/main.ts';
import type { InquiryActor } from '../../src/services/inquiries.ts';
import { dealEvent, ingest } from '../factories/deals.ts';
import { applyPlan, planDocument } from '../factories/plans.ts';
import { createEndpoint } from '../factories/webhooks.ts';
import { cliJson, onlyJson, runCli } from '../helpers/cli.ts';
import { test } from '../helpers/fixtures.ts';
import { sdkClient } from '../helpers/sdk.ts';
import { testServices } from '../helpers/services.ts';

// Inquiries end to end: the rep's side through the service with explicit rep principals (the rep, their manager,
// another rep) and through /v1 with API keys, the admins' queue through the admin API, and what every step leaves
// behind: webhooks in the outbox, audit entries, times.

const ALL_SCOPES = ['deals:read', 'deals:write', 'earnings:read', 'plans:read', 'inquiries:write', 'rep_tokens:write'];

/**
 * An org with a plan, a won deal of rep-017 (an earning), a deal of rep-018, mgr-001 as rep-017's manager, an
 * endpoint that takes every webhook, and the three rep principals.
 */
async function world(
  db: Database,
  server: RunningServer,
  newOrg: (options?: { scopes?: string[] }) => Promise<{
    org: { id: string };
    rawKey: string;
  }>,
) {
  const { org, rawKey } = await newOrg({ scopes: ALL_SCOPES });
  const client = sdkClient(server, rawKey);
  await applyPlan(db, org.id, planDocument());
  await createEndpoint(db, org.id, 'http://127.0.0.1:9/inquiries');
  const won = await ingest(
    server,
    rawKey,
    dealEvent({}, { stage: 'closed_won', close_date: '2026-04-20', custom: { region: 'EMEA' } }),
  );
  const othersDeal = await ingest(server, rawKey, dealEvent({}, { owner_external_id: 'rep-018' }));
  const services = testServices({ db });
  await services.admin.repHierarchy.setManager({
    orgId: org.id,
    repExternalId: 'rep-017',
    managerExternalId: 'mgr-001',
    from: '2026-01-01',
  });
  const idOf = async (externalId: string) => {
    const user = await client.users.findByExternalId(externalId);
    assert.ok(user, externalId);
    return user.id;
  };
  const [repId, otherId, managerId] = await Promise.all([idOf('rep-017'), idOf('rep-018'), idOf('mgr-001')]);
  const earning = (await client.earnings.listPage({ user_id: repId })).earnings[0];
  assert.ok(earning, 'the won deal earned');
  const rep: InquiryActor = { kind: 'rep', userId: repId, visibleUserIds: [repId] };
  const manager: InquiryActor = { kind: 'rep', userId: managerId, visibleUserIds: [managerId, repId] };
  const otherRep: InquiryActor = { kind: 'rep', userId: otherId, visibleUserIds: [otherId] };
  return {
    org,
    rawKey,
    client,
    desk: services.api.inquiries,
    ids: { rep: repId, other: otherId, manager: managerId },
    earning,
    deals: { won: won.deal_id, others: othersDeal.deal_id, wonSourceEvent: won.source_event_id },
    actors: { rep, manager, otherRep },
  };
}

const statementOf = (periodId = '2026-04') => ({ kind: 'statement' as const, period_id: periodId });

describe('inquiries: who sees what', () => {
  test('a rep opens an inquiry on their earning; they, their manager and admins see it; another rep gets 404 everywhere', async ({
    db,
    server,
    newOrg,
    signedIn,
  }) => {
    const w = await world(db, server, newOrg);
    const { desk, org, actors } = w;
    const opened = await desk.open(org.id, actors.rep, {
      subject: { kind: 'earning', earning_id: w.earning.id },
      type: 'wrong_amount',
      expected_amount: { amount_cents: 600000, currency: 'USD' },
      message: 'I expected the accelerator.',
    });
    const id = opened.inquiry.id;
    assert.equal(opened.inquiry.user_id, w.ids.rep);
    assert.equal(opened.inquiry.period_id, w.earning.period_id);
    assert.equal(opened.inquiry.deal_id, w.deals.won);

    for (const actor of [actors.rep, actors.manager]) {
      assert.equal((await desk.get(org.id, actor, id)).inquiry.id, id);
      assert.deepEqual(
        (await desk.list(org.id, actor, { filters: {}, limit: 10 })).inquiries.map((inquiry) => inquiry.id),
        [id],
      );
    }
    const { client: admin } = await signedIn('admin', org.id);
    const queue = await admin.api.GET('/admin/v1/inquiries');
    assert.deepEqual(
      queue.data?.inquiries.map((inquiry) => inquiry.id),
      [id],
    );

    await assert.rejects(desk.get(org.id, actors.otherRep, id), { code: 'not_found' });
    await assert.rejects(desk.comment(org.id, actors.otherRep, id, { body: 'mine?' }), { code: 'not_found' });
    await assert.rejects(desk.withdraw(org.id, actors.otherRep, id), { code: 'not_found' });
    assert.deepEqual((await desk.list(org.id, actors.otherRep, { filters: {}, limit: 10 })).inquiries, []);
    assert.deepEqual(
      (await desk.list(org.id, actors.otherRep, { filters: { userId: w.ids.rep }, limit: 10 })).inquiries,
      [],
    );
    const after = await desk.get(org.id, actors.rep, id);
    assert.equal(after.inquiry.state, 'open');
    assert.deepEqual(after.comments, []);
  });

  test('a rep cannot open an inquiry on another rep’s earning, deal or statement (404, nothing written)', async ({
    db,
    server,
    newOrg,
  }) => {
    const w = await world(db, server, newOrg);
    const { desk, org, actors } = w;
    const message = 'Not mine to ask';
    await assert.rejects(
      desk.open(org.id, actors.otherRep, {
        subject: { kind: 'earning', earning_id: w.earning.id },
        type: 'other',
        message,
      }),
      { code: 'not_found' },
    );
    await assert.rejects(
      desk.open(org.id, actors.rep, { subject: { kind: 'deal', deal_id: w.deals.others }, type: 'other', message }),
      { code: 'not_found' },
    );
    await assert.rejects(
      desk.open(org.id, actors.rep, { subject: statementOf(), user_id: w.ids.other, type: 'other', message }),
      { code: 'not_found' },
    );
    await assert.rejects(
      desk.open(org.id, actors.rep, { subject: statementOf(), user_id: w.ids.manager, type: 'other', message }),
      { code: 'not_found' },
    );
    assert.equal(await db.inquiry.count({ where: { org_id: org.id } }), 0);

    const forReport = await desk.open(org.id, actors.manager, {
      subject: statementOf(),
      user_id: w.ids.rep,
      type: 'missing_deal',
      message: 'Globex is missing from April',
    });
    assert.equal(forReport.inquiry.user_id, w.ids.rep);
    assert.equal(forReport.inquiry.opened_by_id, w.ids.manager);
    assert.equal(forReport.inquiry.opened_by_label, 'mgr-001');
  });
});

describe('inquiries: what each step leaves', () => {
  test('webhooks: inquiry.created, then inquiry.updated per change visible to the rep; an internal note sends none', async ({
    db,
    server,
    newOrg,
    signedIn,
  }) => {
    const w = await world(db, server, newOrg);
    const { desk, org, actors } = w;
    const before = await db.webhookMessage.count({ where: { org_id: org.id } });
    const { inquiry } = await desk.open(org.id, actors.rep, {
      subject: statementOf(),
      type: 'missing_deal',
      message: 'Globex?',
    });
    const { client: admin, account } = await signedIn('admin', org.id);
    const path = { params: { path: { id: inquiry.id } } };
    await admin.api.POST('/admin/v1/inquiries/{id}/comments', {
      ...path,
      body: { body: 'Checking the CRM', internal: true },
    });
    await admin.api.POST('/admin/v1/inquiries/{id}/assign', { ...path, body: { assignee_id: account.admin.id } });
    await admin.api.POST('/admin/v1/inquiries/{id}/start-review', path);
    await desk.comment(org.id, actors.rep, inquiry.id, { body: 'Signed 28 April' });
    const resolved = await admin.api.POST('/admin/v1/inquiries/{id}/resolve', {
      ...path,
      body: {
        note: 'Owner corrected in the CRM',
        amount_changed: { amount_cents: 84000, currency: 'USD' },
        links: [{ kind: 'source_event', id: w.deals.wonSourceEvent }, { kind: 'recompute' }],
      },
    });
    assert.equal(resolved.response.status, 200, JSON.stringify(resolved.error));

    const messages = await db.webhookMessage.findMany({ where: { org_id: org.id }, orderBy: { id: 'asc' } });
    const sent = messages.slice(before).map((message) => {
      const body = message.payload as { type: string; data: Record<string, unknown> };
      return [body.type, body.data.change ?? null, (body.data.inquiry as { state: string }).state];
    });
    assert.deepEqual(sent, [
      ['inquiry.created', null, 'open'],
      ['inquiry.updated', 'assigned', 'open'],
      ['inquiry.updated', 'review_started', 'in_review'],
      ['inquiry.updated', 'commented', 'in_review'],
      ['inquiry.updated', 'resolved', 'resolved'],
    ]);
    const last = messages.at(-1)?.payload as { data: { inquiry: { resolution: unknown } } };
    assert.deepEqual(last.data.inquiry.resolution, {
      amount_changed: { amount_cents: 84000, currency: 'USD' },
      note: 'Owner corrected in the CRM',
      links: [
        { kind: 'source_event', id: w.deals.wonSourceEvent },
        { kind: 'recompute', id: null },
      ],
    });

    const audited = await db.auditEntry.findMany({
      where: { org_id: org.id, action: { startsWith: 'inquiry.' } },
      orderBy: [{ occurred_at: 'asc' }, { id: 'asc' }],
    });
    assert.deepEqual(
      audited.map((entry) => [entry.action, entry.actor_type]),
      [
        ['inquiry.opened', 'rep'],
        ['inquiry.noted', 'admin'],
        ['inquiry.assigned', 'admin'],
        ['inquiry.review_started', 'admin'],
        ['inquiry.commented', 'rep'],
        ['inquiry.resolved', 'admin'],
      ],
    );
    assert.equal(audited[1]?.actor, account.email);
  });

  test('times: the first response is the admin’s first answer (not the rep’s comment nor a note); closing records closed_at', async ({
    db,
    server,
    newOrg,
    signedIn,
  }) => {
    const w = await world(db, server, newOrg);
    const { desk, org, actors } = w;
    const { inquiry } = await desk.open(org.id, actors.rep, { subject: statementOf(), type: 'other', message: 'Why?' });
    const { client: admin } = await signedIn('admin', org.id);
    const path = { params: { path: { id: inquiry.id } } };
    await desk.comment(org.id, actors.rep, inquiry.id, { body: 'Anyone?' });
    await admin.api.POST('/admin/v1/inquiries/{id}/comments', { ...path, body: { body: 'note', internal: true } });
    let seen = (await admin.api.GET('/admin/v1/inquiries/{id}', path)).data;
    assert.equal(seen?.first_response_at, null);
    assert.deepEqual(
      seen?.comments?.map((comment) => [comment.author.kind, comment.internal]),
      [
        ['rep', false],
        ['admin', true],
      ],
    );
    assert.deepEqual(
      (await desk.get(org.id, actors.rep, inquiry.id)).comments.map((comment) => comment.body),
      ['Anyone?'],
      'the rep never sees an internal note',
    );

    const answered = await admin.api.POST('/admin/v1/inquiries/{id}/comments', { ...path, body: { body: 'On it' } });
    const firstResponse = answered.data?.first_response_at;
    assert.ok(firstResponse);
    assert.ok(firstResponse >= inquiry.created_at.toISOString());
    const rejected = await admin.api.POST('/admin/v1/inquiries/{id}/reject', {
      ...path,
      body: { reason: 'Paid correctly' },
    });
    seen = rejected.data;
    assert.equal(seen?.state, 'rejected');
    assert.equal(seen?.rejection_reason, 'Paid correctly');
    assert.equal(seen?.first_response_at, firstResponse, 'the first response stays the first');
    assert.ok(seen?.closed_at && seen.closed_at >= firstResponse);
    assert.equal(seen?.in_review_at, null);

    const late = await admin.api.POST('/admin/v1/inquiries/{id}/comments', { ...path, body: { body: 'one more' } });
    assert.equal(late.response.status, 409);
    assert.equal(late.error?.error, 'invalid_state');
  });
});

describe('inquiries: the admin queue', () => {
  test('filters by state, assignee, age and rep; oldest first; paginated', async ({ db, server, newOrg, signedIn }) => {
    const w = await world(db, server, newOrg);
    const { desk, org, actors } = w;
    const open = (actor: InquiryActor, userId?: string) =>
      desk.open(org.id, actor, {
        subject: statementOf(),
        ...(userId ? { user_id: userId } : {}),
        type: 'other',
        message: 'q',
      });
    const first = (await open(actors.rep)).inquiry;
    const second = (await open(actors.otherRep)).inquiry;
    const cutoff = new Date(Date.now() + 1);
    await new Promise((resolve) => setTimeout(resolve, 5));
    const third = (await open(actors.manager, w.ids.rep)).inquiry;
    const { client: admin, account } = await signedIn('admin', org.id);
    await admin.api.POST('/admin/v1/inquiries/{id}/assign', {
      params: { path: { id: second.id } },
      body: { assignee_id: account.admin.id },
    });
    await admin.api.POST('/admin/v1/inquiries/{id}/start-review', { params: { path: { id: third.id } } });

    const ids = async (query: Record<string, unknown>) => {
      const { data, error } = await admin.api.GET('/admin/v1/inquiries', { params: { query } });
      assert.ok(data, JSON.stringify(error));
      return data.inquiries.map((inquiry) => inquiry.id);
    };
    assert.deepEqual(await ids({}), [first.id, second.id, third.id]);
    assert.deepEqual(await ids({ state: ['open'] }), [first.id, second.id]);
    assert.deepEqual(await ids({ state: ['in_review', 'resolved'] }), [third.id]);
    assert.deepEqual(await ids({ assignee: account.admin.id }), [second.id]);
    assert.deepEqual(await ids({ assignee: 'none' }), [first.id, third.id]);
    assert.deepEqual(await ids({ opened_before: cutoff.toISOString() }), [first.id, second.id]);
    assert.deepEqual(await ids({ user_id: w.ids.rep }), [first.id, third.id]);

    const page = await admin.api.GET('/admin/v1/inquiries', { params: { query: { limit: 2 } } });
    assert.deepEqual(
      page.data?.inquiries.map((inquiry) => inquiry.id),
      [first.id, second.id],
    );
    const cursor = page.data?.next_cursor;
    assert.ok(cursor);
    assert.deepEqual(await ids({ limit: 2, cursor }), [third.id]);
    const mismatched = await admin.api.GET('/admin/v1/inquiries', { params: { query: { cursor, state: ['open'] } } });
    assert.equal(mismatched.response.status, 400);
  });

  test('resolve checks its links; a viewer changes nothing; an assignee must be an active admin', async ({
    db,
    server,
    newOrg,
    signedIn,
  }) => {
    const w = await world(db, server, newOrg);
    const { inquiry } = await w.desk.open(w.org.id, w.actors.rep, {
      subject: statementOf(),
      type: 'other',
      message: 'q',
    });
    const { client: admin } = await signedIn('admin', w.org.id);
    const { client: viewer, account: viewerAccount } = await signedIn('viewer', w.org.id);
    const path = { params: { path: { id: inquiry.id } } };
    const resolveWith = (links: Array<{ kind: 'adjustment' | 'source_event' | 'recompute'; id?: string | null }>) =>
      admin.api.POST('/admin/v1/inquiries/{id}/resolve', {
        ...path,
        body: { note: 'done', amount_changed: null, links },
      });

    const refusals: Array<[string, Awaited<ReturnType<typeof resolveWith>>]> = [
      ['unknown source event', await resolveWith([{ kind: 'source_event', id: 'se_01kpnx2b3c4d5e6f7g8h9j0k1m' }])],
      ['malformed adjustment id', await resolveWith([{ kind: 'adjustment', id: 'adjustment-7' }])],
      ['adjustment without id', await resolveWith([{ kind: 'adjustment' }])],
      ['recompute with an id', await resolveWith([{ kind: 'recompute', id: 'rc_1' }])],
      ['no links', await resolveWith([])],
    ];
    for (const [name, result] of refusals) {
      assert.equal(result.response.status, 400, name);
      assert.equal(result.error?.error, 'invalid_body', name);
    }
    const byViewer = await viewer.api.POST('/admin/v1/inquiries/{id}/start-review', path);
    assert.equal(byViewer.response.status, 403);
    const toViewer = await admin.api.POST('/admin/v1/inquiries/{id}/assign', {
      ...path,
      body: { assignee_id: viewerAccount.admin.id },
    });
    assert.equal(toViewer.response.status, 400);
    const unchanged = await admin.api.GET('/admin/v1/inquiries/{id}', path);
    assert.equal(unchanged.data?.state, 'open');
    assert.equal(unchanged.data?.assignee, null);
    assert.equal(await db.inquiryLink.count({ where: { org_id: w.org.id } }), 0);

    const { adjustment } = await testServices({ db }).admin.adjustments.create(w.org.id, {
      user_id: w.ids.rep,
      period_id: '2026-04',
      amount_cents: 5000,
      category: 'correction',
      reason: 'The missing split',
    });
    const adjusted = await resolveWith([{ kind: 'adjustment', id: adjustment.id }]);
    assert.equal(adjusted.data?.state, 'resolved');
    assert.deepEqual(adjusted.data?.resolution?.links, [{ kind: 'adjustment', id: adjustment.id }]);
  });

  test('a resolution naming an adjustment the org does not have is refused, and changes nothing', async ({
    db,
    server,
    newOrg,
    signedIn,
  }) => {
    const w = await world(db, server, newOrg);
    const { inquiry } = await w.desk.open(w.org.id, w.actors.rep, {
      subject: statementOf(),
      type: 'other',
      message: 'q',
    });
    const { client: admin } = await signedIn('admin', w.org.id);
    const stranger = await newOrg({ scopes: ALL_SCOPES });
    await ingest(server, stranger.rawKey, dealEvent({}, { owner_external_id: 'rep-900' }));
    const strangerRep = await sdkClient(server, stranger.rawKey).users.findByExternalId('rep-900');
    assert.ok(strangerRep);
    const { adjustment: foreign } = await testServices({ db }).admin.adjustments.create(stranger.org.id, {
      user_id: strangerRep.id,
      period_id: '2026-04',
      amount_cents: 5000,
      category: 'one_off_bonus',
      reason: 'Not this org',
    });
    const resolveWith = (id: string) =>
      admin.api.POST('/admin/v1/inquiries/{id}/resolve', {
        params: { path: { id: inquiry.id } },
        body: { note: 'done', amount_changed: null, links: [{ kind: 'adjustment', id }] },
      });
    for (const [name, id] of [
      ['never added', 'adj_01kpnx0c7ad2m4n6p8q0r2s4t6'],
      ["another org's", foreign.id],
    ] as const) {
      const refused = await resolveWith(id);
      assert.equal(refused.response.status, 400, name);
      assert.equal(refused.error?.error, 'invalid_body', name);
      assert.equal(refused.error?.reason, `links[0].id: no adjustment ${id} in the org`, name);
    }
    const unchanged = await admin.api.GET('/admin/v1/inquiries/{id}', { params: { path: { id: inquiry.id } } });
    assert.equal(unchanged.data?.state, 'open');
    assert.equal(unchanged.data?.resolution, null);
    assert.equal(await db.inquiryLink.count({ where: { org_id: w.org.id } }), 0);
  });

  test('an admin opens an inquiry for a rep; a subject without its rep or of another org is refused', async ({
    db,
    server,
    newOrg,
    signedIn,
  }) => {
    const w = await world(db, server, newOrg);
    const { client: admin, account } = await signedIn('admin', w.org.id);
    const opened = await admin.api.POST('/admin/v1/inquiries', {
      body: {
        subject: { kind: 'deal', deal_id: w.deals.won },
        user_id: w.ids.rep,
        type: 'wrong_credit',
        expected_amount: { amount_cents: 25000, currency: 'EUR' },
        message: 'Split should be 50/50 with rep-018',
      },
    });
    assert.equal(opened.response.status, 201, JSON.stringify(opened.error));
    assert.deepEqual(opened.data?.opened_by, { kind: 'admin', id: account.admin.id, label: account.email });
    assert.deepEqual(opened.data?.expected_amount, { amount_cents: 25000, currency: 'EUR' });
    assert.equal(opened.data?.subject.deal_id, w.deals.won);

    const withoutRep = await admin.api.POST('/admin/v1/inquiries', {
      body: { subject: { kind: 'statement', period_id: '2026-04' }, type: 'other', message: 'whose?' },
    });
    assert.equal(withoutRep.response.status, 400);
    const stranger = await newOrg({ scopes: ALL_SCOPES });
    const foreign = await ingest(server, stranger.rawKey, dealEvent());
    const ofAnotherOrg = await admin.api.POST('/admin/v1/inquiries', {
      body: { subject: { kind: 'deal', deal_id: foreign.deal_id }, user_id: w.ids.rep, type: 'other', message: 'x' },
    });
    assert.equal(ofAnotherOrg.response.status, 404);
    assert.equal(await db.inquiry.count({ where: { org_id: w.org.id } }), 1);
  });

  test('an inquiry of another org is 404 to an admin', async ({ db, server, newOrg, signedIn }) => {
    const w = await world(db, server, newOrg);
    const { inquiry } = await w.desk.open(w.org.id, w.actors.rep, {
      subject: statementOf(),
      type: 'other',
      message: 'q',
    });
    const { client: stranger } = await signedIn('admin');
    const path = { params: { path: { id: inquiry.id } } };
    assert.equal((await stranger.api.GET('/admin/v1/inquiries/{id}', path)).response.status, 404);
    assert.equal((await stranger.api.POST('/admin/v1/inquiries/{id}/start-review', path)).response.status, 404);
  });
});

describe('inquiries over /v1 with rep tokens', () => {
  test('a rep opens and withdraws their own, their manager follows and answers, another rep gets 404', async ({
    db,
    server,
    newOrg,
  }) => {
    const w = await world(db, server, newOrg);
    const tokenFor = async (userId: string) => {
      const minted = await w.client.repTokens.create({ user_id: userId });
      return { tokenId: minted.id, client: sdkClient(server, minted.token, { maxRetries: 0 }) };
    };
    const rep = await tokenFor(w.ids.rep);
    const manager = await tokenFor(w.ids.manager);
    const other = await tokenFor(w.ids.other);

    const opened = await rep.client.inquiries.open({
      subject: { kind: 'statement', period_id: '2026-04' },
      type: 'missing_deal',
      expected_amount: { amount_cents: 50000, currency: 'USD' },
      message: 'Globex is missing',
    });
    assert.equal(opened.user_id, w.ids.rep);
    assert.deepEqual(opened.opened_by, { kind: 'rep', user_id: w.ids.rep, label: 'rep-017' });
    const onTheEarning = await rep.client.inquiries.open({
      subject: { kind: 'earning', earning_id: w.earning.id },
      type: 'wrong_amount',
      message: 'Rate?',
    });

    assert.deepEqual(
      (await manager.client.inquiries.listPage()).inquiries.map((inquiry) => inquiry.id),
      [onTheEarning.id, opened.id],
    );
    const answered = await manager.client.inquiries.comment(opened.id, 'I confirm: signed on 28 April');
    assert.deepEqual(
      answered.comments?.map((comment) => [comment.author.label, comment.body]),
      [['mgr-001', 'I confirm: signed on 28 April']],
    );
    assert.equal(answered.first_response_at, null, "a manager's comment is not the admins' response");

    for (const attempt of [
      () => other.client.inquiries.get(opened.id),
      () => other.client.inquiries.comment(opened.id, 'me too'),
      () => other.client.inquiries.withdraw(opened.id),
      () =>
        other.client.inquiries.open({
          subject: { kind: 'earning', earning_id: w.earning.id },
          type: 'other',
          message: 'x',
        }),
      () =>
        other.client.inquiries.open({
          subject: { kind: 'statement', period_id: '2026-04' },
          user_id: w.ids.rep,
          type: 'other',
          message: 'x',
        }),
      () =>
        rep.client.inquiries.open({ subject: { kind: 'deal', deal_id: w.deals.others }, type: 'other', message: 'x' }),
    ]) {
      await assert.rejects(attempt(), { status: 404, error: 'not_found' });
    }
    assert.deepEqual((await other.client.inquiries.listPage()).inquiries, []);
    assert.deepEqual((await other.client.inquiries.listPage({ user_id: w.ids.rep })).inquiries, []);

    assert.equal((await rep.client.inquiries.withdraw(opened.id)).state, 'withdrawn');
    await assert.rejects(rep.client.inquiries.withdraw(opened.id), { status: 409, error: 'invalid_state' });
    await assert.rejects(manager.client.inquiries.comment(opened.id, 'late'), { status: 409, error: 'invalid_state' });

    const audited = await db.auditEntry.findMany({
      where: { org_id: w.org.id, action: { startsWith: 'inquiry.' }, actor_type: 'rep' },
      orderBy: [{ occurred_at: 'asc' }, { id: 'asc' }],
    });
    assert.deepEqual(
      audited.map((entry) => [entry.action, entry.actor, (entry.details as { token_id: string }).token_id]),
      [
        ['inquiry.opened', w.ids.rep, rep.tokenId],
        ['inquiry.opened', w.ids.rep, rep.tokenId],
        ['inquiry.commented', w.ids.manager, manager.tokenId],
        ['inquiry.withdrawn', w.ids.rep, rep.tokenId],
      ],
    );
  });
});

describe('inquiries over /v1 with an API key', () => {
  test('an integration opens, lists, reads, comments and withdraws; scopes are checked', async ({
    db,
    server,
    newOrg,
  }) => {
    const w = await world(db, server, newOrg);
    const opened = await w.client.inquiries.open({
      subject: { kind: 'earning', earning_id: w.earning.id },
      type: 'wrong_plan',
      message: 'Should be on the SMB plan',
    });
    assert.equal(opened.state, 'open');
    assert.equal(opened.opened_by.kind, 'api_key');
    assert.equal(opened.user_id, w.ids.rep);
    await w.desk.comment(w.org.id, { kind: 'admin', admin: { kind: 'cli' } }, opened.id, {
      body: 'internal only',
      internal: true,
    });
    const commented = await w.client.inquiries.comment(opened.id, 'Attached the contract');
    assert.deepEqual(
      commented.comments?.map((comment) => [comment.author.kind, comment.body]),
      [['api_key', 'Attached the contract']],
    );
    assert.deepEqual(
      (await w.client.inquiries.listPage({ state: 'open' })).inquiries.map((inquiry) => inquiry.id),
      [opened.id],
    );
    assert.equal((await w.client.inquiries.withdraw(opened.id)).state, 'withdrawn');
    await assert.rejects(w.client.inquiries.withdraw(opened.id), { status: 409 });

    const reader = await newOrg({ scopes: ['earnings:read'] });
    const readerClient = sdkClient(server, reader.rawKey);
    assert.deepEqual((await readerClient.inquiries.listPage()).inquiries, []);
    await assert.rejects(readerClient.inquiries.get(opened.id), { status: 404 });
    await assert.rejects(readerClient.inquiries.open({ subject: statementOf(), type: 'other', message: 'x' }), {
      status: 403,
      reason: 'missing scope: inquiries:write',
    });

    await assert.rejects(w.client.inquiries.open({ subject: statementOf(), type: 'other', message: 'whose?' }), {
      status: 400,
    });
    await assert.rejects(
      w.client.inquiries.open({ subject: { kind: 'earning', deal_id: w.deals.won }, type: 'other', message: 'x' }),
      { status: 400 },
    );
  });
});

describe('quotient inquiries', () => {
  // Each command is a process of its own that starts Node and connects to the database.
  test('lists the queue, assigns by email, resolves with links and an amount, shows the thread', {
    timeout: 180_000,
  }, async ({ db, server, newOrg, signedIn }) => {
    const w = await world(db, server, newOrg);
    const { inquiry } = await w.desk.open(w.org.id, w.actors.rep, {
      subject: statementOf(),
      type: 'missing_deal',
      message: 'Globex?',
    });
    const { account } = await signedIn('admin', w.org.id);

    const listed = await cliJson<{ inquiries: Array<{ id: string; state: string }> }>([
      'inquiries',
      'list',
      '--org',
      w.org.id,
      '--state',
      'open,in_review',
    ]);
    assert.deepEqual(
      listed.inquiries.map((row) => [row.id, row.state]),
      [[inquiry.id, 'open']],
    );
    const assigned = await cliJson<{ assignee: { email: string } }>([
      'inquiries',
      'assign',
      inquiry.id,
      '--org',
      w.org.id,
      '--to',
      account.email,
    ]);
    assert.equal(assigned.assignee.email, account.email);
    const resolved = await cliJson<{ state: string; resolution: unknown }>([
      'inquiries',
      'resolve',
      inquiry.id,
      '--org',
      w.org.id,
      '--note',
      'Corrected in the CRM',
      '--link',
      `source_event:${w.deals.wonSourceEvent}`,
      '--link',
      'recompute',
      '--amount-changed',
      '84000:USD',
    ]);
    assert.equal(resolved.state, 'resolved');
    assert.deepEqual(resolved.resolution, {
      amount_changed: { amount_cents: 84000, currency: 'USD' },
      note: 'Corrected in the CRM',
      links: [
        { kind: 'source_event', id: w.deals.wonSourceEvent },
        { kind: 'recompute', id: null },
      ],
    });
    const shown = await runCli(['inquiries', 'show', inquiry.id, '--org', w.org.id]);
    assert.equal(shown.code, 0, shown.stderr);
    assert.match(shown.stdout, /resolved {2}missing_deal/);
    assert.match(shown.stdout, /settled by: recompute/);

    const again = await runCli(['inquiries', 'reject', inquiry.id, '--org', w.org.id, '--reason', 'no', '--json']);
    assert.equal(again.code, 2);
    assert.equal((onlyJson(again) as { error: string }).error, 'invalid_state');
    const audited = await db.auditEntry.findMany({ where: { org_id: w.org.id, action: 'inquiry.resolved' } });
    assert.equal(audited[0]?.actor, 'cli');
  });
});
