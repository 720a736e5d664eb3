import assert from 'node:assert/strict';
import { describe } from 'vitest';
import { createAdmin } from '../factories/admins.ts';
import { externalId, postEvent } from '../factories/deals.ts';
import { planDocument, planFile } from '../factories/plans.ts';
import { adminClient } from '../helpers/adminClient.ts';
import { type CliResult, cliJson as cli, onlyJson, runCli } from '../helpers/cli.ts';
import { listAll } from '../helpers/earnings.ts';
import { test } from '../helpers/fixtures.ts';

// Manager overrides end to end (docs/plan-features.md): the hierarchy kept with
// `quotient users set-manager`, the plan applied with the CLI, deal events and reads through the SDK against the
// real server, which validates its own responses against the contract.

// Each CLI call is a real `quotient` process: generous timeouts for a loaded machine (nothing here is timed).
const CLI_PROCESSES_MS = 300_000;

function assertRefused(result: CliResult, code: string, pattern: RegExp): void {
  assert.equal(result.code, 2, result.stderr);
  const document = onlyJson(result) as { error: string; reason: string };
  assert.equal(document.error, code);
  assert.match(document.reason, pattern);
}

/** 10% on every deal for the reps, and a 5% override on their deals for their managers. */
const overridePlan = planDocument({
  chips: [
    { key: 'base', name: 'Base commission', kind: 'commission', rate_bps: 1000 },
    { key: 'override', name: 'Manager override', kind: 'override', rate_bps: 500 },
  ],
});

interface SetManagerOutput {
  changed: boolean;
  entries: Array<{ rep_external_id: string; manager_external_id: string | null; from: string }>;
  recompute: { rows_written: number; rows_superseded: number } | null;
}

