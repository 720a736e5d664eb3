import assert from 'node:assert/strict';
import { describe } from 'vitest';
import { stringify } from 'yaml';
import { periodBounds, periodIdOf } from '../../src/domain/periods.ts';
import { applyPlan, planDocument } from '../factories/plans.ts';
import { cliJson as cli, runCli } from '../helpers/cli.ts';
import { test } from '../helpers/fixtures.ts';

// Reps' display names (docs/reps-and-payroll.md#display-names): set by an admin through the admin API and the CLI,
// audited, shown by the admin API and /v1, and the name a rep types to accept a plan. The portal's sign-in taking the
// provider's name is in portal-sign-in.e2e.test.ts. Through the real server, which validates its own responses.

// Each CLI call is a real `quotient` process: generous timeouts for a loaded machine (nothing here is timed).
const CLI_PROCESSES_MS = 300_000;

function won(externalId: string, owner: string) {
  return {
    external_id: externalId,
    state: { amount_cents: 5_000_000, stage: 'closed_won', close_date: '2026-04-20', owner_external_id: owner },
  };
}

describe("setting a rep's display name", () => {
  test('an admin names a rep: audited once, shown by the admin API and /v1, and the same name again changes nothing', async ({
    db,
    org,
    client,
    signedIn,
  }) => {
    await client.deals.ingestEvent(won('opp-1', 'rep-017'));
    const rep = await client.users.findByExternalId('rep-017');
    assert.ok(rep);
    assert.equal(rep.display_name, null);
    const { client: admin, account } = await signedIn('admin', org.id);

    const set = await admin.api.POST('/admin/v1/reps/{id}/display-name', {
      params: { path: { id: rep.id } },
      body: { display_name: '  Dana   Reyes ' },
    });
    assert.equal(set.response.status, 200, JSON.stringify(set.error));
    assert.deepEqual(set.data, {
      rep_id: rep.id,
      rep_external_id: 'rep-017',
      display_name: 'Dana Reyes',
      display_name_source: 'admin',
      changed: true,
    });
    const listed = await admin.api.GET('/admin/v1/reps');
    const row = listed.data?.reps.find((entry) => entry.id === rep.id);
    assert.deepEqual([row?.display_name, row?.display_name_source], ['Dana Reyes', 'admin']);
    assert.equal((await client.users.get(rep.id)).display_name, 'Dana Reyes');
    assert.equal((await client.statements.get(rep.id, '2026-04')).user.display_name, 'Dana Reyes');

    const again = await admin.api.POST('/admin/v1/reps/{id}/display-name', {
      params: { path: { id: rep.id } },
      body: { display_name: 'Dana Reyes' },
    });
    assert.equal(again.data?.changed, false);
    const entries = await db.auditEntry.findMany({ where: { org_id: org.id, action: 'rep.display_name_set' } });
    assert.equal(entries.length, 1);
    assert.equal(entries[0]?.actor, account.email);
    assert.deepEqual(
      {
        ...(entries[0]?.details as Record<string, unknown>),
        admin_id: undefined,
      },
      {
        rep_id: rep.id,
        rep_external_id: 'rep-017',
        display_name: 'Dana Reyes',
        previous_display_name: null,
        previous_source: null,
        via: 'console',
        admin_id: undefined,
      },
    );

    const cleared = await admin.api.POST('/admin/v1/reps/{id}/display-name', {
      params: { path: { id: rep.id } },
      body: { display_name: null },
    });
    assert.deepEqual(
      [cleared.data?.display_name, cleared.data?.display_name_source, cleared.data?.changed],
      [null, null, true],
    );
    assert.equal((await client.users.get(rep.id)).display_name, null);
  });

  test('a blank, too long or control-character name is 400 in the error format, and nothing changes', async ({
    db,
    org,
    client,
    signedIn,
  }) => {
    await client.deals.ingestEvent(won('opp-1', 'rep-017'));
    const rep = await client.users.findByExternalId('rep-017');
    assert.ok(rep);
    const { client: admin } = await signedIn('admin', org.id);
    const names = ['', '   ', 'x'.repeat(201), 'Dana\u0007Reyes'];
    const refusals = await Promise.all(
      names.map((name) =>
        admin.api.POST('/admin/v1/reps/{id}/display-name', {
          params: { path: { id: rep.id } },
          body: { display_name: name },
        }),
      ),
    );
    for (const [index, refused] of refusals.entries()) {
      assert.equal(refused.response.status, 400, JSON.stringify(names[index]));
      assert.equal(refused.error?.error, 'invalid_body');
      assert.match(refused.error?.reason ?? '', /display_name/);
      assert.doesNotMatch(JSON.stringify(refused.error), /users|UPDATE|prisma|at .*\.ts/);
    }
    assert.equal((await client.users.get(rep.id)).display_name, null);
    // 200 characters is the longest name kept.
    const longest = await admin.api.POST('/admin/v1/reps/{id}/display-name', {
      params: { path: { id: rep.id } },
      body: { display_name: 'é'.repeat(200) },
    });
    assert.equal(longest.response.status, 200, JSON.stringify(longest.error));
    assert.equal(await db.auditEntry.count({ where: { org_id: org.id, action: 'rep.display_name_set' } }), 1);
  });

  test('a viewer may not name a rep (403); an unknown rep is 404', async ({ org, client, signedIn }) => {
    await client.deals.ingestEvent(won('opp-1', 'rep-017'));
    const rep = await client.users.findByExternalId('rep-017');
    assert.ok(rep);
    const { client: viewer } = await signedIn('viewer', org.id);
    const refused = await viewer.api.POST('/admin/v1/reps/{id}/display-name', {
      params: { path: { id: rep.id } },
      body: { display_name: 'Dana Reyes' },
    });
    assert.equal(refused.response.status, 403);
    assert.equal(refused.error?.error, 'forbidden');
    const { client: admin } = await signedIn('admin', org.id);
    const unknown = await admin.api.POST('/admin/v1/reps/{id}/display-name', {
      params: { path: { id: 'user_01knvyqwr3fmtr77g6vdncr599' } },
      body: { display_name: 'Dana Reyes' },
    });
    assert.equal(unknown.response.status, 404);
    assert.equal(unknown.error?.error, 'not_found');
    assert.equal((await client.users.get(rep.id)).display_name, null);
  });

  test('the name an admin set is the name the rep types to accept a plan', async ({ server, newOrg, signedIn }) => {
    const { org, client } = await newOrg({
      scopes: ['deals:write', 'deals:read', 'earnings:read', 'plans:read', 'rep_tokens:write'],
    });
    await client.deals.ingestEvent(won('opp-1', 'rep-017'));
    const rep = await client.users.findByExternalId('rep-017');
    assert.ok(rep);
    const { client: admin } = await signedIn('admin', org.id);
    await admin.api.POST('/admin/v1/reps/{id}/display-name', {
      params: { path: { id: rep.id } },
      body: { display_name: 'Dana Reyes' },
    });
    const applied = await admin.api.POST('/admin/v1/plan-files', {
      body: { text: stringify(planDocument({ assignees: ['rep-017'] })) },
    });
    assert.equal(applied.response.status, 200, JSON.stringify(applied.error));
    const { token } = await client.repTokens.create({ user_id: rep.id });
    const accept = (typedName: string) =>
      fetch(`${server.url}/v1/plans/${applied.data?.plan_id}/acceptances`, {
        method: 'POST',
        headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
        body: JSON.stringify({ typed_name: typedName }),
      });
    const byExternalId = await accept('rep-017');
    assert.equal(byExternalId.status, 422);
    assert.equal(((await byExternalId.json()) as { error: string }).error, 'typed_name_mismatch');
    const byName = await accept('dana  REYES');
    assert.equal(byName.status, 200, await byName.clone().text());
    const accepted = (await byName.json()) as { plan_acceptance: { state: string; typed_name: string } };
    assert.deepEqual(
      [accepted.plan_acceptance.state, accepted.plan_acceptance.typed_name],
      ['accepted', 'dana  REYES'],
    );
  });
});

