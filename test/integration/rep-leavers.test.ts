import assert from 'node:assert/strict';
import { describe } from 'vitest';
import type { RunningServer } from '../../src/main.ts';
import { applyPlan, planDocument } from '../factories/plans.ts';
import type { AdminClient } from '../helpers/adminClient.ts';
import { onlyJson, runCli } from '../helpers/cli.ts';
import { testDatabase, testPool } from '../helpers/database.ts';
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

// Provisioning with SCIM (docs/sso.md#provisioning-with-scim): the requests as Okta's and Entra ID's provisioning
// clients send them (RFC 7644; Entra's PATCH with "False" as a string), with the org's SCIM token.
describe('SCIM provisioning', () => {
  const SCIM = 'application/scim+json';
  const PATCH_OP = 'urn:ietf:params:scim:api:messages:2.0:PatchOp';
  const QUOTIENT = 'urn:ietf:params:scim:schemas:extension:quotient:2.0:User';

  test('an identity provider creates, finds, deactivates and reactivates reps; bad tokens and bad users change nothing', async ({
    server,
    newOrg,
    signedIn,
  }) => {
    const { org, client } = await newOrg({ scopes: MINT_SCOPES });
    await client.deals.ingestEvent({
      external_id: 'opp-scim',
      state: { amount_cents: 100_000, stage: 'open', close_date: '2026-04-20', owner_external_id: 'rep-ana' },
    });
    const { client: admin } = await signedIn('admin', org.id);
    const ana = (await admin.api.GET('/admin/v1/reps')).data?.reps.find((each) => each.external_id === 'rep-ana');
    assert.ok(ana);
    await admin.api.POST('/admin/v1/reps/{id}/invitations', {
      params: { path: { id: ana.id } },
      body: { email: 'ana@acme.test' },
    });
    // The shared server keeps no secrets (no QUOTIENT_SECRET_KEY), so the provider is written as the admin API would
    // store it; its client secret is never read here (SCIM needs only the provider's token).
    const provider = { data: { id: `idp_scim${org.id.slice(-8)}` } };
    await testPool().query(
      `INSERT INTO identity_providers (id, org_id, name, issuer, client_id, client_secret, email_domains)
       VALUES ($1, $2, 'okta', 'https://acme.okta.test', 'quotient', 'sealed', ARRAY['acme.test'])`,
      [provider.data.id, org.id],
    );
    const issued = await admin.api.POST('/admin/v1/identity-providers/{id}/scim-token', {
      params: { path: { id: provider.data.id } },
    });
    assert.equal(issued.response.status, 201);
    assert.ok(issued.data?.token.startsWith('qscim_'));
    assert.equal(issued.data?.scim_base_url, `${server.url}/scim/v2`);
    const token = issued.data?.token ?? '';
    const scim = async (method: string, path: string, body?: unknown, bearer = token) => {
      const response = await fetch(`${server.url}/scim/v2${path}`, {
        method,
        headers: { authorization: `Bearer ${bearer}`, accept: SCIM, ...(body ? { 'content-type': SCIM } : {}) },
        ...(body ? { body: JSON.stringify(body) } : {}),
      });
      const text = await response.text();
      // biome-ignore lint/suspicious/noExplicitAny: a SCIM document is read member by member, as a client would
      return { status: response.status, body: text ? (JSON.parse(text) as Record<string, any>) : null };
    };
    const repOf = async (id: string) => (await admin.api.GET('/admin/v1/reps')).data?.reps.find((r) => r.id === id);

    // Okta looks a person up by userName first: the rep invited with the email, in any case.
    const found = await scim('GET', `/Users?filter=${encodeURIComponent('userName eq "Ana@Acme.test"')}`);
    assert.equal(found.status, 200);
    assert.deepEqual(
      [found.body?.totalResults, found.body?.Resources?.[0]?.id, found.body?.Resources?.[0]?.[QUOTIENT]?.repExternalId],
      [1, ana.id, 'rep-ana'],
    );
    assert.equal((await scim('GET', '/ServiceProviderConfig')).body?.patch?.supported, true);

    // Okta's create of that person links them to the rep, with the name it sends.
    const linked = await scim('POST', '/Users', {
      schemas: ['urn:ietf:params:scim:schemas:core:2.0:User'],
      userName: 'ana@acme.test',
      externalId: '00u1okta',
      name: { givenName: 'Ana', familyName: 'Alvarez' },
      emails: [{ primary: true, value: 'ana@acme.test', type: 'work' }],
      active: true,
    });
    assert.equal(linked.status, 201, JSON.stringify(linked.body));
    assert.deepEqual([linked.body?.id, linked.body?.externalId, linked.body?.active], [ana.id, '00u1okta', true]);
    assert.equal((await repOf(ana.id))?.display_name, 'Ana Alvarez');
    // The same userName again is a conflict, as RFC 7644 says.
    const again = await scim('POST', '/Users', { userName: 'ANA@acme.test', active: true });
    assert.deepEqual([again.status, again.body?.scimType], [409, 'uniqueness']);

    // A person who is no rep is refused, saying how to make one; with the CRM owner id, the rep is created.
    const stranger = await scim('POST', '/Users', { userName: 'bo@acme.test', active: true });
    assert.equal(stranger.status, 400);
    assert.match(String(stranger.body?.detail), /repExternalId/);
    const bo = await scim('POST', '/Users', {
      schemas: ['urn:ietf:params:scim:schemas:core:2.0:User', QUOTIENT],
      userName: 'bo@acme.test',
      active: true,
      [QUOTIENT]: { repExternalId: 'rep-bo' },
    });
    assert.equal(bo.status, 201, JSON.stringify(bo.body));
    assert.equal(bo.body?.[QUOTIENT]?.repExternalId, 'rep-bo');

    // Okta deactivates with a PATCH of active: the rep leaves that day, their tokens end.
    const minted = await client.repTokens.create({ user_external_id: 'rep-ana' });
    const okta = await scim('PATCH', `/Users/${ana.id}`, {
      schemas: [PATCH_OP],
      Operations: [{ op: 'replace', value: { active: false } }],
    });
    assert.equal(okta.status, 200, JSON.stringify(okta.body));
    const today = new Date().toISOString().slice(0, 10);
    assert.deepEqual([okta.body?.active, okta.body?.[QUOTIENT]?.leavingDate], [false, today]);
    assert.equal((await repOf(ana.id))?.leaving_date, today);
    assert.equal(
      (
        await sdkClient(server, minted.token, { maxRetries: 0 })
          .deals.listPage()
          .catch((e) => e)
      ).status,
      401,
    );

    // Entra sends the boolean as a string, with a capitalised op: the rep comes back.
    const entra = await scim('PATCH', `/Users/${ana.id}`, {
      schemas: [PATCH_OP],
      Operations: [{ op: 'Replace', path: 'active', value: 'True' }],
    });
    assert.equal(entra.status, 200, JSON.stringify(entra.body));
    assert.deepEqual([(await repOf(ana.id))?.deactivated_at, (await repOf(ana.id))?.leaving_date], [null, null]);
    // A leaving date that is no date is refused before anything changes.
    const badDate = await scim('PUT', `/Users/${ana.id}`, {
      userName: 'ana@acme.test',
      active: false,
      [QUOTIENT]: { leavingDate: '31/12/2026' },
    });
    assert.equal(badDate.status, 400);
    assert.equal((await repOf(ana.id))?.deactivated_at, null);

    // DELETE: the rep leaves (never deleted: the history stays) and is gone for the client.
    assert.equal((await scim('DELETE', `/Users/${ana.id}`)).status, 204);
    assert.equal((await scim('GET', `/Users/${ana.id}`)).status, 404);
    assert.deepEqual([(await repOf(ana.id))?.leaving_date, (await repOf(ana.id))?.external_id], [today, 'rep-ana']);

    // Wrong, missing or revoked tokens: 401 in SCIM's error form.
    const forged = await scim('GET', '/Users', undefined, 'qscim_forged');
    assert.deepEqual([forged.status, forged.body?.schemas], [401, ['urn:ietf:params:scim:api:messages:2.0:Error']]);
    const revoked = await admin.api.DELETE('/admin/v1/identity-providers/{id}/scim-token', {
      params: { path: { id: provider.data.id } },
    });
    assert.equal(revoked.response.status, 204);
    assert.equal((await scim('GET', '/Users')).status, 401);
    // Removing the provider ends a token it had, with its lookup row.
    const last = await admin.api.POST('/admin/v1/identity-providers/{id}/scim-token', {
      params: { path: { id: provider.data.id } },
    });
    assert.equal((await scim('GET', '/Users', undefined, last.data?.token)).status, 200);
    const removed = await admin.api.DELETE('/admin/v1/identity-providers/{id}', {
      params: { path: { id: provider.data.id } },
    });
    assert.equal(removed.response.status, 204);
    assert.equal((await scim('GET', '/Users', undefined, last.data?.token)).status, 401);
    const lookups = await testPool().query(
      "SELECT count(*)::int AS n FROM credential_orgs WHERE org_id = $1 AND kind = 'scim_token'",
      [org.id],
    );
    assert.equal(lookups.rows[0].n, 0);
  });
});