describe('manager overrides', () => {
  test(
    "a manager earns one override line on two reports' split deal, explained in the trace; a hierarchy change moves it",
    async ({ org, client }) => {
      await cli(['plans', 'apply', await planFile(overridePlan), '--org', org.id]);
      const first = await cli<SetManagerOutput>([
        'users',
        'set-manager',
        'rep-a',
        'mgr-a',
        '--org',
        org.id,
        '--from',
        '2026-01-01',
      ]);
      assert.equal(first.changed, true);
      assert.deepEqual(
        first.entries.map((entry) => [entry.rep_external_id, entry.manager_external_id, entry.from]),
        [['rep-a', 'mgr-a', '2026-01-01']],
      );
      await cli(['users', 'set-manager', 'rep-b', 'mgr-a', '--org', org.id, '--from', '2026-01-01']);
      const again = await cli<SetManagerOutput>([
        'users',
        'set-manager',
        'rep-b',
        'mgr-a',
        '--org',
        org.id,
        '--from',
        '2026-01-01',
      ]);
      assert.deepEqual([again.changed, again.recompute], [false, null]);

      const external = externalId();
      const won = await client.deals.ingestEvent({
        external_id: external,
        state: { amount_cents: 5_000_001, stage: 'closed_won', close_date: '2026-04-20', owner_external_id: 'rep-a' },
        splits: [
          { owner_external_id: 'rep-a', share_bps: 6000 },
          { owner_external_id: 'rep-b', share_bps: 4000 },
        ],
      });
      const managerRows = await listAll(client, { user_external_id: 'mgr-a' });
      assert.deepEqual(
        managerRows.map((row) => [row.deal_id, row.amount_cents, row.status, row.period_id]),
        [[won.deal_id, 250_000, 'pending', '2026-04']],
      );
      const earning = await client.earnings.get(managerRows[0]?.id as string);
      assert.equal(earning.trace?.chip.kind, 'override');
      const step = earning.trace?.steps.find((candidate) => candidate.type === 'override');
      assert.deepEqual(step, {
        type: 'override',
        manager_external_id: 'mgr-a',
        depth: 1,
        as_of: '2026-04-20',
        reports: [
          {
            owner_external_id: 'rep-a',
            share_bps: 6000,
            credited_cents: 3_000_001,
            level: 1,
            path: ['rep-a', 'mgr-a'],
          },
          {
            owner_external_id: 'rep-b',
            share_bps: 4000,
            credited_cents: 2_000_000,
            level: 1,
            path: ['rep-b', 'mgr-a'],
          },
        ],
        base_cents: 5_000_001,
      });
      assert.ok(
        earning.trace?.explanation.includes('The deal counts once for mgr-a: 30,000.01 + 20,000.00 = 50,000.01.'),
      );

      // From April on, rep-b reports to mgr-b: mgr-a keeps rep-a's share only, mgr-b gets rep-b's.
      const moved = await cli<SetManagerOutput>([
        'users',
        'set-manager',
        'rep-b',
        'mgr-b',
        '--org',
        org.id,
        '--from',
        '2026-04-01',
      ]);
      assert.equal(moved.changed, true);
      assert.ok(moved.recompute && moved.recompute.rows_superseded >= 1);
      const live = (await listAll(client, { deal_id: won.deal_id }))
        .filter((row) => row.status === 'pending')
        .map((row) => [row.user_external_id, row.amount_cents])
        .sort();
      assert.deepEqual(live, [
        ['mgr-a', 150_000],
        ['mgr-b', 100_000],
        ['rep-a', 300_000],
        ['rep-b', 200_000],
      ]);
      const replaced = (await listAll(client, { user_external_id: 'mgr-a', status: ['pending'] }))[0];
      const replacement = await client.earnings.get(replaced?.id as string);
      assert.equal(replacement.trace?.superseded?.reason?.code, 'hierarchy_changed');

      const listed = await cli<{ managers: SetManagerOutput['entries'] }>(['users', 'managers', '--org', org.id]);
      assert.deepEqual(
        listed.managers.map((entry) => [entry.rep_external_id, entry.manager_external_id, entry.from]),
        [
          ['rep-a', 'mgr-a', '2026-01-01'],
          ['rep-b', 'mgr-a', '2026-01-01'],
          ['rep-b', 'mgr-b', '2026-04-01'],
        ],
      );
    },
    CLI_PROCESSES_MS,
  );

  test(
    'set-manager refuses a cycle, a day that does not exist and an unknown org, changing nothing; --none clears',
    async ({ org }) => {
      await cli(['users', 'set-manager', 'rep-a', 'mgr-a', '--org', org.id, '--from', '2026-01-01']);
      assertRefused(
        await runCli(['users', 'set-manager', 'mgr-a', 'rep-a', '--org', org.id, '--from', '2026-02-01', '--json']),
        'invalid_argument',
        /own manager from 2026-02-01/,
      );
      assertRefused(
        await runCli(['users', 'set-manager', 'rep-a', 'mgr-b', '--org', org.id, '--from', '2026-02-30', '--json']),
        'invalid_argument',
        /not a day that exists/,
      );
      assertRefused(
        await runCli(['users', 'set-manager', 'rep-a', 'mgr-b', '--org', 'org_missing', '--json']),
        'not_found',
        /no org/,
      );
      const usage = await runCli(['users', 'set-manager', 'rep-a', 'mgr-b', '--none', '--org', org.id, '--json']);
      assertRefused(usage, 'usage_error', /either <manager> or --none/);
      const cleared = await cli<SetManagerOutput>([
        'users',
        'set-manager',
        'rep-a',
        '--none',
        '--org',
        org.id,
        '--from',
        '2026-03-01',
      ]);
      assert.deepEqual(
        cleared.entries.map((entry) => [entry.manager_external_id, entry.from]),
        [
          ['mgr-a', '2026-01-01'],
          [null, '2026-03-01'],
        ],
      );
    },
    CLI_PROCESSES_MS,
  );

  test(
    "the admin API reads and sets a rep's manager, recomputing the override it moves",
    async ({ db, server, org, client: sdk }) => {
      await cli(['plans', 'apply', await planFile(overridePlan), '--org', org.id]);
      const account = await createAdmin(db, org.id, 'admin');
      const client = adminClient(server);
      assert.equal((await client.signIn(account.email, account.password)).response.status, 201);
      await sdk.deals.ingestEvent({
        external_id: externalId(),
        state: { amount_cents: 1_000_000, stage: 'closed_won', close_date: '2026-04-20', owner_external_id: 'rep-x' },
      });
      const rep = (await client.api.GET('/admin/v1/reps')).data?.reps.find(
        (candidate) => candidate.external_id === 'rep-x',
      );
      assert.ok(rep);
      const path = { params: { path: { id: rep.id } } };
      const empty = await client.api.GET('/admin/v1/reps/{id}/managers', path);
      assert.deepEqual(empty.data?.entries, []);

      const set = await client.api.POST('/admin/v1/reps/{id}/managers', {
        ...path,
        body: { manager_external_id: 'mgr-x', from: '2026-01-01' },
      });
      assert.equal(set.response.status, 200, JSON.stringify(set.error));
      assert.deepEqual([set.data?.changed, set.data?.rows_recomputed], [true, 1]);
      assert.deepEqual(set.data?.entries, [{ manager_external_id: 'mgr-x', from: '2026-01-01' }]);
      const override = await listAll(sdk, { user_external_id: 'mgr-x' });
      assert.deepEqual(
        override.map((row) => [row.amount_cents, row.status]),
        [[50_000, 'pending']],
      );

      const cycle = (await client.api.GET('/admin/v1/reps')).data?.reps.find(
        (candidate) => candidate.external_id === 'mgr-x',
      );
      const refused = await client.api.POST('/admin/v1/reps/{id}/managers', {
        params: { path: { id: cycle?.id as string } },
        body: { manager_external_id: 'rep-x' },
      });
      assert.equal(refused.response.status, 400);
      assert.equal(refused.error?.error, 'invalid_body');
      const missing = await client.api.GET('/admin/v1/reps/{id}/managers', {
        params: { path: { id: 'user_missing' } },
      });
      assert.equal(missing.response.status, 404);
      assert.deepEqual((await client.api.GET('/admin/v1/reps/{id}/managers', path)).data?.entries, set.data?.entries);

      // Every rep path takes the external id as well as the user id, as the sign-in-link endpoint always did.
      const byExternal = { params: { path: { id: 'rep-x' } } };
      const again = await client.api.POST('/admin/v1/reps/{id}/managers', {
        ...byExternal,
        body: { manager_external_id: 'mgr-x', from: '2026-01-01' },
      });
      assert.equal(again.response.status, 200, JSON.stringify(again.error));
      assert.deepEqual(
        [again.data?.rep_id, again.data?.rep_external_id, again.data?.changed],
        [rep.id, 'rep-x', false],
      );
      assert.deepEqual(
        (await client.api.GET('/admin/v1/reps/{id}/managers', byExternal)).data?.entries,
        set.data?.entries,
      );
      const earnings = await client.api.GET('/admin/v1/reps/{id}/earnings', {
        params: { path: { id: 'rep-x' }, query: { period: '2026-04' } },
      });
      assert.deepEqual([earnings.data?.rep.id, earnings.data?.earnings.length], [rep.id, 1]);
      const started = await client.api.GET('/admin/v1/reps/{id}/start-date', byExternal);
      assert.equal(started.data?.rep_id, rep.id);
      const link = await client.api.POST('/admin/v1/reps/{id}/sign-in-links', byExternal);
      assert.deepEqual([link.response.status, link.data?.rep_id], [201, rep.id]);
      const unknown = await client.api.POST('/admin/v1/reps/{id}/managers', {
        params: { path: { id: 'nobody-here' } },
        body: { manager_external_id: 'mgr-x' },
      });
      assert.deepEqual([unknown.response.status, unknown.error?.error], [404, 'not_found']);
    },
    CLI_PROCESSES_MS,
  );

  test(
    "concurrent deal events naming each other's new reps (owner of one, split rep of the other) all succeed",
    async ({ server, org, rawKey, client: sdk }) => {
      await cli(['plans', 'apply', await planFile(overridePlan), '--org', org.id]);
      // Each pair: deal X owned by new rep b, split with new rep a; deal Y owned by new rep a, split with b. Creating
      // the owner first and the split reps after would make each event wait for the other's uncommitted rep.
      const pairs = Array.from({ length: 12 }, (_, index) => [`pair${index}-a`, `pair${index}-b`] as const);
      // Raw requests: the SDK would retry a failed event and hide the failure.
      const statuses = await Promise.all(
        pairs.flatMap(([a, b]) =>
          [
            [b, a],
            [a, b],
          ].map(async ([owner, other]) => {
            const response = await postEvent(server, rawKey, {
              external_id: externalId(),
              state: { amount_cents: 100_000, stage: 'closed_won', close_date: '2026-04-20', owner_external_id: owner },
              splits: [
                { owner_external_id: owner, share_bps: 5000 },
                { owner_external_id: other, share_bps: 5000 },
              ],
            });
            return response.status;
          }),
        ),
      );
      assert.deepEqual(
        statuses.filter((status) => status !== 201),
        [],
      );
      const rows = await listAll(sdk, { status: ['pending'] });
      assert.equal(rows.length, pairs.length * 4);
    },
    CLI_PROCESSES_MS,
  );

  test(
    "a report's deal event evaluates the manager's override line of it, not the manager's own lines; a plan change projects in paid months",
    async ({ org, client }) => {
      const v1 = planDocument({
        quota_cents: null,
        chips: [
          { key: 'base', name: 'Base commission', kind: 'commission', rate_bps: 1000 },
          { key: 'override', name: 'Manager override', kind: 'override', rate_bps: 500 },
        ],
      });
      await cli(['plans', 'apply', await planFile(v1), '--org', org.id]);
      await cli(['users', 'set-manager', 'rep-1', 'mgr-1', '--org', org.id, '--from', '2026-01-01']);
      // ov2: open, dated in March, credits mgr-1 (who is also a rep) and rep-2 half each. w1: mgr-1's own deal, won
      // in March. d15: rep-1's deal, won in May.
      const ov2 = await client.deals.ingestEvent({
        external_id: externalId('ov2'),
        state: { amount_cents: 2_000_000, stage: 'proposal', close_date: '2026-03-20', owner_external_id: 'mgr-1' },
        splits: [
          { owner_external_id: 'mgr-1', share_bps: 5000 },
          { owner_external_id: 'rep-2', share_bps: 5000 },
        ],
      });
      const w1External = externalId('w1');
      const w1State = {
        amount_cents: 1_000_000,
        stage: 'closed_won',
        close_date: '2026-03-05',
        owner_external_id: 'mgr-1',
      };
      const w1 = await client.deals.ingestEvent({ external_id: w1External, state: w1State });
      const d15External = externalId('d15');
      const d15State = { amount_cents: 3_000_000, stage: 'closed_won', owner_external_id: 'rep-1' };
      const d15 = await client.deals.ingestEvent({
        external_id: d15External,
        state: { ...d15State, close_date: '2026-05-10' },
      });
      await cli(['periods', 'lock', '2026-03', '--org', org.id]);
      await cli(['periods', 'mark-paid', '2026-03', '--org', org.id]);

      // March is paid when version 2 adds a retroactive tiered chip: 10% in every band.
      const v2 = await cli<{ chips: Array<{ id: string; key: string }> }>([
        'plans',
        'apply',
        await planFile({
          ...v1,
          chips: [
            ...v1.chips,
            {
              key: 'retro',
              name: 'Retroactive tiers',
              kind: 'tiered_commission',
              mode: 'retroactive',
              tiers: [
                { up_to_cents: 10_000_000, rate_bps: 1000 },
                { up_to_cents: null, rate_bps: 1000 },
              ],
            },
          ],
        }),
        '--org',
        org.id,
      ]);
      const chipKey = new Map(v2.chips.map((chip) => [chip.id, chip.key]));
      const live = async (userExternalId: string) =>
        (await listAll(client, { user_external_id: userExternalId, status: ['pending', 'projected'] }))
          .map((row) => [chipKey.get(row.rule_chip_id), row.deal_id, row.status, row.amount_cents, row.period_id])
          .sort();
      // The forecast on the open deal is recomputed in the paid month: 10% of mgr-1's half of 20,000.00. What w1
      // earned in March is not reopened by the plan change: its new retro line has no row yet.
      assert.deepEqual(await live('mgr-1'), [
        ['base', ov2.deal_id, 'projected', 100_000, '2026-03'],
        ['override', d15.deal_id, 'pending', 150_000, '2026-05'],
        ['retro', ov2.deal_id, 'projected', 100_000, '2026-03'],
      ]);

      // d15 moves into paid March. Its event evaluates rep-1's lines and mgr-1's override line of d15, booked in
      // April; not mgr-1's own lines, which d15 does not move (the retro line of w1 stays without a row).
      const moved = await client.deals.ingestEvent({
        external_id: d15External,
        state: { ...d15State, close_date: '2026-03-25' },
      });
      const byMove = (await listAll(client))
        .filter((row) => row.triggering_domain_event_id === moved.domain_event_id)
        .map((row) => [
          row.user_external_id,
          chipKey.get(row.rule_chip_id),
          row.deal_id,
          row.amount_cents,
          row.period_id,
        ])
        .sort();
      assert.deepEqual(byMove, [
        ['mgr-1', 'override', d15.deal_id, 150_000, '2026-04'],
        ['rep-1', 'base', d15.deal_id, 300_000, '2026-04'],
        ['rep-1', 'retro', d15.deal_id, 300_000, '2026-04'],
      ]);

      // The earned line the plan change left is brought to the new version by the next event that evaluates it:
      // one of a deal crediting mgr-1 in March (here w1 itself), booked as a top-up in the earliest open period.
      const touched = await client.deals.ingestEvent({
        external_id: w1External,
        state: { ...w1State, custom: { note: 'renewal' } },
      });
      const topUp = (await listAll(client, { user_external_id: 'mgr-1' })).filter(
        (row) => row.triggering_domain_event_id === touched.domain_event_id,
      );
      assert.deepEqual(
        topUp.map((row) => [chipKey.get(row.rule_chip_id), row.deal_id, row.status, row.amount_cents, row.period_id]),
        [['retro', w1.deal_id, 'pending', 100_000, '2026-04']],
      );
    },
    CLI_PROCESSES_MS,
  );
});
