import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { mkdtemp, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe } from 'vitest';
import { stringify } from 'yaml';
import type { Database } from '../../src/db/prisma.ts';
import type { RunningServer } from '../../src/main.ts';
import { dealEvent, ingest } from '../factories/deals.ts';
import { planDocument } from '../factories/plans.ts';
import { createEndpoint } from '../factories/webhooks.ts';
import { adminClient } from '../helpers/adminClient.ts';
import { cliJson, onlyJson, runCli, SLOW_CLI_TEST_MS } from '../helpers/cli.ts';
import { test } from '../helpers/fixtures.ts';
import { testServices } from '../helpers/services.ts';
import { assertMatchesContract } from '../helpers/webhookReceiver.ts';

// Plan acceptance end to end (docs/plan-acceptance.md): requests when a version is applied (and for a rep newly
// assigned), the rep accepting with their own token through /v1, what is refused, the document kept as shown, the
// admins' view and reminders through the admin API, webhooks and audit, and pay waiting for acceptance.

const SCOPES = ['deals:read', 'deals:write', 'earnings:read', 'plans:read', 'rep_tokens:write'];

type NewOrg = (options?: { scopes?: string[] }) => Promise<{
  org: { id: string };
  rawKey: string;
  client: import('../../sdk/src/index.ts').QuotientClient;
}>;

function plan(key: string, assignees: string[], rateBps = 1000) {
  return planDocument({
    key,
    name: 'Core AE plan',
    assignees,
    chips: [{ key: 'base', name: 'Base commission', kind: 'commission', rate_bps: rateBps }],
  });
}

/** An org with rep-017 (won deal in April) and rep-018, an endpoint for every webhook, and a plan for rep-017. */
async function world(db: Database, server: RunningServer, newOrg: NewOrg) {
  const { org, rawKey, client } = await newOrg({ scopes: SCOPES });
  await createEndpoint(db, org.id, 'http://127.0.0.1:9/acceptances');
  await ingest(
    server,
    rawKey,
    dealEvent({}, { stage: 'closed_won', close_date: '2026-04-20', amount_cents: 1_000_000 }),
  );
  await ingest(server, rawKey, dealEvent({}, { owner_external_id: 'rep-018' }));
  const services = testServices({ db });
  const key = `core-${org.id.slice(-6)}`;
  const apply = (assignees: string[], rateBps?: number) =>
    services.admin.plans.apply({ orgId: org.id, text: stringify(plan(key, assignees, rateBps)) });
  const first = await apply(['rep-017']);
  const idOf = async (externalId: string) => {
    const user = await client.users.findByExternalId(externalId);
    assert.ok(user, externalId);
    return user.id;
  };
  const [rep017, rep018] = await Promise.all([idOf('rep-017'), idOf('rep-018')]);
  const tokenOf = async (userId: string) => (await client.repTokens.create({ user_id: userId })).token;
  const v1 = async (
    token: string,
    path: string,
    init: { method?: string; body?: unknown; headers?: Record<string, string> } = {},
  ) => {
    const response = await fetch(`${server.url}${path}`, {
      method: init.method ?? 'GET',
      headers: {
        authorization: `Bearer ${token}`,
        ...(init.body === undefined ? {} : { 'content-type': 'application/json' }),
        ...init.headers,
      },
      ...(init.body === undefined ? {} : { body: JSON.stringify(init.body) }),
    });
    const text = await response.text();
    const json = response.headers.get('content-type')?.startsWith('application/json') ? JSON.parse(text) : null;
    return { status: response.status, text, json, headers: response.headers };
  };
  const messages = async (type: string) =>
    (await db.webhookMessage.findMany({ where: { org_id: org.id, type }, orderBy: { id: 'asc' } })).map(
      (message) => message.payload as unknown as { data: { plan_acceptance: Record<string, unknown> } },
    );
  const audits = (action: string) => db.auditEntry.findMany({ where: { org_id: org.id, action } });
  return { org, rawKey, client, services, apply, first, ids: { rep017, rep018 }, tokenOf, v1, messages, audits };
}