describe("the quota file's display_name column", () => {
  test('names reps (created on first sight), audited by line; a conflict refuses the file; the same file again is a no-op', async ({
    db,
    org,
    signedIn,
  }) => {
    const { client: admin } = await signedIn('admin', org.id);
    const conflicting = await admin.api.POST('/admin/v1/quota-files', {
      body: { text: ['rep_external_id,start_date,display_name', 'rep-a,,Ada Lovelace', 'rep-a,,Ada King'].join('\n') },
    });
    assert.equal(conflicting.response.status, 400);
    assert.equal(conflicting.error?.error, 'invalid_body');
    assert.match(conflicting.error?.reason ?? '', /line 3: display_name: differs from line 2 for this rep/);
    assert.equal(await db.user.count({ where: { org_id: org.id } }), 0);

    const text = ['rep_external_id,start_date,display_name', 'rep-a,,Ada  Lovelace', 'rep-b,2026-02-09,'].join('\n');
    const applied = await admin.api.POST('/admin/v1/quota-files', { body: { text } });
    assert.equal(applied.response.status, 200, JSON.stringify(applied.error));
    assert.deepEqual(
      [applied.data?.display_names_changed, applied.data?.start_dates_changed, applied.data?.changed],
      [1, 1, true],
    );
    const ada = await db.user.findFirstOrThrow({ where: { org_id: org.id, external_id: 'rep-a' } });
    assert.deepEqual([ada.display_name, ada.display_name_source], ['Ada Lovelace', 'admin']);
    const audited = await db.auditEntry.findFirstOrThrow({ where: { org_id: org.id, action: 'rep.display_name_set' } });
    assert.deepEqual(
      [
        (audited.details as Record<string, unknown>).display_name,
        (audited.details as Record<string, unknown>).file_line,
      ],
      ['Ada Lovelace', 2],
    );

    const again = await admin.api.POST('/admin/v1/quota-files', { body: { text } });
    assert.deepEqual([again.data?.display_names_changed, again.data?.changed], [0, false]);
    assert.equal(await db.auditEntry.count({ where: { org_id: org.id, action: 'rep.display_name_set' } }), 1);
  });
});

