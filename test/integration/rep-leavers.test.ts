import assert from 'node:assert/strict';
import { describe } from 'vitest';
import type { RunningServer } from '../../src/main.ts';
import { applyPlan, planDocument } from '../factories/plans.ts';
import type { AdminClient } from '../helpers/adminClient.ts';
import { onlyJson, runCli } from '../helpers/cli.ts';
import { testDatabase } from '../helpers/database.ts';
import { test } from '../helpers/fixtures.ts';
import { MINT_SCOPES } from '../helpers/repWorld.ts';
import { sdkClient } from '../helpers/sdk.ts';

// Leavers and returners (docs/reps-and-payroll.md, "Leavers and returners"): deactivating a rep ends their portal
// sessions and rep tokens at once and refuses their sign-in; reactivating brings them back with their history.

/** Signs the rep in with a one-time link, as the portal does; the response of the link's form. */
async function signInWithLink(server: RunningServer, admin: AdminClient, repId: string) {
  const link = await admin.api.POST('/admin/v1/reps/{id}/sign-in-links', { params: { path: { id: repId } } });
  assert.ok(link.data, JSON.stringify(link.error));
  return fetch(`${server.url}/portal/link`, {
    method: 'POST',
    redirect: 'manual',
    headers: { origin: server.url, 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({ token: new URL(link.data.url).searchParams.get('token') ?? '' }),
  });
}

describe('leavers and returners', () => {
  test('deactivating ends the sessions and tokens at once and refuses sign-in; reactivating brings the rep back with their history', async ({
    server,
    newOrg,
    signedIn,
  }) => {
    const { org, client } = await newOrg({ scopes: MINT_SCOPES });
    await applyPlan(testDatabase(), org.id, planDocument());
    await client.deals.ingestEvent({
      external_id: 'opp-leaver',
      state: { amount_cents: 1_000_000, stage: 'closed_won', close_date: '2026-04-20', owner_external_id: 'rep-l' },
    });
    // Dated after the leaving date: the plan's default leaver rule (pay_through_leaving_date) stops paying it.
    await client.deals.ingestEvent({
      external_id: 'opp-after',
      state: {
        amount_cents: 1_000_000,
        stage: 'closed_won',
        close_date: '2026-05-20',
        owner_external_id: 'rep-l',
        region: 'EMEA',
      },
    });
    const mayRows = async () => (await client.earnings.listPage({ period_id: '2026-05' })).earnings;
    const paidInMay = async () =>
      (await mayRows()).filter((row) => row.status !== 'reversed').reduce((sum, row) => sum + row.amount_cents, 0);
    const mayBefore = await paidInMay();
    assert.ok(mayBefore > 0);
    const { client: admin } = await signedIn('admin', org.id);
    const rep = (await admin.api.GET('/admin/v1/reps')).data?.reps.find((each) => each.external_id === 'rep-l');
    assert.ok(rep);
    assert.deepEqual([rep.leaving_date, rep.deactivated_at], [null, null]);

    const signIn = await signInWithLink(server, admin, rep.id);
    assert.equal(signIn.status, 303);
    const session = { cookie: signIn.headers.get('set-cookie')?.split(';')[0] ?? '', origin: server.url };
    const minted = await client.repTokens.create({ user_external_id: 'rep-l' });
    const repApi = sdkClient(server, minted.token, { maxRetries: 0 });
    assert.equal((await repApi.deals.listPage()).deals.length, 2);

    const deactivated = await admin.api.POST('/admin/v1/reps/{id}/deactivate', {
      params: { path: { id: rep.id } },
      body: { leaving_date: '2026-05-15' },
    });
    assert.equal(deactivated.response.status, 200);
    assert.deepEqual(
      [
        deactivated.data?.active,
        deactivated.data?.leaving_date,
        deactivated.data?.changed,
        deactivated.data?.sessions_ended,
        deactivated.data?.tokens_revoked,
      ],
      [false, '2026-05-15', true, 1, 1],
    );
    // At once: the session's cookie and the token no longer work, and a new sign-in or token is refused.
    assert.equal((await fetch(`${server.url}/portal/token`, { method: 'POST', headers: session })).status, 401);
    await assert.rejects(repApi.deals.listPage(), { status: 401 });
    const refused = await signInWithLink(server, admin, rep.id);
    assert.equal(refused.status, 403);
    assert.match(await refused.text(), /no longer active/);
    await assert.rejects(client.repTokens.create({ user_external_id: 'rep-l' }), { status: 403 });
    const listed = (await admin.api.GET('/admin/v1/reps')).data?.reps.find((each) => each.id === rep.id);
    assert.equal(listed?.leaving_date, '2026-05-15');
    assert.ok(listed?.deactivated_at);
    // The leaver's lines were recomputed at once: May's deal (after the leaving date) earns nothing any more.
    assert.equal(await paidInMay(), 0);
    const reversed = (await mayRows()).find((row) => row.status === 'reversed');
    assert.equal(reversed?.status_reason?.code, 'rep_left');
    assert.deepEqual((await client.statements.get(rep.id, '2026-05')).final, { leaving_date: '2026-05-15' });
    assert.equal((await client.statements.get(rep.id, '2026-04')).final, undefined);
    const [entry] = await testDatabase().auditEntry.findMany({ where: { org_id: org.id, action: 'rep.deactivated' } });
    assert.equal((entry?.details as { leaving_date?: string } | undefined)?.leaving_date, '2026-05-15');

    const again = await admin.api.POST('/admin/v1/reps/{id}/deactivate', {
      params: { path: { id: rep.id } },
      body: { leaving_date: '2026-05-15' },
    });
    assert.equal(again.data?.changed, false);
    const badDate = await admin.api.POST('/admin/v1/reps/{id}/deactivate', {
      params: { path: { id: rep.id } },
      body: { leaving_date: '2026-02-30' },
    });
    assert.equal(badDate.response.status, 400);

    const back = await admin.api.POST('/admin/v1/reps/{id}/reactivate', { params: { path: { id: rep.id } } });
    assert.deepEqual([back.data?.active, back.data?.leaving_date, back.data?.changed], [true, null, true]);
    assert.equal(await paidInMay(), mayBefore);
    assert.equal((await client.statements.get(rep.id, '2026-05')).final, undefined);
    assert.equal((await signInWithLink(server, admin, rep.id)).status, 303);
    const returned = sdkClient(server, (await client.repTokens.create({ user_external_id: 'rep-l' })).token);
    assert.equal((await returned.deals.listPage()).deals.length, 2);
  });

  test('quotient users deactivate needs --leaving-date; deactivate and reactivate name the rep by external id', async ({
    org,
    client,
  }) => {
    await client.deals.ingestEvent({
      external_id: 'opp-cli',
      state: { amount_cents: 100_000, stage: 'closed_won', close_date: '2026-04-20', owner_external_id: 'rep-cli' },
    });
    const without = await runCli(['users', 'deactivate', 'rep-cli', '--org', org.id]);
    assert.notEqual(without.code, 0);
    assert.match(without.stderr, /--leaving-date/);
    const left = await runCli([
      'users',
      'deactivate',
      'rep-cli',
      '--org',
      org.id,
      '--leaving-date',
      '2026-06-30',
      '--json',
    ]);
    assert.equal(left.code, 0, left.stderr);
    assert.deepEqual(
      [(onlyJson(left) as { active?: boolean }).active, (onlyJson(left) as { leaving_date?: string }).leaving_date],
      [false, '2026-06-30'],
    );
    const back = await runCli(['users', 'reactivate', 'rep-cli', '--org', org.id, '--json']);
    assert.equal(back.code, 0, back.stderr);
    assert.equal((onlyJson(back) as { active?: boolean }).active, true);
  });
});