describe('plan acceptance', () => {
  test('a new version asks every rep assigned to it; a rep newly assigned is asked too', async ({
    db,
    server,
    newOrg,
  }) => {
    const w = await world(db, server, newOrg);
    const list = async () =>
      (await w.v1(w.rawKey, `/v1/plan-acceptances?plan_id=${w.first.plan_id}`)).json.plan_acceptances as Array<
        Record<string, unknown>
      >;
    const asked = await list();
    assert.deepEqual(
      asked.map((entry) => [entry.user_external_id, entry.plan_version, entry.state]),
      [['rep-017', 1, 'requested']],
    );
    assert.equal(asked[0]?.plan_name, 'Core AE plan');

    const second = await w.apply(['rep-017', 'rep-018'], 1200);
    assert.equal(second.version, 2);
    const after = await list();
    assert.deepEqual(after.map((entry) => [entry.user_external_id, entry.plan_version]).sort(), [
      ['rep-017', 1],
      ['rep-017', 2],
      ['rep-018', 2],
    ]);
    const requested = await w.messages('plan.acceptance_requested');
    assert.equal(requested.length, 3);
    for (const message of requested) assertMatchesContract(message);
    assert.deepEqual(requested.map((message) => message.data.plan_acceptance.user_external_id).sort(), [
      'rep-017',
      'rep-017',
      'rep-018',
    ]);
    assert.equal((await w.audits('plan_acceptance.requested')).length, 3);

    // Applying the same file again changes nothing and asks nobody again.
    const same = await w.apply(['rep-017', 'rep-018'], 1200);
    assert.equal(same.changed, false);
    assert.equal((await list()).length, 3);

    // Filters, paging and the rep's own view: rep-018 sees theirs only.
    const page = await w.v1(w.rawKey, `/v1/plan-acceptances?plan_id=${w.first.plan_id}&limit=2`);
    assert.equal(page.json.plan_acceptances.length, 2);
    const rest = await w.v1(
      w.rawKey,
      `/v1/plan-acceptances?plan_id=${w.first.plan_id}&limit=2&cursor=${page.json.next_cursor}`,
    );
    assert.equal(rest.json.plan_acceptances.length, 1);
    assert.equal(rest.json.next_cursor, null);
    const token018 = await w.tokenOf(w.ids.rep018);
    const own = await w.v1(token018, '/v1/plan-acceptances');
    assert.deepEqual(
      own.json.plan_acceptances.map((entry: { user_id: string }) => entry.user_id),
      [w.ids.rep018],
    );
    const others = await w.v1(token018, `/v1/plan-acceptances?user_id=${w.ids.rep017}`);
    assert.deepEqual(others.json.plan_acceptances, []);
  });

  test('the rep accepts with their token: name, time, address, user agent and token kept; twice is once', async ({
    db,
    server,
    newOrg,
  }) => {
    const w = await world(db, server, newOrg);
    const token = await w.tokenOf(w.ids.rep017);
    const path = `/v1/plans/${w.first.plan_id}/acceptances`;

    const wrong = await w.v1(token, path, { method: 'POST', body: { typed_name: 'Rep 018' } });
    assert.equal(wrong.status, 422);
    assert.equal(wrong.json.error, 'typed_name_mismatch');
    assert.match(wrong.json.reason, /^typed_name: /);

    const byKey = await w.v1(w.rawKey, path, { method: 'POST', body: { typed_name: 'rep-017' } });
    assert.equal(byKey.status, 403);
    assert.equal(byKey.json.error, 'rep_token_required');

    const other = await w.v1(await w.tokenOf(w.ids.rep018), path, { method: 'POST', body: { typed_name: 'rep-018' } });
    assert.equal(other.status, 404, 'a plan the rep is not assigned to');
    assert.equal((await w.messages('plan.accepted')).length, 0, 'refusals change nothing');

    const accepted = await w.v1(token, path, {
      method: 'POST',
      body: { typed_name: '  REP-017 ' },
      headers: { 'user-agent': 'AcceptanceTest/1.0' },
    });
    assert.equal(accepted.status, 200, accepted.text);
    assert.equal(accepted.json.changed, true);
    const acceptance = accepted.json.plan_acceptance;
    assert.equal(acceptance.state, 'accepted');
    assert.equal(acceptance.typed_name, 'REP-017');
    assert.equal(acceptance.user_agent, 'AcceptanceTest/1.0');
    assert.ok(acceptance.ip_address, 'the address is recorded');
    assert.match(acceptance.rep_token_id, /^rtk_/);
    assert.ok(acceptance.accepted_at);

    const again = await w.v1(token, path, { method: 'POST', body: { typed_name: 'rep-017' } });
    assert.equal(again.status, 200);
    assert.equal(again.json.changed, false);
    assert.deepEqual(again.json.plan_acceptance, acceptance);

    const fetched = await w.v1(w.rawKey, `/v1/plan-acceptances/${acceptance.id}`);
    assert.deepEqual(fetched.json, acceptance);
    const webhooks = await w.messages('plan.accepted');
    assert.equal(webhooks.length, 1);
    assertMatchesContract(webhooks[0]);
    assert.deepEqual(webhooks[0]?.data.plan_acceptance, acceptance);
    const [entry] = await w.audits('plan.accepted');
    assert.ok(entry);
    assert.equal(entry.actor_type, 'rep');
    assert.equal(entry.actor, w.ids.rep017);
    assert.equal((entry.details as Record<string, unknown>).rep_token_id, acceptance.rep_token_id);
  });

  test('the document accepted is kept: the same bytes and hash after the plan changes again', async ({
    db,
    server,
    newOrg,
  }) => {
    const w = await world(db, server, newOrg);
    const token = await w.tokenOf(w.ids.rep017);
    const [asked] = (await w.v1(token, '/v1/plan-acceptances')).json.plan_acceptances;
    const shown = await w.v1(token, `/v1/plan-acceptances/${asked.id}/document`);
    assert.equal(shown.status, 200);
    assert.equal(createHash('sha256').update(shown.text).digest('hex'), asked.document_sha256);
    assert.equal(shown.json.plan.version_number, 1);
    const accepted = await w.v1(token, `/v1/plans/${w.first.plan_id}/acceptances`, {
      method: 'POST',
      body: { typed_name: 'rep-017' },
    });
    assert.equal(accepted.json.plan_acceptance.document_sha256, asked.document_sha256);

    await w.apply(['rep-017'], 2500);
    const kept = await w.v1(token, `/v1/plan-acceptances/${asked.id}/document`);
    assert.equal(kept.text, shown.text);
    assert.equal(createHash('sha256').update(kept.text).digest('hex'), asked.document_sha256);
    const current = await w.v1(token, `/v1/plans/${w.first.plan_id}/document`);
    assert.notEqual(current.text, shown.text, 'the plan moved on; the kept document did not');

    const html = await w.v1(token, `/v1/plan-acceptances/${asked.id}/document?format=html`);
    assert.equal(html.status, 200);
    assert.match(html.headers.get('content-type') ?? '', /^text\/html/);
    assert.match(html.text, /Core AE plan/);
    assert.match(html.text, /10\.00%/);
    const pdf = await w.v1(token, `/v1/plan-acceptances/${asked.id}/document`, {
      headers: { accept: 'application/pdf' },
    });
    assert.equal(pdf.status, 200);
    assert.equal(pdf.headers.get('content-type'), 'application/pdf');

    const peer = await w.v1(await w.tokenOf(w.ids.rep018), `/v1/plan-acceptances/${asked.id}/document`);
    assert.equal(peer.status, 404);
  });

  test("the org's terms and the rep's name are in the document a rep accepts; new terms, a new hash for the next version", async ({
    db,
    server,
    newOrg,
  }) => {
    const w = await world(db, server, newOrg);
    const email = `terms-${w.org.id}@example.com`;
    const { password } = await w.services.admin.admins.create({ orgId: w.org.id, email, role: 'admin' });
    const admin = adminClient(server);
    assert.equal((await admin.signIn(email, password)).response.status, 201);
    const none = await admin.api.GET('/admin/v1/plan-document-terms');
    assert.deepEqual(none.data, { clawback: '', leaver: '', governing: '' });
    const tooLong = await admin.api.PUT('/admin/v1/plan-document-terms', { body: { leaver: 'x'.repeat(20001) } });
    assert.equal(tooLong.response.status, 400);
    assert.deepEqual(
      (await admin.api.GET('/admin/v1/plan-document-terms')).data,
      none.data,
      'a refusal changes nothing',
    );

    const set = await admin.api.PUT('/admin/v1/plan-document-terms', {
      body: {
        clawback: 'Commission on a deal cancelled within 90 days is recovered.\n\nRecovery comes from later pay.',
        governing: '  The laws of England apply.  ',
      },
    });
    assert.equal(set.response.status, 200, JSON.stringify(set.error));
    assert.deepEqual(set.data, {
      clawback: 'Commission on a deal cancelled within 90 days is recovered.\n\nRecovery comes from later pay.',
      leaver: '',
      governing: 'The laws of England apply.',
    });
    const [entry] = await w.audits('plan_document_terms.updated');
    assert.ok(entry);
    assert.deepEqual((entry.details as { before: unknown }).before, none.data);

    // The rep's display name heads their document, in place of the external id.
    await w.services.admin.repNames.setByAdmin({ orgId: w.org.id, userId: w.ids.rep017, name: 'Ada Lovelace' });
    const token = await w.tokenOf(w.ids.rep017);
    const current = (await w.v1(token, `/v1/plans/${w.first.plan_id}/document`)).json;
    assert.match(current.subtitle, /for Ada Lovelace$/);
    assert.deepEqual(current.terms, [
      {
        key: 'clawback',
        title: 'Clawback',
        paragraphs: ['Commission on a deal cancelled within 90 days is recovered.', 'Recovery comes from later pay.'],
      },
      { key: 'governing', title: 'Governing terms', paragraphs: ['The laws of England apply.'] },
    ]);
    const html = await w.v1(token, `/v1/plans/${w.first.plan_id}/document?format=html`);
    assert.match(html.text, /Your company&#39;s terms|Your company's terms/);
    assert.match(html.text, /The laws of England apply\./);

    // Version 1 was asked before the terms: its kept document has none. Version 2's has them, with its own hash.
    const [v1] = (await w.v1(token, '/v1/plan-acceptances')).json.plan_acceptances;
    const keptV1 = await w.v1(token, `/v1/plan-acceptances/${v1.id}/document`);
    assert.equal(keptV1.json.terms, undefined);
    await w.apply(['rep-017'], 2500);
    const asked = (await w.v1(token, '/v1/plan-acceptances')).json.plan_acceptances.find(
      (acceptance: { plan_version: number }) => acceptance.plan_version === 2,
    );
    assert.ok(asked);
    const shown = await w.v1(token, `/v1/plan-acceptances/${asked.id}/document`);
    assert.equal(shown.json.terms.length, 2);
    assert.equal(createHash('sha256').update(shown.text).digest('hex'), asked.document_sha256);
    assert.notEqual(asked.document_sha256, v1.document_sha256);
    const wrong = await w.v1(token, `/v1/plans/${w.first.plan_id}/acceptances`, {
      method: 'POST',
      body: { typed_name: 'Ada' },
    });
    assert.equal(wrong.status, 422);
    assert.doesNotMatch(wrong.text, /Lovelace/, 'a refusal does not tell the name to type');
    const accepted = await w.v1(token, `/v1/plans/${w.first.plan_id}/acceptances`, {
      method: 'POST',
      headers: { 'user-agent': 'Terms-Browser/1.0' },
      body: { typed_name: 'ada lovelace' },
    });
    assert.equal(accepted.status, 200, accepted.text);
    assert.equal(accepted.json.plan_acceptance.document_sha256, asked.document_sha256);
    assert.equal(accepted.json.plan_acceptance.user_agent, 'Terms-Browser/1.0');
    assert.ok(accepted.json.plan_acceptance.accepted_at);

    // Terms changed later leave the accepted document as it was.
    await admin.api.PUT('/admin/v1/plan-document-terms', { body: { governing: '' } });
    const kept = await w.v1(token, `/v1/plan-acceptances/${asked.id}/document`);
    assert.equal(kept.text, shown.text);
    assert.equal((await w.v1(token, `/v1/plans/${w.first.plan_id}/document`)).json.terms.length, 1);
  });

  test('admins see who has and has not accepted a version, and remind at most once an hour', async ({
    db,
    server,
    newOrg,
    signedIn,
  }) => {
    const w = await world(db, server, newOrg);
    const second = await w.apply(['rep-017', 'rep-018'], 1200);
    const token = await w.tokenOf(w.ids.rep017);
    await w.v1(token, `/v1/plans/${w.first.plan_id}/acceptances`, { method: 'POST', body: { typed_name: 'rep-017' } });
    const { client: admin } = await signedIn('admin', w.org.id);
    const version = await admin.api.GET('/admin/v1/plans/{id}/versions/{version_id}/acceptances', {
      params: { path: { id: w.first.plan_id, version_id: second.version_id } },
    });
    assert.equal(version.response.status, 200);
    assert.equal(version.data?.accepted_count, 1);
    assert.equal(version.data?.waiting_count, 1);
    assert.deepEqual(
      version.data?.acceptances.map((entry) => [entry.user_name, entry.plan_acceptance.state]),
      [
        ['rep-018', 'requested'],
        ['rep-017', 'accepted'],
      ],
    );
    const unknown = await admin.api.GET('/admin/v1/plans/{id}/versions/{version_id}/acceptances', {
      // Another last character than the id's own: an id already ending in z would otherwise name itself.
      params: {
        path: {
          id: w.first.plan_id,
          version_id: w.first.version_id.replace(/.$/, (last) => (last === 'z' ? 'y' : 'z')),
        },
      },
    });
    assert.equal(unknown.response.status, 404);

    const waiting = version.data?.acceptances[0]?.plan_acceptance.id as string;
    const done = version.data?.acceptances[1]?.plan_acceptance.id as string;
    const remind = (id: string) =>
      admin.api.POST('/admin/v1/plan-acceptances/{id}/remind', { params: { path: { id } } });
    const first = await remind(waiting);
    assert.equal(first.response.status, 200);
    assert.ok(first.data?.reminded_at);
    const soon = await remind(waiting);
    assert.equal(soon.response.status, 429);
    assert.equal((soon.error as { error: string }).error, 'reminded_recently');
    assert.ok(Number(soon.response.headers.get('retry-after')) > 3500);
    const accepted = await remind(done);
    assert.equal(accepted.response.status, 409);

    // An hour later the rep may be reminded again.
    let now = new Date(Date.now() + 61 * 60 * 1000);
    const later = testServices({ db, now: () => now }).admin.planAcceptances;
    const reminded = await later.remind(w.org.id, waiting);
    assert.equal(reminded.reminded_at?.toISOString(), now.toISOString());
    now = new Date(now.getTime() + 60 * 1000);
    await assert.rejects(later.remind(w.org.id, waiting), { code: 'reminded_recently' });

    const requested = await w.messages('plan.acceptance_requested');
    assert.equal(requested.filter((message) => message.data.plan_acceptance.id === waiting).length, 3);
    assert.equal((await w.audits('plan_acceptance.reminded')).length, 2);
  });

  test('when pay waits for acceptance, the statement holds the plan and payouts show it held, out of their totals, until the rep accepts', async ({
    db,
    server,
    newOrg,
    signedIn,
  }) => {
    const w = await world(db, server, newOrg);
    const statement = async () =>
      (await w.v1(w.rawKey, `/v1/users/${w.ids.rep017}/statements/2026-04`)).json as {
        payable_cents: number;
        held_pending_acceptance_cents: number;
      };
    const before = await statement();
    assert.equal(before.payable_cents, 100_000);
    assert.equal(before.held_pending_acceptance_cents, 0, 'by default pay does not wait');

    const { client: admin } = await signedIn('admin', w.org.id);
    const settings = await admin.api.PUT('/admin/v1/pay-settings', { body: { pay_waits_for_acceptance: true } });
    assert.equal(settings.data?.pay_waits_for_acceptance, true);
    const held = await statement();
    assert.equal(held.payable_cents, 100_000);
    assert.equal(held.held_pending_acceptance_cents, 100_000);

    await w.services.admin.periods.lock(w.org.id, '2026-04');
    type Payout = {
      user_external_id: string;
      approved_cents: number;
      total_cents: number;
      held_pending_acceptance_cents: number;
    };
    const payouts = async () =>
      ((await w.v1(w.rawKey, '/v1/payouts?period_id=2026-04')).json.payouts as Payout[]).filter(
        (payout) => payout.user_external_id === 'rep-017',
      );
    const exported = async () => {
      const { data } = await admin.api.GET('/admin/v1/periods/{id}/payroll-export', {
        params: { path: { id: '2026-04' } },
        parseAs: 'text',
      });
      const [header, ...lines] = String(data).trim().split('\r\n') as [string, ...string[]];
      const columns = header.split(',');
      return lines
        .map((line) => Object.fromEntries(line.split(',').map((value, index) => [columns[index], value])))
        .filter((row) => row.user_external_id === 'rep-017');
    };
    const heldPayout = await payouts();
    assert.equal(heldPayout.length, 1, 'payroll sees the rep whose pay waits');
    assert.equal(heldPayout[0]?.approved_cents, 0, 'the held rows are left out of what payroll pays');
    assert.equal(heldPayout[0]?.total_cents, 0);
    assert.equal(heldPayout[0]?.held_pending_acceptance_cents, 100_000);
    const heldRow = await exported();
    assert.equal(heldRow[0]?.total_cents, '0');
    assert.equal(heldRow[0]?.held_pending_acceptance_cents, '100000');

    const token = await w.tokenOf(w.ids.rep017);
    await w.v1(token, `/v1/plans/${w.first.plan_id}/acceptances`, { method: 'POST', body: { typed_name: 'rep-017' } });
    assert.equal((await statement()).held_pending_acceptance_cents, 0);
    const [paid] = await payouts();
    assert.equal(paid?.total_cents, 100_000);
    assert.equal(paid?.held_pending_acceptance_cents, 0);
    const [paidRow] = await exported();
    assert.equal(paidRow?.total_cents, '100000');
    assert.equal(paidRow?.held_pending_acceptance_cents, '0');
  });

  test('a rep who comes to be after the version was applied is asked by their first deal, once; one not assigned is not', async ({
    db,
    server,
    newOrg,
  }) => {
    const w = await world(db, server, newOrg);
    // Version 2 names rep-021, who has no deal yet, so no user: the apply asks rep-017 only.
    const second = await w.apply(['rep-017', 'rep-021'], 1100);
    const acceptances = async () =>
      (await w.v1(w.rawKey, `/v1/plan-acceptances?plan_id=${w.first.plan_id}`)).json.plan_acceptances as Array<
        Record<string, unknown>
      >;
    const of = async (externalId: string) =>
      (await acceptances()).filter((entry) => entry.user_external_id === externalId);
    const requestedOf = async (externalId: string) =>
      (await w.messages('plan.acceptance_requested')).filter(
        (message) => message.data.plan_acceptance.user_external_id === externalId,
      );
    assert.deepEqual(await of('rep-021'), []);

    const key = await db.apiKey.findFirst({ where: { org_id: w.org.id } });
    await ingest(server, w.rawKey, dealEvent({}, { owner_external_id: 'rep-021' }));
    const asked = await of('rep-021');
    assert.deepEqual(
      asked.map((entry) => [entry.plan_version_id, entry.plan_version, entry.state]),
      [[second.version_id, 2, 'requested']],
    );
    // The document asked is the version's as a rep without a quota table of their own is shown it: rep-017's.
    const [rep017v2] = (await of('rep-017')).filter((entry) => entry.plan_version === 2);
    assert.equal(asked[0]?.document_sha256, rep017v2?.document_sha256);
    const messages = await requestedOf('rep-021');
    assert.equal(messages.length, 1);
    for (const message of messages) assertMatchesContract(message);
    assert.equal(messages[0]?.data.plan_acceptance.id, asked[0]?.id);
    const audited = (await w.audits('plan_acceptance.requested')).filter(
      (entry) => (entry.details as { plan_acceptance_id?: string }).plan_acceptance_id === asked[0]?.id,
    );
    assert.equal(audited.length, 1);
    assert.equal(audited[0]?.actor_type, 'api_key');
    assert.equal(audited[0]?.key_id, key?.id);
    assert.equal((audited[0]?.details as { reason?: string } | undefined)?.reason, 'new_rep');

    // A second deal asks nothing more; rep-022, whom no version names, is never asked.
    await ingest(server, w.rawKey, dealEvent({}, { owner_external_id: 'rep-021' }));
    await ingest(server, w.rawKey, dealEvent({}, { owner_external_id: 'rep-022' }));
    assert.equal((await of('rep-021')).length, 1);
    assert.equal((await requestedOf('rep-021')).length, 1);
    assert.deepEqual(await of('rep-022'), []);
    assert.deepEqual(await requestedOf('rep-022'), []);
    assert.equal((await w.audits('plan_acceptance.requested')).length, 3);

    // The rep accepts in the portal as any rep asked does.
    const rep021 = await w.client.users.findByExternalId('rep-021');
    assert.ok(rep021);
    const accepted = await w.v1(await w.tokenOf(rep021.id), `/v1/plans/${w.first.plan_id}/acceptances`, {
      method: 'POST',
      body: { typed_name: 'rep-021' },
    });
    assert.equal(accepted.json.plan_acceptance.state, 'accepted', accepted.text);
    assert.equal(accepted.json.plan_acceptance.plan_version, 2);
  });

  test('a version applied before new-rep documents were kept: acceptances request asks and keeps it for later reps', async ({
    db,
    server,
    newOrg,
  }) => {
    const w = await world(db, server, newOrg);
    const second = await w.apply(['rep-017', 'rep-023', 'rep-024'], 1300);
    // As a version applied before this release: no document kept for reps created after it.
    await db.planAcceptanceDocument.deleteMany({ where: { org_id: w.org.id, plan_version_id: second.version_id } });
    const asked = async () =>
      (await db.planAcceptance.findMany({ where: { org_id: w.org.id, plan_version_id: second.version_id } })).length;
    await ingest(server, w.rawKey, dealEvent({}, { owner_external_id: 'rep-023' }));
    assert.equal(await asked(), 1);
    assert.equal(await w.services.admin.planAcceptances.requestCurrent(w.org.id, w.first.plan_id), 1);
    assert.equal(await asked(), 2);
    await ingest(server, w.rawKey, dealEvent({}, { owner_external_id: 'rep-024' }));
    assert.equal(await asked(), 3);
    assert.equal(await w.services.admin.planAcceptances.requestCurrent(w.org.id, w.first.plan_id), 0);
  });

  test('new reps of a batch, an import, a quota upload and a manager assignment are asked too', async ({
    db,
    server,
    newOrg,
  }) => {
    const { org, rawKey } = await newOrg({ scopes: SCOPES });
    await createEndpoint(db, org.id, 'http://127.0.0.1:9/acceptances');
    const services = testServices({ db });
    const key = `all-${org.id.slice(-6)}`;
    const applied = await services.admin.plans.apply({
      orgId: org.id,
      text: stringify(
        planDocument({
          key,
          name: 'Everyone plan',
          assignees: 'all',
          chips: [{ key: 'base', name: 'Base commission', kind: 'commission', rate_bps: 1000 }],
        }),
      ),
    });
    const askedReps = async () => {
      const rows = await db.planAcceptance.findMany({ where: { org_id: org.id, plan_version_id: applied.version_id } });
      const users = await db.user.findMany({ where: { id: { in: rows.map((row) => row.user_id) } } });
      return users.map((user) => user.external_id).sort();
    };
    const messagesFor = async () =>
      (await db.webhookMessage.findMany({ where: { org_id: org.id, type: 'plan.acceptance_requested' } }))
        .map(
          (message) =>
            (message.payload as unknown as { data: { plan_acceptance: { user_external_id: string } } }).data
              .plan_acceptance.user_external_id,
        )
        .sort();
    assert.deepEqual(await askedReps(), []);

    // A batch: its owner and its split rep, each asked once although two events name them.
    const batch = await fetch(`${server.url}/v1/deals/events/batch`, {
      method: 'POST',
      headers: { authorization: `Bearer ${rawKey}`, 'content-type': 'application/json' },
      body: JSON.stringify({
        events: [
          dealEvent({}, { owner_external_id: 'rep-031' }),
          {
            ...dealEvent({}, { owner_external_id: 'rep-031' }),
            splits: [
              { owner_external_id: 'rep-031', share_bps: 5000 },
              { owner_external_id: 'rep-032', share_bps: 5000 },
            ],
          },
        ],
      }),
    });
    assert.equal(batch.status, 200, await batch.clone().text());
    assert.deepEqual(await askedReps(), ['rep-031', 'rep-032']);

    // An import (no key: the bulk path), audited as the admin who ran it (the CLI).
    const directory = await mkdtemp(join(tmpdir(), 'quotient-acceptance-import-'));
    const mapping = join(directory, 'mapping.yaml');
    await writeFile(
      mapping,
      'id: Deal\nstage: Phase\namount: Value\nclose_date: Closed\nowner: Seller\ndefault_currency: USD\n' +
        'won_stages: [Signed]\nlost_stages: [Dropped]\n',
    );
    const csv = join(directory, 'deals.csv');
    await writeFile(
      csv,
      [
        'Deal,Phase,Value,Closed,Seller',
        'IMP-1,Signed,1000,2026-04-02,rep-041',
        'IMP-2,Signed,900,2026-04-03,rep-042',
        'IMP-3,Open,500,2026-04-04,rep-041',
        'IMP-4,Open,500,2026-04-04,rep-031',
      ].join('\n'),
    );
    const imported = await runCli(['import', 'deals', csv, '--org', org.id, '--mapping', mapping, '--json']);
    assert.equal(imported.code, 0, imported.stdout + imported.stderr);
    assert.deepEqual(await askedReps(), ['rep-031', 'rep-032', 'rep-041', 'rep-042']);
    const importAudits = await db.auditEntry.findMany({
      where: { org_id: org.id, action: 'plan_acceptance.requested', actor: 'cli' },
    });
    assert.equal(importAudits.length, 2);

    // A quota upload creating a rep: asked with their own quota in the document (not the new-rep one).
    await services.admin.quotas.set({
      orgId: org.id,
      repExternalId: 'rep-051',
      planKey: key,
      from: '2026-01-01',
      quotaCents: 7_500_000,
    });
    // A manager assignment creating both reps.
    await services.admin.repHierarchy.setManager({
      orgId: org.id,
      repExternalId: 'rep-061',
      managerExternalId: 'rep-062',
      from: '2026-01-01',
    });
    assert.deepEqual(await askedReps(), ['rep-031', 'rep-032', 'rep-041', 'rep-042', 'rep-051', 'rep-061', 'rep-062']);
    const rows = await db.planAcceptance.findMany({ where: { org_id: org.id } });
    const sha = new Map(
      await Promise.all(
        rows.map(
          async (row) =>
            [
              (await db.user.findUnique({ where: { org_id_id: { org_id: row.org_id, id: row.user_id } } }))
                ?.external_id,
              row.document_sha256,
            ] as const,
        ),
      ),
    );
    assert.equal(sha.get('rep-061'), sha.get('rep-031'));
    assert.notEqual(sha.get('rep-051'), sha.get('rep-031'));
    const kept = await db.planAcceptance.findFirst({
      where: {
        org_id: org.id,
        user_id: (await db.user.findFirst({ where: { org_id: org.id, external_id: 'rep-051' } }))?.id,
      },
    });
    assert.match(kept?.document ?? '', /7500000|75,000\.00/);

    // Every request announced once, and audited once.
    assert.deepEqual(await messagesFor(), [
      'rep-031',
      'rep-032',
      'rep-041',
      'rep-042',
      'rep-051',
      'rep-061',
      'rep-062',
    ]);
    assert.equal(await db.auditEntry.count({ where: { org_id: org.id, action: 'plan_acceptance.requested' } }), 7);
  });

  test('quotient acceptances list, remind and request; approvals settings --wait-for-acceptance', {
    timeout: SLOW_CLI_TEST_MS,
  }, async ({ db, server, newOrg }) => {
    const w = await world(db, server, newOrg);
    const org = w.org.id;
    const plan = w.first.plan_id;
    // Version 2 names rep-019 (created before it); rep-020, named by no version, is asked nothing.
    await ingest(server, w.rawKey, dealEvent({}, { owner_external_id: 'rep-019' }));
    await w.apply(['rep-017', 'rep-019'], 1000);
    await ingest(server, w.rawKey, dealEvent({}, { owner_external_id: 'rep-020' }));
    assert.deepEqual(await cliJson(['acceptances', 'request', '--org', org, '--plan', plan]), { asked: 0 });

    const listed = await cliJson<{
      plan_version: number;
      accepted_count: number;
      waiting_count: number;
      acceptances: Array<{ user_name: string; plan_acceptance: { id: string; state: string } }>;
    }>(['acceptances', 'list', '--org', org, '--plan', plan]);
    assert.equal(listed.plan_version, 2);
    assert.deepEqual(
      listed.acceptances.map((entry) => [entry.user_name, entry.plan_acceptance.state]),
      [
        ['rep-017', 'requested'],
        ['rep-019', 'requested'],
      ],
    );
    const id = listed.acceptances[0]?.plan_acceptance.id as string;
    const reminded = await cliJson<{ id: string; reminded_at: string | null }>([
      'acceptances',
      'remind',
      id,
      '--org',
      org,
    ]);
    assert.equal(reminded.id, id);
    assert.ok(reminded.reminded_at);
    const soon = await runCli(['acceptances', 'remind', id, '--org', org, '--json']);
    assert.notEqual(soon.code, 0);
    assert.equal((onlyJson(soon) as { error: string }).error, 'reminded_recently');
    const human = await runCli(['acceptances', 'list', '--org', org, '--plan', plan]);
    assert.match(human.stdout, /version 2: 0 accepted, 2 waiting/);
    const unknown = await runCli([
      'acceptances',
      'list',
      '--org',
      org,
      '--plan',
      'plan_01kjsj7s80fmtryrzh7j1q721q',
      '--json',
    ]);
    assert.equal((onlyJson(unknown) as { error: string }).error, 'not_found');

    const settings = await cliJson<{ pay_waits_for_acceptance: boolean }>([
      'approvals',
      'settings',
      '--org',
      org,
      '--wait-for-acceptance',
      'on',
    ]);
    assert.equal(settings.pay_waits_for_acceptance, true);
  });
});