describe('the CLI', () => {
  test(
    'quotient reps set-name names a rep by external id, refuses a blank name, and clears it',
    async ({ db, org, client }) => {
      await client.deals.ingestEvent(won('opp-1', 'rep-017'));
      const rep = await client.users.findByExternalId('rep-017');
      assert.ok(rep);

      const named = await cli<Record<string, unknown>>(['reps', 'set-name', 'rep-017', 'Dana Reyes', '--org', org.id]);
      assert.deepEqual(named, {
        rep_id: rep.id,
        rep_external_id: 'rep-017',
        display_name: 'Dana Reyes',
        display_name_source: 'admin',
        changed: true,
      });
      const audited = await db.auditEntry.findFirstOrThrow({
        where: { org_id: org.id, action: 'rep.display_name_set' },
      });
      assert.equal((audited.details as Record<string, unknown>).via, 'cli');

      const blank = await runCli(['reps', 'set-name', rep.id, '  ', '--org', org.id, '--json']);
      assert.notEqual(blank.code, 0);
      assert.equal((JSON.parse(blank.stdout) as { error: string }).error, 'invalid_argument');
      const unknown = await runCli(['reps', 'set-name', 'rep-404', 'Nobody', '--org', org.id, '--json']);
      assert.equal((JSON.parse(unknown.stdout) as { error: string }).error, 'not_found');

      const cleared = await cli<{ display_name: string | null }>([
        'reps',
        'set-name',
        rep.id,
        '--clear',
        '--org',
        org.id,
      ]);
      assert.equal(cleared.display_name, null);
      assert.equal((await client.users.get(rep.id)).display_name, null);
    },
    CLI_PROCESSES_MS,
  );

  test(
    "quotient plans document --user writes the rep's own document, with their quota; an unknown rep is not_found",
    async ({ db, org, services }) => {
      const plan = planDocument();
      const applied = await applyPlan(db, org.id, plan);
      const month = periodIdOf(new Date().toISOString().slice(0, 10), 'monthly');
      await services.admin.quotas.set({
        orgId: org.id,
        repExternalId: 'rep-q',
        planKey: plan.key,
        from: periodBounds(month).starts_on,
        quotaCents: 12_000_000,
      });

      const document = async (args: string[]) => {
        const result = await runCli([
          'plans',
          'document',
          applied.plan_id,
          '--org',
          org.id,
          '--format',
          'json',
          ...args,
        ]);
        assert.equal(result.code, 0, result.stdout + result.stderr);
        return JSON.parse(result.stdout) as { quota: { periods: Array<{ period_id: string; amount: string | null }> } };
      };
      const plans = await document([]);
      assert.deepEqual(plans.quota.periods, []);
      const own = await document(['--user', 'rep-q']);
      assert.deepEqual(own.quota.periods[0], { ...own.quota.periods[0], period_id: month, amount: '120,000.00' });
      const user = await db.user.findFirstOrThrow({ where: { org_id: org.id, external_id: 'rep-q' } });
      assert.deepEqual(await document(['--user', user.id]), own);

      const unknown = await runCli(['plans', 'document', applied.plan_id, '--org', org.id, '--user', 'rep-404']);
      assert.notEqual(unknown.code, 0);
      assert.match(unknown.stderr + unknown.stdout, /not_found|no rep rep-404/);
    },
    CLI_PROCESSES_MS,
  );
});
